"""FeatureContext: one position seen from the player to move, with its game metadata."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from analysis.go.position import Position
from analysis.tactics.ladder import DEFAULT_LIMITS, LadderLimits


def parse_rank(rank: str | None) -> int:
    """Return a dan level 0..9 from an SGF rank such as ``9d``, ``1p`` or ``5k``.

    Kyu and unknown ranks are 0; professional ranks count as 9 (as in darkforest).
    """
    if not rank:
        return 0
    text = rank.strip().lower().rstrip("*?")
    digits = "".join(ch for ch in text if ch.isdigit())
    if not digits:
        return 0
    if text.endswith("p") or "pro" in text:
        return 9
    if text.endswith("d") or "dan" in text:
        return max(0, min(9, int(digits)))
    return 0


@dataclass
class FeatureContext:
    """One position, the player to move ("us"), the players' ranks and the ladder limits."""

    position: Position
    ranks: dict[int, str] = field(default_factory=dict)
    ladder_limits: LadderLimits = DEFAULT_LIMITS

    @property
    def size(self) -> int:
        """Board size."""
        return self.position.size

    @property
    def us(self) -> int:
        """The colour to move."""
        return self.position.to_play

    def fill(self, kind: str, out: np.ndarray, color: int | None = None, top: int = 0) -> None:
        """Have the board core write planes of ``kind`` seen from ``color`` (default: us) into ``out``."""
        lim = self.ladder_limits
        self.position.board.fill_planes(
            kind, out, self.us if color is None else color, top, lim.max_depth, lim.max_nodes
        )

    def rank_of(self, color: int) -> int:
        """Dan level (0..9) of the player of ``color``, from the game's BR/WR."""
        return parse_rank(self.ranks.get(color))
