"""Coordinates: every conversion between the notations the project uses.

Conventions (all functions take the board size explicitly; nothing is global):

============  =====================  ====================================
notation      example (19x19)        meaning
============  =====================  ====================================
flat          ``60``                 ``row * size + col``; pass is ``size * size``
(row, col)    ``(3, 15)``            row 0 is the top edge, col 0 the left edge;
                                     pass is ``None``
SGF           ``"pd"``               column letter then row letter, ``aa`` top left;
                                     pass is ``""`` (or ``"tt"`` on boards up to 19x19)
GTP           ``"Q16"``              column letter (no ``I``) then row number counted
                                     from the bottom; pass is ``"pass"``
============  =====================  ====================================

Colours are ints: ``BLACK = 1``, ``WHITE = -1``, ``EMPTY = 0``.
"""

from __future__ import annotations

import re

BLACK = 1
WHITE = -1
EMPTY = 0

MIN_SIZE = 2
MAX_SIZE = 25

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
GTP_VERTEX = re.compile(r"[A-HJ-Z][0-9]{1,2}", re.ASCII)  # upper-cased; ASCII digits only
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class CoordinateError(ValueError):
    """A coordinate that is malformed or off the board."""


def check_size(size: int) -> int:
    """Return ``size`` if it is a supported board size; raise CoordinateError otherwise."""
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise CoordinateError(f"board size {size!r} is not between {MIN_SIZE} and {MAX_SIZE}")
    return size


def pass_move(size: int) -> int:
    """Return the flat index that stands for a pass on a ``size`` board."""
    return size * size


def is_pass(point: int, size: int) -> bool:
    """Return True if the flat ``point`` is the pass move."""
    return point == size * size


def color_name(color: int) -> str:
    """Return ``"black"`` or ``"white"``; raise ValueError for anything else."""
    if color == BLACK:
        return "black"
    if color == WHITE:
        return "white"
    raise ValueError(f"not a colour: {color!r}")


def parse_color(text: str) -> int:
    """Return BLACK or WHITE from ``b``/``black``/``w``/``white`` (any case).

    Raises ValueError for anything else.
    """
    t = text.strip().lower()
    if t in ("b", "black"):
        return BLACK
    if t in ("w", "white"):
        return WHITE
    raise ValueError(f"invalid color: {text!r}")


def from_rowcol(row: int, col: int, size: int) -> int:
    """Return the flat index of (row, col); raise CoordinateError if off the board."""
    if not (0 <= row < size and 0 <= col < size):
        raise CoordinateError(f"({row}, {col}) is off a {size}x{size} board")
    return row * size + col


def to_rowcol(point: int, size: int) -> tuple[int, int] | None:
    """Return (row, col) of a flat index, or None for pass; raise CoordinateError if invalid."""
    if point == size * size:
        return None
    if not 0 <= point < size * size:
        raise CoordinateError(f"point {point} is off a {size}x{size} board")
    return divmod(point, size)


def from_sgf(text: str, size: int) -> int:
    """Return the flat index of an SGF point such as ``"pd"``.

    ``""`` is a pass, and so is ``"tt"`` on boards up to 19x19 (FF[3] convention).
    Raises CoordinateError for malformed or off-board text.
    """
    if text == "" or (text == "tt" and size <= 19):
        return size * size
    if len(text) != 2 or text[0] not in SGF_LETTERS or text[1] not in SGF_LETTERS:
        raise CoordinateError(f"malformed SGF point {text!r}")
    col = SGF_LETTERS.index(text[0])
    row = SGF_LETTERS.index(text[1])
    if col >= size or row >= size:
        raise CoordinateError(f"SGF point {text!r} is off a {size}x{size} board")
    return row * size + col


def to_sgf(point: int, size: int) -> str:
    """Return the SGF text of a flat index; pass is ``""``."""
    rc = to_rowcol(point, size)
    if rc is None:
        return ""
    return SGF_LETTERS[rc[1]] + SGF_LETTERS[rc[0]]


def from_gtp(text: str, size: int) -> int:
    """Return the flat index of a GTP vertex such as ``"Q16"`` or ``"pass"`` (any case): an ASCII
    column letter and one or two ASCII digits.

    Raises CoordinateError for malformed or off-board vertices (including the letter I, and digits
    of other scripts), quoting at most 16 characters of ``text``.
    """
    t = text.strip().upper()
    if t == "PASS":
        return size * size
    if not GTP_VERTEX.fullmatch(t):
        raise CoordinateError(f"invalid vertex {_quoted(text)}")
    col = GTP_COLUMNS.index(t[0])
    number = int(t[1:])
    if col >= size or not 1 <= number <= size:
        raise CoordinateError(f"vertex {_quoted(text)} is off a {size}x{size} board")
    return (size - number) * size + col


def _quoted(text: str) -> str:
    """Return ``text`` quoted for an error message, cut to 16 characters."""
    return repr(text) if len(text) <= 16 else repr(text[:16]) + "..."


def to_gtp(point: int, size: int) -> str:
    """Return the GTP vertex of a flat index, such as ``"Q16"``; pass is ``"pass"``."""
    rc = to_rowcol(point, size)
    if rc is None:
        return "pass"
    row, col = rc
    return f"{GTP_COLUMNS[col]}{size - row}"


def neighbors(point: int, size: int) -> list[int]:
    """Return the flat indices orthogonally adjacent to ``point`` (2 to 4 of them)."""
    row, col = divmod(point, size)
    out = []
    if row > 0:
        out.append(point - size)
    if row < size - 1:
        out.append(point + size)
    if col > 0:
        out.append(point - 1)
    if col < size - 1:
        out.append(point + 1)
    return out
