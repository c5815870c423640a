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
from analysis.mcts.evaluator import Evaluator
from analysis.tactics.policy_adjust import adjust_policy

if TYPE_CHECKING:
    from analysis.nets.inference import Network, Prediction

Entry = tuple[np.ndarray, float, float | None]  # one position's priors, win probability, score lead
JUDGED = 8  # the bagged predictions a NetEvaluator keeps: an analysis asks twice for its root's


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
        self.cache: LRUCache[Entry] = LRUCache(cache_size)
        self.judged: LRUCache[Prediction] = LRUCache(JUDGED)

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

    def bagged(self, position: Position) -> Entry:
        """Return the network's (priors, win probability, score lead or None) for ``position``
        averaged over the board's 8 symmetries (Cazenave 2017's bagging), from :meth:`judgement`;
        kept out of the search's cache."""
        return self._entries([position], self.judgement(position))[0]

    def judgement(self, position: Position) -> Prediction:
        """Return the network's whole prediction of ``position`` (every head) averaged over the 8
        symmetries; the last few are kept, so that a search's root and the analysis that reports its
        ownership share one."""
        key = position_key(position)
        prediction = self.judged.get(key)
        if prediction is None:
            prediction = self.network.predict([position], symmetries=8)
            self.judged.put(key, prediction)
        return prediction

    def _predict(self, positions: Sequence[Position], symmetries: int = 1) -> list[Entry]:
        """Return the (prior, win probability, score lead or None) of each position, from one call."""
        return self._entries(positions, self.network.predict(positions, symmetries))

    def _entries(self, positions: Sequence[Position], prediction: Prediction) -> list[Entry]:
        """Return the (prior, win probability, score lead or None) of each position in ``prediction``."""
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


class BaggedRoot:
    """The evaluator of one search whose root is judged over the 8 symmetries, as KataGo's
    ``rootNumSymmetriesToSample``: ``root`` gets the given ``judged`` outputs, every other
    position those of ``inner``.  The bagged outputs stay out of ``inner``'s cache, so that other
    searches sharing it (the bot's) see the same single-orientation outputs whatever was analysed."""

    def __init__(self, inner: Evaluator, root: Position, judged: Entry) -> None:
        self.inner = inner
        self.root_key = position_key(root)
        self.judged = judged

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return (priors, win probabilities, score leads or None) as :meth:`NetEvaluator.evaluate`."""
        at_root = [position_key(p) == self.root_key for p in positions]
        if not any(at_root):
            return self.inner.evaluate(positions)
        others = [p for p, root in zip(positions, at_root, strict=True) if not root]
        priors, wins, leads = self.inner.evaluate(others) if others else (None, None, None)
        rows, k = [], 0
        for root in at_root:
            if root:
                rows.append(self.judged)
            else:
                rows.append((priors[k], float(wins[k]), None if leads is None else float(leads[k])))
                k += 1
        scored = self.judged[2] is not None
        return (np.stack([r[0] for r in rows]), np.array([r[1] for r in rows]),
                np.array([r[2] for r in rows]) if scored else None)
