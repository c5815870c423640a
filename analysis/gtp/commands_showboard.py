"""``showboard``: the board drawn exactly as GNU Go draws it.

Coordinates on all four sides, ``X`` black, ``O`` white, ``+`` the star points
GNU Go marks, ``.`` other empty points, and the captures beside two rows (the
last two rows below 10x10, rows 9 and 10 from the top on larger boards).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.go.coords import BLACK, GTP_COLUMNS, WHITE
from analysis.gtp.commands_args import Handler

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine

GLYPHS = {BLACK: "X", WHITE: "O"}


def is_star_point(row: int, col: int, size: int) -> bool:
    """Return True if GNU Go draws (row, col) as a star point (its ``is_hoshi_point``)."""
    if size in (2, 4):
        return False
    if size == 3:
        return row == col == 1
    if size == 5:
        return (row, col) in {(1, 1), (1, 3), (2, 2), (3, 1), (3, 3)}
    edge = 2 if size <= 11 else 3
    middle = size // 2
    m = size - 1 - row if row >= middle else row
    n = size - 1 - col if col >= middle else col
    if m == edge and n == edge:
        return True
    if size % 2 == 0:
        return False
    if size < 12:
        return m == n == middle
    return m in (edge, middle) and n in (edge, middle)


def draw_board(stones: list[list[int]], white_captured: int, black_captured: int) -> str:
    """Return GNU Go's drawing of a board given as rows of colours (top row first).

    ``white_captured`` and ``black_captured`` are the stones each colour has captured.
    """
    size = len(stones)
    letters = "   " + " ".join(GTP_COLUMNS[:size])
    notes = {
        size - 2 if size < 10 else 8: f"     WHITE (O) has captured {white_captured} stones",
        size - 1 if size < 10 else 9: f"     BLACK (X) has captured {black_captured} stones",
    }
    lines = [letters]
    for row, colors in enumerate(stones):
        cells = "".join(
            f" {GLYPHS.get(color) or ('+' if is_star_point(row, col, size) else '.')}"
            for col, color in enumerate(colors)
        )
        lines.append(f"{size - row:2d}{cells} {size - row}{notes.get(row, '')}")
    lines.append(letters)
    return "\n".join(lines)


def showboard(engine: GtpEngine, args: list[str]) -> str:
    """Return the board, starting on a new line as GNU Go's reply does."""
    position = engine.position
    board = draw_board(position.stones().tolist(), position.prisoners(WHITE), position.prisoners(BLACK))
    return "\n" + board


COMMANDS: dict[str, Handler] = {"showboard": showboard}
