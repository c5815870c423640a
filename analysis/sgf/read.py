"""Reading SGF: parsing (any encoding, FF[1]-FF[4]) into GameRecord trees, and replaying a record."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from sgfmill import sgf_grammar

from analysis.go.coords import to_gtp
from analysis.go.rules import MAX_KOMI
from analysis.sgf.encoding import decode_marked, decode_sgf_bytes, root_values
from analysis.sgf.limits import SgfLimits, too_large
from analysis.sgf.model import (
    MOVE_PROPERTIES,
    GameRecord,
    Setup,
    SgfError,
    SgfNode,
    describe_move,
    spanned_points,
)

if TYPE_CHECKING:
    from analysis.go.position import Position


_GAME_START = re.compile(rb"\(\s*;")
_NEEDS_UNESCAPING = re.compile(rb"[\\\r\t\f\v]")
_STRAY_AFTER_GAME = re.compile(rb"\s*([;)\[])")
_OPEN_VALUE = re.compile(rb"\[(?:[^\\\]]|\\.)*\\?", re.DOTALL)
_FLOAT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")  # a number, exponent and all
UNLIMITED = SgfLimits()
POINT_LISTS = ("AB", "AW", "AE", "TB", "TW")  # the point lists the site expands: setup and territory


def _text(value: bytes) -> str:
    """Return the text of a raw UTF-8 property value (escapes removed, line breaks normalised)."""
    if _NEEDS_UNESCAPING.search(value):
        value = sgf_grammar.text_value(value)
    return value.decode("utf-8")


def _syntax_error(what: str, depth: int) -> SgfError:
    """Return a syntax SgfError located at a node (``depth`` 0 is the root, -1 before it)."""
    where = None if depth < 0 else "root node" if depth == 0 else f"node {depth}"
    return SgfError(what, kind="syntax", where=where)


def _build_tree(tokens: list[tuple[str, bytes]], limits: SgfLimits) -> SgfNode:
    """Return the root of the game tree described by sgfmill ``tokens`` of one game.

    ``tokens`` must come from ``sgf_grammar.tokenise`` and be balanced (the caller
    checks that the game was complete).  Raises SgfError for misplaced nodes,
    properties or values, and (kind ``"too_large"``) at the first property value over
    ``limits``.
    """
    max_values = limits.values
    root: SgfNode | None = None
    current: SgfNode | None = None
    depth = -1  # of current
    branches: list[tuple[SgfNode | None, int]] = []  # where each open '(' attaches
    sequence_open = False  # True between '(' and the next '(' or ')'
    sequence_nodes = 0
    ident: str | None = None
    ident_values = 0
    for token_type, token in tokens:
        if ident is not None and token_type != "V":
            if ident_values == 0:
                raise _syntax_error(f"property {ident} has no value", depth)
            ident = None
        if token_type == "D" and token in (b"(", b")"):
            if sequence_open and sequence_nodes == 0:
                raise _syntax_error("empty game tree '()'", depth)
            if token == b"(":
                branches.append((current, depth))
                sequence_open, sequence_nodes = True, 0
            else:
                current, depth = branches.pop()
                sequence_open = False
        elif token_type == "D":
            if not sequence_open:
                raise _syntax_error("node after variations (';' must follow '(' or a node)", depth)
            node = SgfNode()
            if current is None:
                root = node
            else:
                node.parent = current
                current.children.append(node)
            current, depth = node, depth + 1
            sequence_nodes += 1
        elif token_type == "I":
            if not sequence_open or current is None:
                raise _syntax_error(f"property {token.decode('ascii')} outside a node", depth)
            if not token:
                raise _syntax_error("property identifier without upper-case letters", depth)
            ident, ident_values = token.decode("ascii"), 0
            current.properties.setdefault(ident, [])
        else:
            if ident is None or current is None:
                raise _syntax_error("property value without a property identifier", depth)
            ident_values += 1
            if max_values is not None and len(current.properties[ident]) >= max_values:  # repeats too
                where = "root node" if depth == 0 else f"node {depth}"
                raise too_large(f"property {ident} has more than {max_values} values", where)
            current.properties[ident].append(_text(token))
    assert root is not None  # tokenise starts every game with '(' ';'
    return root


def _incomplete_game_error(raw: bytes, end: int, open_trees: int) -> SgfError:
    """Return the SgfError for a game whose tokens stop at ``end`` with ``open_trees`` '(' unclosed."""
    rest = raw[end:].lstrip()
    line = raw.count(b"\n", 0, len(raw) - len(rest)) + 1
    if not rest:
        return SgfError(
            f"file ends before the game is complete ({open_trees} '(' not closed): truncated or unbalanced",
            kind="truncated",
            where="end of file",
        )
    if _OPEN_VALUE.fullmatch(rest):
        return SgfError(
            "file ends inside a property value: truncated", kind="truncated", where=f"line {line}"
        )
    snippet = rest[:20].decode("utf-8", errors="replace")
    return SgfError(f"unexpected text {snippet!r}", kind="syntax", where=f"line {line}")


def _parse_trees(raw: bytes, limits: SgfLimits) -> tuple[list[SgfNode], SgfError | None]:
    """Return the roots of every game in UTF-8 ``raw`` and the syntax error, or the excess over
    ``limits`` (nodes of all the games together, values of a property), that stopped parsing, if
    any.  The nodes are counted before a game's tree is built."""
    roots: list[SgfNode] = []
    position, nodes = 0, 0
    while True:
        tokens, end = sgf_grammar.tokenise(raw, position)
        if not tokens:
            return roots, None
        delimiters = Counter(t for kind, t in tokens if kind == "D")
        depth = delimiters[b"("] - delimiters[b")"]
        nodes += delimiters[b";"]
        try:
            if limits.nodes is not None and nodes > limits.nodes:
                raise too_large(f"the file has more than {limits.nodes} nodes")
            if depth:
                raise _incomplete_game_error(raw, end, depth)
            stray = _STRAY_AFTER_GAME.match(raw, end)
            if stray:
                line = raw.count(b"\n", 0, stray.start(1)) + 1
                raise SgfError(
                    f"unbalanced: unexpected {stray.group(1).decode()!r} after the end of the game tree",
                    kind="syntax",
                    where=f"line {line}",
                )
            roots.append(_build_tree(tokens, limits))
        except SgfError as e:
            return roots, e
        position = end


