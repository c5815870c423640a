"""FeatureContext: the arrays that several features share, computed once per position.

Everything is relative to the player to move ("ours") and cached on first use,
so a feature set asks the board core for each array at most once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from analysis.go.position import Move, Position
from analysis.ladder import DEFAULT_LIMITS, LadderLimits


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
    """One position seen from the player to move, with optional game metadata."""

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

    def _grid(self, raw: bytes, dtype: type = np.int8, planes: int = 1) -> np.ndarray:
        arr = np.frombuffer(raw, dtype=dtype)
        n = self.size
        return arr.reshape(planes, n, n) if planes > 1 else arr.reshape(n, n)

    @cached_property
    def stones(self) -> np.ndarray:
        """Colours relative to the player to move: +1 ours, -1 theirs, 0 empty (int8, size x size)."""
        return self._grid(self.position.board.stones()) * np.int8(self.us)

    @cached_property
    def liberties(self) -> np.ndarray:
        """Liberties of the string on each point, 0 on empty points."""
        return self._grid(self.position.board.liberty_counts())

    @cached_property
    def legal(self) -> np.ndarray:
        """Where the player to move may play (bool)."""
        return self._grid(self.position.board.legal_map(self.us), np.bool_)

    def liberties_after(self, ours: bool) -> np.ndarray:
        """Liberties of the new string if we (or they) played each point; 0 if illegal."""
        return self._liberties_after[0 if ours else 1]

    @cached_property
    def _liberties_after(self) -> tuple[np.ndarray, np.ndarray]:
        board = self.position.board
        return (self._grid(board.liberties_after(self.us)), self._grid(board.liberties_after(-self.us)))

    @cached_property
    def ladder_strings(self) -> np.ndarray:
        """Two planes: stones of 2-liberty strings captured in a ladder, of 1-liberty strings that escape."""
        lim = self.ladder_limits
        return self._grid(self.position.board.ladder_string_maps(lim.max_depth, lim.max_nodes), np.uint8, 2)

    def ladder_points(self, ours: bool) -> np.ndarray:
        """Two planes for our (their) stone on each empty point: laddered, starts a working ladder."""
        lim = self.ladder_limits
        color = self.us if ours else -self.us
        raw = self.position.board.ladder_point_maps(color, lim.max_depth, lim.max_nodes)
        return self._grid(raw, np.uint8, 2)

    @cached_property
    def ages(self) -> np.ndarray:
        """Moves since each stone was played: 1 for the last move, 0 for setup stones and empty points."""
        n = self.size
        ages = np.zeros(n * n, dtype=np.int32)
        flat = np.frombuffer(self.position.board.stones(), dtype=np.int8)
        t = 0
        for step in reversed(self.position.steps):
            if not isinstance(step, Move):
                continue
            t += 1
            p = step.point
            if p < n * n and ages[p] == 0 and flat[p] == step.color:
                ages[p] = t
        return ages.reshape(n, n)

    def recent_moves(self, count: int) -> list[int]:
        """The points of the last ``count`` moves, most recent first (pass included as size*size)."""
        out = []
        for step in reversed(self.position.steps):
            if isinstance(step, Move):
                out.append(step.point)
                if len(out) == count:
                    break
        return out

    @cached_property
    def ko(self) -> int | None:
        """The point simple ko forbids to the player to move, or None."""
        return self.position.ko_point

    def rank_of(self, color: int) -> int:
        """Dan level (0..9) of the player of ``color``, from the game's BR/WR."""
        return parse_rank(self.ranks.get(color))

    @cached_property
    def distance_to(self) -> dict[int, np.ndarray]:
        """Manhattan distance from each point to the nearest stone of each relative colour (+1, -1)."""
        return {c: _distance_transform(self.stones == c) for c in (1, -1)}


def _distance_transform(mask: np.ndarray) -> np.ndarray:
    """Return each point's Manhattan distance to the nearest True cell (a large number if none)."""
    n = mask.shape[0]
    big = 4 * n
    dist = np.where(mask, 0, big).astype(np.int32)
    if not mask.any():
        return dist
    for _ in range(2 * n):
        shifted = dist.copy()
        np.minimum(shifted[1:], dist[:-1] + 1, out=shifted[1:])
        np.minimum(shifted[:-1], dist[1:] + 1, out=shifted[:-1])
        np.minimum(shifted[:, 1:], dist[:, :-1] + 1, out=shifted[:, 1:])
        np.minimum(shifted[:, :-1], dist[:, 1:] + 1, out=shifted[:, :-1])
        if np.array_equal(shifted, dist):
            break
        dist = shifted
    return dist

