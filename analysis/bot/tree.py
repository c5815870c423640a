"""SearchTree: one search tree kept across moves, moved along the game as it is played."""

from __future__ import annotations

from collections.abc import Sequence

from analysis.go.position import IllegalMoveError, Move, Position
from analysis.mcts import Evaluator, MoveFilter, Search, SearchConfig


class SearchTree:
    """Gives a Search rooted at the position asked for, reusing the previous tree when it can.

    When the position follows the last root by moves (the bot's, the opponent's,
    or analysed ones), the search advances along them and keeps the subtree of
    the last one; otherwise (undo, a new game, setup stones, another komi, a
    colour changed out of turn) a new tree is started.
    """

    def __init__(self, evaluator: Evaluator, config: SearchConfig | None = None) -> None:
        """Search with ``evaluator`` and ``config`` (default: the analysis preset, noise-free)."""
        self.evaluator = evaluator
        self.config = config or SearchConfig.analysis()
        self.search: Search | None = None
        self._root: Position | None = None

    def search_at(self, position: Position) -> Search:
        """Return the search rooted at ``position`` (not modified): the old tree advanced, or a new one."""
        if not self._follow(position):
            self.search = Search(position, self.evaluator, self.config)
        self._root = position.copy()
        assert self.search is not None
        return self.search

    def fresh_search(self, position: Position, filters: Sequence[MoveFilter]) -> Search:
        """Return a new search rooted at ``position`` with ``filters`` (depths counted from it), with
        this tree's evaluator and config; the kept tree is neither reused nor changed."""
        return Search(position, self.evaluator, self.config, filters=filters)

    def reset(self) -> None:
        """Forget the tree."""
        self.search = None
        self._root = None

    def _follow(self, position: Position) -> bool:
        """Advance the search along the moves that lead from its root to ``position``.

        Returns False (the search unchanged) if ``position`` does not follow the root by
        moves of alternating colours, with the same size, komi and ko rule.
        """
        root, search = self._root, self.search
        if root is None or search is None:
            return False
        rules = (position.size, position.komi, position.superko, position.scoring)
        if (root.size, root.komi, root.superko, root.scoring) != rules:
            return False
        played = len(root.steps)
        if position.steps[:played] != root.steps:
            return False
        moves = position.steps[played:]
        probe = root.copy()
        for step in moves:
            if not isinstance(step, Move) or step.color != probe.to_play:
                return False
            try:
                probe.play(step.point)
            except IllegalMoveError:
                return False
        if _state(probe) != _state(position):
            return False
        for step in moves:
            search.advance(step.point)
        return True


def _state(position: Position) -> tuple[int, int, int | None]:
    """Return what decides the moves from ``position``: stones (Zobrist hash), colour to play, ko."""
    return position.hash, position.to_play, position.ko_point
