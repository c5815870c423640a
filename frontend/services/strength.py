"""How strong each bot level is, as the new-game form and the play page say it: its measured
results against GNU Go level 10 (:mod:`analysis.match.levels`, from ``docs/matches``), read once
per process, with its strength in a plain word.  A level counts the games played with the network
it plays with on the site's device when the logs hold any, and says whether they were."""

from __future__ import annotations

import logging
from functools import cache

from analysis.match.levels import NOT_MEASURED, LevelRecord, measured_levels, todays_networks
from analysis.match.log import MatchLogError
from analysis.nets.registry import picking_kind
from frontend.services import engine

log = logging.getLogger(__name__)


@cache
def records() -> dict[str, LevelRecord]:
    """Return each measured level's record; none (and a warning in the log) when the match logs
    or the networks' files cannot be read, so that the levels stay playable."""
    try:
        shipped_here = engine.zoo()
        kind = picking_kind(engine.device(), shipped_here)
        return measured_levels(today=todays_networks(kind, shipped_here))
    except (OSError, MatchLogError) as e:
        log.warning("the match logs cannot be read, so no level says how strong it is: %s", e)
        return {}


def word(level: str) -> str:
    """Return how hard ``level`` is to beat in a plain word, or "not measured"."""
    record = records().get(level)
    return record.word if record else "not measured"


def describe(level: str) -> str:
    """Return ``level``'s measured strength in words ("hard: won 6 of 10 games (60%) against GNU Go
    level 10 on 19×19"), or that it has not been measured against GNU Go."""
    record = records().get(level)
    return record.describe() if record else NOT_MEASURED
