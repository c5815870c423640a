"""Variations on the review board: the game tree the page shows, and the changes made to it.

The tree is the record's (:mod:`analysis.sgf.tree`): its own variations and those made on the
board.  A node is named on the wire by its line from the start, ``"BE5 WC3 Bpass"``
(:func:`parse_node`; ``""`` is the start).  The owner's changes to a finished game are saved in its
record, the game's SGF, and so is the analysis of each variation's position (its node's ``SBKV``,
``SBKS`` and comment, :func:`analysis.review.notes.write_node`), so that the downloaded SGF has
them; so are the players' comments the owner writes (:func:`set_comment`), above those lines.  A
share link's viewer explores a copy of the record that the socket keeps (``private``): nothing
they do reaches the owner's game.  Each function takes the game id, whether the socket is
read-only and its copy (None: none yet), and returns the ``tree`` message to send and the copy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from analysis.go.coords import BLACK, WHITE, CoordinateError, from_gtp, to_gtp
from analysis.review.notes import read_node, without_analysis, write_node
from analysis.sgf import GameRecord, SgfError, SgfNode, write_sgf
from analysis.sgf.tree import (
    Move,
    TreeError,
    anchor,
    delete,
    extend,
    find,
    is_main_line,
    keep_the_end,
    line_of,
    position_after,
    walk,
)
from analysis.sgf.tree import promote as promote_line
from frontend.models import Game
from frontend.services import game_analysis, games
from frontend.services.recent import Recent

MAX_LINE = 1000  # moves in a node's name
MAX_MOVES = 60  # moves played on in one request (a candidate's variation is at most 20)
MAX_SHOWN = 2000  # nodes of a tree message: a bigger tree (an uploaded joseki file) is cut
MAX_NODES = 5000  # nodes of a record that variations are still added to
MAX_COMMENT = 10_000  # characters of a node's players' comment
MAX_PRIVATE_NODES = 500  # nodes a shared review's viewer may add to its copy of the game's record
SHOWN_KEPT = 8  # trees as last shown (up to about 1 MB of JSON each), kept for the next viewer asking

_shown: Recent[tuple[int, str, str, bool], dict] = Recent(SHOWN_KEPT)
COLORS = {"B": BLACK, "W": WHITE}
ENTRY_FIELDS = ("to_play", "black_winrate", "black_score_lead", "visits", "best", "candidates")


class VariationError(ValueError):
    """A change of the tree that cannot be made, said for the player."""


def parse_node(name: str, size: int) -> list[tuple[int, int]]:
    """Return the line of moves a node's name spells (``"BE5 WC3 Bpass"``) on a ``size`` board.

    Raises VariationError for a name that is not such a line, or too long.
    """
    words = name.split()
    if len(words) > MAX_LINE:
        raise VariationError(f"a line of more than {MAX_LINE} moves")
    line = []
    for word in words:
        if word[:1] not in COLORS:
            raise VariationError(f"bad move {word[:8]!r} in a node's name: a colour B or W, then a vertex")
        try:
            line.append((COLORS[word[0]], from_gtp(word[1:], size)))
        except CoordinateError as e:
            raise VariationError(f"bad move {word[:8]!r} in a node's name: {e}") from None
    return line


@dataclass
class _Edit:
    """The record being explored and whether it is the game's own (saved after the change)."""

    game: Game
    record: GameRecord
    saved: bool


def _require_over(game: Game) -> None:
    if game.phase != Game.Phase.FINISHED:
        raise VariationError("the game is still being played: its variations can be explored once it is over")


