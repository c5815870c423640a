"""The game tree as a review board sees it: the record's moves and their variations.

An SGF tree may hold nodes without a move between moves (a comment, a mark); a board's tree is
the tree of *moves*: its root is the position before the first move (the last main-line node
before it, :func:`anchor`, where the setup stones are), and each node's children are the move
nodes that follow it (:func:`move_children`, looking through nodes without a move).  A node is
named by its line: the moves ``(colour, flat point)`` from the start (:func:`line_of`,
:func:`find`).  Variations are made (:func:`extend`), deleted (:func:`delete`) and made the main
line (:func:`promote`) in place in the record, which :func:`analysis.sgf.write_sgf` writes back
with its variations.  Moves played on past the end of the game's own moves make a variation too:
the main line is closed there by a node without a move (:func:`keep_the_end`).  :func:`walk`
replays every line, branch by branch, with the rules engine.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

from analysis.go.coords import BLACK, color_name, to_gtp, to_sgf
from analysis.sgf.model import SETUP_PROPERTIES, GameRecord, SgfError, SgfNode

if TYPE_CHECKING:
    from analysis.go.position import Position

Move = tuple[int, int]  # (colour, flat point; pass is size*size)


class TreeError(ValueError):
    """A line that names no node of the tree, or a change the tree does not allow."""


class Placed(NamedTuple):
    """A move node reached by :func:`walk`: the node, the move node (or the anchor) it follows, and
    the position after its move (the walk's own: copy it to keep it)."""

    node: SgfNode
    parent: SgfNode
    position: Position


def anchor(record: GameRecord) -> SgfNode:
    """Return the root of the board's tree: the last main-line node before the first move (the
    record's root when the first move follows it)."""
    node = record.root
    while node.children and not node.children[0].has_move():
        node = node.children[0]
    return node


def move_children(node: SgfNode) -> list[SgfNode]:
    """Return the move nodes that follow ``node``, in order, looking through the nodes without a move
    between (their first one continues the line as their own first child does)."""
    found: list[SgfNode] = []
    stack = list(reversed(node.children))  # a stack, not recursion: a record may hold long runs
    while stack:                           # of nodes without a move (comments, marks)
        child = stack.pop()
        if child.has_move():
            found.append(child)
        else:
            stack.extend(reversed(child.children))
    return found


def _move(record: GameRecord, node: SgfNode) -> Move:
    move = node.move(record.size)
    assert move is not None, "a node of the board's tree has a move"
    return move


def line_of(record: GameRecord, node: SgfNode) -> list[Move]:
    """Return the moves from the start to ``node`` (inclusive) as ``(colour, point)`` pairs."""
    return [move for n in node.path() if (move := n.move(record.size)) is not None]


def _child(record: GameRecord, node: SgfNode, move: Move) -> SgfNode | None:
    """Return the move node after ``node`` that plays ``move``, or None."""
    return next((c for c in move_children(node) if c.move(record.size) == tuple(move)), None)


def find(record: GameRecord, line: Sequence[Move]) -> SgfNode:
    """Return the node reached by playing ``line`` from the tree's root (the anchor for no moves).

    Raises TreeError naming the first move of ``line`` that the tree does not hold there, or that
    follows stones added or removed after the start (a branch that :func:`walk` leaves out).
    """
    node = anchor(record)
    for number, move in enumerate(line, 1):
        child = _child(record, node, move)
        if child is None:
            raise TreeError(f"the tree has no move {number} {_describe(move, record.size)} on this line")
        if _later_setup(child, node):
            raise TreeError(f"move {number} {_describe(move, record.size)} follows stones added or "
                            "removed during the game, which the board does not show")
        node = child
    return node


def _describe(move: Move, size: int) -> str:
    color, point = move
    return f"{color_name(color)} {to_gtp(point, size)}"


def is_main_line(node: SgfNode, below: SgfNode | None = None) -> bool:
    """Return whether ``node`` lies on the record's main line: each node from the root down to it
    its parent's first child.  Given ``below``, an ancestor known to lie on it, only the nodes from
    there down are walked (a tree walked from the root costs its size, not its depth times it)."""
    while node is not below and node.parent is not None:
        if node.parent.children[0] is not node:
            return False
        node = node.parent
    return True


def follow(record: GameRecord, node: SgfNode, moves: Sequence[Move]) -> tuple[SgfNode, int]:
    """Return the node reached by following ``moves`` from ``node`` as far as the tree holds them,
    and how many of them it holds there (``node`` and 0 when it holds not even the first)."""
    for held, move in enumerate(moves):
        known = _child(record, node, move)
        if known is None:
            return node, held
        node = known
    return node, len(moves)


def extend(record: GameRecord, node: SgfNode, moves: Sequence[Move]) -> SgfNode:
    """Play ``moves`` on from ``node`` and return the node of the last one (``node`` for none).

    A move the tree already holds there is followed (:func:`follow`), not added again; the first
    new one becomes the last child of the node reached: a variation when it has children already.
    Legality is the caller's to check (:func:`walk`, the rules engine).  Raises CoordinateError for
    a point off the board.
    """
    node, held = follow(record, node, moves)
    for color, point in moves[held:]:
        node = node.add_child({color_name(color)[0].upper(): to_sgf(point, record.size)})
    return node


def keep_the_end(record: GameRecord, node: SgfNode, moves: Sequence[Move]) -> None:
    """Where ``moves``, played on from ``node``, follow the main line to its last node and go on,
    close the main line there with a node without a move (its first child), so that
    :func:`extend` makes the new moves a variation and the game's own moves stay as they were."""
    last, held = follow(record, node, moves)
    if held < len(moves) and not last.children and is_main_line(last):
        last.add_child()


def promote(node: SgfNode) -> None:
    """Make the line to ``node`` the main line: every node on its path becomes its parent's first
    child (the lines it displaces become variations, in their order; a bare end of the old main
    line, :func:`keep_the_end`, is dropped)."""
    for parent, child in pairwise(node.path()):
        parent.children.remove(child)
        parent.children.insert(0, child)
        parent.children[1:] = [c for c in parent.children[1:] if c.properties or c.children]


def delete(record: GameRecord, node: SgfNode) -> SgfNode:
    """Remove ``node`` and every move after it from the tree; return the node it followed (a move
    node, or the anchor).  Raises TreeError for the tree's root, which has no move to remove."""
    root = anchor(record)
    if node is root or node.parent is None:
        raise TreeError("the start of the game cannot be deleted")
    node.parent.children.remove(node)
    parent = node.parent
    node.parent = None
    if len(parent.children) == 1 and not parent.children[0].properties and not parent.children[0].children:
        parent.children.clear()  # the main line's end, closed for the variation (:func:`keep_the_end`)
    while parent is not None and not parent.has_move() and parent is not root:
        parent = parent.parent
    assert parent is not None
    return parent


def _later_setup(node: SgfNode, parent: SgfNode) -> bool:
    """Return whether ``node`` or a node between it and ``parent`` adds or removes stones."""
    between: SgfNode | None = node
    while between is not None and between is not parent:
        if any(ident in between.properties for ident in SETUP_PROPERTIES):
            return True
        between = between.parent
    return False


def walk(record: GameRecord, rules: str | None = None) -> tuple[Position, Iterator[Placed]]:
    """Return the position at the tree's root (:func:`analysis.sgf.replay` to the first move, with
    ``rules`` as it takes them) and an iterator over every move node, depth first, main line before
    variations, each with the position after it.

    Branches the board cannot show are left out with every node after them: an illegal move, or
    stones added or removed (AB/AW/AE) after the start.  Raises SgfError as ``replay`` does for the
    start (records stored by the site replay).
    """
    from analysis.go.position import IllegalMoveError
    from analysis.go.ruled import apply_rules
    from analysis.sgf.read import replay

    start = replay(record, upto=0, rules=rules)
    root = anchor(record)

    def placed() -> Iterator[Placed]:
        stack: list[tuple[SgfNode, SgfNode, Position, bool]] = []

        def push(parent: SgfNode, position: Position, opening: bool) -> None:
            stack.extend((child, parent, position, opening) for child in reversed(move_children(parent)))

        push(root, start, True)
        while stack:
            node, parent, before, opening = stack.pop()
            if _later_setup(node, parent):
                continue
            color, point = _move(record, node)
            position = before.copy()
            try:
                position.play(point, color)
            except IllegalMoveError:
                continue
            black_opening = opening and color == BLACK
            if rules is not None and black_opening:
                apply_rules(position, rules, record.komi)  # Black's opening moves may be a handicap
            yield Placed(node, parent, position)
            push(node, position, black_opening)

    return start, placed()


def position_after(record: GameRecord, line: Sequence[Move], rules: str | None = None) -> Position:
    """Return the position after ``line`` played from the tree's root (a line the tree need not
    hold), with ``rules`` as :func:`walk` takes them.

    Raises SgfError (kind ``illegal_move``, naming the move) for an illegal move.
    """
    from analysis.go.position import IllegalMoveError
    from analysis.go.ruled import apply_rules
    from analysis.sgf.read import replay

    position = replay(record, upto=0, rules=rules)
    opening = True
    for number, (color, point) in enumerate(line, 1):
        try:
            position.play(point, color)
        except IllegalMoveError as e:
            raise SgfError(f"{_describe((color, point), record.size)}: {e}", kind="illegal_move",
                           where=f"move {number}", move_number=number) from None
        opening = opening and color == BLACK
        if rules is not None and opening:
            apply_rules(position, rules, record.komi)
    return position
