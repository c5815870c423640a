"""Which moves a node searches: every legal move with a prior, or darkforest's top moves."""

from __future__ import annotations

import numpy as np

from analysis.mcts.config import SearchConfig


def candidate_moves(
    prior: np.ndarray, legal: np.ndarray, config: SearchConfig
) -> tuple[np.ndarray, np.ndarray]:
    """Return (moves, priors) of the moves to search, by decreasing prior, priors summing to 1.

    ``prior`` and ``legal`` have size*size + 1 entries (pass last).  With the ``puct``
    tree policy every legal move with a positive prior is kept; with ``darkforest`` only
    the first moves until their priors add up to more than ``config.darkforest_mass`` of
    the legal total, and at most ``config.darkforest_max_moves``.  When no legal move has
    a positive prior the only candidate is pass (always legal).
    """
    masked = np.where(legal, prior, 0.0)
    moves = np.flatnonzero(masked > 0)
    if moves.size == 0:
        return np.array([prior.size - 1]), np.ones(1)
    moves = moves[np.argsort(-masked[moves], kind="stable")]
    p = masked[moves].astype(np.float64)
    p /= p.sum()
    if config.tree_policy == "darkforest":
        keep = int(np.searchsorted(np.cumsum(p), config.darkforest_mass, side="right")) + 1
        keep = min(keep, config.darkforest_max_moves, moves.size)
        moves, p = moves[:keep], p[:keep] / p[:keep].sum()
    return moves, p
