"""ASCII board diagrams, for tests, GTP ``showboard`` and logs.

A diagram is one line per row, top row first: ``X`` (or ``#``/``B``) is black,
``O`` (or ``W``) is white, ``.`` or ``+`` is empty.  Spaces are ignored, so
``X O .`` and ``XO.`` are the same row.
"""

from __future__ import annotations

import numpy as np

from analysis.go.coords import BLACK, GTP_COLUMNS, WHITE

_SYMBOLS = {"X": BLACK, "#": BLACK, "B": BLACK, "O": WHITE, "W": WHITE, ".": 0, "+": 0}
_GLYPHS = {BLACK: "X", WHITE: "O", 0: "."}


def parse_board(text: str) -> np.ndarray:
    """Return the int8 (size, size) colour array drawn in ``text``.

    Raises ValueError if the diagram is not square or has an unknown symbol.
    """
    rows = []
    for line in text.strip().splitlines():
        cells = line.replace(" ", "")
        if not cells:
            continue
        try:
            rows.append([_SYMBOLS[c] for c in cells])
        except KeyError as exc:
            raise ValueError(f"unknown symbol {exc.args[0]!r} in diagram row {line!r}") from None
    size = len(rows)
    if size == 0 or any(len(r) != size for r in rows):
        raise ValueError(f"diagram is not square: {size} rows of lengths {[len(r) for r in rows]}")
    return np.array(rows, dtype=np.int8)


def format_board(stones: np.ndarray, coordinates: bool = False, marks: dict[int, str] | None = None) -> str:
    """Return the diagram of an int8 (size, size) array, optionally with GTP coordinates.

    ``marks`` maps flat points to a one-character label drawn instead of the stone.
    """
    size = stones.shape[0]
    marks = marks or {}
    lines = []
    for r in range(size):
        cells = [marks.get(r * size + c, _GLYPHS[int(stones[r, c])]) for c in range(size)]
        row = " ".join(cells)
        lines.append(f"{size - r:2d} {row} {size - r:2d}" if coordinates else row)
    if coordinates:
        header = "   " + " ".join(GTP_COLUMNS[:size])
        lines = [header, *lines, header]
    return "\n".join(lines)
