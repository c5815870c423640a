"""Each bot level's measured results against GNU Go level 10, from the match logs (analysis.match.levels)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.bot.levels import LEVELS
from analysis.match.levels import LevelRecord, level_of, level_records, main, measured_levels, todays_networks
from analysis.nets.fingerprint import fingerprint

GNUGO = "/usr/games/gnugo --mode gtp --level 10 --chinese-rules"


def game(a: str, winner: str | None, b: str = GNUGO) -> dict:
    return {"number": 1, "winner": winner, "engines": {"A": a, "B": b}}


def test_the_level_comes_from_our_engines_command_line() -> None:
    assert level_of("python -m analysis.gtp --level mcts-200") == "mcts-200"
    assert level_of(".venv/bin/python -m analysis.gtp --level mcts-2s --weights /tmp/b12.pt") == "mcts-2s"
    assert level_of("/usr/games/gnugo --mode gtp --level 10") is None
    assert level_of("python -m analysis.gtp") is None


def test_only_games_against_gnugo_level_10_count_and_a_draw_counts_half() -> None:
    records = [
        game("python -m analysis.gtp --level policy", "A"),
        game("python -m analysis.gtp --level policy", "B"),
        game("python -m analysis.gtp --level policy", None),
        game("python -m analysis.gtp --level policy", "A", b="/usr/games/gnugo --mode gtp --level 5"),
        game("python -m analysis.gtp --level mcts-50", "A", b="python -m analysis.gtp --level rules"),
    ]
    assert level_records(records) == {"policy": LevelRecord("policy", games=3, wins=1, draws=1)}
    assert level_records(records)["policy"].win_rate == 0.5


@pytest.mark.parametrize(("wins", "word"), [(0, "easy"), (3, "medium"), (6, "hard"), (8, "very hard")])
def test_the_plain_word_follows_the_win_rate(wins: int, word: str) -> None:
    record = LevelRecord("x", games=10, wins=wins)
    assert record.word == word
    against = "against GNU Go level 10 on 19×19"
    assert record.describe() == f"{word}: won {wins} of 10 games ({10 * wins}%) {against}"


def test_the_logs_in_docs_measure_the_shipped_levels(tmp_path: Path) -> None:
    measured = measured_levels()
    assert {"rules", "policy", "mcts-2s"} <= measured.keys() <= LEVELS.keys()
    assert all(r.games > 0 for r in measured.values())
    log = tmp_path / "x.jsonl"
    log.write_text("\n".join(json.dumps(game("python -m analysis.gtp --level rules", "B")) for _ in range(2)))
    assert measured_levels(tmp_path) == {"rules": LevelRecord("rules", games=2, wins=0)}
    assert measured_levels(tmp_path / "missing") == {}


def played_with(level: str, winner: str, network: str | None) -> dict:
    version = "goweb 0.1" + (f" (golois-score policy.pt {network})" if network else "")
    versions = {"A": version, "B": "GNU Go 3.8"}
    return {**game(f"python -m analysis.gtp --level {level}", winner), "versions": versions}


def test_a_level_counts_only_its_games_with_todays_network_when_the_logs_hold_any() -> None:
    records = [
        game("python -m analysis.gtp --level policy", "B"),  # a line from before versions were logged
        played_with("policy", "B", "sha256:aaaaaaaaaaaa"),  # an earlier network
        played_with("policy", "A", "sha256:bbbbbbbbbbbb"),
        played_with("policy", "A", "sha256:bbbbbbbbbbbb"),
        played_with("mcts-50", "B", "sha256:aaaaaaaaaaaa"),
        game("python -m analysis.gtp --level rules", "B"),
    ]
    today = {"policy": "sha256:bbbbbbbbbbbb", "mcts-50": "sha256:bbbbbbbbbbbb"}
    measured = level_records(records, today)
    assert measured["policy"] == LevelRecord("policy", games=2, wins=2, todays=True)
    assert measured["mcts-50"] == LevelRecord("mcts-50", games=1, wins=0, todays=False)  # all it has
    assert measured["rules"] == LevelRecord("rules", games=1, wins=0)  # no network: every game counts
    assert measured["policy"].describe().endswith("on 19×19 with today's network")
    assert measured["mcts-50"].describe().endswith("on 19×19 (none yet recorded with today's network)")
    assert level_records(records)["policy"] == LevelRecord("policy", games=4, wins=2)  # no today: all


def test_todays_networks_are_the_fingerprints_of_the_files_the_levels_play_with() -> None:
    today = todays_networks("cpu")
    assert "rules" not in today and today.keys() <= LEVELS.keys()
    for name, network in today.items():
        assert network == fingerprint(LEVELS[name].pick(19, "cpu").path)
    assert today["darkforest-2s"] != today["policy"]  # a level with a network of its own


def test_the_command_prints_every_level_as_the_site_says_it(capsys: pytest.CaptureFixture[str]) -> None:
    main([])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(LEVELS)
    measured = measured_levels(today=todays_networks("cpu"))
    assert lines[list(LEVELS).index("policy")].endswith(measured["policy"].describe())
