"""Handicap stone placement: fixed (as GNU Go and the GTP spec place them) and free."""

from __future__ import annotations

import math

from analysis.go.coords import check_size


class HandicapError(ValueError):
    """A handicap that cannot be placed on this board."""


def max_fixed_handicap(size: int) -> int:
    """Return the largest fixed handicap for ``size`` (0 if fixed handicap is not allowed).

    As GNU Go: none below 7x7, four on even sizes and 7x7, nine on odd sizes from 9x9.
    """
    if size < 7:
        return 0
    if size % 2 == 0 or size == 7:
        return 4
    return 9


def fixed_handicap_points(size: int, stones: int) -> list[int]:
    """Return the flat points of a fixed handicap of ``stones`` on a ``size`` board.

    The order is the GTP spec's: top-right and bottom-left corners, then top-left,
    bottom-right, centre (odd counts), left and right sides, top and bottom sides.
    Raises HandicapError if the count is not between 2 and max_fixed_handicap(size).
    """
    check_size(size)
    top = max_fixed_handicap(size)
    if not 2 <= stones <= top:
        raise HandicapError(f"invalid handicap: {stones} stones on {size}x{size} (allowed: 2 to {top})")
    edge = 2 if size <= 11 else 3
    low, mid, high = edge, size // 2, size - 1 - edge

    def at(row: int, col: int) -> int:
        return row * size + col

    corners = [at(low, high), at(high, low), at(low, low), at(high, high)]
    sides_lr = [at(mid, low), at(mid, high)]
    sides_tb = [at(low, mid), at(high, mid)]
    centre = [at(mid, mid)]
    if stones <= 4:
        return corners[:stones]
    layout = corners + (sides_lr if stones >= 6 else []) + (sides_tb if stones >= 8 else [])
    return layout + (centre if stones % 2 == 1 else [])


def free_handicap_points(size: int, stones: int) -> list[int]:
    """Return well-spread points for a free handicap of ``stones`` chosen by the engine.

    Uses the fixed placement when it exists, otherwise an even grid between the
    third (or fourth) lines.  Raises HandicapError if stones is not between 2 and
    size*size - 1.
    """
    check_size(size)
    if not 2 <= stones <= size * size - 1:
        raise HandicapError(f"invalid handicap: {stones} stones on {size}x{size}")
    if stones <= max_fixed_handicap(size):
        return fixed_handicap_points(size, stones)
    edge = 2 if size <= 11 else 3
    chosen: list[int] = []
    per_side = math.ceil(math.sqrt(stones))
    while len(chosen) < stones:
        lo, hi = (edge, size - 1 - edge) if edge <= size - 1 - edge else (0, size - 1)
        lines = sorted({round(lo + i * (hi - lo) / max(per_side - 1, 1)) for i in range(per_side)})
        for r in lines:
            for c in lines:
                p = r * size + c
                if p not in chosen and len(chosen) < stones:
                    chosen.append(p)
        per_side += 1
        edge = max(edge - 1, 0)
    return chosen
