"""Cazenave 2016's policy adjustment from ladders."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.go.coords import BLACK, from_gtp
from analysis.go.position import Position
from analysis.tactics.policy_adjust import adjust_policy, ladder_adjustments

LADDER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    . . X X . . . . .
    . . . . . . . . .
"""


def ladder_with_five_white_stones() -> Position:
    """The plain ladder after eight moves: white has five stones and two liberties, black to move."""
    pos = Position.from_diagram(LADDER, to_play=BLACK)
    for v in ["C4", "D3", "E3", "D4", "D5", "E4", "F4", "E5"]:
        pos.play(from_gtp(v, 9))
    assert len(pos.string(from_gtp("C3", 9))) == 5
    return pos


def uniform(pos: Position) -> np.ndarray:
    legal = np.append(pos.legal_points(), True).astype(float)
    return legal / legal.sum()


def test_capturing_five_stones_in_a_ladder_becomes_the_top_move() -> None:
    pos = ladder_with_five_white_stones()
    policy = uniform(pos)
    adjusted = adjust_policy(policy, pos)
    e6 = from_gtp("E6", 9)
    assert adjusted.argmax() == e6
    assert adjusted[e6] / adjusted[0] == pytest.approx(np.exp(5))
    assert adjusted.sum() == pytest.approx(1.0)
    assert (adjusted[policy == 0] == 0).all()  # illegal moves stay illegal


def test_saving_five_stones_is_increased_for_the_owner() -> None:
    pos = ladder_with_five_white_stones()
    pos.pass_move()  # white to move now
    changes = ladder_adjustments(pos)
    assert [(c.stones, c.reason) for c in changes] == [(5, "saves from a ladder")]


def test_running_in_a_lost_ladder_is_decreased_by_the_number_of_stones() -> None:
    pos = ladder_with_five_white_stones()
    pos.play(from_gtp("E6", 9))  # atari: white to move, but running is hopeless
    changes = ladder_adjustments(pos)
    run = [c for c in changes if c.reason == "runs into a lost ladder"]
    assert [(c.point, c.stones) for c in run] == [(from_gtp("F5", 9), -6)]
    policy = uniform(pos)
    policy[from_gtp("F5", 9)] *= 20  # the network likes to run
    policy /= policy.sum()
    adjusted = adjust_policy(policy, pos)
    assert adjusted[from_gtp("F5", 9)] < policy[from_gtp("F5", 9)] / 100


def test_small_ladders_are_left_alone() -> None:
    pos = Position.from_diagram(LADDER, to_play=BLACK)  # one white stone
    policy = uniform(pos)
    assert ladder_adjustments(pos) == []
    np.testing.assert_array_equal(adjust_policy(policy, pos), policy)
    assert ladder_adjustments(pos, min_stones=1)  # the threshold is a parameter


def test_wrong_policy_length_is_an_error() -> None:
    with pytest.raises(ValueError, match="82 entries"):
        adjust_policy(np.ones(81) / 81, Position(9))
