"""``POST /api/analyze``: KataGo-analysis-style queries answered by a search (docs/api.md).

:func:`action_reply` answers KataGo's ``action`` queries; :func:`parse` checks a query and turns
it into a :class:`~analysis.review.query.PositionQuery`, which ``frontend.tasks.analyze_position``
answers on a worker (or in-process); :func:`response` turns the task's ``analysis`` message into
KataGo's field names, seen from the side the query asks (``reportAnalysisWinratesAs``).
"""

from __future__ import annotations

import functools
import json
import tomllib
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from analysis.go.coords import BLACK, MAX_SIZE, MIN_SIZE, from_gtp, parse_color
from analysis.go.position import Position
from analysis.go.rules import (
    AREA_RULES,
    HANDICAP_BONUSES,
    MAX_KOMI,
    TERRITORY_RULES,
    default_komi,
    known,
    komi_in_range,
)
from analysis.nets.zoo import UnknownNetwork
from analysis.review.query import Filter, PositionQuery
from analysis.stats import wilson_interval
from frontend.services import engine

MAX_MOVES = 2000
MAX_DEPTH = 1000  # of an avoidMoves or allowMoves entry's untilDepth
MAX_FILTERS = 20  # avoidMoves entries
MAX_VISITS = 1_000_000  # a sane request; the search itself stops at GOWEB_API_MAX_VISITS
MOVE_FIELDS = {"move": "move", "order": "order", "prior": "prior", "visits": "visits", "winrate": "winrate",
               "scoreLead": "score_lead", "pv": "pv"}  # KataGo's name: ours
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")  # KataGo's reportAnalysisWinratesAs
SETTINGS = ("reportAnalysisWinratesAs",)  # the overrideSettings applied (the others: a warning)
NOT_JSON = "send the query as JSON, with Content-Type: application/json"
ACTIONS = ("query_version", "clear_cache", "terminate", "terminate_all")


class ApiError(ValueError):
    """A query the API refuses; the message says what is wrong, ``field`` which field (None: the
    body as a whole)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Job:
    """A checked query: its ``id``, the position, the analysis to run, whether to include the
    policy, and the visits asked for (``query.visits`` is that, capped at ``GOWEB_API_MAX_VISITS``)."""

    id: Any
    position: Position
    query: PositionQuery
    include_policy: bool
    requested_visits: int
    perspective: str = "SIDETOMOVE"  # whose win rates, leads and ownership the answer gives
    ignored: tuple[str, ...] = ()  # the overrideSettings not applied


def read_json(raw: bytes) -> Any:
    """Return the JSON value of a request body; raises ApiError for one that is not JSON, holds
    NaN or an infinity (which JSON has not), or is nested too deep."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not a JSON number")

    try:
        return json.loads(raw, parse_constant=refuse)
    except RecursionError:
        raise ApiError("the body is not valid JSON: nested too deep") from None
    except ValueError as e:
        raise ApiError(f"the body is not valid JSON: {str(e)[:200]}") from None


def error(e: ApiError, query: Any = None) -> dict:
    """Return the body of the 400 answering ``e``: KataGo's ``error``, ``field`` (when one is to
    blame) and the query's ``id`` (when it has one)."""
    body: dict[str, Any] = {"error": str(e)}
    if e.field is not None:
        body["field"] = e.field
    if isinstance(query, dict) and "id" in query:
        body["id"] = query["id"]
    return body


