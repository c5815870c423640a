"""The standard GTP version 2 commands: administration, board setup, play, genmove, undo.

Errors use the spec's wording (``syntax error``, ``unacceptable size``,
``illegal move``, ``cannot undo``), except where GNU Go is more precise about
a bad argument of play and genmove (``invalid color or coordinate``,
``invalid color``).  An illegal move's reply names the reason after the spec's
text, e.g. ``illegal move: ko``.  ``komi`` refuses more than MAX_KOMI points either way
(``unacceptable komi``), as KataGo does, since the network reads the komi.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from analysis.go.coords import MAX_SIZE, MIN_SIZE, to_gtp
from analysis.go.position import IllegalMoveError, Position, SetupStep
from analysis.go.rules import MAX_KOMI, komi_in_range
from analysis.gtp.clock import control_seconds
from analysis.gtp.commands_args import (
    CommandError,
    Handler,
    arg,
    color_arg,
    float_arg,
    int_arg,
    vertex_arg,
)
from analysis.version import NAME
from analysis.version import version as version_text

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine
    from analysis.mcts import MoveFilter, SearchResult

SYNTAX = "syntax error"


def protocol_version(engine: GtpEngine, args: list[str]) -> str:
    """Return ``2``."""
    return "2"


def name(engine: GtpEngine, args: list[str]) -> str:
    """Return the engine's name."""
    return NAME


def version(engine: GtpEngine, args: list[str]) -> str:
    """Return the engine's version and, in brackets, the network its bot plays with (name, file and
    fingerprint), so that a match log or a GUI records which weights played."""
    return f"{version_text()} ({engine.network})" if engine.network else version_text()


def known_command(engine: GtpEngine, args: list[str]) -> str:
    """Return ``true`` if the engine has the named command, else ``false``.

    Raises CommandError (syntax error) when no name is given.
    """
    return "true" if arg(args, 0, SYNTAX) in engine.commands else "false"


def list_commands(engine: GtpEngine, args: list[str]) -> str:
    """Return every command name, one per line, in alphabetical order."""
    return "\n".join(sorted(engine.commands))


def quit_(engine: GtpEngine, args: list[str]) -> str:
    """Ask the protocol loop to stop after this reply; return the empty reply."""
    engine.running = False
    return ""


def boardsize(engine: GtpEngine, args: list[str]) -> str:
    """Resize and clear the board; raises CommandError (syntax error, unacceptable size: a size
    off the supported range, or a rectangular one, ``boardsize 9 7``, as Lizzie sends it)."""
    size = int_arg(args, 0, SYNTAX)
    if len(args) > 1 and args[1] != args[0]:
        raise CommandError("unacceptable size: only square boards are supported")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise CommandError("unacceptable size")
    engine.clear(size)
    return ""


def clear_board(engine: GtpEngine, args: list[str]) -> str:
    """Clear the board, the move history and the captures; return the empty reply."""
    engine.clear()
    return ""


def komi(engine: GtpEngine, args: list[str]) -> str:
    """Set the komi (White's handicap bonus under the rules comes on top, as in KataGo); raises
    CommandError: syntax error if the argument is not a number, unacceptable komi if it is more
    than MAX_KOMI points either way (as KataGo refuses it: the network reads the komi)."""
    value = float_arg(args, 0, SYNTAX)
    if not komi_in_range(value):
        raise CommandError(f"unacceptable komi: at most {MAX_KOMI} either way")
    engine.komi = value
    engine.apply_rules()
    return ""


def play(engine: GtpEngine, args: list[str]) -> str:
    """Play a move of either colour; raises CommandError for bad arguments or an illegal move.

    A move that repeats an earlier position is played all the same, as KataGo plays it: a GUI
    replaying its record (Sabaki, GoGui) goes out of step with an engine that refuses one of its
    moves, and a record may follow other rules than the engine's.  Black's moves before White's
    first are a handicap (:func:`analysis.go.ruled.handicap_stones`), so each move recounts the komi.
    """
    size = engine.position.size
    color = color_arg(args, 0, "invalid color or coordinate")
    point = vertex_arg(args, 1, size, "invalid color or coordinate")
    try:
        _play_tolerating_superko(engine.position, point, color)
    except IllegalMoveError as e:
        raise CommandError(f"illegal move: {e.reason}") from None
    engine.apply_rules()
    return ""


def _play_tolerating_superko(position: Position, point: int, color: int) -> None:
    """Play ``point`` for ``color``, a positional superko repetition included; raises
    IllegalMoveError for any other illegal move (the board unchanged)."""
    try:
        position.play(point, color)
    except IllegalMoveError as e:
        if e.reason != "superko":
            raise
        position.superko = False
        try:
            position.play(point, color)
        finally:
            position.superko = True


def play_bot_choice(
    engine: GtpEngine,
    color: int,
    callback: Callable[[SearchResult], None] | None = None,
    every_seconds: float | None = None,
    filters: Sequence[MoveFilter] = (),
) -> str:
    """Have the bot choose a move for ``color``, play it and return its vertex, ``pass`` or ``resign``.

    A search level's time is capped by the colour's share of the GTP clock (clock.py);
    ``callback``, ``every_seconds`` and ``filters`` (avoid and allow) are passed on to the bot.
    """
    position = engine.position
    position.to_play = color
    seconds = control_seconds(engine.time_control, engine.time_left.get(color), position.size,
                              len(position.moves))
    decision = engine.bot.choose(position, seconds, callback, every_seconds, filters)
    if decision.move is None:
        return "resign"
    position.play(decision.move, color)
    engine.apply_rules()
    return to_gtp(decision.move, position.size)


def genmove(engine: GtpEngine, args: list[str]) -> str:
    """Have the bot choose a move for the colour, play it and return its vertex, ``pass`` or ``resign``.

    Raises CommandError (invalid color) for a bad argument.
    """
    return play_bot_choice(engine, color_arg(args, 0, "invalid color"))


def undo(engine: GtpEngine, args: list[str]) -> str:
    """Take back the last move; raises CommandError (cannot undo) if there is none.

    Handicap and setup stones are not moves and cannot be undone.
    """
    steps = engine.position.steps
    if not steps or isinstance(steps[-1], SetupStep):
        raise CommandError("cannot undo")
    engine.position.undo()
    engine.apply_rules()
    return ""


COMMANDS: dict[str, Handler] = {
    "protocol_version": protocol_version,
    "name": name,
    "version": version,
    "known_command": known_command,
    "list_commands": list_commands,
    "quit": quit_,
    "boardsize": boardsize,
    "clear_board": clear_board,
    "komi": komi,
    "play": play,
    "genmove": genmove,
    "undo": undo,
}
