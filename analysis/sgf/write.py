"""Writing SGF: every property (known or not) and every variation, as UTF-8."""

from __future__ import annotations

from collections.abc import Iterable

from sgfmill import sgf_grammar

from analysis.sgf.model import GameRecord, SgfNode


def _raw_properties(node: SgfNode) -> dict[str, list[bytes]]:
    """Return the node's properties as escaped UTF-8 raw values, as sgfmill serialises them."""
    return {
        ident: [sgf_grammar.escape_text(value.encode("utf-8")) for value in values]
        for ident, values in node.properties.items()
    }


def write_sgf(game: GameRecord) -> bytes:
    """Return the game as SGF bytes: UTF-8, with CA[UTF-8] on the root.

    Every property of every node is written, unknown ones included, and every
    variation (the first child of each node stays the main line).  Values are
    escaped as SGF Text (``\\`` and ``]``).  Never raises for a game whose
    properties were set through :class:`~analysis.sgf.model.SgfNode` methods.
    """

    def properties(node: SgfNode) -> dict[str, list[bytes]]:
        raw = _raw_properties(node)
        if node is game.root:
            raw["CA"] = [b"UTF-8"]
        return raw

    tree = sgf_grammar.make_coarse_game_tree(game.root, lambda node: node.children, properties)
    return sgf_grammar.serialise_game_tree(tree)


def write_sgf_collection(games: Iterable[GameRecord]) -> bytes:
    """Return several games as one SGF collection ``(;...)(;...)`` in UTF-8 (see :func:`write_sgf`)."""
    return b"".join(write_sgf(game) for game in games)
