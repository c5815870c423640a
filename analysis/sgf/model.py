"""The SGF game model: :class:`SgfNode`, :class:`GameRecord` and :class:`SgfError`.

Import these from :mod:`analysis.sgf`; this module only holds them so that
the reader and the writer can share them.

Property values are stored as text: decoded, with SGF escapes removed and line
breaks normalised to ``"\\n"`` (``C[a\\]b]`` is stored as ``"a]b"``).  Points stay
in SGF notation (``"pd"``, ``"aa:cc"``); :meth:`SgfNode.move` and
:meth:`SgfNode.setup` convert them to flat indices (see :mod:`analysis.go.coords`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

from sgfmill import sgf_grammar

from analysis.go.coords import (
    BLACK,
    MAX_SIZE,
    MIN_SIZE,
    WHITE,
    CoordinateError,
    color_name,
    from_sgf,
    is_pass,
    to_gtp,
    to_sgf,
)

MOVE_PROPERTIES = {"B": BLACK, "W": WHITE}
SETUP_PROPERTIES = ("AB", "AW", "AE")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


class SgfError(ValueError):
    """Malformed or unplayable SGF data.

    ``str(error)`` names the source, where the problem is and what it is, e.g.
    ``"game.sgf, move 3: bad coordinate in B[jj]: SGF point 'jj' is off a 9x9 board"``.

    Attributes: ``source`` (file or member name, or None), ``what`` (the problem),
    ``where`` (``"move 12"``, ``"node 3"``, ``"root node"``... or None),
    ``move_number`` (1-based, when the problem is at a move) and ``kind``, one of
    ``"not_sgf"``, ``"truncated"``, ``"syntax"``, ``"not_go"``, ``"bad_property"``,
    ``"bad_coordinate"``, ``"illegal_move"``, ``"illegal_setup"``, ``"several_games"``,
    ``"too_large"`` (over :class:`analysis.sgf.SgfLimits`).
    """

    def __init__(
        self,
        what: str,
        *,
        kind: str,
        source: str | None = None,
        where: str | None = None,
        move_number: int | None = None,
    ) -> None:
        self.what = what
        self.kind = kind
        self.source = source
        self.where = where
        self.move_number = move_number
        prefix = ", ".join(part for part in (source, where) if part)
        super().__init__(f"{prefix}: {what}" if prefix else what)

    def located(self, *, source: str | None, where: str | None, move_number: int | None = None) -> SgfError:
        """Return a copy of this error with the source and location filled in (existing ones kept)."""
        return SgfError(
            self.what,
            kind=self.kind,
            source=self.source or source,
            where=self.where or where,
            move_number=self.move_number if self.move_number is not None else move_number,
        )


class Setup(NamedTuple):
    """Stones placed (``black``, ``white``) or removed (``empty``) by AB/AW/AE, as flat indices."""

    black: tuple[int, ...] = ()
    white: tuple[int, ...] = ()
    empty: tuple[int, ...] = ()


def _rectangle(value: str, size: int) -> tuple[range, range]:
    """Return the rows and columns that one point list entry (``"cc"`` or ``"aa:cc"``) covers.

    Raises CoordinateError for a malformed or off-board entry, and for the pass point (``""`` or
    ``"tt"``).
    """
    corners = value.split(":")
    if len(corners) > 2:
        raise CoordinateError(f"malformed point list entry {value!r}")
    flat = [from_sgf(corner, size) for corner in corners]
    if any(is_pass(p, size) for p in flat):
        raise CoordinateError(f"{value!r} is not a point of the {size}x{size} board")
    (r1, c1), (r2, c2) = divmod(flat[0], size), divmod(flat[-1], size)
    return range(min(r1, r2), max(r1, r2) + 1), range(min(c1, c2), max(c1, c2) + 1)


def expand_points(values: Iterable[str], size: int) -> tuple[int, ...]:
    """Return the flat indices of a list of SGF points, expanding rectangles such as ``"aa:cc"``.

    Duplicates are dropped, order is kept.  Raises CoordinateError for malformed
    or off-board points, and for the pass point (``""`` or ``"tt"``).
    """
    points: dict[int, None] = {}
    for value in dict.fromkeys(values):  # a point list repeated 70,000 times is expanded once
        rows, cols = _rectangle(value, size)
        for row in rows:
            for col in cols:
                points[row * size + col] = None
    return tuple(points)


def spanned_points(values: Iterable[str], size: int) -> int:
    """Return how many points the distinct entries of a point list span on a ``size`` board, a
    rectangle such as ``"aa:cc"`` counted by its area without expanding it, and a malformed entry
    as one (:func:`expand_points` says what is wrong with it)."""
    total = 0
    for value in dict.fromkeys(values):
        try:
            rows, cols = _rectangle(value, size)
        except CoordinateError:
            total += 1
            continue
        total += len(rows) * len(cols)
    return total


class SgfNode:
    """One SGF node: ``properties`` (identifier -> list of text values), ``children`` and ``parent``.

    The first child continues the main line; the others are variations.
    """

    __slots__ = ("children", "parent", "properties")

    def __init__(self, properties: Mapping[str, str | Iterable[str]] | None = None) -> None:
        self.properties: dict[str, list[str]] = {}
        self.children: list[SgfNode] = []
        self.parent: SgfNode | None = None
        for ident, value in (properties or {}).items():
            self.set(ident, value)

    def __repr__(self) -> str:
        shown = "".join(f"{k}[{']['.join(v)}]" for k, v in list(self.properties.items())[:4])
        return f"<SgfNode {shown[:60]} children={len(self.children)}>"

    def get(self, ident: str) -> str | None:
        """Return the first value of property ``ident``, or None if the node does not have it."""
        values = self.properties.get(ident)
        return values[0] if values else None

    def set(self, ident: str, value: str | Iterable[str]) -> None:
        """Set property ``ident`` to one text value or a list of them (an empty list removes it).

        Use it to attach analysis, e.g. ``node.set("GA", "winrate 0.62")``.
        Raises ValueError if ``ident`` is not 1-64 upper-case letters or a value is not a str.
        """
        if not sgf_grammar.is_valid_property_identifier(ident):
            raise ValueError(f"invalid SGF property identifier {ident!r}")
        values = [value] if isinstance(value, str) else list(value)
        if not all(isinstance(v, str) for v in values):
            raise ValueError(f"values of {ident} must be str, got {values!r}")
        if values:
            self.properties[ident] = values
        else:
            self.properties.pop(ident, None)

    def unset(self, ident: str) -> None:
        """Remove property ``ident`` if present."""
        self.properties.pop(ident, None)

    @property
    def comment(self) -> str | None:
        """The comment (``C``) of this node, or None."""
        return self.get("C")

    def set_comment(self, text: str) -> None:
        """Set the comment (``C``) of this node; an empty text removes it."""
        self.set("C", [text] if text else [])

    def add_child(self, properties: Mapping[str, str | Iterable[str]] | None = None) -> SgfNode:
        """Append and return a new child (a variation if the node already has children).

        Raises ValueError for invalid properties, as :meth:`set` does.
        """
        child = SgfNode(properties)
        child.parent = self
        self.children.append(child)
        return child

    def has_move(self) -> bool:
        """Return True if the node has a B or W property."""
        return any(ident in self.properties for ident in MOVE_PROPERTIES)

    def move(self, size: int) -> tuple[int, int] | None:
        """Return the move of this node as ``(color, flat point)`` (pass is ``size*size``), or None.

        Raises SgfError (kind ``"bad_coordinate"``) for a malformed or off-board
        point, a node with both B and W, or a move with several values.
        """
        found = [(ident, color) for ident, color in MOVE_PROPERTIES.items() if ident in self.properties]
        if not found:
            return None
        if len(found) > 1:
            raise SgfError("node has both a black and a white move", kind="bad_coordinate")
        ident, color = found[0]
        values = self.properties[ident]
        if len(values) != 1:
            raise SgfError(f"move {ident} has {len(values)} values", kind="bad_coordinate")
        try:
            return color, from_sgf(values[0], size)
        except CoordinateError as e:
            raise SgfError(f"bad coordinate in {ident}[{values[0]}]: {e}", kind="bad_coordinate") from None

    def setup(self, size: int) -> Setup:
        """Return the AB/AW/AE stones of this node (compressed lists expanded).

        Raises SgfError (kind ``"bad_coordinate"``) for a malformed or off-board point.
        """
        if not any(ident in self.properties for ident in SETUP_PROPERTIES):
            return Setup()
        lists = []
        for ident in SETUP_PROPERTIES:
            try:
                lists.append(expand_points(self.properties.get(ident, ()), size))
            except CoordinateError as e:
                raise SgfError(f"bad coordinate in {ident}: {e}", kind="bad_coordinate") from None
        return Setup(*lists)

    def walk(self) -> Iterator[SgfNode]:
        """Yield this node and all its descendants, depth first, main line before variations."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def main_line(self) -> Iterator[SgfNode]:
        """Yield this node, its first child, that child's first child... to the end of the line."""
        node: SgfNode | None = self
        while node is not None:
            yield node
            node = node.children[0] if node.children else None

    def copy_tree(self) -> SgfNode:
        """Return a copy of this node and all its descendants, detached (its parent is None): new
        nodes with new property lists, so that changing either tree leaves the other as it was.
        Copying costs a tenth of reading the tree again; nothing is re-checked."""
        top = self._bare_copy(None)
        stack = [(self, top)]
        while stack:
            old, new = stack.pop()
            for child in old.children:
                twin = child._bare_copy(new)
                new.children.append(twin)
                stack.append((child, twin))
        return top

    def _bare_copy(self, parent: SgfNode | None) -> SgfNode:
        """Return a childless copy of this node under ``parent`` (its properties copied)."""
        twin = SgfNode.__new__(SgfNode)
        twin.properties = {ident: list(values) for ident, values in self.properties.items()}
        twin.children = []
        twin.parent = parent
        return twin

    def path(self) -> list[SgfNode]:
        """Return the nodes from the root down to this node (inclusive)."""
        nodes = []
        node: SgfNode | None = self
        while node is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]


