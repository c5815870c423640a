"""Moves a search may not consider near its root: KataGo's ``avoidMoves`` and ``allowMoves``.

A :class:`MoveFilter` applies to one player's moves at the nodes fewer than ``until_depth`` moves
below the root the search was made at (``until_depth`` 1: the root's own moves only).  An ``avoid``
filter takes its points out of those nodes' candidates; an ``allow`` filter keeps only its points.
A node whose filters would leave no legal move keeps pass, which is always legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MoveFilter:
    """``player``'s (BLACK or WHITE) moves at depths below ``until_depth`` (the root is depth 0):
    only ``points`` (``allow``) or anything but ``points``; pass is the point ``size * size``."""

    player: int
    points: frozenset[int]
    until_depth: int
    allow: bool = False

    def applies(self, to_play: int, depth: int) -> bool:
        """Whether the filter restricts the moves of ``to_play`` at ``depth`` below the root."""
        return to_play == self.player and depth < self.until_depth


def filtered_legal(legal: np.ndarray, filters: Sequence[MoveFilter], to_play: int, depth: int) -> np.ndarray:
    """Return ``legal`` (``size*size + 1`` booleans, pass last) with the ``filters`` that apply to
    ``to_play`` at ``depth`` applied: a copy, or ``legal`` itself when none applies.  When they would
    leave no move, only pass is legal."""
    applying = [f for f in filters if f.applies(to_play, depth)]
    if not applying:
        return legal
    kept = legal.copy()
    for f in applying:
        chosen = np.zeros(legal.size, dtype=bool)
        chosen[list(f.points)] = True
        kept &= chosen if f.allow else ~chosen
    if not kept.any():
        kept[-1] = True
    return kept
