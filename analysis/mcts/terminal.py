"""The value of a finished game (two consecutive passes): its count, without a network.

The search's finished games are counted as the site and GTP count a real one: with the dead
stones taken off.  Who owns what is judged once per root, by the playouts of the root position
(:func:`analysis.go.scoring.ownership`), where the game stands; at a game's end in the search, a
string whose points the root's playouts mostly give to the other colour is dead, as
:func:`analysis.go.scoring.dead_from_ownership` decides for a real count.  So a dead string left
standing is taken off, and so is a stone played into settled territory and never answered,
while a string that grew out into open or its own area lives.

Counting every stone as alive instead (Tromp-Taylor) makes the search capture dead stones
before it passes: under territory scoring that fills one's own territory at a point a move, and
the review then calls the passes that end a game with dead stones on the board mistakes.

The judgement is the root's, not the finished game's: a group still unsettled at the root that
the playouts mostly give away counts as dead in every finished game of the tree, even one where
it was saved; and a tree kept for the next move (``Search.advance``) keeps the counts its
finished games got from the earlier root.  Finished games are leaves the search reaches only
through two passes, so such lines are rare before a game's end, where groups are settled.
"""

from __future__ import annotations

import numpy as np

from analysis.go.position import Position
from analysis.go.scoring import dead_from_ownership, ownership, score

ROOT_PLAYOUTS = 100  # of the root's ownership (about 20 ms on a finished 19x19 board)


def root_ownership(pos: Position) -> np.ndarray:
    """Return the playouts' mean owner of every point of ``pos`` ((size, size), +1 black, -1 white)."""
    return ownership(pos, ROOT_PLAYOUTS)


def terminal_margin(pos: Position, owner: np.ndarray | None = None) -> float:
    """Return the margin with komi, in points, for the player to move, counted by the position's
    scoring (area, or territory: a move inside one's own territory costs a point there, and a
    prisoner gains one) with the strings that ``owner`` (the root's :func:`root_ownership`) gives
    to the other colour taken off; None: every stone alive."""
    dead = dead_from_ownership(pos, owner) if owner is not None else ()
    return score(pos, pos.scoring, dead).margin * pos.to_play


def terminal_value(margin: float) -> float:
    """Return +1, -1 or 0 for a count's ``margin`` (:func:`terminal_margin`): the player to move
    wins, loses or draws."""
    return float((margin > 0) - (margin < 0))
