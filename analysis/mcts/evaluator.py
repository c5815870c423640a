"""The Evaluator protocol: what the search asks of a network (or of a fake one in tests)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from analysis.go.position import Position


class Evaluator(Protocol):
    """Evaluates a batch of positions of one board size for the player to move in each."""

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return (priors (N, size*size + 1), win probabilities (N,), score leads (N,) or None).

        Priors are non-negative over the points and pass (pass last); the search
        ignores the ones on illegal moves and renormalises.  Win probabilities are in
        [0, 1] for the player to move, and score leads the points the player to move is
        expected to win by (None from an evaluator without a score head).  The positions
        must not be modified.
        """
        ...