def _parse_number(text: str, ident: str, *, integer: bool) -> float:
    """Return the number in a root property value; raise SgfError (``"bad_property"``) if it is not one."""
    cleaned = text.strip().replace(",", ".")
    if not _NUMBER.fullmatch(cleaned) or (integer and not cleaned.lstrip("+-").isdigit()):
        raise SgfError(f"bad {ident} value {text!r}: not a number", kind="bad_property", where="root node")
    value = float(cleaned)
    if not math.isfinite(value):
        raise SgfError(f"bad {ident} value {text!r}", kind="bad_property", where="root node")
    return value


def _real(value: float) -> str:
    """Return an SGF real number (digits and a point, never an exponent): ``7.5``, ``-3``, ``0.0001``."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _komi(value: str | None) -> float:
    """Return the komi of a KM value (0.0 if missing or empty); raise SgfError if it is not a number."""
    return _parse_number(value, "KM", integer=False) if value and value.strip() else 0.0


def _handicap(value: str | None, size: int) -> int:
    """Return the handicap of an HA value (0 if missing or empty) on a ``size`` board; raise
    SgfError if it is not a count, or more stones than the board has points less one."""
    handicap = int(_parse_number(value, "HA", integer=True)) if value and value.strip() else 0
    if handicap < 0:
        raise SgfError(f"bad HA value {value!r}: negative", kind="bad_property", where="root node")
    if handicap > size * size - 1:
        raise SgfError(f"bad HA value {value[:12]!r}: more stones than a {size}x{size} board holds "
                       "with a point left to play", kind="bad_property", where="root node")
    return handicap


def _parse_size(value: str | None) -> int:
    """Return the board size of an SZ value (None means no SZ: 19).

    Raises SgfError (kind ``"bad_property"``) for a non-number, a non-square
    board (``SZ[19:13]``) or a size outside 2..25.
    """
    if value is None:
        return 19
    parts = value.split(":")
    if len(parts) > 2:
        raise SgfError(f"bad SZ value {value!r}", kind="bad_property", where="root node")
    sizes = {int(_parse_number(part, "SZ", integer=True)) for part in parts}
    if len(sizes) != 1:
        raise SgfError(f"bad SZ value {value!r}: board is not square", kind="bad_property", where="root node")
    size = sizes.pop()
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise SgfError(
            f"bad SZ value {value!r}: board size must be between {MIN_SIZE} and {MAX_SIZE}",
            kind="bad_property",
            where="root node",
        )
    return size


class GameRecord:
    """One game: the ``root`` node of its tree and the header values read from it.

    ``size`` is fixed when the record is made; the other header values are
    properties read from the root node each time, so edits to the root show.
    ``source`` names where the game came from; ``encoding`` is the codec its
    bytes were decoded with (None if it was given as text or built in memory).
    """

    def __init__(self, root: SgfNode, *, source: str = "<game>", encoding: str | None = None) -> None:
        """Wrap ``root``; raise SgfError if its GM, FF, SZ, KM or HA is unusable."""
        self.root = root
        self.source = source
        self.encoding = encoding
        try:
            game_type = root.get("GM")
            if game_type is not None and game_type.strip() not in ("", "1"):
                raise SgfError(f"not a Go game (GM[{game_type}])", kind="not_go", where="root node")
            version = root.get("FF")
            if version is not None and _parse_number(version, "FF", integer=True) not in (1, 2, 3, 4):
                raise SgfError(
                    f"unsupported file format FF[{version}]", kind="bad_property", where="root node"
                )
            self.size = _parse_size(root.get("SZ"))
            _komi(root.get("KM"))
            _handicap(root.get("HA"), self.size)
        except SgfError as e:
            raise e.located(source=source, where="root node") from None

    @classmethod
    def new(
        cls,
        size: int = 19,
        komi: float = 6.5,
        *,
        handicap: int = 0,
        rules: str | None = None,
        black_player: str | None = None,
        white_player: str | None = None,
        source: str = "<new game>",
    ) -> GameRecord:
        """Return a new empty game (root with GM[1]FF[4]CA[UTF-8]SZ KM, plus HA RU PB PW if given).

        Handicap stones are not placed: set ``AB`` on the root (or add moves).
        Raises SgfError for a size outside 2..25.
        """
        props = {"GM": "1", "FF": "4", "CA": "UTF-8", "SZ": str(size), "KM": _real(komi)}
        optional = {
            "HA": str(handicap) if handicap else None,
            "RU": rules,
            "PB": black_player,
            "PW": white_player,
        }
        props.update({k: v for k, v in optional.items() if v is not None})
        return cls(SgfNode(props), source=source)

    def copy(self) -> GameRecord:
        """Return an independent copy of this record (:meth:`SgfNode.copy_tree`), with the same
        ``size``, ``source`` and ``encoding``; the header was checked when this one was made."""
        twin = GameRecord.__new__(GameRecord)
        twin.__dict__.update(self.__dict__)
        twin.root = self.root.copy_tree()
        return twin

    def __repr__(self) -> str:
        moves = sum(node.has_move() for node in self.main_line())
        return f"<GameRecord {self.source} {self.size}x{self.size} moves={moves}>"

    @property
    def komi(self) -> float:
        """Komi from KM (0.0 if missing or empty)."""
        return _komi(self.root.get("KM"))

    @property
    def handicap(self) -> int:
        """Number of handicap stones from HA (0 if missing or empty)."""
        return _handicap(self.root.get("HA"), self.size)

    @property
    def rules(self) -> str | None:
        """The RU value, or None."""
        return self.root.get("RU")

    @property
    def result(self) -> str | None:
        """The RE value (e.g. ``"B+R"``, ``"W+0.5"``), or None."""
        return self.root.get("RE")

    @property
    def players(self) -> dict[int, str | None]:
        """Player names by colour: ``{BLACK: PB, WHITE: PW}`` (None where missing)."""
        return {BLACK: self.root.get("PB"), WHITE: self.root.get("PW")}

    @property
    def ranks(self) -> dict[int, str | None]:
        """Player ranks by colour: ``{BLACK: BR, WHITE: WR}`` (None where missing)."""
        return {BLACK: self.root.get("BR"), WHITE: self.root.get("WR")}

    @property
    def date(self) -> str | None:
        """The DT value, or None."""
        return self.root.get("DT")

    @property
    def name(self) -> str | None:
        """The game name GN, or None."""
        return self.root.get("GN")

    def main_line(self) -> Iterator[SgfNode]:
        """Yield the nodes of the main line: the root, then the first child each time."""
        return self.root.main_line()

    def nodes(self) -> Iterator[SgfNode]:
        """Yield every node of the tree, depth first, main line before variations."""
        return self.root.walk()

    def lines(self) -> Iterator[list[SgfNode]]:
        """Yield every line of play (root to a leaf) as a list of nodes; the main line comes first."""
        for node in self.root.walk():
            if not node.children:
                yield node.path()

    def main_line_moves(self) -> list[tuple[int, int]]:
        """Return the main-line moves as ``(color, flat point)`` pairs (pass is ``size*size``).

        Raises SgfError for a bad move (records read from files are already checked).
        """
        return [move for node in self.main_line() if (move := node.move(self.size)) is not None]

    def fingerprint(self) -> str:
        """Return a digest (64 hex digits) of what a replay of the main line depends on: the size,
        the komi, the initial stones and the moves; comments and other properties leave it alone.

        Raises SgfError as :meth:`main_line_moves` does.
        """
        setup = self.initial_setup()
        played = [self.size, self.komi, sorted(setup.black), sorted(setup.white), self.main_line_moves()]
        return hashlib.sha256(json.dumps(played).encode()).hexdigest()

    def initial_setup(self) -> Setup:
        """Return the stones on the board before the first main-line move, as ``Setup(black, white)``.

        AB/AW/AE of every main-line node before the first move are applied in
        order; setup at later nodes is not included (:func:`analysis.sgf.replay`
        applies it).  Raises SgfError for a bad point (records read from files are
        already checked).
        """
        board: dict[int, int] = {}
        for node in self.main_line():
            if node.move(self.size) is not None:
                break
            setup = node.setup(self.size)  # applied in the rules engine's order: AE, AB, AW
            for point in setup.empty:
                board.pop(point, None)
            board.update(dict.fromkeys(setup.black, BLACK))
            board.update(dict.fromkeys(setup.white, WHITE))
        return Setup(
            black=tuple(p for p, c in board.items() if c == BLACK),
            white=tuple(p for p, c in board.items() if c == WHITE),
        )

    def add_move(self, color: int, point: int, parent: SgfNode | None = None) -> SgfNode:
        """Add a move node and return it.

        Without ``parent`` the move continues the main line; with ``parent`` it
        becomes that node's next child (a variation if it already has one).
        Raises ValueError for a colour other than BLACK/WHITE and CoordinateError
        for a point off the board.  Legality is not checked (see ``replay``).
        """
        ident = color_name(color)[0].upper()
        if parent is None:
            *_, parent = self.main_line()
        return parent.add_child({ident: to_sgf(point, self.size)})


def describe_move(color: int, point: int, size: int) -> str:
    """Return a move as ``"B[dd] (D16)"`` for messages."""
    return f"{color_name(color)[0].upper()}[{to_sgf(point, size)}] ({to_gtp(point, size)})"
