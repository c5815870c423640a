"""Two networks side by side on a game (analysis.review.compare), with fake networks whose
preferences are known."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis.go.coords import from_gtp
from analysis.go.position import Position
from analysis.nets.inference import Prediction
from analysis.review.compare import SearchView, compare_networks
from analysis.sgf import read_sgf

GAME = "(;SZ[9]KM[7];B[ee];W[cc];B[gc];W[aa])"  # E5 C7 G7 A9


class Ranking:
    """A fake next-move network that ranks its favourite points first, in order, then the other empty
    points by index, highest first (so the corner A9 comes last)."""

    def __init__(self, favourites: Sequence[str]) -> None:
        self.order = [from_gtp(v, 9) for v in favourites]

    def predict(self, positions: Sequence[Position], symmetries: int = 1) -> Prediction:
        heads = np.zeros((len(positions), 1, 82), dtype=np.float32)
        for i, pos in enumerate(positions):
            legal = np.append(pos.legal_points(), False)
            weights = legal * 0.001 * (1 + np.arange(82) / 100)  # the others: A9 (point 0) last
            for rank, point in enumerate(self.order):
                if legal[point]:
                    weights[point] = 1.0 / (rank + 1)
            heads[i, 0] = weights / weights.sum()
        return Prediction(heads, None)


def test_both_networks_top_moves_ranks_and_shared_moves_at_every_position() -> None:
    a = Ranking(["E5", "C7", "G7", "C3", "G3"])
    b = Ranking(["C7", "E5", "D4", "F6", "G7"])
    result = compare_networks(read_sgf(GAME), {"a": a, "b": b}, rules="chinese")
    assert result["networks"] == ["a", "b"] and len(result["positions"]) == 5
    first = result["positions"][0]
    assert first["played"] == "E5" and first["search"] is None
    assert [m["move"] for m in first["nets"]["a"]["top"][:3]] == ["E5", "C7", "G7"]
    assert first["nets"]["a"]["played_rank"] == 1 and first["nets"]["b"]["played_rank"] == 2
    assert {"E5", "C7", "G7"} <= set(first["shared"]) and "C3" not in first["shared"]
    assert all(len(p["nets"]["a"]["top"]) == 10 for p in result["positions"])
    end = result["positions"][-1]
    assert end["played"] is None and end["nets"]["a"]["played_rank"] is None


def test_the_per_game_table_counts_the_moves_played_in_each_top_k() -> None:
    a = Ranking(["E5", "C7", "G7", "C3", "G3"])
    result = compare_networks(read_sgf(GAME), {"a": a, "b": Ranking(["D4"])})
    table = result["summary"]["a"]
    # E5, C7 and G7 are a's first choice when played; A9 (a corner) is far down its list
    assert table["positions"] == 4 and table["top1"] == table["top5"] == table["top10"] == 0.75
    assert result["surprises"]["a"]["outside_top10"] == [3]
    b = result["summary"]["b"]
    assert b["top1"] == 0.0 and b["top1"] <= b["top5"] <= b["top10"]


def test_the_searchs_surprises_are_what_it_found_against_the_policy_and_what_it_rejected() -> None:
    a = Ranking(["E5", "C7", "G7"])  # D4 comes far down a's list
    search = [
        SearchView("E5", {"E5": 0.5}),  # agrees
        SearchView("D4", {"D4": 0.6, "C7": 0.58}),  # found D4 against a's policy; C7 close enough
        SearchView("C3", {"C3": 0.7, "G7": 0.6}),  # rejected a's G7 (10% worse), found C3 (far down)
        SearchView("B2", {"B2": 0.4}),  # a's first choice was not even searched
    ]
    result = compare_networks(read_sgf(GAME), {"a": a, "b": Ranking(["C7"])}, searched=search)
    assert [p["search"] for p in result["positions"]] == ["E5", "D4", "C3", "B2", None]
    surprises = result["surprises"]["a"]
    assert surprises["search_found"] == [1, 2, 3] and surprises["search_rejected"] == [2, 3]
    table = result["summary"]["a"]
    assert table["searched"] == 4 and table["agree_with_search"] == 0.25


def test_a_whole_game_analysis_entry_gives_the_searchs_view() -> None:
    entry = {"best": "D4", "candidates": [{"move": "D4", "winrate": 0.61}, {"move": "Q16", "winrate": None}]}
    view = SearchView.of_entry(entry)
    assert view == SearchView("D4", {"D4": 0.61})
    assert view.rejects("Q16") and not view.rejects("D4")


# A 9x9 opening with a fight, as the compare and review pages replay it.
REAL = "(;SZ[9]KM[7];B[ee];W[cg];B[gc];W[gf];B[ff];W[fg];B[eg];W[gg];B[ch];W[bg];B[dh];W[fe])"


def test_the_compare_page_gives_a_move_the_prior_and_rank_the_review_gives_it() -> None:
    """Both pages show the network's policy over the 8 symmetries, ranked by the priors as shown."""
    from analysis.review import networks
    from analysis.review.analyze import game_positions, position_analysis
    from analysis.review.policy import move_rank

    record = read_sgf(REAL)
    network, evaluator = networks.network(), networks.search_evaluator()
    compared = compare_networks(record, {"net": network})["positions"]
    for k, (position, played) in enumerate(game_positions(record)):
        if k not in (0, 5, 11):
            continue
        review = position_analysis(position, evaluator, visits=1, include_policy=True)
        policy = np.asarray(review["policy"])
        shown = compared[k]["nets"]["net"]
        assert shown["played_rank"] == move_rank(policy, played[1])
        assert shown["played_prior"] == policy[played[1]]
        top = np.argsort(-policy, kind="stable")[:10]
        assert [m["prior"] for m in shown["top"]] == [round(float(policy[p]), 4) for p in top]
