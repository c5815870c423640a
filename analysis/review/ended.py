"""The analysis of a position that two passes ended: the count, not a search (no Django here).

After two passes in a row the game is over and the board is counted.  A search from there would
judge a game that goes on, which it does not: the win rate of the final position is decided by
the count (1, 0, or 0.5 for a draw), and its score lead is the counted margin, under the game's
rules.  The dead stones are those the players marked when a game against the bot was counted,
those the territory marks of a counted record make dead (TB/TW, as this site, CGoban and KGS
write them), and otherwise the playouts' estimate (:func:`analysis.go.scoring.estimate_dead`,
which the play page proposes at the end of a game).  KataGo's analysis engine searches on from
such a position, so the JSON API does too; the review counts it
(:attr:`analysis.review.query.PositionQuery.count_ended`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import numpy as np

from analysis.go.coords import BLACK, WHITE, CoordinateError, to_gtp, to_sgf
from analysis.go.position import Position
from analysis.go.scoring import area_owners, estimate_dead, owners_under, score
from analysis.review.policy import shown_policy
from analysis.sgf import SgfNode, expand_points

log = logging.getLogger(__name__)


def ended(position: Position) -> bool:
    """Return whether two passes in a row end the position's moves (the game is over)."""
    return position.consecutive_passes() >= 2


def counted_analysis(
    position: Position,
    rules: str,
    dead: Iterable[int] | None = None,
    policy: np.ndarray | None = None,
    ownership: bool = False,
) -> dict:
    """Return the analysis of the ended ``position``, in the fields of
    :func:`analysis.review.analyze.position_analysis`, from its count under ``rules`` with the
    ``dead`` stones (points; None: the playouts' estimate):

    - ``winrate`` 1, 0 or 0.5 for the player to move (and ``black_winrate``), ``score_lead`` and
      ``black_score_lead`` the counted margin, ``visits`` 0, ``best`` None and no ``candidates``
      (no move is left to play);
    - ``counted``: ``result`` (``B+3.5``, ``W+0.5`` or ``0``), ``kind`` (``area`` or
      ``territory``) and ``dead`` (the GTP vertices of the stones counted dead);
    - ``score_stdev`` 0 (a count has no spread) and, with ``ownership``, the count's owner of each
      point (n*n, row-major, +1 for the player to move, 0 for dame and seki, and for the eyes of a
      seki under territory rules);
    - ``policy``, rounded as the search's analysis rounds it, when one is given.
    """
    size = position.size
    dead = estimate_dead(position) if dead is None else set(dead)
    count = score(position, rules, dead)
    mover = position.to_play
    lead = count.margin * mover  # BLACK = 1, WHITE = -1
    analysis = {
        "to_play": "B" if mover == BLACK else "W",
        "winrate": _won(lead),
        "black_winrate": _won(count.margin),
        "score_lead": lead,
        "black_score_lead": count.margin,
        "visits": 0,
        "best": None,
        "candidates": [],
        "counted": {"result": count.result(), "kind": count.kind,
                    "dead": [to_gtp(p, size) for p in sorted(dead)]},
        "score_stdev": 0.0,
    }
    if ownership:
        analysis["ownership"] = [int(v) * mover for v in owners_under(position, rules, dead).ravel()]
    if policy is not None:
        analysis["policy"] = shown_policy(policy)
    return analysis


def _won(margin: float) -> float:
    """Return the win rate a counted ``margin`` gives: 1 ahead, 0 behind, 0.5 for a draw."""
    return 0.5 if margin == 0 else float(margin > 0)


TERRITORY_MARKS = {BLACK: "TB", WHITE: "TW"}


def territory_marks(position: Position, dead: Iterable[int]) -> dict[str, list[str]]:
    """Return the SGF territory marks of the count of ``position`` with the ``dead`` stones off,
    as CGoban and KGS write them on a counted game's last node: ``TB`` the points Black owns that
    hold no black stone (its empty points and the dead white stones), ``TW`` White's.  A dead
    stone is on the other side's marks even where the count leaves its point to nobody, so that
    :func:`marked_dead` gives every one back."""
    dead = set(dead)
    owners = area_owners(position, dead).ravel()
    stones = position.stones().ravel()
    size = position.size
    marks = {}
    for color, mark in TERRITORY_MARKS.items():
        owned = set(np.flatnonzero((owners == color) & (stones != color)).tolist())
        owned |= {p for p in dead if stones[p] == -color}
        marks[mark] = [to_sgf(p, size) for p in sorted(owned)]
    return marks


def marked_dead(position: Position, node: SgfNode) -> set[int] | None:
    """Return the stones that the territory marks on ``node`` (a counted record's last node) make
    dead: each stone on the other side's marks.  None when the node has no marks, or marks that
    are not points of the board (then nobody's word is taken: the estimate counts)."""
    values = {mark: [v for v in node.properties.get(mark, ()) if v] for mark in TERRITORY_MARKS.values()}
    if not any(values.values()):
        return None
    stones = position.stones().ravel()
    dead: set[int] = set()
    for color, mark in TERRITORY_MARKS.items():
        try:
            points = expand_points(values[mark], position.size)
        except CoordinateError as e:
            log.info("territory marks %s left out: %s", mark, e)
            return None
        dead.update(p for p in points if stones[p] == -color)
    return dead
