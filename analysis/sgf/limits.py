"""Bounds on what one SGF record may hold, so that hostile input is refused before it costs much.

The reader checks them as it parses (:func:`analysis.sgf.read_sgf` and its siblings take
``limits``): a file with too many nodes is refused before the tree of the game that passes the
bound is built, a property with too many values at its first value over the bound, both before any
point list is expanded or any move replayed; the moves of each line of play, the passes in a
row and the points that point lists span (a rectangle of 7 bytes spans up to 625) are checked
before the record is returned, the last before any list is expanded.
Without limits (the default) a record is read whatever its size, as archives are.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.sgf.model import SgfError


@dataclass(frozen=True)
class SgfLimits:
    """The most a file may hold: ``nodes`` in all its game trees together, ``values`` in one
    property, ``moves`` in one line of play (the main line or a variation, from the root),
    ``passes_in_a_row`` in one line and ``points`` that the point lists of its setup stones and
    territory marks (AB, AW, AE, TB, TW) span in all, a rectangle (``aa:ss``) counted by its area;
    None leaves that one unbounded."""

    nodes: int | None = None
    values: int | None = None
    moves: int | None = None
    passes_in_a_row: int | None = None
    points: int | None = None

    def check_points(self, spanned: int) -> None:
        """Raise SgfError (kind ``"too_large"``) if point lists spanning ``spanned`` points in all
        are over these limits."""
        if self.points is not None and spanned > self.points:
            raise too_large(f"its setup stones and territory marks span more than {self.points} points")

    def check_line(self, moves: int, passes: int) -> None:
        """Raise SgfError (kind ``"too_large"``) if a line of play reaching ``moves`` moves, the last
        ``passes`` of them passes, is over these limits."""
        if self.moves is not None and moves > self.moves:
            raise too_large(f"a line of play has more than {self.moves} moves")
        if self.passes_in_a_row is not None and passes > self.passes_in_a_row:
            raise too_large(f"more than {self.passes_in_a_row} passes in a row")


def too_large(what: str, where: str | None = None, move_number: int | None = None) -> SgfError:
    """Return the SgfError (kind ``"too_large"``) of a record over one of its limits: ``what`` says
    which, e.g. ``"a line of play has more than 1000 moves"``."""
    return SgfError(f"too large: {what}", kind="too_large", where=where,
                    move_number=move_number)
