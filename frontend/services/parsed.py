"""The parsed records of the games read lately, kept so that reading one again costs a copy of its
tree, not a parse.

Reading and checking a record at the upload limits (10,000 nodes, 60 kB) takes about 0.12 s on one
core.  Each board message reads its game's record, so without this a client could buy a parse per
message.  Records are keyed on the game and its SGF text, so a changed record is read afresh; the
record returned is shared by every reader of that text, and a caller that changes a record changes
a copy of its own (:meth:`analysis.sgf.GameRecord.copy`, about 0.01 s at the limits).

A page request's parses are paid for by its client address (:func:`charged_to`, set by
``frontend.middleware.ParsingBudget``): the milliseconds of a thread they take come out of the
address's ``parse_ms`` budget (``GOWEB_PARSE_BUDGET_MS`` a ``GOWEB_PARSE_WINDOW``), and a parse
asked for with the budget spent raises :class:`OverBudget` unparsed, so that opening more large
games than the cache keeps, in turn, buys no more than that.  The board sockets' work has a budget
of its own (:mod:`frontend.services.socket_budget`), and the workers' none.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from analysis.sgf import GameRecord, read_sgf
from frontend.services import ratelimit
from frontend.services.recent import Recent

KEPT = 16  # records kept in each process: at most about 5 MB each at the upload limits

_records: Recent[tuple[int, str], GameRecord] = Recent(KEPT)
_payer: ContextVar[str | None] = ContextVar("parse_payer", default=None)


class OverBudget(Exception):
    """A parse asked for by an address whose parsing budget is spent; the message says so."""


@contextmanager
def charged_to(address: str) -> Iterator[None]:
    """Charge the parses made in this context to ``address``'s ``parse_ms`` budget."""
    token = _payer.set(address)
    try:
        yield
    finally:
        _payer.reset(token)


def record(game_id: int, sgf: str) -> GameRecord:
    """Return game ``game_id``'s record parsed from ``sgf``, shared and not to be changed: the one
    kept from an earlier read of the same text, else read now (and kept).  Raises SgfError for a bad
    record (not kept), OverBudget when it would be read for an address whose budget is spent."""
    return _records.get((game_id, sgf), lambda: _parse(game_id, sgf))


def _parse(game_id: int, sgf: str) -> GameRecord:
    """Return ``sgf`` parsed, its thread time charged to the context's address (if any); raises
    OverBudget (unparsed) when that address's budget is spent, and SgfError for a bad record."""
    payer = _payer.get()
    if payer is not None and ratelimit.spent("parse_ms", payer):
        raise OverBudget(ratelimit.refusal("parse_ms"))
    started = time.thread_time()
    try:
        return read_sgf(sgf, source=f"game {game_id}")
    finally:
        if payer is not None:
            ratelimit.allow("parse_ms", payer, max(1, round(1000 * (time.thread_time() - started))))
