"""Node: one position of the tree, its children's statistics as numpy vectors (minigo-style).

A node's own visit count lives in its parent's ``n`` vector (the root's in the
Search).  Values are on the -1..+1 scale; a node's ``w`` entries are summed from
the point of view of the node's player to move, who chooses among its children.
"""

from __future__ import annotations

import numpy as np


class Node:
    """A position in the tree; ``moves`` is empty until the node is expanded.

    Vectors (one entry per candidate move, in ``moves`` order, by decreasing prior):
    ``prior`` (searched, possibly with root noise), ``raw_prior`` (the evaluator's),
    ``n`` visits, ``w`` total value, ``vl`` virtual loss of the pending leaves below.
    ``children`` maps a candidate's index to its node, created on first visit.
    ``value`` is the evaluator's value of the node for ``to_play`` (its FPU baseline).
    ``terminal`` is the game's value (two consecutive passes ended it) or None.
    ``pending`` marks a leaf waiting in the current evaluation batch.
    """

    __slots__ = ("children", "moves", "n", "passes", "pending", "prior", "raw_prior", "terminal",
                 "to_play", "value", "vl", "w")

    def __init__(self, to_play: int, passes: int, terminal: float | None = None) -> None:
        """A leaf for ``to_play`` after ``passes`` consecutive passes; ``terminal`` is its final value."""
        self.to_play = to_play
        self.passes = passes
        self.terminal = terminal
        self.value = 0.0 if terminal is None else terminal
        self.pending = False
        self.moves: list[int] = []
        self.children: dict[int, Node] = {}
        self.prior = self.raw_prior = self.n = self.w = self.vl = np.zeros(0)

    def expand(self, moves: np.ndarray, prior: np.ndarray, value: float) -> None:
        """Give the node its candidate ``moves`` with their ``prior`` and its network ``value``."""
        self.moves = moves.tolist()
        self.prior = self.raw_prior = prior
        self.n = np.zeros(len(self.moves))
        self.w = np.zeros(len(self.moves))
        self.vl = np.zeros(len(self.moves))
        self.value = value
        self.pending = False

    def most_visited(self) -> int:
        """Return the index of the most visited child, the higher prior breaking ties.

        Raises ValueError if the node is not expanded.
        """
        return int(np.argmax(self.n))
