"""Under territory counting, a move inside one's own settled territory costs a point and gains
nothing: the bot passes instead.

The network's pass prior is tiny in almost every position, so a search seldom reaches the two
passes whose count would show the lost point, and the network's score lead cannot resolve one
point on a settled board.  A move is a pointless fill when

- its empty region is bordered by the mover's stones alone (no opponent stone inside it, dead or
  alive) and holds at least ``ALIVE_REGION`` points: the largest eye spaces that a single move
  inside can kill (bulky five, rabbity six) are smaller, so a move in a smaller region may be the
  one that makes two eyes, and is left to the search;
- none of the mover's strings next to the point is short of liberties (fewer than
  ``SAFE_LIBERTIES``: the move may be needed there);
- and the game is in its end: ``LATE_MOVES`` of the board's points have been played, and at most
  ``SETTLED_NEUTRAL`` of them are owned by neither side once the dead stones (the playouts'
  estimate) are off (:mod:`analysis.bot.settled`).  Earlier, a move inside one's own area may be
  a needed reinforcement.
"""

from __future__ import annotations

from analysis.bot.settled import settlement
from analysis.go.coords import EMPTY, neighbors
from analysis.go.position import Position

ALIVE_REGION = 8
SAFE_LIBERTIES = 3
LATE_MOVES = 0.4  # of the board's points, in moves


def own_region(position: Position, point: int) -> set[int] | None:
    """Return the empty region holding ``point`` when it is bordered by the mover's stones alone,
    else None."""
    size, me = position.size, position.to_play
    stones = position.stones().ravel()
    region, frontier, border = {point}, [point], set()
    while frontier:
        for q in neighbors(frontier.pop(), size):
            if stones[q] == EMPTY and q not in region:
                region.add(q)
                frontier.append(q)
            elif stones[q] != EMPTY:
                border.add(q)
    return region if all(stones[q] == me for q in border) else None


def pointless_fill(position: Position, point: int) -> bool:
    """Return whether playing ``point`` only fills the mover's own settled territory under the
    position's territory scoring (always False under area scoring, where it costs nothing)."""
    if position.scoring != "territory" or point == position.pass_point:
        return False
    if len(position.moves) < LATE_MOVES * position.size**2:
        return False
    region = own_region(position, point)
    if region is None or len(region) < ALIVE_REGION:
        return False
    size, me = position.size, position.to_play
    stones = position.stones().ravel()
    if any(stones[q] == me and position.liberties(q) < SAFE_LIBERTIES for q in neighbors(point, size)):
        return False
    return settlement(position).few_neutral
