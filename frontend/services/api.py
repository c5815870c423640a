"""``POST /api/analyze``: KataGo-analysis-style queries answered by the network (docs/api.md)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from analysis import ladder, review
from analysis.go.coords import MAX_SIZE, MIN_SIZE
from analysis.go.scoring import AREA_RULES, TERRITORY_RULES

RULES = AREA_RULES | TERRITORY_RULES | {"tromp_taylor", "stone_scoring"}
MAX_MOVES = 2000
MAX_VISITS = 100_000


class ApiError(ValueError):
    """A query the API refuses; the message says which field is wrong."""


def _get(query: dict, name: str, kind: type | tuple[type, ...], default: Any, what: str) -> Any:
    value = query.get(name, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        raise ApiError(f"'{name}' must be {what}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def analyze(query: Any) -> dict:
    """Answer one query; raise ApiError for a malformed query or an illegal move."""
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
    visits = _get(query, "maxVisits", int, 1, f"an integer between 1 and {MAX_VISITS}")
    if not 1 <= visits <= MAX_VISITS:
        raise ApiError(f"'maxVisits' must be an integer between 1 and {MAX_VISITS}")
    include_policy = _get(query, "includePolicy", bool, False, "a boolean")
    try:
        position = review.build_position(size, komi, moves, stones, superko=rules not in TERRITORY_RULES)
    except ValueError as e:
        raise ApiError(str(e)) from None
    result = review.analyze_position(position, review.evaluator(settings.GOWEB_WEIGHTS), include_policy=True)
    response = {
        "id": query.get("id"),
        "turnNumber": len(moves),
        "moveInfos": [
            {"visits": 1, **{k: c[k] for k in ("move", "order", "prior", "winrate", "pv")}}
            for c in result["candidates"]
        ],
        "rootInfo": {
            "currentPlayer": result["to_play"],
            "winrate": result["winrate"],
            "visits": 1 + len(result["candidates"]),
        },
        "ladders": ladder.overlay(position),
    }
    if include_policy:
        legal = [*position.legal_points().tolist(), True]
        response["policy"] = [p if ok else -1 for p, ok in zip(result["policy"], legal, strict=True)]
    return response
