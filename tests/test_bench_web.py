"""The web benchmark's pieces that run without the stack: options, games, latencies."""

from __future__ import annotations

import json

import pytest

from analysis.bench import __main__ as bench
from analysis.bench import web, webtiming
from analysis.bench.positions import VALIDATION
from analysis.review.timing import PartTimes, chunk_line, read_chunks


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


def chunk(pid: int, queued: float, began: float, ended: float, **parts: float) -> dict:
    return {"analysis": 1, "done": 10, "pid": pid, "queued": queued, "began": began, "ended": ended,
            "parts": parts}


def test_a_chunks_timing_is_read_back_from_a_worker_log_line() -> None:
    times = PartTimes()
    with times.part("search", cpu=True):
        sum(range(10_000))
    record = {"analysis": 3, "done": 10, "pid": 42, "queued": 1.0, "began": 2.0, "ended": 3.0,
              "parts": times.as_json()}
    lines = ["[2026-11-27 10:00:00,000: INFO/MainProcess] Task received\n",
             f"[2026-11-27 10:00:01,000: INFO/MainProcess] {chunk_line(record)}\n"]
    assert read_chunks(lines) == [record]
    assert set(record["parts"]) == {"search", "search_cpu"} and record["parts"]["search"] > 0


def test_the_breakdown_splits_the_workers_time_and_the_ratio_into_factors() -> None:
    # worker 1: idle 1 s until the first message is queued, 0.5 s to fetch it, then two chunks
    # with 0.5 s between them while the second's message waited; worker 2: one chunk, then idle 8 s
    chunks = [
        chunk(1, queued=1.0, began=1.5, ended=5.5, search=3.0, search_cpu=1.5, load=0.5, broadcast=0.5),
        chunk(1, queued=5.0, began=6.0, ended=10.0, search=4.0, search_cpu=2.0),
        chunk(2, queued=0.0, began=0.0, ended=2.0, search=1.0, search_cpu=0.5, save=0.5, claim=0.5),
    ]
    where = webtiming.breakdown(chunks, workers=2, start=0.0, end=10.0, positions=16, raw=(1.0, 2.0))
    assert where["seconds"] == {
        "workers": 20.0, "search": 8.0, "load": 0.5, "replay": 0.0, "database": 1.0, "broadcast": 0.5,
        "enqueue": 0.0, "other_in_task": 0.0, "between_chunks": 1.0, "idle": 9.0,
    }
    assert where["queue_wait_p50_s"] == 0.5
    factors = where["factors"]
    assert (factors["search_share"], factors["search_positions_per_s_per_worker"]) == (0.4, 2.0)
    assert (factors["search_cpu_over_wall"], factors["search_per_cpu_s_over_raw"]) == (0.5, 2.0)
    assert factors["product"] == 16 / 10 / 1.0  # the site's positions per second over the raw engine's


def test_the_breakdown_needs_chunk_timings() -> None:
    with pytest.raises(ValueError, match="no chunk timings"):
        webtiming.breakdown([], workers=2, start=0.0, end=1.0, positions=0, raw=(1.0, 1.0))


def test_each_workers_precision_is_read_from_its_log(tmp_path) -> None:
    (tmp_path / "worker0.log").write_text(
        "[... INFO/MainProcess] golois network: float32 on cpu (timed on this machine: float32 3 ms)\n")
    (tmp_path / "worker1.log").write_text("[... INFO/MainProcess] ready.\n")
    logs = sorted(tmp_path.glob("worker*.log"))
    chosen = "float32 on cpu (timed on this machine: float32 3 ms)"
    assert webtiming.precisions(logs) == {"worker0.log": [chosen]}