def _check_tree(game: GameRecord, limits: SgfLimits) -> None:
    """Raise SgfError (with source and place) for the first bad B/W/AB/AW/AE value in the tree, or
    (kind ``"too_large"``) for the first line of play with more moves or passes in a row than
    ``limits`` allow, or the node where the point lists (:data:`POINT_LISTS`) span more points in
    all than they allow."""
    size = game.size
    spanned = 0
    stack: list[tuple[SgfNode, int, int, int, bool]] = [(game.root, 0, 0, 0, True)]
    while stack:
        node, depth, moves, passes, main = stack.pop()
        is_move = node.has_move()
        where = f"move {moves + 1}" if is_move else "root node" if depth == 0 else f"node {depth}"
        if not main:
            where += " of a variation"
        try:
            spanned += sum(spanned_points(node.properties.get(ident, ()), size) for ident in POINT_LISTS)
            limits.check_points(spanned)  # before node.setup expands them
            move = node.move(size)
            node.setup(size)
            if move is not None:
                passes = passes + 1 if move[1] == size * size else 0
                limits.check_line(moves + 1, passes)
        except SgfError as e:
            raise e.located(
                source=game.source, where=where, move_number=moves + 1 if is_move else None
            ) from None
        moves += is_move
        stack.extend(
            (child, depth + 1, moves, passes, main and i == 0) for i, child in enumerate(node.children)
        )


def _header_error(root: SgfNode, error: SgfError) -> SgfError:
    """Return the error of a record whose header is unusable, a komi too large for any game said to
    be out of range (as the upload form says of KM[200]) rather than "not a number": KM[1e308]
    (SGF numbers have no exponent) or a KM of more digits than a float holds."""
    value = (root.get("KM") or "").strip().replace(",", ".")
    if not error.what.startswith("bad KM value") or not _FLOAT.fullmatch(value):
        return error
    komi = float(value)  # inf for too many digits; never raises
    if math.isfinite(komi) and abs(komi) <= MAX_KOMI:
        return error  # 1e1: within range, but not an SGF number
    shown = f"{komi:g}" if math.isfinite(komi) else value if len(value) <= 12 else value[:12] + "..."
    return SgfError(f"komi {shown} is out of range: at most {MAX_KOMI} either way", kind="bad_property",
                    source=error.source, where=error.where)


def root_text(sgf: str, idents: Iterable[str]) -> dict[str, str]:
    """Return the text of the ``idents`` properties (SimpleText: escapes removed, each run of white
    space one space) of the first game's root node in the SGF text ``sgf``, the first value of
    each that has one; only the root node is read, so a long record costs no more than a short one.
    Never raises."""
    wanted, found = set(idents), {}
    for ident, value in root_values(sgf.encode("utf-8", errors="replace")):
        if ident in wanted and ident not in found:
            found[ident] = " ".join(_text(value).split())  # whole UTF-8 characters: ']' is ASCII
    return {ident: text for ident, text in found.items() if text}


