"""Cazenave 2016's policy adjustment from ladders.

The paper's rule, applied to the network's raw outputs:

- a move in a ladder that results in more than four stones is decreased by
  the number of stones (pushing through a lost ladder, the paper's figure 3);
- a move that captures strictly more than four stones in a ladder is
  increased by the number of captured stones (its figure 2);
- a move that saves strictly more than four stones in a ladder is increased
  by the number of saved stones.

Our networks output probabilities, so the rule is applied to log-probabilities
(the logits up to a constant) and the result is renormalised over the moves
that had probability: a change of ``n`` stones multiplies a move's odds by
``exp(scale * n)``.  With the default scale of 1, a five-stone ladder capture
gains a factor of about 150, which, as in the paper, almost always makes the
tactical move the first choice unless the network was already sure of another
move.  Illegal moves (probability 0) stay at 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.go.position import Position
from analysis.tactics.ladder import DEFAULT_LIMITS, LadderLimits, all_strings


@dataclass(frozen=True)
class Adjustment:
    """One move's change: ``stones`` is positive for captures and saves, negative for lost ladders."""

    point: int
    stones: int
    reason: str


def ladder_adjustments(
    pos: Position, min_stones: int = 5, limits: LadderLimits = DEFAULT_LIMITS
) -> list[Adjustment]:
    """Return the rule's changes for the player to move, one per (move, reason)."""
    us = pos.to_play
    out: list[Adjustment] = []
    for report in all_strings(pos, limits):
        n = len(report.stones)
        if n < min_stones:
            continue
        if report.color == -us and report.capture_move is not None and report.status != "escapes":
            out.append(Adjustment(report.capture_move, n, "captures in a ladder"))
        if report.color == us and report.saving_move is not None:
            out.append(Adjustment(report.saving_move, n, "saves from a ladder"))
    laddered = np.frombuffer(pos.board.ladder_point_maps(us, limits.max_depth, limits.max_nodes), np.uint8)
    for p in np.flatnonzero(laddered[: pos.size * pos.size]).tolist():
        pos.board.play(p, us)
        n = len(pos.board.string_points(p))
        pos.board.undo()
        if n >= min_stones:
            out.append(Adjustment(p, -n, "runs into a lost ladder"))
    return out


def adjust_policy(
    policy: np.ndarray,
    pos: Position,
    min_stones: int = 5,
    scale: float = 1.0,
    limits: LadderLimits = DEFAULT_LIMITS,
) -> np.ndarray:
    """Return ``policy`` (size*size + 1 probabilities, pass last) adjusted by the ladder rule.

    Raises ValueError if the policy has the wrong length.
    """
    area = pos.size * pos.size
    policy = np.asarray(policy, dtype=np.float64)
    if policy.shape != (area + 1,):
        raise ValueError(f"policy must have {area + 1} entries, not {policy.shape}")
    changes = ladder_adjustments(pos, min_stones, limits)
    if not changes:
        return policy.copy()
    alive = policy > 0
    logits = np.full(area + 1, -np.inf)
    logits[alive] = np.log(policy[alive])
    for change in changes:
        if alive[change.point]:
            logits[change.point] += scale * change.stones
    out = np.zeros(area + 1)
    out[alive] = np.exp(logits[alive] - logits[alive].max())
    return out / out.sum()
