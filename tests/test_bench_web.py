"""The web benchmark's pieces that run without the stack: options, games, latencies."""

from __future__ import annotations

import json

import pytest

from analysis.bench import __main__ as bench
from analysis.bench import web
from analysis.bench.positions import VALIDATION


def test_web_options_reach_the_benchmark(monkeypatch, capsys) -> None:
    seen = {}

    def fake_run(**options: object) -> dict:
        seen.update(options)
        return {"web_positions_per_s": 1.0}

    monkeypatch.setattr(web, "run", fake_run)
    options = ["--clients", "3", "--moves", "50", "--players", "4", "--level", "mcts-50"]
    assert bench.main(["web", "--json", *options]) == 0
    assert seen == {
        "quick": False, "clients": 3, "moves": 50, "workers": 2, "visits": None, "redis": web.REDIS_URL,
        "play_workers": 1, "players": 4, "player_moves": 15, "level": "mcts-50",
    }
    assert json.loads(capsys.readouterr().out)["bench"] == "web"


def test_latencies_are_the_gaps_between_a_visitors_messages() -> None:
    first = web.Visitor(positions=3, started=10.0, arrivals=[(0, 10.5), (1, 11.0), (2, 13.0)])
    second = web.Visitor(positions=1, started=20.0, arrivals=[(0, 20.25)])
    assert web.latencies([first, second]) == [0.5, 0.5, 2.0, 0.25]


@pytest.mark.skipif(not VALIDATION.exists(), reason=f"{VALIDATION} is not there")
def test_real_games_are_cut_to_the_moves_asked() -> None:
    games = web.real_games(2, 30)
    assert len(games) == 2 and all(len(g.main_line_moves()) == 30 and g.size == 19 for g in games)


def test_a_players_random_move_is_an_empty_point() -> None:
    state = {"size": 3, "board": "XO.OX.XOX"}
    moves = {web.random_move(state, web.random.Random(seed)) for seed in range(50)}
    assert moves == {"C3", "C2"}
    assert web.random_move({"size": 2, "board": "XOOX"}, web.random.Random(0)) == "pass"
