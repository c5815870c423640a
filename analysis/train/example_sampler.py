"""Training batches from a fixed list of examples (a small data set such as the ladder set).

Unlike :class:`analysis.train.data.PositionSampler`, which streams games without end, a small
set is seen epoch by epoch: each epoch visits every example once in a new random order, and
every sample is shown under a random one of the 8 symmetries.  Inputs are extracted once.  Each
epoch's order comes from a seed of its own, so that where the sampler stands (:meth:`ExampleSampler.state`)
is a few numbers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from analysis.features import get_feature_set
from analysis.train.batch import Batch
from analysis.train.data import Example
from analysis.train.rng_state import restore_rng, saved_rng


class ExampleSampler:
    """Endless batches of ``examples`` (one board size), epoch after epoch, each under a random symmetry.

    Raises ValueError for an empty list.
    """

    def __init__(self, examples: Sequence[Example], feature_set: str, seed: int = 0) -> None:
        if not examples:
            raise ValueError("no examples to train on")
        self.inputs = get_feature_set(feature_set).extract_batch([e.context() for e in examples])
        self.masks = np.stack([e.mask for e in examples])
        self.moves = np.array([e.move for e in examples], dtype=np.int64)
        self.rng = random.Random(seed)
        self.epochs = 0
        self._epoch_seed = 0
        self._order: list[int] = []  # the present epoch's order
        self._taken = 0  # the examples of it already taken

    def _epoch(self, seed: int) -> list[int]:
        """The order of the examples in the epoch of ``seed``."""
        order = list(range(len(self.moves)))
        random.Random(seed).shuffle(order)
        return order

    def _take(self, size: int) -> list[int]:
        """Return the next ``size`` example indices, starting a new shuffled epoch when one runs out."""
        out: list[int] = []
        while len(out) < size:
            if self._taken == len(self._order):
                self._epoch_seed = self.rng.getrandbits(64)
                self._order, self._taken = self._epoch(self._epoch_seed), 0
                self.epochs += 1
            take = min(size - len(out), len(self._order) - self._taken)
            out += self._order[self._taken : self._taken + take]
            self._taken += take
        return out

    def state(self) -> dict:
        """Return what the next batches depend on (:meth:`restore`): the random state, the epoch and
        how much of it was taken."""
        return {"rng": saved_rng(self.rng), "epochs": self.epochs, "epoch_seed": self._epoch_seed,
                "taken": self._taken}

    def restore(self, state: dict) -> None:
        """Go on from ``state`` (:meth:`state` of a sampler of the same examples): the next batches
        are those that sampler gave next."""
        restore_rng(self.rng, state["rng"])
        self.epochs, self._epoch_seed, self._taken = state["epochs"], state["epoch_seed"], state["taken"]
        self._order = self._epoch(self._epoch_seed) if self.epochs else []

    def batch(self, size: int) -> Batch:
        """Return the next ``size`` samples, each under a random symmetry."""
        idx = self._take(size)
        area = self.inputs.shape[-1] ** 2
        moves = self.moves[idx]
        unknown = np.full(size, np.nan, dtype=np.float32)
        batch = Batch(self.inputs[idx].copy(), self.masks[idx].copy(), moves[:, None].copy(), unknown,
                      moves.copy(), unknown.copy(), np.full((size, area), np.nan, dtype=np.float32))
        batch.apply_symmetries(self.rng)
        return batch
