"""The GTP version 2 engine: game state, command dispatch and the protocol loop.

A line is cleaned as the GTP spec says (control characters other than tab and
newline removed, tabs made spaces, everything after ``#`` dropped, empty lines
ignored), an optional numeric id is split off, and the command is looked up in
the registry (:data:`COMMANDS`, name -> handler, built from the ``commands*``
modules).  Replies are ``=id text`` or ``?id message`` followed by an empty
line, flushed at once.  Nothing but ``quit`` or the end of input stops the loop.

A streaming command (commands_analyze.py) opens its reply with ``begin_stream``,
writes lines as it goes, and learns of the next command through ``input``
(stream.py: the loop reads its input on a thread); its reply ends with its text,
if any, and the empty line.  The analysis commands are only listed when the bot
can search.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.go.position import Position
from analysis.go.ruled import apply_rules
from analysis.go.rules import default_komi, uses_superko
from analysis.gtp import (
    commands,
    commands_analyze,
    commands_gnugo,
    commands_handicap,
    commands_scoring,
    commands_sgf,
    commands_showboard,
    commands_time,
)
from analysis.gtp.commands_args import CommandError, Handler
from analysis.gtp.stream import MAX_LINE, InputQueue, TooLong
from analysis.play.clock import TimeControl

RULES = ("chinese", "japanese")

COMMANDS: dict[str, Handler] = {
    **commands.COMMANDS,
    **commands_time.COMMANDS,
    **commands_handicap.COMMANDS,
    **commands_scoring.COMMANDS,
    **commands_gnugo.COMMANDS,
    **commands_sgf.COMMANDS,
    **commands_showboard.COMMANDS,
    **commands_analyze.COMMANDS,
}

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ID = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Request:
    """One parsed command line: optional ``id``, command ``name`` and its ``args``."""

    id: str | None
    name: str
    args: list[str]


def parse_line(line: str) -> Request | None:
    """Return the request on a GTP input line, or None for a line with no command.

    A line holding only an id gets the empty name, which no command has.
    """
    text = _CONTROL.sub("", line).replace("\t", " ").split("#", 1)[0]
    words = text.split()
    if not words:
        return None
    request_id = None
    if _ID.fullmatch(words[0]):
        request_id = words.pop(0).lstrip("0") or "0"  # as int() reads it, at any length
    name = words.pop(0) if words else ""
    return Request(request_id, name, words)


def format_reply(request_id: str | None, text: str, ok: bool = True) -> str:
    """Return the full reply: ``=id text`` (or ``?id text`` if not ``ok``) and the closing empty line."""
    return f"{'=' if ok else '?'}{request_id or ''} {text}\n\n"


class GtpEngine:
    """The state GTP commands act on: position, rules, komi, handicap, clocks and a seeded RNG."""

    def __init__(
        self,
        rules: str = "chinese",
        komi: float | None = None,
        size: int = 19,
        seed: int = 0,
        bot: Bot | None = None,
        network: str = "",
    ) -> None:
        """Start with an empty ``size`` board.

        ``rules`` is ``chinese`` (positional superko, area scoring) or ``japanese``
        (simple ko, territory scoring); ``komi`` defaults to 7.5 or 6.5 by rules.
        ``bot`` plays genmove (default: the ``rules`` level, which needs no network); ``network``
        says which network it plays with (its name, file and :func:`~analysis.nets.fingerprint.fingerprint`),
        for ``version``.
        Raises ValueError for unknown rules and CoordinateError for a bad size.
        """
        self.bot = bot or Bot(get_level("rules"), seed=seed)
        self.network = network
        if rules not in RULES:
            raise ValueError(f"unknown rules {rules!r}: expected one of {', '.join(RULES)}")
        self.rules = rules
        self.komi = default_komi(rules) if komi is None else float(komi)
        self.seed = seed
        self.commands = COMMANDS
        if not self.bot.can_search:
            self.commands = {k: v for k, v in COMMANDS.items() if k not in commands_analyze.COMMANDS}
        self.running = True
        self.input: InputQueue | None = None  # set by ``serve``, for streaming commands
        self._out: TextIO | None = None
        self._request_id: str | None = None
        self._streaming = False
        self.handicap = 0
        self.time_control: TimeControl | None = None  # time_settings or kgs-time_settings; None: no limit
        self.time_left: dict[int, tuple[int, int]] = {}
        self.position = self.new_position(size)

    @property
    def superko(self) -> bool:
        """Whether the rules forbid any repetition of a position (area rules) or only simple ko."""
        return uses_superko(self.rules)

    def new_position(self, size: int) -> Position:
        """Return an empty Position of ``size`` with the engine's komi, ko rule and scoring.

        Raises CoordinateError for an unsupported size.
        """
        position = Position(size, self.komi, superko=self.superko)
        apply_rules(position, self.rules, self.komi)
        return position

    def apply_rules(self) -> None:
        """Give the position the engine's komi plus White's handicap bonus under the engine's rules,
        and their scoring (:func:`analysis.go.ruled.apply_rules`): what its count, search and
        network use."""
        apply_rules(self.position, self.rules, self.komi)

    def clear(self, size: int | None = None) -> None:
        """Empty the board (resized to ``size`` if given) and forget moves, handicap and time left.

        Raises CoordinateError for an unsupported size (the board is then unchanged).
        """
        self.position = self.new_position(self.position.size if size is None else size)
        self.handicap = 0
        self.time_left = {}  # a new game's clocks start full
        self.bot.reset()

    def execute(self, name: str, args: list[str]) -> str:
        """Run one command and return its reply text.

        Raises CommandError with the GTP error message, ``unknown command`` included.
        """
        handler = self.commands.get(name)
        if handler is None:
            raise CommandError("unknown command")
        return handler(self, args)

    def begin_stream(self) -> TextIO:
        """Write the ``=id`` line that opens a streamed reply; return the output to write lines to.

        Raises CommandError if the engine is not serving (``respond`` alone cannot stream).
        """
        if self._out is None or self.input is None:
            raise CommandError("streaming commands need the protocol loop")
        self._out.write(f"={self._request_id or ''}\n")
        self._out.flush()
        self._streaming = True
        return self._out

    def respond(self, line: str) -> str | None:
        """Return the full reply to one input line (for a streamed reply, its end), or None if the
        line holds no command.

        Never raises: a failing command (or a bug) becomes a ``?`` reply, or after the stream
        has begun, the end of the reply and a message on stderr.
        """
        request = parse_line(line)
        if request is None:
            return None
        self._request_id, self._streaming = request.id, False
        try:
            text, ok = self.execute(request.name, request.args), True
        except CommandError as e:
            text, ok = str(e), False
        except Exception as e:  # the engine must survive any command
            text, ok = f"internal error: {type(e).__name__}: {e}", False
        if not self._streaming:
            return format_reply(request.id, text, ok)
        if not ok:
            print(f"{request.name}: {text}", file=sys.stderr, flush=True)
            return "\n"
        return f"{text}\n\n" if text else "\n"

    @staticmethod
    def refuse_long(start: str) -> str | None:
        """Return the error reply to a line over :data:`~analysis.gtp.stream.MAX_LINE` bytes, with
        the id its ``start`` gives (None if that start holds no command)."""
        request = parse_line(start)
        if request is None:
            return None
        return format_reply(request.id, f"line too long: over {MAX_LINE // 2**20} MiB", ok=False)

    def serve(self, lines: Iterable[bytes], out: TextIO) -> None:
        """Answer every command line of ``lines`` on ``out`` until ``quit`` or the end of input.

        Lines are read ahead on a thread (see stream.py), decoded as UTF-8 (bad bytes
        replaced), and each reply is flushed.
        """
        self._out, self.input = out, InputQueue(lines)
        while (raw := self.input.get()) is not None:
            text = raw.decode("utf-8", errors="replace")
            reply = self.refuse_long(text) if isinstance(raw, TooLong) else self.respond(text)
            if reply is None:
                continue
            out.write(reply)
            out.flush()
            if not self.running:
                return
