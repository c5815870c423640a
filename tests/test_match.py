"""The match harness: a real match against GNU Go, and misbehaving fake engines."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from analysis.go.coords import BLACK
from analysis.gtp.client import GNUGO
from analysis.match import leads
from analysis.match.engine import EngineTimeout, MatchEngine, resolve_command
from analysis.match.game import GameConfig, parse_score
from analysis.match.log import MatchLogError, read_log, summarize_log
from analysis.match.run import main, run_match
from analysis.nets.inference import Prediction
from analysis.sgf import read_sgf, replay
from analysis.stats import wilson_interval

ROOT = Path(__file__).resolve().parent.parent
NINE = GameConfig(size=9, komi=7.5, rules="chinese", max_moves=150)
needs_gnugo = pytest.mark.skipif(shutil.which(GNUGO) is None, reason="GNU Go is installed by `make test`")

# A minimal GTP engine: ``fake.py MODE [SCORE]``.  genmove answers by MODE: ``pass``
# always passes; ``occupied`` plays A1 every time (illegal from its second
# move); ``exit`` plays A1, then exits without answering; ``hang`` never answers.
# final_score answers SCORE (default 0).  With FAKE_QUITS set, quit appends MODE to that file;
# with FAKE_QUIT_SECONDS, it answers that many seconds late.
FAKE_ENGINE = """\
import os, sys, time
mode, genmoves = sys.argv[1], 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    reply = ""
    if words[0] == "quit":
        if "FAKE_QUITS" in os.environ:
            with open(os.environ["FAKE_QUITS"], "a") as quits:
                quits.write(mode + "\\n")
        time.sleep(float(os.environ.get("FAKE_QUIT_SECONDS", 0)))
        print("=\\n", flush=True)
        break
    if words[0] == "final_score":
        reply = sys.argv[2] if len(sys.argv) > 2 else "0"
    if words[0] == "genmove":
        genmoves += 1
        if mode == "hang":
            time.sleep(3600)
        if mode == "exit" and genmoves > 1:
            sys.exit(3)
        reply = "pass" if mode == "pass" else "A1"
    print(f"= {reply}\\n", flush=True)
