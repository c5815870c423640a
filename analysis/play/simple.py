"""A simple rule-based player: legal, sensible moves until the neural networks land.

The rules, in order of priority:

1. capture a string in atari, the largest capture first;
2. save an own string in atari by extending, when that gives it more than two
   liberties, the largest string first;
3. otherwise a random move among the remaining candidates, preferring points on
   the third and fourth lines in the opening and points near the last moves
   afterwards.

A candidate is a legal point that is not a real eye of the player and is not a
self-atari of more than one stone.  With no candidate the player passes.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import numpy as np

from analysis.go.position import Position

NEAR = 2  # how far (in rows or columns) from a recent move counts as near
RECENT_MOVES = 2  # how many of the last moves attract the next one
OPENING_FRACTION = 8  # the opening lasts while fewer than size*size / 8 stones are on the board
OPENING_LINES = (3, 4)


def _line(point: int, size: int) -> int:
    """Return which line from the edge ``point`` is on (1 is the edge)."""
    row, col = divmod(point, size)
    return min(row, col, size - 1 - row, size - 1 - col) + 1


def _atari_strings(position: Position, color: int) -> list[list[int]]:
    """Return the strings of ``color`` that have exactly one liberty."""
    flat = position.stones().ravel()
    libs = position.liberty_counts().ravel()
    seen: set[int] = set()
    out = []
    for point in np.flatnonzero((flat == color) & (libs == 1)).tolist():
        if point not in seen:
            stones = position.string(point)
            seen.update(stones)
            out.append(stones)
    return out


def _after(position: Position, point: int, color: int) -> tuple[int, int]:
    """Return the liberties and size of the string at ``point`` after ``color`` plays there.

    The position is unchanged; ``point`` must be legal.
    """
    position.play(point, color)
    try:
        return position.liberties(point), len(position.string(point))
    finally:
        position.undo()


def best_capture(position: Position, color: int, candidates: set[int]) -> int | None:
    """Return the candidate point that captures the most opponent stones, or None if none captures."""
    gains: dict[int, int] = {}
    for stones in _atari_strings(position, -color):
        (liberty,) = position.liberty_points(stones[0])
        if liberty in candidates:
            gains[liberty] = gains.get(liberty, 0) + len(stones)
    return max(gains, key=gains.__getitem__, default=None)


def best_rescue(position: Position, color: int, candidates: set[int]) -> int | None:
    """Return the extension that gives the largest own string in atari more than two liberties, or None."""
    rescues: dict[int, int] = {}
    for stones in _atari_strings(position, color):
        (liberty,) = position.liberty_points(stones[0])
        if liberty in candidates and _after(position, liberty, color)[0] > 2:
            rescues[liberty] = max(rescues.get(liberty, 0), len(stones))
    return max(rescues, key=rescues.__getitem__, default=None)


def is_big_self_atari(position: Position, point: int, color: int) -> bool:
    """Return True if playing the legal ``point`` leaves a string of two or more stones in atari."""
    liberties, stones = _after(position, point, color)
    return liberties == 1 and stones > 1


def candidates(position: Position, color: int) -> list[int]:
    """Return the legal points for ``color`` that are neither its real eyes nor big self-ataris."""
    legal = np.flatnonzero(position.legal_points(color)).tolist()
    return [p for p in legal if not position.is_eye(p, color) and not is_big_self_atari(position, p, color)]


def _near_recent(position: Position, points: Iterable[int]) -> list[int]:
    """Return the points within NEAR rows and columns of one of the last RECENT_MOVES board moves."""
    size = position.size
    recent = [m.point for m in position.moves[-RECENT_MOVES:] if m.point != position.pass_point]
    centres = [divmod(p, size) for p in recent]
    out = []
    for p in points:
        row, col = divmod(p, size)
        if any(abs(row - r) <= NEAR and abs(col - c) <= NEAR for r, c in centres):
            out.append(p)
    return out


def preferred(position: Position, points: list[int]) -> list[int]:
    """Return the favoured subset of ``points``: 3rd-4th line in the opening, else near the last moves.

    Returns an empty list when no point qualifies.
    """
    size = position.size
    stones = int(np.count_nonzero(position.stones()))
    if stones < size * size / OPENING_FRACTION:
        lines = [p for p in points if _line(p, size) in OPENING_LINES]
        if lines:
            return lines
    return _near_recent(position, points)


def choose_move(position: Position, color: int, rng: random.Random) -> int:
    """Return the point ``color`` plays by the rules of this module (``position.pass_point`` to pass).

    The position is unchanged.
    """
    moves = candidates(position, color)
    if not moves:
        return position.pass_point
    allowed = set(moves)
    for rule in (best_capture, best_rescue):
        point = rule(position, color, allowed)
        if point is not None:
            return point
    return rng.choice(preferred(position, moves) or moves)
