"""When the bot may resign: its resign threshold, lowered for White in handicap games."""

from __future__ import annotations

from analysis.go.coords import WHITE
from analysis.go.position import Position
from analysis.go.ruled import handicap_stones

BLEND_MOVES = 0.6  # of the board's points: the moves over which White's lower bar rises back


def resign_threshold(threshold: float, position: Position) -> float:
    """Return the win rate under which the player to move in ``position`` counts as hopeless.

    White in a handicap game starts with a low win rate and Black may yet go wrong,
    so (as in Leela Zero) White's bar is ``threshold / (1 + handicap)`` at first,
    rising linearly back to ``threshold`` over the first ``BLEND_MOVES`` of the
    board's points in moves.
    """
    handicap = handicap_stones(position)
    if handicap == 0 or position.to_play != WHITE:
        return threshold
    blend = min(1.0, len(position.moves) / (BLEND_MOVES * position.size**2))
    return threshold * (blend + (1 - blend) / (1 + handicap))
