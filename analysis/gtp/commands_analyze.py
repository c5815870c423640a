"""Streaming analysis for Sabaki and Lizzie: ``lz-analyze``, ``kata-analyze`` and their genmove forms.

``lz-analyze [color] [interval] [key value]...`` (``kata-analyze`` alike) replies
``=`` on a line of its own, then searches the current position (with ``color``
to play, if given) and writes an ``info`` line (analysis_info.py) every
``interval`` centiseconds (default 100) until the next command arrives; an
empty line then ends the reply, and the new command is answered.  An interval is
an ASCII decimal number, fractions allowed as KataGo reads a double (JavaScript
clients send ``10.000000000000002``), of at most 9 digits before the point and
32 characters in all; below 1 it counts as 1.  Keys:
``interval N``, ``maxmoves N`` (report at most N moves), ``minmoves N`` (report
at least N moves where there are that many: as KataGo does, the best-prior moves
the search has not visited yet are added after the visited ones, with ``visits 0``,
their prior, the root's win rate and score lead, ``lcb 0`` and the move alone as
``pv``; they are drawn from the root's candidates, the legal moves with a prior
that avoid and allow leave in, which under darkforest's tree policy are only its
top moves), KataGo's ``avoid PLAYER VERTEX,VERTEX,... UNTILDEPTH`` and ``allow
PLAYER VERTEX,... UNTILDEPTH`` (the search does not consider PLAYER's moves at, or
anything but, the vertices, ``pass`` among them, in its first UNTILDEPTH plies, 1
meaning the position's own move; ``avoid`` may be given several times, ``allow``
once per player; such an analysis searches a tree of its own, leaving the bot's
alone), and KataGo's output
switches: ``ownership true`` appends the network's ownership of every point to
each line (when the network has an ownership head); the others are accepted and ignored.  The search
stops growing at MAX_ANALYSIS_VISITS visits (about 9 KB of tree each on 19x19)
and the reply then waits for the next command.  Without avoid or allow the tree is
the bot's, so analysis and genmove reuse each other's work.

``lz-genmove_analyze [color] [interval] [key value]...`` (``kata-genmove_analyze``
alike) is genmove with the bot's search reported on the way (search levels only),
ending with ``play VERTEX`` (or ``play resign``); it takes the same keys: with avoid
or allow the bot's move keeps to them (a search level searches a tree of its own for
it; the ``rules`` level refuses them).

``stop`` (KataGo's) ends an analysis as any command does, and replies ``=``.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TextIO

from analysis.go.coords import CoordinateError, from_gtp, parse_color
from analysis.gtp.analysis_info import info_line
from analysis.gtp.commands import play_bot_choice
from analysis.gtp.commands_args import CommandError, Handler
from analysis.mcts import Candidate, MoveFilter, SearchResult

if TYPE_CHECKING:
    from collections.abc import Sequence

    from analysis.go.position import Position
    from analysis.gtp.engine import GtpEngine
    from analysis.mcts import Search
    from analysis.mcts.node import Node

DEFAULT_INTERVAL = 100  # centiseconds
MAX_DIGITS = 9  # of a count of moves, a depth, or an interval's whole part
MAX_NUMBER_CHARS = 32  # of an interval: "10.000000000000002" has 18
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits: str.isdigit takes "²", which int() refuses
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")  # no sign, exponent, nan or inf
_COLORS = ("b", "w", "black", "white")
MAX_ANALYSIS_VISITS = 100_000
POLL_SECONDS = 0.05  # how often a streaming search looks for the next command
KATA_SWITCHES = {"ownership", "ownershipStdev", "pvVisits", "pvEdgeVisits", "movesOwnership",
                 "movesOwnershipStdev", "rootInfo", "includePolicy"}  # fmt: skip


@dataclass(frozen=True)
class AnalyzeArgs:
    """The arguments of an analyze command: colour to play (None: the board's), report interval in
    seconds, most moves per report (None: all), whether to report ownership, least moves per report
    (0: only the visited ones) and KataGo's avoid and allow filters."""

    color: int | None
    interval: float
    max_moves: int | None
    ownership: bool = False
    min_moves: int = 0
    filters: tuple[MoveFilter, ...] = ()


def _count(text: str, key: str) -> int:
    """Return ``text`` as a non-negative int of at most :data:`MAX_DIGITS` ASCII digits; raises
    CommandError naming ``key`` otherwise."""
    if not _DIGITS.fullmatch(text) or len(text) > MAX_DIGITS:
        raise CommandError(f"invalid {key} {text[:16]!r}")
    return int(text)


def _interval(text: str) -> float:
    """Return ``text``, an interval in centiseconds, as a float: ASCII digits with an optional
    fraction, at most :data:`MAX_DIGITS` before the point and :data:`MAX_NUMBER_CHARS` in all.
    Raises CommandError otherwise (signs, exponents, nan, inf, other scripts' digits)."""
    if not _DECIMAL.fullmatch(text) or len(text) > MAX_NUMBER_CHARS or len(text.split(".")[0]) > MAX_DIGITS:
        raise CommandError(f"invalid interval {text[:16]!r}")
    return float(text)


def _take(rest: list[str], key: str, n: int) -> list[str]:
    """Remove and return the first ``n`` words of ``rest``, the values of ``key``; raises
    CommandError if there are fewer."""
    if len(rest) < n:
        raise CommandError(f"missing value for {key[:16]!r}")
    values = rest[:n]
    del rest[:n]
    return values


def _switch(key: str, value: str, ownership: bool) -> bool:
    """Return whether ownership is asked for once KataGo's switch ``key`` is ``value`` (``ownership``
    so far); raises CommandError for an unknown key or a value other than true or false."""
    if key not in KATA_SWITCHES:
        raise CommandError(f"unsupported analyze argument {key[:16]!r}")
    if value not in ("true", "false"):
        raise CommandError(f"{key} must be true or false, not {value[:16]!r}")
    return value == "true" if key == "ownership" else ownership


def _move_filter(key: str, values: list[str], size: int, earlier: Sequence[MoveFilter]) -> MoveFilter:
    """Return the filter of ``avoid``/``allow`` (``key``) ``PLAYER VERTEX,... UNTILDEPTH`` on a
    ``size`` board, given the ``earlier`` filters; raises CommandError for an unknown player, a bad
    vertex, a depth that is not a positive count, or a second ``allow`` for one player."""
    player_text, vertices, depth_text = values
    try:
        player = parse_color(player_text)
        points = frozenset(from_gtp(vertex, size) for vertex in vertices.split(","))
    except CoordinateError as e:
        raise CommandError(f"{key}: {e}") from None
    except ValueError:
        raise CommandError(f"invalid {key} player {player_text[:16]!r}") from None
    depth = _count(depth_text, f"{key} untildepth")
    if depth < 1:
        raise CommandError(f"invalid {key} untildepth {depth_text!r}")
    allow = key == "allow"
    if allow and any(f.allow and f.player == player for f in earlier):
        raise CommandError(f"allow given twice for {player_text[:16]!r} (once per player)")
    return MoveFilter(player, points, depth, allow)


def parse_analyze_args(args: list[str], size: int = 19) -> AnalyzeArgs:
    """Return the parsed ``[color] [interval] [key value]...`` for a ``size`` board (the vertices of
    avoid and allow); raises CommandError for an unknown key, a key without its values, a bad
    number, colour or vertex."""
    rest = list(args)
    color = parse_color(rest.pop(0)) if rest and rest[0].lower() in _COLORS else None
    interval = _interval(rest.pop(0)) if rest and _DECIMAL.fullmatch(rest[0]) else DEFAULT_INTERVAL
    max_moves: int | None = None
    min_moves, ownership = 0, False
    filters: list[MoveFilter] = []
    while rest:
        key = rest.pop(0)
        if key in ("avoid", "allow"):
            filters.append(_move_filter(key, _take(rest, key, 3), size, filters))
            continue
        [value] = _take(rest, key, 1)
        if key == "interval":
            interval = _interval(value)
        elif key == "maxmoves":
            max_moves = _count(value, key)
        elif key == "minmoves":
            min_moves = _count(value, key)
        else:
            ownership = _switch(key, value, ownership)
    return AnalyzeArgs(color, max(interval, 1) / 100, max_moves, ownership, min_moves, tuple(filters))


def _search_for(engine: GtpEngine, position: Position, filters: Sequence[MoveFilter]) -> Search:
    """Return the search to analyse ``position`` with: the bot's kept tree, or with ``filters`` a
    fresh one that leaves that tree alone.  Raises CommandError if the bot cannot search."""
    try:
        return engine.bot.fresh_search(position, filters) if filters else engine.bot.search_at(position)
    except ValueError as e:
        raise CommandError(str(e)) from None


def _analyze(engine: GtpEngine, args: list[str], kata: bool) -> str:
    """Stream the analysis of the current position until the next command; return the empty text.

    Raises CommandError for bad arguments or a bot that cannot search (before anything is written).
    """
    options = parse_analyze_args(args, engine.position.size)
    position = engine.position.copy()
    if options.color is not None:
        position.to_play = options.color
    search = _search_for(engine, position, options.filters)
    owned = _ownership(engine, position) if kata and options.ownership else None
    out = engine.begin_stream()
    arrived = threading.Event()
    last_report = time.perf_counter()
    budget = max(0, MAX_ANALYSIS_VISITS - search.visits)
    snapshots = search.iterate(max_visits=budget, every_seconds=min(POLL_SECONDS, options.interval))
    with engine.input.watching(arrived.set), contextlib.closing(snapshots):
        for result in snapshots:
            if arrived.is_set():
                break
            if time.perf_counter() - last_report >= options.interval or search.visits >= MAX_ANALYSIS_VISITS:
                last_report = time.perf_counter()
                _report(out, result, position.size, kata, options, owned, search.root)
        arrived.wait()  # at the visit cap: until the next command
    return ""


def _ownership(engine: GtpEngine, position: Position) -> list[float] | None:
    """Return the bot's network's ownership of ``position`` for the player to move, averaged over
    the 8 symmetries as the site's analyses are, or None."""
    net = engine.bot.net
    owned = net.predict([position], symmetries=8).ownership if net is not None else None
    return None if owned is None else owned[0].tolist()


def with_unvisited(result: SearchResult, root: Node, min_moves: int) -> SearchResult:
    """Return ``result`` with, when it has fewer than ``min_moves`` candidates, the best-prior
    unvisited candidates of its expanded ``root`` added after them as KataGo adds them: visits 0,
    the root's win rate and score lead, their prior and the move alone as PV."""
    missing = min_moves - len(result.candidates)
    if missing <= 0:
        return result
    visited = {c.move for c in result.candidates}
    unvisited = [(move, float(prior)) for move, prior in zip(root.moves, root.raw_prior.tolist(), strict=True)
                 if move not in visited]  # fmt: skip
    unvisited.sort(key=lambda pair: -pair[1])  # stable: the root's order breaks ties
    added = tuple(Candidate(move, 0, result.winrate, prior, (move,), result.score_lead)
                  for move, prior in unvisited[:missing])  # fmt: skip
    return replace(result, candidates=result.candidates + added)


def _report(
    out: TextIO,
    result: SearchResult,
    size: int,
    kata: bool,
    options: AnalyzeArgs,
    ownership: list[float] | None = None,
    root: Node | None = None,
) -> None:
    """Write and flush the info line of ``result`` as ``options`` ask (with unvisited moves of the
    search's ``root`` up to ``min_moves``), unless no move has been visited yet."""
    if options.min_moves and root is not None and result.candidates:
        result = with_unvisited(result, root, options.min_moves)
    line = info_line(result, size, kata, options.max_moves, ownership)
    if line:
        out.write(line + "\n")
        out.flush()


def _genmove_analyze(engine: GtpEngine, args: list[str], kata: bool) -> str:
    """Play the bot's move for the colour (default: the board's), reporting its search; return
    ``play VERTEX``, ``play pass`` or ``play resign``.  With avoid or allow the bot's move keeps to
    them (a search level then searches a fresh tree).  Raises CommandError for bad arguments, and
    for avoid or allow at the ``rules`` level (before anything is written).
    """
    options = parse_analyze_args(args, engine.position.size)
    if options.filters and not engine.bot.takes_filters:
        raise CommandError("avoid and allow need a policy or search level, not the rules level")
    color = engine.position.to_play if options.color is None else options.color
    out = engine.begin_stream()
    size = engine.position.size

    def report(result: SearchResult) -> None:
        search = engine.bot.searching
        _report(out, result, size, kata, options, root=search.root if search is not None else None)

    return "play " + play_bot_choice(engine, color, report, options.interval, options.filters)


def lz_analyze(engine: GtpEngine, args: list[str]) -> str:
    """Leela Zero's streaming analysis (see the module docstring)."""
    return _analyze(engine, args, kata=False)


def kata_analyze(engine: GtpEngine, args: list[str]) -> str:
    """KataGo's streaming analysis (see the module docstring)."""
    return _analyze(engine, args, kata=True)


def lz_genmove_analyze(engine: GtpEngine, args: list[str]) -> str:
    """genmove reporting the search in Leela Zero's format."""
    return _genmove_analyze(engine, args, kata=False)


def kata_genmove_analyze(engine: GtpEngine, args: list[str]) -> str:
    """genmove reporting the search in KataGo's format."""
    return _genmove_analyze(engine, args, kata=True)


def stop(engine: GtpEngine, args: list[str]) -> str:
    """KataGo's ``stop``: end any analysis; return the empty reply.  The analysis ended when this
    command arrived (any command ends it), so nothing is left to do."""
    return ""


COMMANDS: dict[str, Handler] = {
    "stop": stop,
    "lz-analyze": lz_analyze,
    "kata-analyze": kata_analyze,
    "lz-genmove_analyze": lz_genmove_analyze,
    "kata-genmove_analyze": kata_genmove_analyze,
}
