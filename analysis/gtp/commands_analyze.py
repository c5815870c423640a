"""Streaming analysis for Sabaki and Lizzie: ``lz-analyze``, ``kata-analyze`` and their genmove forms.

``lz-analyze [color] [interval] [key value]...`` (``kata-analyze`` alike) replies
``=`` on a line of its own, then searches the current position (with ``color``
to play, if given) and writes an ``info`` line (analysis_info.py) every
``interval`` centiseconds (default 100) until the next command arrives; an
empty line then ends the reply, and the new command is answered.  Keys:
``interval N``, ``maxmoves N`` (report at most N moves), and KataGo's output
switches: ``ownership true`` appends the network's ownership of every point to
each line (when the network has an ownership head); the others are accepted and ignored.  The search
stops growing at MAX_ANALYSIS_VISITS visits (about 9 KB of tree each on 19x19)
and the reply then waits for the next command.  The tree is the bot's, so
analysis and genmove reuse each other's work.

``lz-genmove_analyze [color] [interval]`` (``kata-genmove_analyze`` alike) is
genmove with the bot's search reported on the way (search levels only), ending
with ``play VERTEX`` (or ``play resign``).

``stop`` (KataGo's) ends an analysis as any command does, and replies ``=``.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from analysis.go.coords import parse_color
from analysis.gtp.analysis_info import info_line
from analysis.gtp.commands import play_bot_choice
from analysis.gtp.commands_args import CommandError, Handler
from analysis.mcts import SearchResult

if TYPE_CHECKING:
    from analysis.go.position import Position
    from analysis.gtp.engine import GtpEngine

DEFAULT_INTERVAL = 100  # centiseconds
MAX_DIGITS = 9  # of an interval or a count of moves
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits: str.isdigit takes "²", which int() refuses
MAX_ANALYSIS_VISITS = 100_000
POLL_SECONDS = 0.05  # how often a streaming search looks for the next command
KATA_SWITCHES = {"ownership", "ownershipStdev", "pvVisits", "pvEdgeVisits", "movesOwnership",
                 "movesOwnershipStdev", "rootInfo", "includePolicy"}  # fmt: skip


@dataclass(frozen=True)
class AnalyzeArgs:
    """The arguments of an analyze command: colour to play (None: the board's), report interval in
    seconds, most moves per report (None: all)."""

    color: int | None
    interval: float
    max_moves: int | None
    ownership: bool = False


def _count(text: str, key: str) -> int:
    """Return ``text`` as a non-negative int of at most :data:`MAX_DIGITS` ASCII digits; raises
    CommandError naming ``key`` otherwise."""
    if not _DIGITS.fullmatch(text) or len(text) > MAX_DIGITS:
        raise CommandError(f"invalid {key} {text[:16]!r}")
    return int(text)


def parse_analyze_args(args: list[str]) -> AnalyzeArgs:
    """Return the parsed ``[color] [interval] [key value]...``; raises CommandError for an unknown
    key, a key without a value or a bad number."""
    rest = list(args)
    color = None
    if rest and rest[0].lower() in ("b", "w", "black", "white"):
        color = parse_color(rest.pop(0))
    interval = DEFAULT_INTERVAL
    if rest and _DIGITS.fullmatch(rest[0]):
        interval = _count(rest.pop(0), "interval")
    max_moves = None
    ownership = False
    while rest:
        key = rest.pop(0)
        if not rest:
            raise CommandError(f"missing value for {key[:16]!r}")
        value = rest.pop(0)
        if key == "interval":
            interval = _count(value, key)
        elif key == "maxmoves":
            max_moves = _count(value, key)
        elif key not in KATA_SWITCHES:
            raise CommandError(f"unsupported analyze argument {key[:16]!r}")
        elif value not in ("true", "false"):
            raise CommandError(f"{key} must be true or false, not {value[:16]!r}")
        elif key == "ownership":
            ownership = value == "true"
    return AnalyzeArgs(color, max(interval, 1) / 100, max_moves, ownership)


def _analyze(engine: GtpEngine, args: list[str], kata: bool) -> str:
    """Stream the analysis of the current position until the next command; return the empty text.

    Raises CommandError for bad arguments or a bot that cannot search (before anything is written).
    """
    options = parse_analyze_args(args)
    position = engine.position.copy()
    if options.color is not None:
        position.to_play = options.color
    try:
        search = engine.bot.search_at(position)
    except ValueError as e:
        raise CommandError(str(e)) from None
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
                _report(out, result, position.size, kata, options.max_moves, owned)
        arrived.wait()  # at the visit cap: until the next command
    return ""


def _ownership(engine: GtpEngine, position: Position) -> list[float] | None:
    """Return the bot's network's ownership of ``position`` for the player to move, averaged over
    the 8 symmetries as the site's analyses are, or None."""
    net = engine.bot.net
    owned = net.predict([position], symmetries=8).ownership if net is not None else None
    return None if owned is None else owned[0].tolist()


def _report(
    out: TextIO,
    result: SearchResult,
    size: int,
    kata: bool,
    max_moves: int | None,
    ownership: list[float] | None = None,
) -> None:
    """Write and flush the info line of ``result``, unless no move has been visited yet."""
    line = info_line(result, size, kata, max_moves, ownership)
    if line:
        out.write(line + "\n")
        out.flush()


def _genmove_analyze(engine: GtpEngine, args: list[str], kata: bool) -> str:
    """Play the bot's move for the colour (default: the board's), reporting its search; return
    ``play VERTEX``, ``play pass`` or ``play resign``.  Raises CommandError for bad arguments.
    """
    options = parse_analyze_args(args)
    color = engine.position.to_play if options.color is None else options.color
    out = engine.begin_stream()
    size = engine.position.size

    def report(result: SearchResult) -> None:
        _report(out, result, size, kata, options.max_moves)

    return "play " + play_bot_choice(engine, color, report, options.interval)


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
