"""The ``info`` lines of Leela Zero's ``lz-analyze`` and KataGo's ``kata-analyze``.

One line per report, one ``info`` block per searched move, most visited first::

    info move Q16 visits 120 winrate 5234 prior 1234 lcb 5100 order 0 pv Q16 D4 info move D4 ...
    info move Q16 visits 120 utility 0.0468 winrate 0.5234 prior 0.1234 lcb 0.51 order 0 pv Q16 D4 ...

Leela Zero's numbers are integers in 1/10000, KataGo's are floats; win rates and
score leads are for the player to move, ``utility`` is the search's value on the
-1..+1 scale.  ``pv`` comes last in each block, as Sabaki and Lizzie read it to the
next ``info``.  ``scoreLead`` is there when the network has a score head, with
``scoreMean`` beside it (KataGo's older name for the same figure, which Lizzie's
descendants read), and
``ownership`` (one value per point, row by row from the top left, -1..1 for the
player to move) ends the line when it is asked for and the network has the head.
``lcb`` is the lower end of the 95% Wilson interval of the win rate over the move's
visits (the search keeps no value variances).
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis.go.coords import to_gtp
from analysis.mcts import Candidate, SearchResult
from analysis.stats import wilson_interval


def lower_bound(candidate: Candidate) -> float:
    """Return the lower end of the 95% Wilson interval of the candidate's win rate."""
    wins = min(max(candidate.winrate * candidate.visits, 0.0), candidate.visits)
    return wilson_interval(wins, candidate.visits)[0]


def lz_block(candidate: Candidate, order: int, size: int) -> str:
    """Return one Leela Zero ``info`` block."""
    pv = " ".join(to_gtp(m, size) for m in candidate.pv)
    return (
        f"info move {to_gtp(candidate.move, size)} visits {candidate.visits}"
        f" winrate {round(candidate.winrate * 10000)} prior {round(candidate.prior * 10000)}"
        f" lcb {round(lower_bound(candidate) * 10000)} order {order} pv {pv}"
    )


def kata_block(candidate: Candidate, order: int, size: int) -> str:
    """Return one KataGo ``info`` block."""
    pv = " ".join(to_gtp(m, size) for m in candidate.pv)
    lead = ""
    if candidate.score_lead is not None:
        lead = f" scoreMean {candidate.score_lead:.6f} scoreLead {candidate.score_lead:.6f}"
    return (
        f"info move {to_gtp(candidate.move, size)} visits {candidate.visits}"
        f" utility {2 * candidate.winrate - 1:.6f} winrate {candidate.winrate:.6f}{lead}"
        f" prior {candidate.prior:.6f} lcb {lower_bound(candidate):.6f} order {order} pv {pv}"
    )


def info_line(
    result: SearchResult,
    size: int,
    kata: bool = False,
    max_moves: int | None = None,
    ownership: Sequence[float] | None = None,
) -> str:
    """Return the report of ``result`` (KataGo's format if ``kata``), with at most ``max_moves``
    moves and, in KataGo's format, the ``ownership`` values at the end when given; the empty string
    when no move has been visited yet (an empty line would end the reply)."""
    block = kata_block if kata else lz_block
    line = " ".join(block(c, i, size) for i, c in enumerate(result.candidates[:max_moves]))
    if line and kata and ownership is not None:
        line += " ownership " + " ".join(f"{v:.6f}" for v in ownership)
    return line
