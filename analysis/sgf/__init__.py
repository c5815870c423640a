"""SGF files: read FF[1]-FF[4] into :class:`GameRecord` trees, write them back, replay them.

Reading::

    game = read_sgf(data, source="game.sgf")        # bytes (any encoding) or str
    for node in game.main_line(): ...               # or game.lines(), game.nodes()
    moves = game.main_line_moves()                  # [(color, flat point), ...]
    position = replay(game, upto=50)                # rules engine Position

Writing and annotating::

    node.set_comment("B is ahead"); node.set("GA", "winrate 0.62")
    data = write_sgf(game)                          # UTF-8, CA[UTF-8]

Input from strangers is read with :class:`SgfLimits` (``read_sgf(data, limits=...)``), which
refuses a record too large to handle before it costs much.

Bad input raises :class:`SgfError` (a ValueError) naming the source, the place
(``move 12``, ``node 3``, ``line 7``...) and the problem.  The pieces live in
:mod:`analysis.sgf.read` (parsing, replaying), :mod:`analysis.sgf.model` (the model),
:mod:`analysis.sgf.encoding` (character sets), :mod:`analysis.sgf.limits` (bounds on what a
record may hold, for input from strangers), :mod:`analysis.sgf.write` (writing) and
:mod:`analysis.sgf.archive` (streaming game collections); import the reader's, the model's, the
limits' and the writer's API from here.
"""

from analysis.sgf.limits import SgfLimits
from analysis.sgf.model import GameRecord, Setup, SgfError, SgfNode, expand_points
from analysis.sgf.read import iter_sgf_games, read_sgf, read_sgf_collection, replay
from analysis.sgf.write import write_sgf, write_sgf_collection

__all__ = [
    "GameRecord",
    "Setup",
    "SgfError",
    "SgfLimits",
    "SgfNode",
    "expand_points",
    "iter_sgf_games",
    "read_sgf",
    "read_sgf_collection",
    "replay",
    "write_sgf",
    "write_sgf_collection",
]
