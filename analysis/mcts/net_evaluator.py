"""NetEvaluator: a policy-and-value network as the search's evaluator, with an LRU cache.

One call predicts the positions it has not cached with one batched
:class:`~analysis.nets.inference.Network` call (which owns device, dtype and
batching; the board core releases the GIL, so plane extraction runs on every
core), optionally applies Cazenave's ladder adjustment, and caches the result.
This module does not import torch: the network comes in ready-made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from analysis.go.position import Position
from analysis.mcts.cache import LRUCache, position_key
from analysis.tactics.policy_adjust import adjust_policy

if TYPE_CHECKING:
    from analysis.nets.inference import Network


class NetEvaluator:
    """Evaluates positions with a network that has a value head (any architecture)."""

    def __init__(self, network: Network, ladder_adjust: bool = False, cache_size: int = 20_000) -> None:
        """Wrap ``network``; ``ladder_adjust`` applies Cazenave 2016's policy adjustment.

        Raises ValueError if the network has no value head or does not predict the next move.
        """
        if not network.has_value:
            raise ValueError("the search needs a network with a value head")
        if network.config.target != "next":
            raise ValueError("the search needs a network that predicts the next move")
        self.network = network
        self.ladder_adjust = ladder_adjust
        self.cache = LRUCache(cache_size)

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return (priors (N, size*size + 1) float32, win probabilities (N,), score leads (N,) or
        None without a score head) for the players to move.

        Cached positions are not recomputed.  Raises ValueError for an empty batch or mixed sizes.
        """
        keys = [position_key(p) for p in positions]
        entries = [self.cache.get(k) for k in keys]
        missing = [i for i, e in enumerate(entries) if e is None]
        if missing:
            for i, entry in zip(missing, self._predict([positions[i] for i in missing]), strict=True):
                entries[i] = entry
                self.cache.put(keys[i], entry)
        scored = entries[0][2] is not None
        return (np.stack([e[0] for e in entries]), np.array([e[1] for e in entries]),
                np.array([e[2] for e in entries]) if scored else None)

    def prime(self, position: Position, symmetries: int = 8) -> None:
        """Cache the network's outputs for ``position`` averaged over its ``symmetries`` (1 or 8),
        so that a search from it starts from those priors and value (Cazenave 2017's bagging, as
        KataGo's ``rootNumSymmetriesToSample``: one batch of 8 instead of one evaluation).

        Raises ValueError for a bad symmetry count.
        """
        self.cache.put(position_key(position), self._predict([position], symmetries)[0])

    def _predict(self, positions: Sequence[Position], symmetries: int = 1) -> list[tuple]:
        """Return the (prior, win probability, score lead or None) of each position, from one call."""
        prediction = self.network.predict(positions, symmetries)
        leads = prediction.score_mean
        entries = []
        for j, position in enumerate(positions):
            prior = prediction.policy[j]
            if self.ladder_adjust:
                prior = adjust_policy(prior, position).astype(np.float32)
            entries.append((prior, float(prediction.value[j]), None if leads is None else float(leads[j])))
        return entries

    def infer(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Return the network's (softmax over legal moves and pass (N, size*size + 1) float32,
        win probabilities (N,) float64), bypassing the cache and the ladder adjustment.

        Raises ValueError for an empty batch or mixed board sizes.
        """
        prediction = self.network.predict(positions)
        return prediction.policy, prediction.value
