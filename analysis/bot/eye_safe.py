"""An evaluator wrapper that keeps the search out of the player's own real eyes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis.go.position import Position
from analysis.mcts.evaluator import Evaluator


class EyeSafeEvaluator:
    """Evaluates with ``inner``, then zeroes the prior of every point that is a real eye of the
    player to move, so that the search never fills its own eyes (and passes when nothing else is left).
    """

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return the inner evaluator's (priors, win probabilities, score leads), own eyes' priors 0."""
        priors, wins, leads = self.inner.evaluate(positions)
        priors = np.array(priors, copy=True)
        for row, pos in zip(priors, positions, strict=True):
            color = pos.to_play
            for point in np.flatnonzero(row[:-1]).tolist():
                if pos.is_eye(point, color):
                    row[point] = 0.0
        return priors, wins, leads
