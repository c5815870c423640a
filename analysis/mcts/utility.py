"""What the search maximises: the win value, plus a little of the score when a network gives one.

KataGo's score utility: a player far ahead (or behind) sees win rates near 1 (or 0) everywhere,
and a search on the win rate alone then plays slack moves that spend its lead.  Adding a bounded
term of the score lead keeps it playing for points::

    utility = win + static * f(lead / scale) + dynamic * f((lead - centre) / scale)
    f(x) = 2 / pi * atan(x)

``win`` is on the -1..+1 scale and ``lead`` in points, both for the player choosing; ``centre``
is the root's expected lead at the start of the search (for that player), so the dynamic term
rewards gaining on what the position promised.  ``scale`` grows with the board (20 points on
19x19).  Without score leads the utility is the win value itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ScoreUtility:
    """The score terms' weights and the board's scale in points."""

    static: float = 0.1
    dynamic: float = 0.3
    scale: float = 20.0

    @classmethod
    def for_board(cls, size: int, static: float, dynamic: float) -> ScoreUtility:
        """Return the utility for a ``size`` board: the scale is 20 points on 19x19, in proportion."""
        return cls(static, dynamic, 20.0 * size / 19)

    def __call__(self, win: float, lead: float, centre: float) -> float:
        """Return the utility of a ``win`` value (-1..+1) and a ``lead`` (points) for a player whose
        expected lead at the root was ``centre``."""
        if not (self.static or self.dynamic):
            return win
        squash = 2 / math.pi
        return (win + self.static * squash * math.atan(lead / self.scale)
                + self.dynamic * squash * math.atan((lead - centre) / self.scale))
