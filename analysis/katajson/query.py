"""KataGo's analysis-engine queries, checked: a JSON object in, one :class:`Job` per turn out.

The fields are KataGo's (``Analysis_Engine.md``): ``id``, ``moves``, ``initialStones``,
``initialPlayer``, ``rules``, ``komi``, ``boardXSize``/``boardYSize`` (square boards only),
``analyzeTurns``, ``maxVisits``, ``includePolicy``, ``includeOwnership``, ``avoidMoves``,
``allowMoves``, ``whiteHandicapBonus``, ``priority``/``priorities`` (the order the stdin engine
searches the turns in) and ``overrideSettings`` (``reportAnalysisWinratesAs`` applied, ``maxTime``
kept for the stdin engine, which applies it, the others named in a warning), and ours,
``network``.  Each job holds the
:class:`~analysis.review.query.PositionQuery` of its turn, which the review's search answers
(:func:`analysis.review.analyze.answer_query`); :mod:`analysis.katajson.answer` turns that answer
into KataGo's response.  ``POST /api/analyze`` (frontend/services/api.py) and the stdin engine
(``python -m analysis.katajson``) both check queries here, with their own :class:`Limits`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

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
from analysis.version import git_hash, version

MAX_MOVES = 2000
MAX_DEPTH = 1000  # of an avoidMoves or allowMoves entry's untilDepth
MAX_FILTERS = 20  # avoidMoves entries
MAX_VISITS = 1_000_000  # a sane request; the search itself stops at the Limits' cap
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")  # KataGo's reportAnalysisWinratesAs
SETTINGS = ("reportAnalysisWinratesAs", "maxTime")  # the overrideSettings read (the others: a warning)
MAX_TIME = 1e20  # seconds: KataGo's bound of maxTime
MAX_PRIORITY = 2**62 - 1  # KataGo's bound of priority, either way
ACTIONS = ("query_version", "clear_cache", "terminate", "terminate_all")
ILLEGAL_MOVE = re.compile(r"moves\[(\d+)\] \(move \d+\): illegal move")  # build_position's

PickNetwork = Callable[[str, int], str]  # (name asked, "" for the default; board size) -> name


class QueryError(ValueError):
    """A query refused; the message says what is wrong, ``field`` which field (None: the query as
    a whole)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Limits:
    """What a query may ask: ``default_visits`` when it names none, ``max_visits`` searched at
    most (more is searched to it, and the response says so), ``max_turns`` in ``analyzeTurns``."""

    default_visits: int
    max_visits: int
    max_turns: int


@dataclass(frozen=True)
class Job:
    """One turn of a checked query: its ``id``, the position query to answer, whether to include
    the policy, the visits asked for (``query.visits`` is that, capped), the side the answer's
    figures are seen from, the overrideSettings not applied, the seconds between the reports
    asked during the search (None: the final one only), its ``priority`` (the stdin engine
    searches the highest first) and the ``maxTime`` of its search in seconds (None: no limit;
    applied by the stdin engine, not by ``POST /api/analyze``)."""

    id: Any
    query: PositionQuery
    include_policy: bool
    requested_visits: int
    perspective: str = "SIDETOMOVE"
    ignored: tuple[str, ...] = ()
    report_every: float | None = None  # reportDuringSearchEvery: seconds between reports during the search
    priority: int = 0
    max_time: float | None = None

    @property
    def turn(self) -> int:
        """The turn analysed: the number of moves played before it."""
        return len(self.query.moves)

    @property
    def position(self) -> Position:
        """The position analysed (built anew from the query)."""
        return self.query.position()


def read_json(raw: bytes | str) -> Any:
    """Return the JSON value of a query's text; raises QueryError for text that is not JSON, holds
    NaN or an infinity (which JSON has not), or is nested too deep."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not a JSON number")

    try:
        return json.loads(raw, parse_constant=refuse)
    except RecursionError:
        raise QueryError("the query is not valid JSON: nested too deep") from None
    except ValueError as e:
        raise QueryError(f"the query is not valid JSON: {str(e)[:200]}") from None


def error(e: QueryError, query: Any = None) -> dict:
    """Return KataGo's error answering ``e``: ``error``, ``field`` (when one is to blame) and the
    query's ``id`` (when it has one)."""
    body: dict[str, Any] = {"error": str(e)}
    if e.field is not None:
        body["field"] = e.field
    if isinstance(query, dict) and "id" in query:
        body["id"] = query["id"]
    return body


