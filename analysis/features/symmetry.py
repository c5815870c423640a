"""The eight symmetries of the board, applied consistently to planes and moves.

Symmetry ``k`` (0..7) is ``k % 4`` quarter turns anticlockwise of the
(row, col) array, preceded by a transpose when ``k >= 4``.  Symmetry 0 is the
identity; ``inverse(k)`` undoes ``k``.  A pass stays a pass.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

SYMMETRIES = range(8)


def apply(planes: np.ndarray, k: int) -> np.ndarray:
    """Return ``planes`` (..., size, size) under symmetry ``k``."""
    out = np.swapaxes(planes, -1, -2) if k >= 4 else planes
    return np.rot90(out, k % 4, axes=(-2, -1))


def inverse(k: int) -> int:
    """Return the symmetry that undoes ``k``."""
    if k >= 4:
        return k  # a transpose followed by a turn is a reflection: its own inverse
    return (4 - k) % 4


def point(p: int, size: int, k: int) -> int:
    """Return where flat point ``p`` goes under symmetry ``k`` (pass maps to pass)."""
    if p == size * size:
        return p
    grid = np.zeros(size * size, dtype=np.int8)
    grid[p] = 1
    return int(np.flatnonzero(apply(grid.reshape(size, size), k))[0])


@lru_cache(maxsize=256)
def point_table(size: int, k: int) -> np.ndarray:
    """Return an int array t with ``t[p] == point(p, size, k)`` for every point and pass (read-only)."""
    idx = np.arange(size * size).reshape(size, size)
    moved = apply(idx, k).ravel()
    table = np.empty(size * size + 1, dtype=np.int64)
    table[moved] = np.arange(size * size)
    table[size * size] = size * size
    table.flags.writeable = False
    return table
