"""A least-recently-used cache of evaluations, keyed by what decides a position's moves."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

from analysis.go.position import Position

V = TypeVar("V")


def position_key(pos: Position) -> tuple[int, int, int, int | None, float]:
    """Return (size, Zobrist hash, colour to play, ko point, komi) of ``pos``.

    Positions with the same key share an evaluation, although their move histories
    (and so some input planes and superko-illegal moves) may differ.
    """
    return (pos.size, pos.hash, pos.to_play, pos.ko_point, pos.komi)


class LRUCache(Generic[V]):
    """A bounded mapping that forgets the least recently used entry first."""

    def __init__(self, capacity: int) -> None:
        """Raises ValueError for a negative capacity; 0 caches nothing."""
        if capacity < 0:
            raise ValueError(f"cache capacity must be non-negative, not {capacity}")
        self.capacity = capacity
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Hashable) -> V | None:
        """Return the entry for ``key`` (marking it recently used), or None."""
        entry = self._data.get(key)
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(key)
        return entry

    def put(self, key: Hashable, entry: V) -> None:
        """Store ``entry`` under ``key``, forgetting the oldest entry when full."""
        if self.capacity == 0:
            return
        self._data[key] = entry
        self._data.move_to_end(key)
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)
