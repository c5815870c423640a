"""GNU Go's board query extensions, with GNU Go's exact replies and error messages.

``list_stones COLOR`` (vertices in row order from the top), ``is_legal COLOR
VERTEX`` (``1``/``0``), ``countlib VERTEX``, ``captures COLOR`` (stones that
colour has captured) and ``ladder_attack VERTEX`` (``0``, or ``1`` and the
capturing move, read by Cazenave's ladder search).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.go.coords import EMPTY, to_gtp
from analysis.gtp.commands_args import CommandError, Handler, color_arg, vertex_arg
from analysis.tactics.ladder import capture

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine


def list_stones(engine: GtpEngine, args: list[str]) -> str:
    """Return the vertices of a colour's stones; raises CommandError (invalid color)."""
    color = color_arg(args, 0, "invalid color")
    size = engine.position.size
    return " ".join(to_gtp(p, size) for p in engine.position.stone_points(color))


def is_legal(engine: GtpEngine, args: list[str]) -> str:
    """Return ``1`` if the colour may play the vertex now, else ``0``.

    Raises CommandError (invalid color or coordinate).
    """
    message = "invalid color or coordinate"
    color = color_arg(args, 0, message)
    point = vertex_arg(args, 1, engine.position.size, message)
    return "1" if engine.position.is_legal(point, color) else "0"


def countlib(engine: GtpEngine, args: list[str]) -> str:
    """Return the liberty count of the string at a vertex.

    Raises CommandError: invalid coordinate (pass included), vertex must not be empty.
    """
    point = vertex_arg(args, 0, engine.position.size, "invalid coordinate", allow_pass=False)
    if engine.position.color_at(point) == EMPTY:
        raise CommandError("vertex must not be empty")
    return str(engine.position.liberties(point))


def captures(engine: GtpEngine, args: list[str]) -> str:
    """Return how many stones a colour has captured; raises CommandError (invalid color)."""
    return str(engine.position.prisoners(color_arg(args, 0, "invalid color")))


def ladder_attack(engine: GtpEngine, args: list[str]) -> str:
    """Return ``1 VERTEX`` if the string at a vertex is laddered with the attacker first, else ``0``.

    Raises CommandError: invalid coordinate, vertex must not be empty, string must
    have exactly 2 liberties (GNU Go's messages).
    """
    point = vertex_arg(args, 0, engine.position.size, "invalid coordinate", allow_pass=False)
    if engine.position.color_at(point) == EMPTY:
        raise CommandError("vertex must not be empty")
    if engine.position.liberties(point) != 2:
        raise CommandError("string must have exactly 2 liberties")
    captured, reading = capture(engine.position, point)
    return f"1 {to_gtp(reading[0], engine.position.size)}" if captured else "0"


COMMANDS: dict[str, Handler] = {
    "list_stones": list_stones,
    "is_legal": is_legal,
    "countlib": countlib,
    "captures": captures,
    "ladder_attack": ladder_attack,
}