@contextmanager
def _editing(
    game_id: int, read_only: bool, private: GameRecord | None, change: bool = True
) -> Iterator[_Edit]:
    """Yield the record to explore: the owner's game, locked and saved at the end if it changed, or
    the socket's copy (a fresh one from the game when it has none; the game is not locked).
    Without ``change`` nothing is locked or saved, and the record yielded is the game's shared one,
    to read only (:func:`frontend.services.games.record_of`); raises VariationError for a
    ``change`` of a game still being played."""
    with transaction.atomic():
        saving = change and not read_only  # a viewer's change stays in its copy: nothing to lock
        game = (Game.objects.select_for_update() if saving else Game.objects).get(pk=game_id)
        if change:
            _require_over(game)
        if read_only and private is not None:
            yield _Edit(game, private, False)
            return
        record = games.editable_record(game) if change else games.record_of(game)
        if read_only:
            yield _Edit(game, record, False)
            return
        edit = _Edit(game, record, True)
        yield edit
        if change and (text := write_sgf(edit.record).decode()) != game.sgf:
            game.sgf = text
            game.save(update_fields=["sgf", "updated"])


def _find(record: GameRecord, name: str) -> SgfNode:
    try:
        return find(record, parse_node(name, record.size))
    except TreeError as e:
        raise VariationError(f"{e} (the tree changed: reload the page)") from None


def _done(edit: _Edit, current: SgfNode | None, **extra: object) -> tuple[dict, GameRecord | None]:
    message = tree_message(edit.game, edit.record, current, edit.saved)
    return {**message, **extra}, None if edit.saved else edit.record


def show(game_id: int, read_only: bool, private: GameRecord | None) -> tuple[dict, GameRecord | None]:
    """Return the tree as it stands, with no ``current`` node: the page stays where it is.  A
    viewer's copy is dropped: its next change starts again from the owner's game."""
    with _editing(game_id, read_only, None, change=False) as edit:
        game = edit.game
        key = (game.pk, game.sgf, game.rules, edit.saved)
        return _shown.get(key, lambda: tree_message(game, edit.record, None, edit.saved)), None


def branch(
    game_id: int, read_only: bool, private: GameRecord | None, name: str, moves: Sequence[object]
) -> tuple[dict, GameRecord | None]:
    """Play ``moves`` (GTP vertices, in turn from the player to move) on from the node ``name``:
    a new variation where the tree does not hold them.  The new ``current`` node is the last one.

    Raises VariationError for a bad node, too many moves, a tree of :data:`MAX_NODES` nodes (a
    viewer's copy: :data:`MAX_PRIVATE_NODES` more than the game's) or a line longer than a
    record's or a node's name may be, CoordinateError for a bad vertex and IllegalMoveError (with
    its reason) for an illegal move.  Moves played on past the end of the game make a variation
    (:func:`analysis.sgf.tree.keep_the_end`): the game's own moves, and their analysis, stay as
    they were.
    """
    if not 1 <= len(moves) <= MAX_MOVES or not all(isinstance(m, str) for m in moves):
        raise VariationError(f"branch: moves must be 1 to {MAX_MOVES} vertices")
    with _editing(game_id, read_only, private) as edit:
        record = edit.record
        node = _find(record, name)
        before = line_of(record, node)
        try:
            position = position_after(record, before, edit.game.rules)
        except SgfError as e:
            raise VariationError(f"this line cannot be played on: {e}") from None
        _require_room(edit, sum(1 for _ in record.nodes()) + len(moves))
        line = []
        for vertex in moves:
            point, color = from_gtp(vertex, record.size), position.to_play
            position.play(point)  # IllegalMoveError names the move and why
            line.append((color, point))
        _require_line(before + line, record.size)
        keep_the_end(record, node, line)
        return _done(edit, extend(record, node, line))


def _require_room(edit: _Edit, nodes: int) -> None:
    """Raise VariationError if the record being explored may not grow to ``nodes`` nodes: more than
    :data:`MAX_NODES`, or, in a viewer's copy, :data:`MAX_PRIVATE_NODES` more than the game has."""
    if nodes > MAX_NODES:
        raise VariationError(f"the game tree has the most nodes it may have ({MAX_NODES}): "
                             "delete a variation first")
    if not edit.saved and nodes > sum(1 for _ in games.record_of(edit.game).nodes()) + MAX_PRIVATE_NODES:
        raise VariationError(f"your copy of this shared review has the most moves it may add "
                             f"({MAX_PRIVATE_NODES}): delete a variation first")


