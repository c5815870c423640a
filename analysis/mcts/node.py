"""Node: one position of the tree, its children's statistics as numpy vectors (minigo-style).

A node's own visit count lives in its parent's ``n`` vector (the root's in the
Search).  Values are on the -1..+1 scale and score leads in points; a node's
``w``, ``wins`` and ``leads`` entries are summed from the point of view of the
node's player to move, who chooses among its children.
"""

from __future__ import annotations

import numpy as np


class Node:
    """A position in the tree; ``moves`` is empty until the node is expanded.

    Vectors (one entry per candidate move, in ``moves`` order, by decreasing prior):
    ``prior`` (searched, possibly with root noise), ``raw_prior`` (the evaluator's),
    ``n`` visits, ``w`` total utility (what the search maximises: the win value plus the
    score terms of :mod:`analysis.mcts.utility`), ``wins`` total win value, ``leads`` total
    score lead, ``vl`` virtual loss of the pending leaves below.
    ``children`` maps a candidate's index to its node, created on first visit.
    ``value`` is the utility of the evaluator's judgement of the node for ``to_play`` (its FPU
    baseline).  ``terminal`` is the game's value (two consecutive passes ended it) or None, and
    ``terminal_lead`` its margin in points.
    ``pending`` marks a leaf waiting in the current evaluation batch.
    """

    __slots__ = ("children", "leads", "moves", "n", "passes", "pending", "prior", "raw_prior", "terminal",
                 "terminal_lead", "to_play", "value", "vl", "w", "wins")

    def __init__(
        self, to_play: int, passes: int, terminal: float | None = None, terminal_lead: float = 0.0
    ) -> None:
        """A leaf for ``to_play`` after ``passes`` consecutive passes; ``terminal`` is its final value
        and ``terminal_lead`` its final margin."""
        self.to_play = to_play
        self.passes = passes
        self.terminal = terminal
        self.terminal_lead = terminal_lead
        self.value = 0.0 if terminal is None else terminal
        self.pending = False
        self.moves: list[int] = []
        self.children: dict[int, Node] = {}
        self.prior = self.raw_prior = self.n = self.w = self.wins = self.leads = self.vl = np.zeros(0)

    def expand(self, moves: np.ndarray, prior: np.ndarray, value: float) -> None:
        """Give the node its candidate ``moves`` with their ``prior`` and its network ``value``."""
        self.moves = moves.tolist()
        self.prior = self.raw_prior = prior
        self.n = np.zeros(len(self.moves))
        self.w = np.zeros(len(self.moves))
        self.wins = np.zeros(len(self.moves))
        self.leads = np.zeros(len(self.moves))
        self.vl = np.zeros(len(self.moves))
        self.value = value
        self.pending = False

    def drop(self, idx: int) -> tuple[float, float, float]:
        """Remove candidate ``idx`` and its subtree; return its (visits, win value, score lead) sums,
        which leave the node's totals with it.  Raises IndexError for a candidate it does not have."""
        removed = (float(self.n[idx]), float(self.wins[idx]), float(self.leads[idx]))
        self.moves.pop(idx)
        for name in ("prior", "raw_prior", "n", "w", "wins", "leads", "vl"):
            setattr(self, name, np.delete(getattr(self, name), idx))
        self.children = {i - (i > idx): child for i, child in self.children.items() if i != idx}
        return removed

    def most_visited(self) -> int:
        """Return the index of the most visited child, the higher prior breaking ties.

        Raises ValueError if the node is not expanded.
        """
        return int(np.argmax(self.n))
