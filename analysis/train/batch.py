"""A training batch as numpy arrays, and the random board symmetries applied to it.

Every target is for the player to move; NaN (or -1 for moves) marks one a sample does not have.
A sample's ``pair`` is the row of the position its move led to, in the same batch (-1: none): the
two values of such a pair are trained to agree (:mod:`analysis.train.losses`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import torch

from analysis.features import symmetry


@dataclass
class Batch:
    """Inputs and targets of a batch."""

    inputs: np.ndarray  # (N, planes, n, n) float32
    legal: np.ndarray  # (N, n*n + 1) bool: the moves that can be the target
    moves: np.ndarray  # (N, k) int64, -1 = none
    value: np.ndarray  # (N,) float32: the player to move wins (0..1), NaN = unknown
    previous: np.ndarray  # (N,) int64, -1 = none
    score: np.ndarray  # (N,) float32: the final margin for the player to move, NaN = unknown
    ownership: np.ndarray  # (N, n*n) float32 in -1..1 for the player to move, NaN rows = unknown
    pair: np.ndarray | None = None  # (N,) int64: the row of the position after this one's move, -1 = none

    def __post_init__(self) -> None:
        if self.pair is None:
            self.pair = np.full(len(self.inputs), -1, dtype=np.int64)

    def apply_symmetries(self, rng: random.Random) -> None:
        """Show each sample under a random one of the 8 symmetries: its planes, mask, moves and
        ownership alike (in place).  The samples drawn for one symmetry are turned together."""
        n = self.inputs.shape[-1]
        area = n * n
        ks = np.array([rng.randrange(8) for _ in range(len(self.inputs))])
        for k in range(1, 8):
            rows = np.flatnonzero(ks == k)
            if not len(rows):
                continue
            table = symmetry.point_table(n, k)
            self.inputs[rows] = symmetry.apply(self.inputs[rows], k)
            legal = self.legal[rows, :area].reshape(-1, n, n)
            self.legal[rows, :area] = symmetry.apply(legal, k).reshape(-1, area)
            moves = self.moves[rows]
            self.moves[rows] = np.where(moves >= 0, table[np.maximum(moves, 0)], -1)
            previous = self.previous[rows]
            self.previous[rows] = np.where(previous >= 0, table[np.maximum(previous, 0)], -1)
            owners = self.ownership[rows].reshape(-1, n, n)
            self.ownership[rows] = symmetry.apply(owners, k).reshape(-1, area)

    @classmethod
    def concatenate(cls, batches: list[Batch]) -> Batch:
        """Return one batch of the samples of ``batches``, in order (they share planes and size);
        pairs keep pointing at their rows."""
        names = ("inputs", "legal", "moves", "value", "previous", "score", "ownership")
        starts = np.cumsum([0] + [len(b.inputs) for b in batches[:-1]])
        pair = np.concatenate([np.where(b.pair >= 0, b.pair + start, -1)
                               for b, start in zip(batches, starts, strict=True)])
        return cls(**{name: np.concatenate([getattr(b, name) for b in batches]) for name in names}, pair=pair)

    def tensors(self) -> dict:
        """Return the batch as torch tensors by name (what the training loop's DataLoader yields)."""
        return {name: torch.from_numpy(getattr(self, name)) for name in
                ("inputs", "legal", "moves", "value", "score", "ownership", "pair")}