def _require_line(line: Sequence[Move], size: int) -> None:
    """Raise VariationError if ``line`` is longer than a node's name may be (:data:`MAX_LINE`) or
    over the bounds of a game's record (:func:`frontend.services.games.record_limits`: its moves
    and passes in a row), which its downloaded SGF would then break on upload."""
    if len(line) > MAX_LINE:
        raise VariationError(f"a line of more than {MAX_LINE} moves")
    passes = next((k for k, (_, point) in enumerate(reversed(line)) if point != size * size), len(line))
    try:
        games.record_limits().check_line(len(line), passes)
    except SgfError as e:
        raise VariationError(f"this variation cannot be played on: {e}") from None


def delete_branch(
    game_id: int, read_only: bool, private: GameRecord | None, name: str
) -> tuple[dict, GameRecord | None]:
    """Delete the node ``name`` and what follows it; its parent becomes ``current``.

    Raises VariationError for a node of the game's main line (only variations are deleted).
    """
    with _editing(game_id, read_only, private) as edit:
        node = _find(edit.record, name)
        if is_main_line(node):
            raise VariationError("the game's own moves are not deleted: only its variations")
        return _done(edit, delete(edit.record, node))


def promote_branch(
    game_id: int, read_only: bool, private: GameRecord | None, name: str
) -> tuple[dict, GameRecord | None]:
    """Make the line to node ``name`` the main line of an uploaded game (the owner's: a shared
    review may not ask, :data:`frontend.services.protocol.READ_ONLY`); the message says
    ``main_line_changed`` (its analysis is of another game now: the page reloads, and a whole-game
    analysis running is asked to stop).

    Raises VariationError for a game played on the site, whose moves are its history, or for a
    line with an illegal move (a record's own variation may hold one: the board leaves it out).
    """
    with _editing(game_id, read_only, private) as edit:
        if edit.game.kind != Game.Kind.REVIEW:
            raise VariationError("a game played here keeps its moves: its variations cannot replace them")
        node = _find(edit.record, name)
        try:
            position_after(edit.record, line_of(edit.record, node), edit.game.rules)
        except SgfError as e:
            raise VariationError(f"this line cannot be the game's: {e}") from None
        promote_line(node)
        if edit.saved:  # the game's analysis is of the old main line: stop it at once
            game_analysis.stop_all(edit.game.pk)
        return _done(edit, node, main_line_changed=True)


def set_comment(
    game_id: int, read_only: bool, private: GameRecord | None, name: str, text: str
) -> tuple[dict, GameRecord | None]:
    """Make ``text`` the players' comment of the node ``name`` of the owner's game, on the main line
    or a variation ("" removes it): the comment the page shows there (:func:`_commented`), the
    analysis lines this site wrote into those nodes kept below it.  The ``tree`` message has no
    ``current`` node: the page stays where it is.

    Raises VariationError for a shared review (read-only), a comment of more than
    :data:`MAX_COMMENT` characters, or one that would make the record bigger than an upload may be
    (``GOWEB_MAX_SGF_BYTES``: the downloaded SGF uploads again).
    """
    if read_only:
        raise VariationError("this shared review is read-only: its comments are the owner's")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > MAX_COMMENT:
        raise VariationError(f"a comment may have at most {MAX_COMMENT} characters: this one has {len(text)}")
    with _editing(game_id, read_only, private) as edit:
        first, *rest = _commented(edit.record, _find(edit.record, name))
        grew = len(text) > len(_shown_comment([first, *rest]))
        first.set_comment("\n\n".join(part for part in (text, _our_lines(first.comment)) if part))
        for node in rest:
            node.set_comment(_our_lines(node.comment))
        if grew and len(write_sgf(edit.record)) > settings.GOWEB_MAX_SGF_BYTES:
            raise VariationError(f"the game's record would be over {settings.GOWEB_MAX_SGF_BYTES} bytes, "
                                 "more than an upload may be: shorten a comment first")
        return _done(edit, None)


