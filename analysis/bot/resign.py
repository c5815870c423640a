"""When the bot may resign: its resign threshold, and none for White early in a handicap game."""

from __future__ import annotations

from analysis.go.coords import WHITE
from analysis.go.position import Position
from analysis.go.ruled import handicap_stones

PLAY_ON_MOVES = 0.6  # of the board's points: the moves White plays on in a handicap game, whatever
# its win rate


def resign_threshold(threshold: float, position: Position) -> float:
    """Return the win rate under which the player to move in ``position`` counts as hopeless.

    White in a handicap game starts with a win rate near zero (the network judges Black's stones
    as a strong player would use them: two stones on 9x9 leave White about 2%), and the player who
    took the stones came for a game in which Black may yet go wrong: White's bar is 0 (it plays
    on) for the first ``PLAY_ON_MOVES`` of the board's points in moves, ``threshold`` after.
    """
    if position.to_play != WHITE or len(position.moves) >= PLAY_ON_MOVES * position.size**2:
        return threshold
    return 0.0 if handicap_stones(position) else threshold
