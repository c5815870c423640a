"""PUCT selection (AlphaGo Zero), vectorised over a node's children."""

from __future__ import annotations

import math

import numpy as np

from analysis.mcts.node import Node


def puct_scores(prior: np.ndarray, n: np.ndarray, w: np.ndarray, fpu: float, c_puct: float) -> np.ndarray:
    """Return ``Q + c_puct * P * sqrt(sum n) / (1 + n)`` for each child.

    ``Q = w / n`` for visited children and ``fpu`` (first-play urgency) for the others.
    """
    q = np.divide(w, n, out=np.full(n.size, fpu), where=n > 0)
    return q + (c_puct * math.sqrt(n.sum())) * prior / (1.0 + n)


def select_child(node: Node, c_puct: float, fpu_reduction: float) -> int:
    """Return the index of the child of the expanded ``node`` with the best PUCT score.

    Pending leaves count as lost visits (virtual loss); an unvisited child's Q is the
    node's own network value minus ``fpu_reduction``; ties go to the higher prior.
    """
    n = node.n + node.vl
    w = node.w - node.vl
    return int(np.argmax(puct_scores(node.prior, n, w, node.value - fpu_reduction, c_puct)))
