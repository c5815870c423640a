"""The final status of every string (alive, dead or seki) for GTP ``final_status_list``.

Dead stones are given (the playout estimate of :func:`analysis.go.scoring.estimate_dead`).
Seki is recognised by its shape: a living string with at most two liberties that
shares a liberty with a living opposing string that also has at most two.  In a
finished game neither side can fill such a shared liberty without self-atari.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from analysis.go.coords import neighbors
from analysis.go.position import Position

STATUSES = ("alive", "dead", "seki")
SEKI_LIBERTIES = 2


def strings(position: Position) -> list[list[int]]:
    """Return every string on the board as its sorted stones, ordered by first stone."""
    seen: set[int] = set()
    out = []
    for point in np.flatnonzero(position.stones().ravel()).tolist():
        if point not in seen:
            stones = sorted(position.string(point))
            seen.update(stones)
            out.append(stones)
    return out


def _in_seki(position: Position, stones: list[int], dead: set[int]) -> bool:
    """Return True if the living string ``stones`` shares a liberty with a short-of-liberties opponent."""
    first = stones[0]
    if position.liberties(first) > SEKI_LIBERTIES:
        return False
    color = position.color_at(first)
    for liberty in position.liberty_points(first):
        for n in neighbors(liberty, position.size):
            if position.color_at(n) == -color and n not in dead and position.liberties(n) <= SEKI_LIBERTIES:
                return True
    return False


def string_statuses(position: Position, dead: Iterable[int]) -> dict[str, list[list[int]]]:
    """Return the strings of each status: ``{"alive": [...], "dead": [...], "seki": [...]}``.

    Each string is a sorted list of flat points; a string is dead if its first
    stone is in ``dead``.
    """
    dead = set(dead)
    out: dict[str, list[list[int]]] = {status: [] for status in STATUSES}
    for stones in strings(position):
        if stones[0] in dead:
            out["dead"].append(stones)
        elif _in_seki(position, stones, dead):
            out["seki"].append(stones)
        else:
            out["alive"].append(stones)
    return out