def _not_sgf(data: bytes | str) -> str | None:
    """Return why ``data`` cannot be SGF text at all (a NUL anywhere: binary data, which no database
    column of text takes either; text that is not Unicode), or None."""
    nul = data.find(b"\0" if isinstance(data, bytes) else "\0")
    if nul >= 0:
        unit = "byte" if isinstance(data, bytes) else "character"
        return f"binary data, not an SGF file ({unit} {nul + 1} is a NUL)"
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"not valid text (character {e.start + 1} is a lone surrogate)"
    return None


def iter_sgf_games(
    data: bytes | str, source: str = "<string>", limits: SgfLimits = UNLIMITED
) -> Iterator[GameRecord | SgfError]:
    """Yield each game of an SGF collection, or the SgfError that makes it unusable.

    ``data`` is the file's bytes (the encoding is taken from CA or guessed, see
    :func:`analysis.sgf.encoding.decode_sgf_bytes`) or already decoded text.
    A game with a bad header or bad coordinates yields its SgfError and the
    following games are still read; a syntax error (including truncation), or a
    game over ``limits`` (kind ``"too_large"``), yields its SgfError and ends the
    collection.  When the file holds several games their sources are ``source#1``,
    ``source#2``...  Data that is not SGF at all (no game tree; a NUL byte or
    character anywhere) yields a single SgfError of kind ``"not_sgf"``; so do bytes
    that start with a UTF-16 or UTF-32 byte order mark (which such files are read by)
    but are not that encoding.  Never raises SgfError itself.
    """
    encoding = None
    if isinstance(data, bytes):
        try:
            marked = decode_marked(data)
        except UnicodeDecodeError as e:
            codec = e.encoding.upper().removesuffix("-LE").removesuffix("-BE")
            yield SgfError(f"not valid {codec} text, though it starts with {codec}'s byte order mark",
                           kind="not_sgf", source=source)
            return
        if marked is not None:
            data, encoding = marked
    if (why := _not_sgf(data)) is not None:
        yield SgfError(why, kind="not_sgf", source=source)
        return
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not _GAME_START.search(raw):
        yield SgfError("not an SGF file: no game tree '(;' found", kind="not_sgf", source=source)
        return
    if isinstance(data, bytes):
        text, encoding = decode_sgf_bytes(data)
        if encoding != "utf-8":
            raw = text.encode("utf-8")  # so that GBK/Shift-JIS bytes can't pass for '\\' or ']'
    roots, error = _parse_trees(raw, limits)  # a decoding keeps the game tree: see decode_sgf_bytes
    several = len(roots) + (error is not None) > 1
    for number, root in enumerate(roots, 1):
        name = f"{source}#{number}" if several else source
        try:
            game = GameRecord(root, source=name, encoding=encoding)
        except SgfError as e:
            yield _header_error(root, e)
            continue
        try:
            _check_tree(game, limits)
        except SgfError as e:
            yield e
        else:
            yield game
    if error is not None:
        yield error.located(source=f"{source}#{len(roots) + 1}" if several else source, where=None)


def read_sgf_collection(
    data: bytes | str, source: str = "<string>", limits: SgfLimits = UNLIMITED
) -> list[GameRecord]:
    """Return every game of an SGF file (one or more ``(;...)`` trees) as GameRecords.

    ``source`` names the data in error messages and in ``GameRecord.source``.
    Raises SgfError for the first problem found: not SGF, truncated or
    unbalanced, bad syntax, not Go, bad SZ/KM/HA/FF, a malformed or
    off-board point in B/W/AB/AW/AE anywhere in the tree, or a game over
    ``limits`` (kind ``"too_large"``).
    """
    games = []
    for item in iter_sgf_games(data, source, limits):
        if isinstance(item, SgfError):
            raise item
        games.append(item)
    return games


def read_sgf(data: bytes | str, source: str = "<string>", limits: SgfLimits = UNLIMITED) -> GameRecord:
    """Return the single game of an SGF file.

    Raises SgfError as :func:`read_sgf_collection` does, and also (kind
    ``"several_games"``) if the file holds more than one game.
    """
    games = read_sgf_collection(data, source, limits)
    if len(games) > 1:
        raise SgfError(
            f"holds {len(games)} games; send one game at a time",
            kind="several_games",
            source=source,
        )
    return games[0]


