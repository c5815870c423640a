"""Where the network disagrees with the ladder search: each string of the ladder overlay
(:func:`analysis.tactics.ladder.overlay`) gets the network's view of its key move.

Cazenave (2016) adds ladder planes because a network misreads ladders it cannot see to their end;
the overlay's reading is exact (within its limits), so a string is flagged where the player to
move's policy goes against it:

- an opponent's string the player can capture in a working ladder (``capturable``) whose capturing
  move is not among the policy's first :data:`SEEN_RANK` moves: the network does not see the ladder;
- an own string in ladder danger or in atari that can be saved (``capturable``, ``escapes``) whose
  saving move is not among them: the network does not see the threat;
- an own string the ladder catches whatever it does (``captured``, ``lost``) whose liberty is the
  policy's first move: the network would run a ladder that does not work.

Each string gets ``network``: the ``move`` judged (GTP), its policy ``rank`` (1 is the first) and
``prior``, and ``disagrees`` with the reason ``why`` (None when it agrees); strings the player to
move has nothing to do about (the opponent's in atari or lost) get None.
"""

from __future__ import annotations

import numpy as np

from analysis.go.coords import from_gtp, to_gtp
from analysis.go.position import Position
from analysis.review.policy import move_rank

SEEN_RANK = 5  # a key move ranked past this by the policy counts as unseen


def flag_disagreements(overlay: dict, position: Position, policy: np.ndarray) -> None:
    """Add ``network`` to each string of ``overlay`` (the ladder overlay of ``position``) from
    ``policy`` (``size*size + 1`` probabilities of the player to move)."""
    size = position.size
    own = "black" if position.to_play > 0 else "white"
    for string in overlay["strings"]:
        string["network"] = _judged(string, string["color"] == own, position, policy, size)


def _judged(string: dict, own: bool, position: Position, policy: np.ndarray, size: int) -> dict | None:
    """Return the network's view of one overlay string, or None when there is nothing to judge."""
    status = string["status"]
    if not own and status == "capturable":
        return _seen(string["capture_move"], policy, size, "the network does not see the ladder capture")
    if own and status in ("capturable", "escapes") and string["saving_move"]:
        return _seen(string["saving_move"], policy, size, "the network does not see the ladder threat")
    if own and status in ("captured", "lost"):
        first = int(np.argmax(policy))
        liberties = set(position.liberty_points(from_gtp(string["stones"][0], size)))
        runs = first in liberties
        view = _view(first, policy, size)
        view.update(disagrees=runs, why="the network would run a ladder that does not work" if runs else None)
        return view
    return None


def _seen(vertex: str, policy: np.ndarray, size: int, why: str) -> dict:
    """Return the view of the key move ``vertex``: unseen when ranked past :data:`SEEN_RANK`."""
    view = _view(from_gtp(vertex, size), policy, size)
    unseen = view["rank"] > SEEN_RANK
    view.update(disagrees=unseen, why=why if unseen else None)
    return view


def _view(point: int, policy: np.ndarray, size: int) -> dict:
    """Return ``point``'s GTP vertex, policy rank (ties share the better one) and prior."""
    prior = round(float(policy[point]), 5)
    return {"move": to_gtp(point, size), "rank": move_rank(policy, point), "prior": prior}
