"""What a network's policy head predicts, and which moves can be its answer in a position."""

from __future__ import annotations

import numpy as np

from analysis.go.position import Position

TARGETS = ("next", "previous")


def target_mask(pos: Position, target: str) -> np.ndarray:
    """Return the (n*n + 1,) bool mask of the moves that can be the target, pass last.

    ``next``: the legal moves of the player to move; ``previous`` (back prediction): the
    stones of the player who just moved (the opponent of the player to move), and pass.
    Raises ValueError for another target.
    """
    if target == "next":
        return np.append(pos.legal_points(), True)
    if target == "previous":
        return np.append(pos.stones().ravel() == -pos.to_play, True)
    raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
