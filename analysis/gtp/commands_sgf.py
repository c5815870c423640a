"""SGF commands as GNU Go has them: ``loadsgf FILE [MOVE_NUMBER|VERTEX]`` and ``printsgf [FILE]``.

loadsgf follows GNU Go's ``gameinfo_play_sgftree``: with a number N it stops
before the N-th main-line move (passes count), so ``loadsgf game.sgf 1`` loads
only the setup; with a vertex it stops before the first move there (an
unreadable vertex reads as pass, as in GNU Go, so it stops at the first pass);
it also stops before an illegal move.  A missing KM means 5.5 komi (0.5 with a
handicap), and with HA > 1 and no moves at all white is to play.  The reply is
the colour to move.  Unlike GNU Go, it refuses a file over 16 MiB (read no further,
so a device without end is refused too) and a komi over 150 points either way.

printsgf writes the game: size, komi, rules, handicap (HA and AB), setup
stones, every move since, and PL when the colour to move is not the obvious one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.go.coords import BLACK, EMPTY, WHITE, CoordinateError, color_name, from_gtp, to_sgf
from analysis.go.position import Move, Position, SetupStep
from analysis.go.rules import MAX_KOMI, komi_in_range
from analysis.gtp.commands_args import CommandError, Handler, arg
from analysis.sgf import GameRecord, SgfError, SgfNode, iter_sgf_games, replay, write_sgf
from analysis.sgf.archive import DEFAULT_MAX_FILE_BYTES, read_limited

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine

SETUP_PROPERTY = {BLACK: "AB", WHITE: "AW", EMPTY: "AE"}
MOVE_NUMBER_DIGITS = 6  # a loadsgf move number longer than this is past any record's end


def _read_game(filename: str) -> GameRecord:
    """Return the first game of an SGF file; raises CommandError if it cannot be read or parsed, or
    holds more than DEFAULT_MAX_FILE_BYTES (a device without end, such as /dev/zero, among them)."""
    try:
        data = read_limited(filename)
    except OSError:
        raise CommandError(f"cannot open or parse '{filename}'") from None
    if data is None:
        raise CommandError(f"cannot load '{filename}': larger than {DEFAULT_MAX_FILE_BYTES // 2**20} MiB")
    game = next(iter_sgf_games(data, source=filename), None)
    if not isinstance(game, GameRecord):
        raise CommandError(f"cannot open or parse '{filename}'")
    return game


def moves_before(game: GameRecord, until: str | None) -> int | None:
    """Return how many main-line moves GNU Go plays for ``loadsgf FILE until`` (None: all).

    ``until`` starting with a digit 1-9 is a move number N (the first N-1 moves are
    played; trailing garbage is ignored as C's atoi does); anything else is a vertex
    (moves stop before the first move there, an unreadable vertex meaning pass).
    """
    if until is None:
        return None
    if until[0] in "123456789":
        digits = len(until) - len(until.lstrip("0123456789"))
        if digits > MOVE_NUMBER_DIGITS:  # past any record's moves: all of them
            return None
        return int(until[:digits]) - 1
    size = game.size
    try:
        stop = from_gtp(until, size)
    except CoordinateError:
        stop = size * size
    points = [point for _, point in game.main_line_moves()]
    return points.index(stop) if stop in points else None


def game_komi(game: GameRecord) -> float:
    """Return the record's komi; without KM, GNU Go's: 5.5, or 0.5 in a handicap game."""
    if game.root.get("KM") is None:
        return 5.5 if game.handicap == 0 else 0.5
    return game.komi


def load_position(game: GameRecord, upto: int | None, rules: str) -> Position:
    """Return the position after ``upto`` main-line moves (None: all), stopping before an illegal move,
    under ``rules`` (:func:`analysis.sgf.replay`; the record's KM, not :func:`game_komi`).

    The colour to move follows GNU Go (see the module docstring).
    """
    try:
        position = replay(game, upto, rules=rules)
    except SgfError as e:
        if e.kind != "illegal_move" or e.move_number is None:
            raise
        position = replay(game, e.move_number - 1, rules=rules)
    no_moves = not game.main_line_moves()
    if no_moves and game.handicap > 1 and all(node.get("PL") is None for node in game.main_line()):
        position.to_play = WHITE
    return position


def loadsgf(engine: GtpEngine, args: list[str]) -> str:
    """Load an SGF file (up to a move number or vertex) and return the colour to move.

    Raises CommandError: missing filename, cannot open or parse 'FILE' (an unreasonable handicap
    among them), cannot load 'FILE' (a bad coordinate; with the reason, a file over
    DEFAULT_MAX_FILE_BYTES or a komi over MAX_KOMI points either way).
    """
    filename = arg(args, 0, "missing filename")
    game = _read_game(filename)
    komi = game_komi(game)
    if not komi_in_range(komi):
        raise CommandError(f"cannot load '{filename}': komi {komi:g} is out of range, "
                           f"at most {MAX_KOMI} either way")
    try:
        position = load_position(game, moves_before(game, args[1] if len(args) > 1 else None), engine.rules)
    except SgfError:
        raise CommandError(f"cannot load '{filename}'") from None
    engine.position = position
    engine.komi = komi
    engine.handicap = game.handicap
    engine.apply_rules()
    return color_name(position.to_play)


def _add_setup(node: SgfNode, step: SetupStep, size: int) -> None:
    """Append the stones of a setup step to the AB/AW/AE lists of ``node``."""
    for color, ident in SETUP_PROPERTY.items():
        points = [to_sgf(p, size) for p, c in zip(step.points, step.colors, strict=True) if c == color]
        if points:
            node.set(ident, node.properties.get(ident, []) + points)


def game_record(engine: GtpEngine) -> GameRecord:
    """Return the current game as a GameRecord: header, setup steps, moves and, if needed, PL."""
    position = engine.position
    game = GameRecord.new(
        position.size,
        engine.komi,
        handicap=engine.handicap,
        rules=engine.rules.capitalize(),
        source="printsgf",
    )
    node = game.root
    for step in position.steps:
        if isinstance(step, Move):
            node = game.add_move(step.color, step.point, parent=node)
            continue
        if node is not game.root or any(ident in node.properties for ident in SETUP_PROPERTY.values()):
            node = node.add_child()
        _add_setup(node, step, position.size)
    last = position.last_move
    if last is None:
        node.set("PL", color_name(position.to_play)[0].upper())
    elif position.to_play != -last.color:
        node.add_child({"PL": color_name(position.to_play)[0].upper()})
    return game


def printsgf(engine: GtpEngine, args: list[str]) -> str:
    """Return the game as SGF, or write it to the file named by the argument and return nothing.

    Raises CommandError (cannot open or write 'FILE') if the file cannot be written.
    """
    data = write_sgf(game_record(engine))
    if not args:
        return data.decode("utf-8").strip()
    try:
        with open(args[0], "wb") as f:
            f.write(data)
    except OSError:
        raise CommandError(f"cannot open or write '{args[0]}'") from None
    return ""


COMMANDS: dict[str, Handler] = {
    "loadsgf": loadsgf,
    "printsgf": printsgf,
}
