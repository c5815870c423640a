"""An evaluator wrapper that keeps the search out of the player's own real eyes and its bad
self-ataris (:mod:`analysis.bot.self_atari`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis.bot.self_atari import bad_self_ataris
from analysis.go.position import Position
from analysis.mcts.evaluator import Evaluator


class EyeSafeEvaluator:
    """Evaluates with ``inner``, then zeroes the prior of every point that is a real eye of the
    player to move or a bad self-atari of its, so that the search never fills its own eyes nor
    gives a string away (and passes when nothing else is left).
    """

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return the inner evaluator's (priors, win probabilities, score leads), the priors of own
        eyes and bad self-ataris 0."""
        priors, wins, leads = self.inner.evaluate(positions)
        priors = np.array(priors, copy=True)
        for row, pos in zip(priors, positions, strict=True):
            keep_out_of_blunders(pos, row)
        return priors, wins, leads


def keep_out_of_blunders(position: Position, prior: np.ndarray) -> None:
    """Zero, in ``prior`` (``size*size + 1`` values, pass last), the points that are a real eye of
    the player to move in ``position`` or a bad self-atari of its (:func:`bad_self_ataris`)."""
    color = position.to_play
    for point in np.flatnonzero(prior[:-1]).tolist():
        if position.is_eye(point, color):
            prior[point] = 0.0
    for point in bad_self_ataris(position, np.flatnonzero(prior[:-1]).tolist()):
        prior[point] = 0.0
