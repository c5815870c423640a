"""Handicap commands: fixed_handicap, place_free_handicap and set_free_handicap.

Handicap stones are a setup step, not moves: ``undo`` cannot take them back,
and white is to play after them.  All three need an empty board.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from analysis.go.coords import WHITE, CoordinateError, from_gtp, to_gtp
from analysis.go.handicap import HandicapError, fixed_handicap_points, free_handicap_points
from analysis.gtp.commands_args import CommandError, Handler, int_arg

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine


def _require_empty_board(engine: GtpEngine) -> None:
    """Raise CommandError (board not empty) if any stone is on the board."""
    if engine.position.stones().any():
        raise CommandError("board not empty")


def _place(engine: GtpEngine, points: list[int]) -> str:
    """Put black stones on ``points`` as the handicap, white to play; return their vertices."""
    engine.position.setup(black=points, to_play=WHITE)
    engine.handicap = len(points)
    engine.apply_rules()
    return " ".join(to_gtp(p, engine.position.size) for p in points)


def _place_chosen(engine: GtpEngine, args: list[str], choose: Callable[[int, int], list[int]]) -> str:
    """Place the ``choose(size, stones)`` points for the count in ``args`` and return their vertices.

    Raises CommandError: syntax error, board not empty, invalid handicap (HandicapError).
    """
    stones = int_arg(args, 0, "syntax error")
    _require_empty_board(engine)
    try:
        points = choose(engine.position.size, stones)
    except HandicapError:
        raise CommandError("invalid handicap") from None
    return _place(engine, points)


def fixed_handicap(engine: GtpEngine, args: list[str]) -> str:
    """Place the spec's fixed handicap and return its vertices.

    Raises CommandError: syntax error, board not empty, invalid handicap (a count
    the board size does not allow).
    """
    return _place_chosen(engine, args, fixed_handicap_points)


def place_free_handicap(engine: GtpEngine, args: list[str]) -> str:
    """Place a free handicap chosen by the engine and return its vertices.

    Raises CommandError: syntax error, board not empty, invalid handicap (fewer than
    two stones, or not leaving an empty point).
    """
    return _place_chosen(engine, args, free_handicap_points)


def set_free_handicap(engine: GtpEngine, args: list[str]) -> str:
    """Place handicap stones on the given vertices; return the empty reply.

    Raises CommandError: board not empty; bad vertex list for an invalid,
    repeated or pass vertex, or fewer than two or more than size*size - 1
    vertices.  Nothing is placed when the command fails.
    """
    _require_empty_board(engine)
    size = engine.position.size
    try:
        points = [from_gtp(text, size) for text in args]
    except CoordinateError:
        raise CommandError("bad vertex list") from None
    if len(set(points)) != len(points) or size * size in points or not 2 <= len(points) < size * size:
        raise CommandError("bad vertex list")
    _place(engine, points)
    return ""


COMMANDS: dict[str, Handler] = {
    "fixed_handicap": fixed_handicap,
    "place_free_handicap": place_free_handicap,
    "set_free_handicap": set_free_handicap,
}
