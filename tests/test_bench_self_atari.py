"""The self-atari benchmark counts what the bot's rule forbids in a policy's choices and whether
the move played was among them (analysis.bench.self_atari)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis.bench.self_atari import measure
from analysis.go.coords import BLACK, from_gtp
from analysis.go.position import Position
from analysis.nets.inference import Prediction
from analysis.train.data import Example
from tests.test_bot_self_atari import SEKI


class Prefers:
    """A policy net whose first choice is ``first`` and second ``second`` everywhere."""

    def __init__(self, first: str, second: str) -> None:
        self.first, self.second = from_gtp(first, 9), from_gtp(second, 9)

    def predict(self, positions: Sequence[Position]) -> Prediction:
        p = np.full((len(positions), 1, 82), 1e-4)
        p[:, 0, self.first], p[:, 0, self.second] = 0.6, 0.3
        return Prediction((p / p.sum(axis=2, keepdims=True)).astype(np.float32), None)


def example(move: str) -> Example:
    position = Position.from_diagram(SEKI, komi=7.5, to_play=BLACK)
    point = from_gtp(move, 9)
    return Example(position, point, np.ones(82, dtype=bool), point, -1, float("nan"))


def test_the_bench_counts_the_forbidden_self_ataris_the_changed_choices_and_the_top1_both_ways() -> None:
    figures = measure([example("E5"), example("C9")], Prefers("C9", "E5"))
    assert figures["positions"] == figures["with_bad_self_atari"] == figures["points_forbidden"] == 2
    assert figures["played_forbidden"] == 1  # the second "player" filled the seki
    assert figures["choice_changed"] == 2 and figures["top1_before"] == 0.5 and figures["top1_after"] == 0.5
    assert figures["rule_us_per_position"] > 0
