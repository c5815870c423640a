"""``POST /api/analyze``: KataGo-analysis-style queries answered by a search (docs/api.md).

:func:`parse` checks a query and turns it into a :class:`~analysis.review.query.PositionQuery`,
which ``frontend.tasks.analyze_position`` answers on a worker (or in-process); :func:`response`
turns the task's ``analysis`` message into KataGo's field names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from analysis.go.coords import MAX_SIZE, MIN_SIZE
from analysis.go.position import Position
from analysis.go.rules import AREA_RULES, MAX_KOMI, TERRITORY_RULES, known, komi_in_range
from analysis.nets.zoo import UnknownNetwork
from analysis.review.query import PositionQuery
from frontend.services import engine

MAX_MOVES = 2000
# KataGo's fields that would change what is analysed: answering without them would mislead
UNSUPPORTED = ("analyzeTurns", "avoid", "allowMoves")
MAX_VISITS = 1_000_000  # a sane request; the search itself stops at GOWEB_API_MAX_VISITS
MOVE_FIELDS = {"move": "move", "order": "order", "prior": "prior", "visits": "visits", "winrate": "winrate",
               "scoreLead": "score_lead", "pv": "pv"}  # KataGo's name: ours


class ApiError(ValueError):
    """A query the API refuses; the message says which field is wrong."""


@dataclass(frozen=True)
class Job:
    """A checked query: its ``id``, the position, the analysis to run, whether to include the
    policy, and the visits asked for (``query.visits`` is that, capped at ``GOWEB_API_MAX_VISITS``)."""

    id: Any
    position: Position
    query: PositionQuery
    include_policy: bool
    requested_visits: int


def _get(query: dict, name: str, kind: type | tuple[type, ...], default: Any, what: str) -> Any:
    value = query.get(name, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        raise ApiError(f"'{name}' must be {what}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _board(query: dict) -> tuple[int, float, str]:
    """Return the query's board size, komi and rules (lower-cased); raise ApiError for a bad one."""
    size = _get(query, "boardXSize", int, 19, f"an integer between {MIN_SIZE} and {MAX_SIZE}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ApiError(f"'boardXSize' must be an integer between {MIN_SIZE} and {MAX_SIZE}")
    if _get(query, "boardYSize", int, size, "an integer") != size:
        raise ApiError("only square boards are supported: boardYSize must equal boardXSize")
    komi = _get(query, "komi", (int, float), 7.5, "a number")
    if not komi_in_range(komi):  # compared before float(): a huge integer would overflow it
        raise ApiError(f"'komi' must be between -{MAX_KOMI} and {MAX_KOMI}")
    rules = _get(query, "rules", str, "chinese", "a string").lower()
    if not known(rules):
        names = ", ".join(sorted(AREA_RULES | TERRITORY_RULES))
        shown = rules if len(rules) <= 40 else rules[:40] + "…"
        raise ApiError(f"unknown rules {shown!r}; known: {names} (hyphens, underscores and spaces aside)")
    return size, float(komi), rules


def _visits(query: dict) -> int:
    """Return the visits the query asks for (``GOWEB_REVIEW_VISITS`` by default); raise ApiError
    for a count out of range."""
    what = f"an integer between 1 and {MAX_VISITS:,}"
    visits = _get(query, "maxVisits", int, settings.GOWEB_REVIEW_VISITS, what)
    if not 1 <= visits <= MAX_VISITS:
        raise ApiError(f"'maxVisits' must be {what}")
    return visits


def _network(query: dict, size: int) -> str:
    """Return the name of the network the query names (the default if none) for ``size``; raise
    ApiError for an unknown one."""
    network = _get(query, "network", str, "", "a string: a network's name (GET /api/networks)")
    try:
        return engine.pick(network, size=size).name
    except UnknownNetwork as e:
        raise ApiError(str(e)) from None


def parse(query: Any) -> Job:
    """Check one query and return its Job; raise ApiError for a malformed query or an illegal move.

    ``maxVisits`` defaults to ``GOWEB_REVIEW_VISITS``; more than ``GOWEB_API_MAX_VISITS`` is
    searched to that cap, which the response reports.
    """
    if not isinstance(query, dict):
        raise ApiError("the body must be a JSON object")
    if unsupported := [name for name in UNSUPPORTED if name in query]:
        raise ApiError(f"'{unsupported[0]}' is not supported: send one query per position, with its moves")
    size, komi, rules = _board(query)
    moves = _get(query, "moves", list, [], "a list of [colour, vertex] pairs")
    stones = _get(query, "initialStones", list, [], "a list of [colour, vertex] pairs")
    if len(moves) > MAX_MOVES or len(stones) > size * size:
        raise ApiError(f"too many moves or stones (at most {MAX_MOVES} moves)")
    visits = _visits(query)
    include_policy = _get(query, "includePolicy", bool, False, "a boolean")
    include_ownership = _get(query, "includeOwnership", bool, False, "a boolean")
    analysis = PositionQuery(
        size=size,
        komi=komi,
        rules=rules,
        visits=min(visits, settings.GOWEB_API_MAX_VISITS),
        initial_stones=stones,
        moves=moves,
        ladders=True,
        backpred=False,
        search_moves=True,
        policy=include_policy,
        ownership=include_ownership,
        network=_network(query, size),
    )
    try:
        position = analysis.position()
    except ValueError as e:
        raise ApiError(str(e)) from None
    return Job(query.get("id"), position, analysis, include_policy, visits)


def response(job: Job, analysis: dict) -> dict:
    """Return the KataGo-style answer to ``job`` from the task's ``analysis`` message.

    ``maxVisits`` is the budget searched; ``warning`` says when it was capped below the request.
    ``scoreLead`` (and ``scoreStdev``, ``ownership``) are those of the player to move, like the win
    rates, and null for a network without a score (or ownership) head.
    """
    answer = {
        "id": job.id,
        "turnNumber": len(job.query.moves),
        "network": job.query.network,
        "maxVisits": job.query.visits,
        "moveInfos": [{name: info[ours] for name, ours in MOVE_FIELDS.items()} for info in analysis["moves"]],
        "rootInfo": {
            "currentPlayer": analysis["to_play"],
            "winrate": analysis["winrate"],
            "scoreLead": analysis["score_lead"],
            "scoreStdev": analysis.get("score_stdev"),
            "visits": analysis["visits"],
        },
        "ladders": analysis["ladders"],
    }
    if job.requested_visits > job.query.visits:
        answer["warning"] = (
            f"maxVisits {job.requested_visits} is above this server's cap: searched {job.query.visits} visits"
        )
    if job.query.ownership:
        answer["ownership"] = analysis.get("ownership")
    if job.include_policy:
        legal = [*job.position.legal_points().tolist(), True]
        answer["policy"] = [p if ok else -1 for p, ok in zip(analysis["policy"], legal, strict=True)]
    return answer
