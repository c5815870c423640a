"""The parsed records of the games read lately, kept so that reading one again costs a copy of its
tree, not a parse.

Reading and checking a record at the upload limits (10,000 nodes, 60 kB) takes about 0.12 s on one
core.  Each board message reads its game's record, so without this a client could buy a parse per
message.  Records are keyed on the game and its SGF text, so a changed record is read afresh; the
record returned is shared by every reader of that text, and a caller that changes a record changes
a copy of its own (:meth:`analysis.sgf.GameRecord.copy`, about 0.01 s at the limits).
"""

from __future__ import annotations

from analysis.sgf import GameRecord, read_sgf
from frontend.services.recent import Recent

KEPT = 16  # records kept in each process: at most about 5 MB each at the upload limits

_records: Recent[tuple[int, str], GameRecord] = Recent(KEPT)


def record(game_id: int, sgf: str) -> GameRecord:
    """Return game ``game_id``'s record parsed from ``sgf``, shared and not to be changed: the one
    kept from an earlier read of the same text, else read now (and kept).  Raises SgfError for a bad
    record (not kept)."""
    return _records.get((game_id, sgf), lambda: read_sgf(sgf, source=f"game {game_id}"))
