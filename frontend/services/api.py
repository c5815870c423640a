"""``POST /api/analyze``: KataGo-analysis-style queries answered by a search (docs/api.md).

:func:`parse` checks a query and turns it into the query of ``frontend.tasks.analyze_position``,
which runs on a worker (or in-process); :func:`response` turns the task's ``analysis`` message
into KataGo's field names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from analysis.go.coords import MAX_SIZE, MIN_SIZE
from analysis.go.position import Position
from analysis.go.scoring import AREA_RULES, TERRITORY_RULES
from analysis.review import analyze as review

RULES = AREA_RULES | TERRITORY_RULES | {"tromp_taylor", "stone_scoring"}
MAX_MOVES = 2000
MAX_VISITS = 100_000
MOVE_FIELDS = ("move", "order", "prior", "visits", "winrate", "pv")


class ApiError(ValueError):
    """A query the API refuses; the message says which field is wrong."""


@dataclass(frozen=True)
class Job:
    """A checked query: its ``id``, the position, whether to include the policy, and the task's query."""

    id: Any
    position: Position
    include_policy: bool
    task_query: dict


def _get(query: dict, name: str, kind: type | tuple[type, ...], default: Any, what: str) -> Any:
    value = query.get(name, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        raise ApiError(f"'{name}' must be {what}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def parse(query: Any) -> Job:
    """Check one query and return its Job; raise ApiError for a malformed query or an illegal move.

    ``maxVisits`` defaults to ``GOWEB_REVIEW_VISITS`` and is capped at ``GOWEB_API_MAX_VISITS``.
    """
    if not isinstance(query, dict):
        raise ApiError("the body must be a JSON object")
    size = _get(query, "boardXSize", int, 19, f"an integer between {MIN_SIZE} and {MAX_SIZE}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ApiError(f"'boardXSize' must be an integer between {MIN_SIZE} and {MAX_SIZE}")
    if _get(query, "boardYSize", int, size, "an integer") != size:
        raise ApiError("only square boards are supported: boardYSize must equal boardXSize")
    komi = float(_get(query, "komi", (int, float), 7.5, "a number"))
    if not -150 <= komi <= 150:
        raise ApiError("'komi' must be between -150 and 150")
    rules = _get(query, "rules", str, "chinese", "a string").lower()
    if rules not in RULES:
        raise ApiError(f"unknown rules {rules!r}; known: {', '.join(sorted(RULES))}")
    moves = _get(query, "moves", list, [], "a list of [colour, vertex] pairs")
    stones = _get(query, "initialStones", list, [], "a list of [colour, vertex] pairs")
    if len(moves) > MAX_MOVES or len(stones) > size * size:
        raise ApiError(f"too many moves or stones (at most {MAX_MOVES} moves)")
    visits = _get(
        query, "maxVisits", int, settings.GOWEB_REVIEW_VISITS, f"an integer between 1 and {MAX_VISITS}"
    )
    if not 1 <= visits <= MAX_VISITS:
        raise ApiError(f"'maxVisits' must be an integer between 1 and {MAX_VISITS}")
    include_policy = _get(query, "includePolicy", bool, False, "a boolean")
    superko = rules not in TERRITORY_RULES
    try:
        position = review.build_position(size, komi, moves, stones, superko=superko)
    except ValueError as e:
        raise ApiError(str(e)) from None
    task_query = {
        "size": size,
        "komi": komi,
        "moves": moves,
        "initial_stones": stones,
        "superko": superko,
        "visits": min(visits, settings.GOWEB_API_MAX_VISITS),
        "ladders": True,
        "backpred": False,
        "search": True,
    }
    return Job(query.get("id"), position, include_policy, task_query)


def response(job: Job, analysis: dict) -> dict:
    """Return the KataGo-style answer to ``job`` from the task's ``analysis`` message."""
    answer = {
        "id": job.id,
        "turnNumber": len(job.task_query["moves"]),
        "moveInfos": [{k: info[k] for k in MOVE_FIELDS} for info in analysis["moves"]],
        "rootInfo": {
            "currentPlayer": analysis["to_play"],
            "winrate": analysis["winrate"],
            "visits": analysis["visits"],
        },
        "ladders": analysis["ladders"],
    }
    if job.include_policy:
        legal = [*job.position.legal_points().tolist(), True]
        answer["policy"] = [p if ok else -1 for p, ok in zip(analysis["policy"], legal, strict=True)]
    return answer
