"""Scoring commands: final_score and final_status_list.

Dead stones come from the playout estimate (seeded by the engine's ``--seed``),
and the score follows the engine's rules: area for chinese, territory for japanese.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.go.coords import to_gtp
from analysis.go.scoring import estimate_dead, score
from analysis.gtp.commands_args import CommandError, Handler, arg
from analysis.play.status import STATUSES, string_statuses

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine


def _dead_stones(engine: GtpEngine) -> set[int]:
    """Return the stones the playouts judge dead in the current position."""
    return estimate_dead(engine.position, seed=engine.seed)


def final_score(engine: GtpEngine, args: list[str]) -> str:
    """Return the score as ``B+3.5``, ``W+0.5`` or ``0``."""
    return score(engine.position, engine.rules, _dead_stones(engine)).result()


def final_status_list(engine: GtpEngine, args: list[str]) -> str:
    """Return the strings of a status (alive, dead or seki), one string per line.

    Raises CommandError (syntax error) for a missing or unknown status.
    """
    status = arg(args, 0, "syntax error")
    if status not in STATUSES:
        raise CommandError("syntax error")
    size = engine.position.size
    chosen = string_statuses(engine.position, _dead_stones(engine))[status]
    return "\n".join(" ".join(to_gtp(p, size) for p in stones) for stones in chosen)


COMMANDS: dict[str, Handler] = {
    "final_score": final_score,
    "final_status_list": final_status_list,
}
