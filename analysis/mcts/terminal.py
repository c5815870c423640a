"""The value of a finished game (two consecutive passes): its count, without a network."""

from __future__ import annotations

from analysis.go.position import Position
from analysis.go.scoring import score


def terminal_margin(pos: Position) -> float:
    """Return the margin with komi, in points, for the player to move, counted by the position's
    scoring: area (Chinese), or territory (Japanese: a move inside one's own territory costs a
    point there, and a prisoner gains one)."""
    return score(pos, pos.scoring, ()).margin * pos.to_play


def terminal_value(pos: Position) -> float:
    """Return +1, -1 or 0: the player to move wins, loses or draws by the count with komi.

    Every stone on the board counts as alive: after two passes the search plays by
    Tromp-Taylor rules, so dead stones must have been captured.  Under territory scoring a dead
    stone left in one's territory makes it neutral, so the search captures it, at a point a move
    that a real Japanese count (which takes dead stones off) would not have charged.
    """
    margin = terminal_margin(pos)
    return float((margin > 0) - (margin < 0))