def _our_lines(comment: str | None) -> str:
    """Return the lines of ``comment`` that this site wrote (:mod:`analysis.review.notes`)."""
    lines = (comment or "").split("\n")
    return "\n".join(line for line in lines if line.strip() and not without_analysis(line))


def _commented(record: GameRecord, node: SgfNode) -> list[SgfNode]:
    """Return the nodes whose players' comments the page shows as ``node``'s: a variation's node
    alone; on the main line, as :func:`frontend.services.games.timeline` gathers them, the node
    (from the record's root for the start) and the nodes without a move that follow it."""
    if not is_main_line(node):
        return [node]
    if node is not anchor(record):
        return _with_followers(node)
    nodes = [record.root]
    while nodes[-1] is not node:
        nodes.append(nodes[-1].children[0])
    return [*nodes[:-1], *_with_followers(node)]


def _with_followers(node: SgfNode) -> list[SgfNode]:
    """Return ``node`` and the nodes without a move that follow it on its line (first children)."""
    nodes = [node]
    while nodes[-1].children and not nodes[-1].children[0].has_move():
        nodes.append(nodes[-1].children[0])
    return nodes


def _shown_comment(nodes: Sequence[SgfNode]) -> str:
    """Return the players' comments of ``nodes`` (not this site's analysis lines), as one text."""
    return "\n\n".join(comment for node in nodes if (comment := without_analysis(node.comment)))


def keep_analysis(game_id: int, message: dict) -> None:
    """Save the position ``analysis`` message of a variation's node (named by its ``node``) into the
    owner's game: its node's ``SBKV``, ``SBKS`` and comment.  Nothing is saved for a node of the
    main line (the whole-game analysis keeps those) or one deleted meanwhile."""
    try:
        with _editing(game_id, False, None) as edit:
            node = find(edit.record, parse_node(message["node"], edit.record.size))
            if not is_main_line(node):
                write_node(node, {key: message.get(key) for key in ENTRY_FIELDS})
    except (TreeError, VariationError, Game.DoesNotExist):
        return


def tree_message(game: Game, record: GameRecord, current: SgfNode | None, saved: bool) -> dict:
    """Return the ``tree`` message (docs/protocol.md): every node the board can show, the start
    first, each with its ``move``, ``parent``, ``children`` (the main line first) and ``main``
    (whether it is on the main line), its players' ``comment`` (:func:`_commented`); off the main
    line also its ``board`` and the ``analysis`` saved in it; ``current``: the index of the node to
    show (None: the page stays where it is); ``cut``: whether the tree had more than :data:`MAX_SHOWN` nodes,
    the variations found last left out."""
    _, placed = walk(record, game.rules)
    root = anchor(record)
    index = {id(root): 0}
    nodes: list[dict] = [{"move": None, "parent": None, "children": [], "main": True,
                          "comment": _shown_comment(_commented(record, root))}]
    size = record.size
    cut = False
    for item in placed:
        if len(nodes) > MAX_SHOWN:
            cut = True  # the main line came first: the variations found last are left out
            break
        node, parent = item.node, index[id(item.parent)]
        color, point = node.move(size)
        main = nodes[parent]["main"] and is_main_line(node, below=item.parent)
        entry = {"move": ["B" if color == BLACK else "W", to_gtp(point, size)], "parent": parent,
                 "children": [], "main": main}
        if main:
            entry["comment"] = _shown_comment(_with_followers(node))
        else:
            position = item.position
            saved_analysis = read_node(node)
            if saved_analysis is not None:
                saved_analysis["to_play"] = "B" if position.to_play == BLACK else "W"
            entry.update(board=games.board_string(position), comment=_shown_comment([node]),
                         analysis=saved_analysis)
        index[id(node)] = len(nodes)
        nodes[parent]["children"].append(len(nodes))
        nodes.append(entry)
    shown = None if current is None else index.get(id(current), 0)
    return {"type": "tree", "nodes": nodes, "current": shown, "saved": saved, "cut": cut}
