"""The ladder overlay flags where the network disagrees with the ladder search
(analysis.review.ladder_network): a working ladder capture or a saving move the policy does not
see, and a ladder the policy would run that does not work.

Diagrams: X black, O white, . empty; row 1 is the bottom line, column A the left.
"""

from __future__ import annotations

import numpy as np

from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.position import Position
from analysis.review.ladder_network import SEEN_RANK, flag_disagreements
from analysis.tactics.ladder import overlay
from tests.test_mcts import LADDER  # White F5: Black F6 starts a ladder that catches it


def policy(ranked: list[str], size: int = 9) -> np.ndarray:
    """A policy whose first moves are ``ranked``, in order, and the rest flat."""
    p = np.full(size * size + 1, 0.001)
    for i, vertex in enumerate(ranked):
        p[from_gtp(vertex, size)] = 0.5 / (i + 1)
    return p / p.sum()


def flagged(position: Position, p: np.ndarray) -> dict:
    shown = overlay(position)
    flag_disagreements(shown, position, p)
    (string,) = shown["strings"]
    return string["network"]


def test_a_ladder_capture_the_policy_ranks_low_is_flagged_and_one_it_sees_is_not() -> None:
    black = Position.from_diagram(LADDER, komi=0, to_play=BLACK)
    seen = flagged(black, policy(["C3", "F6"]))
    assert seen == {"move": "F6", "rank": 2, "prior": seen["prior"], "disagrees": False, "why": None}
    unseen = flagged(black, policy(["C3", "D4", "E4", "G3", "B7", "F6"]))
    assert unseen["rank"] == SEEN_RANK + 1 and unseen["disagrees"]
    assert unseen["why"] == "the network does not see the ladder capture"


def test_the_defender_is_flagged_when_it_does_not_see_the_threat() -> None:
    white = Position.from_diagram(LADDER, komi=0, to_play=WHITE)  # F5 can be saved at F6
    assert not flagged(white, policy(["F6"]))["disagrees"]
    threat = flagged(white, policy(["C3", "D4", "E4", "G3", "B7", "H8", "F6"]))
    assert threat["disagrees"] and threat["why"] == "the network does not see the ladder threat"


def test_running_a_ladder_that_does_not_work_is_flagged() -> None:
    position = Position.from_diagram(LADDER, komi=0, to_play=BLACK)
    position.play(from_gtp("F6", 9))  # White F5 in atari, caught whatever it does
    runs = flagged(position, policy(["G5"]))
    assert runs == {"move": "G5", "rank": 1, "prior": runs["prior"], "disagrees": True,
                    "why": "the network would run a ladder that does not work"}
    assert not flagged(position, policy(["C3"]))["disagrees"]


def test_the_shipped_networks_blind_spot_in_a_real_ladder_is_flagged_in_the_analysis() -> None:
    from analysis.review.analyze import answer_query
    from analysis.review.networks import search_evaluator
    from analysis.review.query import PositionQuery

    corner = [["B", "B3"], ["B", "C2"], ["B", "D2"], ["W", "C3"]]  # White C3 D3 run along the third line
    query = PositionQuery(size=19, komi=6.5, rules="chinese", visits=8, initial_stones=corner,
                          moves=[["B", "C4"], ["W", "D3"]], initial_player="B")
    (string,) = answer_query(query, search_evaluator())["ladders"]["strings"]
    assert string["status"] == "capturable" and string["capture_move"] == "E3"
    assert string["network"]["rank"] > SEEN_RANK and string["network"]["disagrees"]
