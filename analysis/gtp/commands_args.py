"""Arguments of GTP commands: CommandError and the parsers that raise it.

Each parser takes the argument list and the error message to give when the
argument is missing or malformed, so that every command keeps its own wording
(the GTP spec's ``syntax error`` for standard commands, GNU Go's messages for
its extensions).  Extra arguments are ignored, as GNU Go ignores them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from analysis.go.coords import CoordinateError, from_gtp, parse_color

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine

Handler = Callable[["GtpEngine", list[str]], str]
"""A command: takes the engine and the arguments, returns the reply text or raises CommandError."""


class CommandError(Exception):
    """A command that fails; ``str(error)`` is the message of the ``? message`` reply."""


def arg(args: list[str], index: int, message: str) -> str:
    """Return ``args[index]``; raise CommandError(message) if there are fewer arguments."""
    if index >= len(args):
        raise CommandError(message)
    return args[index]


def int_arg(args: list[str], index: int, message: str) -> int:
    """Return ``args[index]`` as an int; raise CommandError(message) if missing or not an integer."""
    try:
        return int(arg(args, index, message))
    except ValueError:
        raise CommandError(message) from None


def float_arg(args: list[str], index: int, message: str) -> float:
    """Return ``args[index]`` as a finite float; raise CommandError(message) if missing or not one."""
    try:
        value = float(arg(args, index, message))
    except ValueError:
        raise CommandError(message) from None
    if not math.isfinite(value):
        raise CommandError(message)
    return value


def color_arg(args: list[str], index: int, message: str) -> int:
    """Return ``args[index]`` as BLACK or WHITE; raise CommandError(message) if missing or not a colour."""
    try:
        return parse_color(arg(args, index, message))
    except ValueError:
        raise CommandError(message) from None


def vertex_arg(args: list[str], index: int, size: int, message: str, *, allow_pass: bool = True) -> int:
    """Return ``args[index]`` as a flat point (``size*size`` for pass).

    Raises CommandError(message) if it is missing, malformed, off the board, or a
    pass when ``allow_pass`` is False.
    """
    try:
        point = from_gtp(arg(args, index, message), size)
    except CoordinateError:
        raise CommandError(message) from None
    if not allow_pass and point == size * size:
        raise CommandError(message)
    return point