def _check_setup_node(
    setup: Setup, moves_before: int, with_move: bool, size: int, where: str, source: str
) -> None:
    """Raise SgfError (kind ``"illegal_setup"``) for setup after ``moves_before`` > 0 moves or beside
    a move (``with_move``), or for a point that the node makes both black and white."""
    if moves_before or with_move:
        when = f"after move {moves_before}" if moves_before else "beside a move"
        raise SgfError(f"adds or removes stones (AB/AW/AE) {when}: only the setup before the first "
                       "move is supported", kind="illegal_setup", source=source, where=where)
    both = sorted(set(setup.black) & set(setup.white))
    if both:
        raise SgfError(f"puts a black and a white stone on {to_gtp(both[0], size)}", kind="illegal_setup",
                       source=source, where=where)


def _node_contents(
    game: GameRecord, node: SgfNode, depth: int, moves_before: int
) -> tuple[tuple[int, int] | None, Setup]:
    """Return the move and the setup of main-line ``node`` at ``depth``; raise SgfError, located,
    for a bad coordinate."""
    try:
        return node.move(game.size), node.setup(game.size)
    except SgfError as e:
        where = f"move {moves_before + 1}" if node.has_move() else f"node {depth}"
        raise e.located(source=game.source, where=where) from None


def _apply_setup(position: Position, setup: Setup, game: GameRecord, depth: int, moves_before: int,
                 with_move: bool, check: bool) -> None:
    """Put ``setup`` on ``position``; with ``check``, raise SgfError (kind ``"illegal_setup"``) as
    :func:`replay` says."""
    where = "root node" if depth == 0 else f"node {depth}"
    if check:
        _check_setup_node(setup, moves_before, with_move, game.size, where, game.source)
    position.setup(black=setup.black, white=setup.white, empty=setup.empty)
    if check and (airless := position.breathless_stone()) is not None:
        raise SgfError(f"setup stones leave the stones at {to_gtp(airless, game.size)} without liberties",
                       kind="illegal_setup", source=game.source, where=where)


def play_recorded(position: Position, move: tuple[int, int], game: GameRecord, number: int) -> None:
    """Play the record's move ``number`` on ``position``; raise SgfError (kind ``"illegal_move"``)
    naming it and the rules engine's reason when it is illegal."""
    from analysis.go.position import IllegalMoveError

    color, point = move
    try:
        position.play(point, color)
    except IllegalMoveError as e:
        raise SgfError(
            f"{e} [{describe_move(color, point, game.size)}, reason: {e.reason}]",
            kind="illegal_move",
            source=game.source,
            where=f"move {number}",
            move_number=number,
        ) from e


def replay(
    game: GameRecord, upto: int | None = None, *, rules: str | None = None, check_setup: bool = False
) -> Position:
    """Return the Position after the first ``upto`` main-line moves (all of them if None or fewer).

    Setup stones (AB/AW/AE) are applied at whichever main-line node they occur,
    before that node's move, and PL sets the player to move; passes count as
    moves.  When the replay stops before the end, the colour to play is that of
    the next main-line move.  ``rules`` (the game's, any name :mod:`analysis.go.rules` reads)
    choose the ko rule and give White its handicap bonus in the position's komi
    and their scoring (:func:`analysis.go.ruled.apply_rules`); None replays with simple ko, the
    record's komi and area scoring.

    Raises SgfError (kind ``"illegal_move"``, with ``move_number``) naming the
    move, its coordinate and the rules engine's reason when a move is illegal; with
    ``check_setup`` (new records: stored ones were checked when they came in), SgfError (kind
    ``"illegal_setup"``) when setup leaves a string without liberties, puts a stone of each colour
    on one point, or comes after the first move or beside a move (the site replays a game from its
    initial stones and its moves alone);
    SgfError for a bad coordinate; ValueError if ``upto`` is negative.
    """
    # Imported here so that reading and writing SGF work without the compiled board.
    from analysis.go.position import Position
    from analysis.go.ruled import apply_rules
    from analysis.go.rules import uses_superko

    if upto is not None and upto < 0:
        raise ValueError(f"upto must be >= 0, got {upto}")
    superko = rules is not None and uses_superko(rules)
    position = Position(size=game.size, komi=game.komi, superko=superko)
    number = 0
    for depth, node in enumerate(game.main_line()):
        move, setup = _node_contents(game, node, depth, number)
        if move is not None and upto is not None and number >= upto:
            position.to_play = move[0]
            break
        if any(setup):
            _apply_setup(position, setup, game, depth, number, move is not None, check_setup)
        if node.get("PL") in ("B", "W"):
            position.to_play = MOVE_PROPERTIES[node.get("PL")]
        if move is not None:
            number += 1
            play_recorded(position, move, game, number)
    if rules is not None:
        apply_rules(position, rules, game.komi)
    return position
