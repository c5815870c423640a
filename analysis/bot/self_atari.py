"""Self-ataris the bot never plays: a move that leaves a string of its own of more than three stones
with one liberty, capturing nothing, where the opponent's capture would leave no killing shape.

The opponent moves next and takes the string, so such a move only gives stones away, as filling a
seki's shared liberty does (the bot threw away won games that way), unless it is a sacrifice: a
throw-in of one to three stones, or stones given up inside the opponent's eye space whose capture
leaves a shape the opponent cannot make two eyes in (square four, pyramid four, bulky five,
crossed five, rabbity six), the vital point then being the attacker's.  Those are kept.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from analysis.go.position import Position

SACRIFICE_STONES = 3  # strings of at most this many stones may always be given up (throw-ins, nakade)

# The killing shapes of four to six points, as (row, column) cells; each counts in any orientation.
_KILLING = {
    "square four": ((0, 0), (0, 1), (1, 0), (1, 1)),
    "pyramid four": ((0, 1), (1, 0), (1, 1), (1, 2)),
    "bulky five": ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0)),
    "crossed five": ((0, 1), (1, 0), (1, 1), (1, 2), (2, 1)),
    "rabbity six": ((0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2)),
}


def _normal(cells: Iterable[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """Return ``cells`` moved so that their smallest row and column are 0."""
    cells = list(cells)
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    return frozenset((r - top, c - left) for r, c in cells)


def _orientations(cells: tuple[tuple[int, int], ...]) -> set[frozenset[tuple[int, int]]]:
    """Return ``cells`` in each of the 8 orientations of the square, normalized."""
    shapes = set()
    for flip in (False, True):
        for turns in range(4):
            out = [(c, r) if flip else (r, c) for r, c in cells]
            for _ in range(turns):
                out = [(c, -r) for r, c in out]
            shapes.add(_normal(out))
    return shapes


KILLING_SHAPES = frozenset(shape for cells in _KILLING.values() for shape in _orientations(cells))


def is_killing_shape(points: Iterable[int], size: int) -> bool:
    """Return whether ``points`` (flat indices) form a killing shape of four to six points."""
    return _normal(divmod(p, size) for p in points) in KILLING_SHAPES


def bad_self_ataris(position: Position, points: Iterable[int]) -> list[int]:
    """Return those of ``points`` (flat indices, pass excluded) where the player to move would put a
    string of its own of more than :data:`SACRIFICE_STONES` stones in atari without capturing, and
    the opponent's capture of it would leave no killing shape.  The position is unchanged."""
    color = position.to_play
    after = np.frombuffer(position.board.liberties_after(color), dtype=np.int8)
    bad = []
    for point in points:
        if after[point] != 1:
            continue
        captured = position.play(point)
        try:
            string = position.string(point)
        finally:
            position.undo()
        if not captured and len(string) > SACRIFICE_STONES and not is_killing_shape(string, position.size):
            bad.append(point)
    return bad