"""


def fake(tmp_path: Path, mode: str) -> str:
    """Return the command line of the fake engine in ``mode`` (the script is written into tmp_path)."""
    script = tmp_path / "fake.py"
    script.write_text(FAKE_ENGINE)
    return f"{sys.executable} {script} {mode}"


@needs_gnugo
def test_match_against_gnugo_alternates_colours_and_saves_replayable_sgf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    ours, gnugo = "python -m analysis.gtp --size 9 --seed 1", f"{GNUGO} --mode gtp --level 0"
    main(["--black", ours, "--white", gnugo, "--games", "2", "--size", "9", "--max-moves", "150",
          "--sgf-dir", str(tmp_path), "--log", str(tmp_path / "games.jsonl"), "--json"])
    summary = json.loads(capsys.readouterr().out)
    for line in read_log([tmp_path / "games.jsonl"]):  # each engine says what it is: ours, its weights
        said = r"goweb 0\.1\.0 \([\w.-]+ [\w.-]+\.pt sha256:[0-9a-f]{12}\)"
        assert re.fullmatch(said, line["versions"]["A"])
        assert line["versions"]["B"] == "GNU Go 3.8"
    games = summary["results"]
    assert [(g["black"], g["white"]) for g in games] == [("A", "B"), ("B", "A")]
    assert summary["games"] == 2
    assert summary["wins"]["A"] + summary["wins"]["B"] + summary["draws"] == 2
    for name in ("A", "B"):
        colours = summary["by_colour"][name].values()
        assert sum(c["games"] for c in colours) == 2
        assert sum(c["wins"] for c in colours) == summary["wins"][name]
        assert summary["seconds_per_move"][name] > 0
    assert summary["disagreement_count"] == len(summary["disagreements"])
    assert summary["disagreement_count"] == sum(
        g["black_score"] is not None and g["white_score"] is not None
        and parse_score(g["black_score"]) != parse_score(g["white_score"]) for g in games)
    files = sorted(tmp_path.glob("*.sgf"))
    assert [f.name for f in files] == ["game-001.sgf", "game-002.sgf"]
    for path, game in zip(files, games, strict=True):
        record = read_sgf(path.read_bytes(), source=path.name)
        assert record.result == game["result"]
        assert record.players[BLACK] == (ours if game["black"] == "A" else gnugo)
        assert record.rules == "chinese" and record.komi == 7.5
        assert len(replay(record, rules="chinese").moves) == game["moves"]


def test_wilson_interval() -> None:
    low, high = wilson_interval(7, 10)
    assert low == pytest.approx(0.3968, abs=1e-4) and high == pytest.approx(0.8922, abs=1e-4)
    assert wilson_interval(0, 10)[0] == pytest.approx(0.0)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    low, high = wilson_interval(5, 10)
    assert low + high == pytest.approx(1.0)
    assert wilson_interval(1.5, 3)[0] < 0.5 < wilson_interval(1.5, 3)[1]
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def test_illegal_move_loses_and_the_match_goes_on(tmp_path: Path) -> None:
    summary = run_match(fake(tmp_path, "occupied"), fake(tmp_path, "pass"), 2, NINE, sgf_dir=tmp_path)
    assert [(r.winner, r.reason) for r in summary.results] == [("B", "illegal move")] * 2
    assert [r.result for r in summary.results] == ["W+F", "B+F"]
    assert "A1" in summary.results[0].detail
    assert summary.wins == {"A": 0, "B": 2}
    for path in sorted(tmp_path.glob("*.sgf")):
        replay(read_sgf(path.read_bytes()))  # the illegal move is not recorded


def test_engine_that_exits_mid_game_loses_and_is_restarted(tmp_path: Path) -> None:
    summary = run_match(fake(tmp_path, "exit"), fake(tmp_path, "pass"), 2, NINE)
    assert [(r.winner, r.reason) for r in summary.results] == [("B", "engine error")] * 2
    assert [r.moves for r in summary.results] == [2, 3]  # the restarted engine played again in game 2


def test_engine_that_hangs_times_out_and_is_killed(tmp_path: Path) -> None:
    started = time.monotonic()
    summary = run_match(fake(tmp_path, "pass"), fake(tmp_path, "hang"), 2, NINE, timeout=0.5)
    assert time.monotonic() - started < 15
    assert [(r.winner, r.result, r.reason) for r in summary.results] == [
        ("A", "B+T", "timeout"),
        ("A", "W+T", "timeout"),
    ]
    with MatchEngine("B", fake(tmp_path, "hang"), timeout=0.5) as engine:
        engine.start()
        assert engine.client is not None
        process = engine.client.proc
        with pytest.raises(EngineTimeout):
            engine.genmove("b")
        assert process.poll() is not None


def _children(pid: int) -> list[int]:
    """Return the pids of the direct children of process ``pid``, started by any of its threads (Linux)."""
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that has just ended
            children += [int(child) for child in (task / "children").read_text().split()]
    return children


def test_a_sigterm_to_the_harness_group_records_no_game_and_the_harness_stops_its_engines(
        tmp_path: Path) -> None:
    """``timeout`` signals the whole process group: the engines must not die under a game and
    forfeit it before the harness has seen the signal; the harness quits the idle engine itself."""
    quits, log = tmp_path / "quits.txt", tmp_path / "match.jsonl"
    harness = subprocess.Popen(
        [sys.executable, "-m", "analysis.match", "--black", fake(tmp_path, "hang"), "--white",
         fake(tmp_path, "pass"), "--games", "2", "--jobs", "2", "--size", "9", "--log", str(log)],
        cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "FAKE_QUITS": str(quits)})
    deadline = time.monotonic() + 30
    while len(_children(harness.pid)) < 4 and time.monotonic() < deadline:  # two tables of two engines
        time.sleep(0.05)
    engines = _children(harness.pid)
    assert len(engines) == 4
    time.sleep(1.0)  # both tables are in their first game: the hanging engine thinks, the other waits
    os.killpg(harness.pid, signal.SIGTERM)
    assert harness.wait(timeout=30) == 128 + signal.SIGTERM
    assert log.read_text() == ""
    assert quits.read_text().split() == ["pass", "pass"]  # alive when the harness closed them
    for pid in engines:  # and the hanging ones were killed: none is left behind
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_a_second_sigterm_during_the_shutdown_does_not_cut_it_short(tmp_path: Path) -> None:
    """``timeout`` signals the harness, then its group: the second signal comes while the harness
    quits its engines, and must not leave a table playing on with an engine that never answers."""
    quits, log = tmp_path / "quits.txt", tmp_path / "match.jsonl"
    harness = subprocess.Popen(
        [sys.executable, "-m", "analysis.match", "--black", fake(tmp_path, "pass"), "--white",
         fake(tmp_path, "hang"), "--games", "2", "--jobs", "2", "--size", "9", "--log", str(log)],
        cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "FAKE_QUITS": str(quits), "FAKE_QUIT_SECONDS": "2"})
    deadline = time.monotonic() + 30
    while len(_children(harness.pid)) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    engines = _children(harness.pid)
    time.sleep(1.0)  # both tables are in their first game: the hanging engine thinks, the other waits
    os.kill(harness.pid, signal.SIGTERM)
    while not quits.exists() and time.monotonic() < deadline:  # the first table's idle engine quits, slowly
        time.sleep(0.05)
    os.killpg(harness.pid, signal.SIGTERM)
    assert harness.wait(timeout=30) == 128 + signal.SIGTERM  # not the hanging engine's 60 s time limit
    assert log.read_text() == ""
    for pid in engines:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_scored_game_between_passing_engines_is_a_draw_by_the_engines(tmp_path: Path) -> None:
    summary = run_match(fake(tmp_path, "pass"), fake(tmp_path, "pass"), 1, replace(NINE, komi=0))
    result = summary.results[0]
    assert (result.reason, result.result, result.winner) == ("two passes", "0", None)
    assert (result.decided_by, result.our_score) == ("engines", "0")
    assert (summary.draws, summary.win_rate, summary.disagreements) == (1, 0.5, [])


def test_a_referee_counts_the_games_the_engines_score_differently(tmp_path: Path) -> None:
    black, white, referee = fake(tmp_path, "pass B+5"), fake(tmp_path, "pass W+3"), fake(tmp_path, "pass B+2")
    result = run_match(black, white, 1, NINE).results[0]
    assert (result.result, result.decided_by, result.referee_score) == ("W+7.5", "ours", None)
    summary = run_match(black, white, 1, NINE, referee=referee)
    result = summary.results[0]
    assert (result.black_score, result.white_score, result.our_score) == ("B+5", "W+3", "W+7.5")
    assert (result.result, result.winner, result.decided_by) == ("B+2", "A", "referee")
    assert result.referee_score == "B+2"
    assert summary.to_json()["disagreements"][0]["referee"] == "B+2"


def test_resolve_command_uses_this_interpreter_for_python() -> None:
    assert resolve_command("python -m analysis.gtp --level 'rules'") == [
        sys.executable, "-m", "analysis.gtp", "--level", "rules"]
    assert resolve_command("/usr/games/gnugo --mode gtp")[0] == "/usr/games/gnugo"
    with pytest.raises(ValueError):
        resolve_command("  ")


def test_parallel_tables_play_each_game_once_and_the_log_sums_to_the_same_summary(tmp_path: Path) -> None:
    log_path = tmp_path / "games.jsonl"
    with log_path.open("a") as log:
        summary = run_match(fake(tmp_path, "occupied"), fake(tmp_path, "pass"), 5, NINE, jobs=2, first_game=3,
                            log=log, sgf_dir=tmp_path)
    assert [r.number for r in summary.results] == [3, 4, 5, 6, 7]
    # A is black in the odd games
    assert [r.result for r in summary.results] == ["W+F", "B+F", "W+F", "B+F", "W+F"]
    assert sorted(p.name for p in tmp_path.glob("*.sgf")) == [f"game-00{n}.sgf" for n in range(3, 8)]
    logged = summarize_log(read_log([log_path]))
    assert (logged.games, logged.wins, logged.by_colour) == (5, {"A": 0, "B": 5}, summary.by_colour)
    assert all(line["versions"] == {"A": "", "B": ""} for line in read_log([log_path]))  # they cannot say
    assert logged.moves == summary.moves
    assert sorted(r.number for r in logged.results) == [3, 4, 5, 6, 7]


def test_match_log_rejects_bad_lines_and_mixed_engines_naming_the_line(tmp_path: Path) -> None:
    log_path = tmp_path / "games.jsonl"
    with log_path.open("a") as log:
        run_match(fake(tmp_path, "occupied"), fake(tmp_path, "pass"), 1, NINE, log=log)
    good = log_path.read_text()
    log_path.write_text(good + "{not json\n")
    with pytest.raises(MatchLogError, match=r"games\.jsonl:2: not JSON"):
        read_log([log_path])
    other = json.loads(good)
    other["engines"]["B"] = "gnugo"
    log_path.write_text(good + json.dumps(other) + "\n")
    with pytest.raises(MatchLogError, match="was played by"):
        summarize_log(read_log([log_path]))
    with pytest.raises(MatchLogError, match="no games"):
        summarize_log([])


class LeadingBlack:
    """A fake score network: Black leads by 30 points in every position."""

    def predict(self, positions: list) -> Prediction:
        sides = np.array([p.to_play for p in positions], dtype=np.float32)
        heads = np.zeros((len(positions), 1, 82), dtype=np.float32)
        return Prediction(heads, None, score_mean=30.0 * sides)


def test_games_lost_after_a_big_lead_are_listed(tmp_path: Path) -> None:
    moves = ";B[ee];W[cc];B[gg]"
    (tmp_path / "game-001.sgf").write_text(f"(;SZ[9]KM[7]PB[python -m analysis.gtp]PW[gnugo]RE[W+R]{moves})")
    (tmp_path / "game-002.sgf").write_text(f"(;SZ[9]KM[7]PB[gnugo]PW[python -m analysis.gtp]RE[B+3]{moves})")
    (tmp_path / "game-003.sgf").write_text(f"(;SZ[9]KM[7]PB[python -m analysis.gtp]PW[gnugo]RE[B+R]{moves})")
    thrown = leads.game_leads(tmp_path / "game-001.sgf", "analysis.gtp", LeadingBlack())
    assert thrown == leads.GameLeads("game-001.sgf", "B", False, 30.0, 0)
    behind = leads.game_leads(tmp_path / "game-002.sgf", "analysis.gtp", LeadingBlack())
    assert behind.color == "W" and behind.max_lead == -30.0 and not behind.won
    assert leads.game_leads(tmp_path / "game-003.sgf", "analysis.gtp", LeadingBlack()).won
    assert leads.game_leads(tmp_path / "game-003.sgf", "katago", LeadingBlack()) is None
