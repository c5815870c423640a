"""Position and game analysis with the tree search (analysis.review, analysis.review.report)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import torch

from analysis.go.coords import from_gtp
from analysis.go.position import Position
from analysis.review import networks
from analysis.review.analyze import game_entry, game_positions, position_analysis
from analysis.review.report import annotate, mistakes
from analysis.sgf import read_sgf


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Run the network on one thread, as the web site's workers do (two threads crawl on a busy machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class FavouriteEvaluator:
    """A fake evaluator: the policy prefers points in index order; whoever holds ``favourite`` wins."""

    def __init__(self, favourite: int) -> None:
        self.favourite = favourite

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        n = positions[0].size ** 2 + 1
        priors = np.tile(np.linspace(1.0, 0.1, n), (len(positions), 1))
        holder = [p.color_at(self.favourite) * p.to_play for p in positions]  # 1: the mover's stone
        return priors, np.array([{1: 0.9, -1: 0.1, 0: 0.5}[h] for h in holder]), None


def test_win_rates_and_best_move_come_from_the_search() -> None:
    favourite = from_gtp("E5", 9)  # prior rank 41 of 82: only the search can find it
    evaluator = FavouriteEvaluator(favourite)
    analysis = position_analysis(Position(9), evaluator, visits=400, include_policy=True, include_search=True)
    assert analysis["visits"] == 400 and analysis["best"] == "E5"
    assert analysis["winrate"] > 0.55  # the network alone says 0.5
    assert analysis["black_winrate"] == analysis["winrate"]
    candidates = analysis["candidates"]
    assert [c["move"] for c in candidates] == ["A9", "B9", "C9", "D9", "E9", "F9", "G9", "H9", "J9", "A8"]
    assert [c["order"] for c in candidates] == list(range(10))
    assert all(c["visits"] >= 1 and c["winrate"] <= 0.5 and c["pv"][0] == c["move"] for c in candidates)
    moves = analysis["moves"]
    assert moves[0]["move"] == "E5" and moves[0]["winrate"] > 0.8
    assert moves[0]["prior"] < candidates[-1]["prior"]
    assert sum(m["visits"] for m in moves) == 399 and len(analysis["policy"]) == 82


def test_unvisited_candidates_have_no_win_rate() -> None:
    analysis = position_analysis(Position(9), FavouriteEvaluator(0), visits=3)
    visited = [c for c in analysis["candidates"] if c["visits"]]
    assert len(visited) == 2 and "moves" not in analysis and "policy" not in analysis
    unvisited = analysis["candidates"][5]
    assert unvisited["winrate"] is None and unvisited["pv"] == [unvisited["move"]]


def test_game_entries_rank_the_played_move_and_mistakes_use_the_search() -> None:
    record = read_sgf("(;SZ[9]KM[7];B[ee];W[aa];B[cc])")
    evaluator = networks.search_evaluator()
    results = [
        game_entry(position, move, k, evaluator, visits=16)
        for k, (position, move) in enumerate(game_positions(record))
    ]
    assert [r["move_number"] for r in results] == [0, 1, 2, 3]
    assert [r["played"] for r in results] == ["E5", "A9", "C7", None]
    assert all(r["visits"] == 16 and len(r["candidates"]) == 10 for r in results)
    assert results[1]["played_rank"] > 10  # nobody plays A9 on an open board
    assert 0 < results[0]["played_prior"] < 1 and "policy" not in results[0]
    worst = mistakes(results)
    assert worst and worst[0]["move_number"] == 2 and worst[0]["color"] == "W"
    assert worst[0]["best"] == results[1]["best"] and worst[0]["best"] != "A9"
    later = [(p.moves[-1].point, move) for p, move in game_positions(record, start=2)]
    assert later == [(from_gtp("A9", 9), (1, from_gtp("C7", 9))), (from_gtp("C7", 9), None)]
    annotate(record, results)
    comment = list(record.main_line())[2].comment
    assert "Black win rate" in comment and "(16 visits)" in comment and "Search's choice" in comment