def _get(query: dict, name: str, kind: type | tuple[type, ...], default: Any, what: str) -> Any:
    """Return ``query[name]`` (``default`` when absent); raises ApiError unless it is a ``kind``."""
    value = query.get(name, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        raise ApiError(f"'{name}' must be {what}", name)
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _board(query: dict) -> tuple[int, float, str]:
    """Return the query's board size, komi and rules (lower-cased); raise ApiError for a bad one."""
    size = _get(query, "boardXSize", int, 19, f"an integer between {MIN_SIZE} and {MAX_SIZE}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ApiError(f"'boardXSize' must be an integer between {MIN_SIZE} and {MAX_SIZE}", "boardXSize")
    if _get(query, "boardYSize", int, size, "an integer") != size:
        raise ApiError("only square boards are supported: boardYSize must equal boardXSize", "boardYSize")
    rules = _get(query, "rules", str, "chinese", "a rule set's name (an object of rules is not supported)")
    rules = rules.lower()
    if not known(rules):
        names = ", ".join(sorted(AREA_RULES | TERRITORY_RULES))
        shown = rules if len(rules) <= 40 else rules[:40] + "…"
        raise ApiError(f"unknown rules {shown!r}; known: {names} (hyphens, underscores and spaces aside)",
                       "rules")
    komi = _get(query, "komi", (int, float), default_komi(rules), "a number")
    if not komi_in_range(komi):  # compared before float(): a huge integer would overflow it
        raise ApiError(f"'komi' must be between -{MAX_KOMI} and {MAX_KOMI}", "komi")
    return size, float(komi), rules


def _visits(query: dict) -> int:
    """Return the visits the query asks for (``GOWEB_REVIEW_VISITS`` by default); raise ApiError
    for a count out of range."""
    what = f"an integer between 1 and {MAX_VISITS:,}"
    visits = _get(query, "maxVisits", int, settings.GOWEB_REVIEW_VISITS, what)
    if not 1 <= visits <= MAX_VISITS:
        raise ApiError(f"'maxVisits' must be {what}", "maxVisits")
    return visits


def _network(query: dict, size: int) -> str:
    """Return the name of the network the query names (the default if none) for ``size``; raise
    ApiError for an unknown one."""
    network = _get(query, "network", str, "", "a string: a network's name (GET /api/networks)")
    try:
        return engine.pick(network, size=size).name
    except UnknownNetwork as e:
        raise ApiError(str(e), "network") from None


def _turn(query: dict, moves: list) -> int:
    """Return the turn to analyse: the one ``analyzeTurns`` names, else the number of moves; raises
    ApiError for more than one turn or one out of range."""
    turns = _get(query, "analyzeTurns", list, [len(moves)], "a list of one turn number")
    if len(turns) != 1:
        raise ApiError("'analyzeTurns' must name one turn: send one query per turn", "analyzeTurns")
    turn = turns[0]
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= len(moves):
        raise ApiError(f"'analyzeTurns' must name a turn from 0 to {len(moves)} (the number of moves)",
                       "analyzeTurns")
    return turn


def _initial_player(query: dict) -> str:
    """Return the query's ``initialPlayer`` as "B" or "W" (empty: none given); raises ApiError."""
    player = _get(query, "initialPlayer", str, "", '"B" or "W"')
    if not player:
        return ""
    try:
        return "B" if parse_color(player) == BLACK else "W"
    except ValueError:
        raise ApiError("'initialPlayer' must be \"B\" or \"W\"", "initialPlayer") from None


def _filter(entry: Any, name: str, size: int, allow: bool) -> Filter:
    """Return one ``avoidMoves``/``allowMoves`` entry (``{"player", "moves", "untilDepth"}``) as a
    PositionQuery filter; raises ApiError naming the entry."""
    if not isinstance(entry, dict):
        raise ApiError(f"'{name}' entries must be objects with player, moves and untilDepth", name)
    player, moves, depth = entry.get("player"), entry.get("moves"), entry.get("untilDepth")
    try:
        color = "B" if parse_color(player if isinstance(player, str) else "") == BLACK else "W"
    except ValueError:
        raise ApiError(f"'{name}': player must be \"B\" or \"W\"", name) from None
    if not isinstance(moves, list) or not 1 <= len(moves) <= size * size + 1:
        raise ApiError(f"'{name}': moves must be a list of 1 to {size * size + 1} vertices", name)
    for move in moves:
        try:
            from_gtp(move if isinstance(move, str) else "", size)
        except ValueError:
            shown = str(move)[:20]
            raise ApiError(f"'{name}': {shown!r} is not a vertex of a {size}x{size} board", name) from None
    if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= MAX_DEPTH:
        raise ApiError(f"'{name}': untilDepth must be an integer from 1 to {MAX_DEPTH}", name)
    return color, tuple(moves), depth, allow


def _filters(query: dict, size: int) -> tuple[Filter, ...]:
    """Return the query's ``avoidMoves`` and ``allowMoves`` (one entry at most, as KataGo takes
    it) as PositionQuery filters; raises ApiError for a malformed entry."""
    avoid = _get(query, "avoidMoves", list, [], "a list of {player, moves, untilDepth} objects")
    allow = _get(query, "allowMoves", list, [], "a list of one {player, moves, untilDepth} object")
    if len(avoid) > MAX_FILTERS:
        raise ApiError(f"'avoidMoves' may have at most {MAX_FILTERS} entries", "avoidMoves")
    if len(allow) > 1:
        raise ApiError("'allowMoves' may have one entry at most", "allowMoves")
    return (*(_filter(e, "avoidMoves", size, False) for e in avoid),
            *(_filter(e, "allowMoves", size, True) for e in allow))


def _bonus(query: dict) -> str:
    """Return the query's ``whiteHandicapBonus`` ("0", "N" or "N-1"; empty: the rules'); raises
    ApiError for another."""
    bonus = _get(query, "whiteHandicapBonus", str, "", f"one of {', '.join(HANDICAP_BONUSES)}")
    if bonus and bonus not in HANDICAP_BONUSES:
        raise ApiError(f"'whiteHandicapBonus' must be one of {', '.join(HANDICAP_BONUSES)}",
                       "whiteHandicapBonus")
    return bonus


def _settings(query: dict) -> tuple[str, tuple[str, ...]]:
    """Return the side the answer's figures are seen from (KataGo's ``reportAnalysisWinratesAs``
    in ``overrideSettings``, SIDETOMOVE by default) and the names of the other settings, which
    are not applied; raises ApiError for a bad side."""
    overrides = _get(query, "overrideSettings", dict, {}, "an object")
    side = overrides.get("reportAnalysisWinratesAs", "SIDETOMOVE")
    if not isinstance(side, str) or side.upper() not in PERSPECTIVES:
        raise ApiError(f"'reportAnalysisWinratesAs' must be one of {', '.join(PERSPECTIVES)}",
                       "overrideSettings")
    ignored = tuple(sorted(str(name)[:40] for name in overrides if name not in SETTINGS))
    return side.upper(), ignored


def action_reply(query: Any) -> dict | None:
    """Return the answer to KataGo's ``action`` query (``query_version``), or None for a query
    without an ``action``; raises ApiError for the actions that mean nothing here (each query is
    a request of its own: closing it withdraws it, and no cache outlives it) or an unknown one."""
    if not isinstance(query, dict) or "action" not in query:
        return None
    action = query["action"]
    if action == "query_version":
        return {"id": query.get("id"), "action": action, "version": _version(), "git_hash": None}
    if action in ACTIONS:
        raise ApiError(f"action {action!r} is not supported here: each query is a request of its own, "
                       "withdrawn when its connection closes", "action")
    raise ApiError(f"'action' must be one of {', '.join(ACTIONS)}", "action")


@functools.cache
def _version() -> str:
    """Return the site's version, its pyproject.toml's."""
    with (settings.BASE_DIR / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]["version"]


def parse(query: Any) -> Job:
    """Check one query and return its Job; raise ApiError for a malformed query or an illegal move.

    ``maxVisits`` defaults to ``GOWEB_REVIEW_VISITS``; more than ``GOWEB_API_MAX_VISITS`` is
    searched to that cap, which the response reports.  ``komi`` defaults to the rules' usual one.
    """
    if not isinstance(query, dict):
        raise ApiError("the body must be a JSON object")
    size, komi, rules = _board(query)
    moves = _get(query, "moves", list, [], "a list of [colour, vertex] pairs")
    stones = _get(query, "initialStones", list, [], "a list of [colour, vertex] pairs")
    if len(moves) > MAX_MOVES or len(stones) > size * size:
        raise ApiError(f"too many moves or stones (at most {MAX_MOVES} moves)", "moves")
    moves = moves[:_turn(query, moves)]
    visits = _visits(query)
    include_policy = _get(query, "includePolicy", bool, False, "a boolean")
    include_ownership = _get(query, "includeOwnership", bool, False, "a boolean")
    perspective, ignored = _settings(query)
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
        initial_player=_initial_player(query),
        handicap_bonus=_bonus(query),
        filters=_filters(query, size),
    )
    try:
        position = analysis.position()
    except ValueError as e:
        field = "initialStones" if str(e).startswith("initialStones") else "moves"
        raise ApiError(str(e), field) from None
    return Job(query.get("id"), position, analysis, include_policy, visits, perspective, ignored)


def response(job: Job, analysis: dict) -> dict:
    """Return the KataGo-style answer to ``job`` from the task's ``analysis`` message.

    ``maxVisits`` is the budget searched; ``warning`` says when it was capped below the request,
    or when settings were not applied.  Win rates, ``scoreLead`` (and ``ownership``) are those of
    the side ``job.perspective`` names (the player to move by default), and the leads and
    ownership null for a network without a score (or ownership) head.  ``lcb`` is the lower end of
    the 95% Wilson interval of a move's win rate over its visits, ``utility`` its win value on the
    -1..1 scale (as ``kata-analyze`` reports them).
    """
    flip = job.perspective == ("WHITE" if analysis["to_play"] == "B" else "BLACK")
    answer = {
        "id": job.id,
        "isDuringSearch": False,
        "turnNumber": len(job.query.moves),
        "network": job.query.network,
        "maxVisits": job.query.visits,
        "moveInfos": [_move_info(info, flip) for info in analysis["moves"]],
        "rootInfo": {
            "currentPlayer": analysis["to_play"],
            "winrate": _rate(analysis["winrate"], flip),
            "utility": round(2 * _rate(analysis["winrate"], flip) - 1, 4),
            "scoreLead": _lead(analysis["score_lead"], flip),
            "scoreStdev": analysis.get("score_stdev"),
            "visits": analysis["visits"],
        },
        "ladders": analysis["ladders"],
    }
    warnings = []
    if job.requested_visits > job.query.visits:
        warnings.append(f"maxVisits {job.requested_visits} is above this server's cap: "
                        f"searched {job.query.visits} visits")
    if job.ignored:
        warnings.append(f"overrideSettings not applied here: {', '.join(job.ignored)}")
    if warnings:
        answer["warning"] = "; ".join(warnings)
    if job.query.ownership:
        owned = analysis.get("ownership")
        answer["ownership"] = None if owned is None else [-v if flip else v for v in owned]
    if job.include_policy:
        legal = [*job.position.legal_points().tolist(), True]
        answer["policy"] = [p if ok else -1 for p, ok in zip(analysis["policy"], legal, strict=True)]
    return answer


def _move_info(info: dict, flip: bool) -> dict:
    """Return one searched move in KataGo's names, seen from the other side when ``flip``."""
    entry = {name: info[ours] for name, ours in MOVE_FIELDS.items()}
    visits, winrate = info["visits"], _rate(info["winrate"], flip)
    lead = _lead(info["score_lead"], flip)
    lcb = wilson_interval(min(max(winrate * visits, 0.0), visits), visits)[0] if visits else 0.0
    entry.update(winrate=winrate, scoreLead=lead, scoreMean=lead, utility=round(2 * winrate - 1, 4),
                 lcb=round(lcb, 4))
    return entry


def _rate(winrate: float, flip: bool) -> float:
    """Return ``winrate``, or the other side's when ``flip``."""
    return round(1.0 - winrate, 4) if flip else winrate


def _lead(lead: float | None, flip: bool) -> float | None:
    """Return ``lead`` (None stays None), or the other side's when ``flip``."""
    return None if lead is None else (-lead if flip else lead)