def action_of(query: Any) -> str | None:
    """Return the query's KataGo ``action`` (None for an analysis query); raises QueryError for an
    unknown one."""
    if not isinstance(query, dict) or "action" not in query:
        return None
    if query["action"] not in ACTIONS:
        raise QueryError(f"'action' must be one of {', '.join(ACTIONS)}", "action")
    return query["action"]


def version_reply(query: dict) -> dict:
    """Return the answer to a ``query_version`` action: its ``id``, ``version`` and ``git_hash``
    (a string, as KataGo's: :func:`git_hash`)."""
    return {"id": query.get("id"), "action": "query_version", "version": version(), "git_hash": git_hash()}


def _get(query: dict, name: str, kind: type | tuple[type, ...], default: Any, what: str) -> Any:
    """Return ``query[name]`` (``default`` when absent); raises QueryError unless it is a ``kind``."""
    value = query.get(name, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        raise QueryError(f"'{name}' must be {what}", name)
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _board(query: dict) -> tuple[int, float, str]:
    """Return the query's board size, komi and rules (lower-cased); raise QueryError for a bad one."""
    size = _get(query, "boardXSize", int, 19, f"an integer between {MIN_SIZE} and {MAX_SIZE}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise QueryError(f"'boardXSize' must be an integer between {MIN_SIZE} and {MAX_SIZE}", "boardXSize")
    if _get(query, "boardYSize", int, size, "an integer") != size:
        raise QueryError("only square boards are supported: boardYSize must equal boardXSize", "boardYSize")
    rules = _get(query, "rules", str, "chinese", "a rule set's name (an object of rules is not supported)")
    rules = rules.lower()
    if not known(rules):
        names = ", ".join(sorted(AREA_RULES | TERRITORY_RULES))
        shown = rules if len(rules) <= 40 else rules[:40] + "…"
        raise QueryError(f"unknown rules {shown!r}; known: {names} (hyphens, underscores and spaces aside)",
                       "rules")
    komi = _get(query, "komi", (int, float), default_komi(rules), "a number")
    if not komi_in_range(komi):  # compared before float(): a huge integer would overflow it
        raise QueryError(f"'komi' must be between -{MAX_KOMI} and {MAX_KOMI}", "komi")
    if not float(2 * komi).is_integer():
        raise QueryError(f"Must be a integer or half-integer from {-MAX_KOMI:.1f} to {MAX_KOMI:.1f} "
                         f"('komi' is {komi})", "komi")
    return size, float(komi), rules


def _visits(query: dict, default: int) -> int:
    """Return the visits the query asks for (``default`` when none); raises QueryError for a count
    out of range."""
    what = f"an integer between 1 and {MAX_VISITS:,}"
    visits = _get(query, "maxVisits", int, default, what)
    if not 1 <= visits <= MAX_VISITS:
        raise QueryError(f"'maxVisits' must be {what}", "maxVisits")
    return visits


def _network(query: dict, size: int, pick: PickNetwork) -> str:
    """Return the name of the network the query names (the default if none) for ``size``; raises
    QueryError for an unknown one."""
    network = _get(query, "network", str, "", "a string: a network's name")
    try:
        return pick(network, size)
    except UnknownNetwork as e:
        raise QueryError(str(e), "network") from None


def _turns(query: dict, moves: list, most: int) -> list[int]:
    """Return the turns to analyse as ``analyzeTurns`` names them (at most ``most``, in its order),
    else the number of moves; raises QueryError for too many turns or one out of range."""
    turns = _get(query, "analyzeTurns", list, [len(moves)], "a list of turn numbers")
    if not 1 <= len(turns) <= most:
        one = "one turn: send one query per turn" if most == 1 else f"1 to {most} turns"
        raise QueryError(f"'analyzeTurns' must name {one}", "analyzeTurns")
    for turn in turns:
        if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn <= len(moves):
            raise QueryError(f"'analyzeTurns' must name turns from 0 to {len(moves)} (the number of moves)",
                             "analyzeTurns")
    return turns


def _initial_player(query: dict) -> str:
    """Return the query's ``initialPlayer`` as "B" or "W" (empty: none given); raises QueryError."""
    player = _get(query, "initialPlayer", str, "", '"B" or "W"')
    if not player:
        return ""
    try:
        return "B" if parse_color(player) == BLACK else "W"
    except ValueError:
        raise QueryError("'initialPlayer' must be \"B\" or \"W\"", "initialPlayer") from None


def _filter(entry: Any, name: str, size: int, allow: bool) -> Filter:
    """Return one ``avoidMoves``/``allowMoves`` entry (``{"player", "moves", "untilDepth"}``) as a
    PositionQuery filter; raises QueryError naming the entry.  ``moves`` may be empty, as KataGo
    takes it: an avoidMoves entry then avoids nothing, an allowMoves entry allows nothing (the
    search keeps pass, :func:`analysis.mcts.restrict.filtered_legal`)."""
    if not isinstance(entry, dict):
        raise QueryError(f"'{name}' entries must be objects with player, moves and untilDepth", name)
    player, moves, depth = entry.get("player"), entry.get("moves"), entry.get("untilDepth")
    try:
        color = "B" if parse_color(player if isinstance(player, str) else "") == BLACK else "W"
    except ValueError:
        raise QueryError(f"'{name}': player must be \"B\" or \"W\"", name) from None
    if not isinstance(moves, list) or len(moves) > size * size + 1:
        raise QueryError(f"'{name}': moves must be a list of at most {size * size + 1} vertices", name)
    for move in moves:
        try:
            from_gtp(move if isinstance(move, str) else "", size)
        except ValueError:
            shown = str(move)[:20]
            raise QueryError(f"'{name}': {shown!r} is not a vertex of a {size}x{size} board", name) from None
    if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= MAX_DEPTH:
        raise QueryError(f"'{name}': untilDepth must be an integer from 1 to {MAX_DEPTH}", name)
    return color, tuple(moves), depth, allow


def _filters(query: dict, size: int) -> tuple[Filter, ...]:
    """Return the query's ``avoidMoves`` or ``allowMoves`` (one entry at most, as KataGo takes
    it) as PositionQuery filters; raises QueryError for a malformed entry, or for both fields
    given (KataGo's error, on ``allowMoves``)."""
    if "avoidMoves" in query and "allowMoves" in query:
        raise QueryError("Cannot specify both allowMoves and avoidMoves", "allowMoves")
    avoid = _get(query, "avoidMoves", list, [], "a list of {player, moves, untilDepth} objects")
    allow = _get(query, "allowMoves", list, [], "a list of one {player, moves, untilDepth} object")
    if len(avoid) > MAX_FILTERS:
        raise QueryError(f"'avoidMoves' may have at most {MAX_FILTERS} entries", "avoidMoves")
    if len(allow) > 1:
        raise QueryError("'allowMoves' may have one entry at most", "allowMoves")
    return (*(_filter(e, "avoidMoves", size, False) for e in avoid),
            *(_filter(e, "allowMoves", size, True) for e in allow))


def _bonus(query: dict) -> str:
    """Return the query's ``whiteHandicapBonus`` ("0", "N" or "N-1"; empty: the rules'); raises
    QueryError for another."""
    bonus = _get(query, "whiteHandicapBonus", str, "", f"one of {', '.join(HANDICAP_BONUSES)}")
    if bonus and bonus not in HANDICAP_BONUSES:
        raise QueryError(f"'whiteHandicapBonus' must be one of {', '.join(HANDICAP_BONUSES)}",
                       "whiteHandicapBonus")
    return bonus


def _settings(query: dict) -> tuple[str, tuple[str, ...], float | None]:
    """Return the side the answer's figures are seen from (KataGo's ``reportAnalysisWinratesAs``
    in ``overrideSettings``, SIDETOMOVE by default), the names of the other settings but
    ``maxTime``, which are not applied, and ``maxTime`` (seconds, None when not given); raises
    QueryError for a bad side or time."""
    overrides = _get(query, "overrideSettings", dict, {}, "an object")
    side = overrides.get("reportAnalysisWinratesAs", "SIDETOMOVE")
    if not isinstance(side, str) or side.upper() not in PERSPECTIVES:
        raise QueryError(f"'reportAnalysisWinratesAs' must be one of {', '.join(PERSPECTIVES)}",
                       "overrideSettings")
    max_time = overrides.get("maxTime")
    if max_time is not None and (not isinstance(max_time, int | float) or isinstance(max_time, bool)
                                 or not 0 <= max_time <= MAX_TIME):
        raise QueryError(f"'maxTime' must be a number of seconds from 0 to {MAX_TIME:g}", "overrideSettings")
    ignored = tuple(sorted(str(name)[:40] for name in overrides if name not in SETTINGS))
    return side.upper(), ignored, None if max_time is None else float(max_time)


def _priorities(query: dict, turns: list[int]) -> dict[int, int]:
    """Return each turn's priority: ``priorities`` (one per turn of ``analyzeTurns``, which it
    needs) or ``priority`` for all (0 by default), as KataGo takes them; raises QueryError for a
    bad one, or both fields given."""
    what = "an integer between -2^62 and 2^62"
    if "priorities" not in query:
        priority = _get(query, "priority", int, 0, what)
        if not -MAX_PRIORITY <= priority <= MAX_PRIORITY:
            raise QueryError(f"'priority' must be {what}", "priority")
        return dict.fromkeys(turns, priority)
    if "priority" in query:
        raise QueryError("Cannot specify both priority and priorities", "priority")
    priorities = _get(query, "priorities", list, [], "a list of integers, one per turn of analyzeTurns")
    if "analyzeTurns" not in query:
        raise QueryError("'priorities' can only be given with analyzeTurns", "priorities")
    if len(priorities) != len(turns):
        raise QueryError("'priorities' must be as long as analyzeTurns", "priorities")
    if not all(isinstance(p, int) and not isinstance(p, bool) and -MAX_PRIORITY <= p <= MAX_PRIORITY
               for p in priorities):
        raise QueryError("'priorities' must be a list of integers between -2^62 and 2^62", "priorities")
    return dict(zip(turns, priorities, strict=True))  # a turn named twice: its last priority, as KataGo


def _report_every(query: dict) -> float | None:
    """Return the query's ``reportDuringSearchEvery`` in seconds (None: not asked); raises
    QueryError for one that is not a positive number of at most a day."""
    every = _get(query, "reportDuringSearchEvery", (int, float, type(None)), None, "a number of seconds")
    if every is not None and not 0.01 <= every <= 86_400:
        raise QueryError("'reportDuringSearchEvery' must be between 0.01 and 86400 seconds",
                         "reportDuringSearchEvery")
    return None if every is None else float(every)


def parse(query: Any, limits: Limits, pick: PickNetwork) -> list[Job]:
    """Check one analysis query and return its jobs, one per turn, in ascending turn order (a
    turn named twice is analysed once), as KataGo queues them; raises QueryError for a malformed
    query or an illegal move (every move is checked, the turns analysed or not; the stdin engine
    puts KataGo's words before ours: :func:`katago_illegal`).

    ``maxVisits`` defaults to ``limits.default_visits``; more than ``limits.max_visits`` is
    searched to that cap, which the response reports.  ``komi`` defaults to the rules' usual one.
    """
    if not isinstance(query, dict):
        raise QueryError("the body must be a JSON object")
    size, komi, rules = _board(query)
    moves = _get(query, "moves", list, [], "a list of [colour, vertex] pairs")
    stones = _get(query, "initialStones", list, [], "a list of [colour, vertex] pairs")
    if len(moves) > MAX_MOVES or len(stones) > size * size:
        raise QueryError(f"too many moves or stones (at most {MAX_MOVES} moves)", "moves")
    turns = _turns(query, moves, limits.max_turns)
    visits = _visits(query, limits.default_visits)
    include_policy = _get(query, "includePolicy", bool, False, "a boolean")
    include_ownership = _get(query, "includeOwnership", bool, False, "a boolean")
    perspective, ignored, max_time = _settings(query)
    priorities = _priorities(query, turns)
    whole = PositionQuery(
        size=size,
        komi=komi,
        rules=rules,
        visits=min(visits, limits.max_visits),
        initial_stones=stones,
        moves=moves,
        ladders=True,
        backpred=False,
        search_moves=True,
        policy=include_policy,
        ownership=include_ownership,
        network=_network(query, size, pick),
        initial_player=_initial_player(query),
        handicap_bonus=_bonus(query),
        filters=_filters(query, size),
    )
    try:
        whole.position()
    except ValueError as e:
        field = "initialStones" if str(e).startswith("initialStones") else "moves"
        raise QueryError(str(e), field) from None
    every = _report_every(query)
    return [Job(query.get("id"), replace(whole, moves=whole.moves[:turn], move_number=turn), include_policy,
                visits, perspective, ignored, every, priorities[turn], max_time)
            for turn in sorted(priorities)]


def katago_illegal(e: QueryError, query: Any) -> QueryError:
    """Return ``e`` (raised by :func:`parse` for ``query``), led by KataGo's ``Illegal move N:
    VERTEX`` (N counted from 0) when it is of an illegal move, whose text KataGo's clients look
    for (KaTrain: ``"Illegal move" in error``); any other error as it is."""
    found = ILLEGAL_MOVE.match(str(e)) if e.field == "moves" and isinstance(query, dict) else None
    if found is None:
        return e
    vertex = str(query["moves"][int(found.group(1))][1]).upper()
    return QueryError(f"Illegal move {found.group(1)}: {vertex}: {e}", e.field)
