"""What a search reports: per candidate move visits, win rate, prior and principal variation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.mcts.node import Node


@dataclass(frozen=True)
class Candidate:
    """One visited root move; ``winrate`` and ``score_lead`` (None without score leads) are the root
    player's, ``pv`` starts with ``move``."""

    move: int
    visits: int
    winrate: float
    prior: float
    pv: tuple[int, ...]
    score_lead: float | None = None


@dataclass(frozen=True)
class SearchResult:
    """A snapshot of the search: the root's visits, win rate and score lead (for ``to_play``; None
    when the evaluator gives no score leads), and its visited moves.

    ``candidates`` are sorted by visits (most first, the higher prior breaking ties);
    ``best`` is the first of them, or the highest-prior move when none was visited yet.
    ``visits`` counts the root's own evaluation plus every visit of its children.
    ``new_visits`` and ``seconds`` are those of the run that made the snapshot.
    """

    to_play: int
    visits: int
    winrate: float
    best: int
    candidates: tuple[Candidate, ...]
    new_visits: int
    seconds: float
    score_lead: float | None = None

    @property
    def visits_per_second(self) -> float:
        """The run's visits per second (0 before any time has passed)."""
        return self.new_visits / self.seconds if self.seconds > 0 else 0.0


def principal_variation(node: Node | None) -> list[int]:
    """Return the moves from ``node`` following the most visited child while there is one."""
    pv: list[int] = []
    while node is not None and node.moves and node.n.any():
        idx = node.most_visited()
        pv.append(node.moves[idx])
        node = node.children.get(idx)
    return pv


def summarize(
    root: Node, visits: int, value_sum: float, lead_sum: float | None, new_visits: int, seconds: float
) -> SearchResult:
    """Return the result of the expanded ``root`` with its ``visits`` (at least 1), ``value_sum``
    (-1..+1 scale) and ``lead_sum`` (points, None without score leads), for the root's player to move.

    Raises ValueError if the root is not expanded.
    """
    order = np.argsort(-root.n, kind="stable")
    candidates = []
    for idx in order.tolist():
        n = root.n[idx]
        if n == 0:
            break
        pv = (root.moves[idx], *principal_variation(root.children.get(idx)))
        winrate = (root.wins[idx] / n + 1) / 2
        lead = float(root.leads[idx] / n) if lead_sum is not None else None
        candidates.append(
            Candidate(root.moves[idx], int(n), float(winrate), float(root.raw_prior[idx]), pv, lead)
        )
    return SearchResult(
        to_play=root.to_play,
        visits=visits,
        winrate=(value_sum / visits + 1) / 2,
        best=root.moves[int(order[0])],
        candidates=tuple(candidates),
        new_visits=new_visits,
        seconds=seconds,
        score_lead=lead_sum / visits if lead_sum is not None else None,
    )
