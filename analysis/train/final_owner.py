"""The ownership target of a counted game: who owns each point at the end of the record.

A counted record ends with its dead stones still on the board.  The playout dead-stone estimate
(:func:`analysis.go.scoring.estimate_dead`) takes them off, and the board's area owners are the
target, as KataGo's final ownership is.  The estimate agrees with the recorded count in about 88%
of the Tygem 9d games (``python -m analysis.bench scoring``), so a game gives a target only when
its count under the record's rules, with those dead stones, equals the recorded margin exactly:
a wrong dead stone would teach the head a wrong owner on every position of the game.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from analysis.go.position import GoError, Position
from analysis.go.scoring import area_owners, estimate_dead, score
from analysis.sgf.results import result_margin

if TYPE_CHECKING:
    from analysis.train.games import TrainingGame


def final_ownership(game: TrainingGame) -> np.ndarray | None:
    """Return the final owner of every point of ``game`` (n*n float32: +1 Black, -1 White, 0 the
    dame and seki points), or None when the game was not counted, names no rules, does not replay
    (from its setup stones, with simple ko), or the estimate's count differs from the recorded
    margin.  Raises nothing."""
    margin = result_margin(game.result)
    if math.isnan(margin) or not game.rules or not game.moves:
        return None
    final = Position.from_stones(game.size, game.komi, False, game.black, game.white, game.moves[0][0])
    try:
        for color, point in game.moves:
            final.play(point, color)
    except GoError:
        return None
    dead = estimate_dead(final)
    if score(final, game.rules, dead).margin != margin:
        return None
    return area_owners(final, dead).ravel().astype(np.float32)
