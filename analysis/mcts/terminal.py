"""The value of a finished game (two consecutive passes): its area score, without a network."""

from __future__ import annotations

from analysis.go.position import Position
from analysis.go.scoring import area_score


def terminal_margin(pos: Position) -> float:
    """Return the area (Chinese) margin with komi, in points, for the player to move."""
    return area_score(pos).margin * pos.to_play


def terminal_value(pos: Position) -> float:
    """Return +1, -1 or 0: the player to move wins, loses or draws by area (Chinese) score with komi.

    Every stone on the board counts as alive: after two passes the search plays by
    Tromp-Taylor rules, so dead stones must have been captured.
    """
    margin = terminal_margin(pos)
    return float((margin > 0) - (margin < 0))
