"""Search: batched PUCT Monte-Carlo tree search over a policy-and-value evaluator.

Each step descends from the root ``batch_size`` times, marking the path of every
leaf it reaches with a virtual loss so that the next descent tends elsewhere,
then evaluates the new leaves in one evaluator call and backs their values up.
A leaf after two consecutive passes is counted instead, by the position's scoring
(area, or territory under Japanese rules), with the dead stones the root's playouts find
taken off (:mod:`analysis.mcts.terminal`).  With a batch of
one the search is plain sequential PUCT: the virtual loss is always removed
before the next descent.  When the evaluator gives score leads, selection
maximises the utility of :mod:`analysis.mcts.utility` (win value plus score
terms) while the reported win rates stay the plain win values.

The tree is kept between moves: ``advance(move)`` makes that child the root.  ``withhold(move)``
keeps a move out of the root's candidates until the root changes (the bot's pass, after an early
pass of its opponent).  ``filters`` (:mod:`analysis.mcts.restrict`, KataGo's ``avoidMoves`` and
``allowMoves``) keep moves out of the nodes near the root the search was made at.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.go.position import Position
from analysis.mcts.candidates import candidate_moves
from analysis.mcts.config import SearchConfig
from analysis.mcts.evaluator import Evaluator
from analysis.mcts.node import Node
from analysis.mcts.noise import add_dirichlet_noise
from analysis.mcts.puct import select_child
from analysis.mcts.restrict import MoveFilter, filtered_legal
from analysis.mcts.result import SearchResult, summarize
from analysis.mcts.terminal import root_ownership, terminal_margin, terminal_value
from analysis.mcts.utility import ScoreUtility

Path = list[tuple[Node, int]]


@dataclass
class _Leaf:
    """A new leaf waiting for its evaluation: the path to it and its own position."""

    path: Path
    node: Node
    position: Position


class Search:
    """A search tree rooted at a position, grown by ``run`` or ``iterate`` and moved by ``advance``.

    ``root`` is the root Node, to be read, not modified.  Not thread-safe, except
    ``stop``, which another thread may call at any time.
    """

    def __init__(
        self,
        position: Position,
        evaluator: Evaluator,
        config: SearchConfig | None = None,
        seed: int | None = None,
        filters: Sequence[MoveFilter] = (),
    ) -> None:
        """Search from a copy of ``position``; ``seed`` seeds the root noise of play mode; the
        ``filters`` count their depths from ``position``."""
        self.evaluator = evaluator
        self.config = config or SearchConfig()
        self._position = position.copy()
        self._filters = tuple(filters)
        self._depth_zero = len(position.steps)  # the steps of the position the filters count from
        self._rng = np.random.default_rng(seed)
        self._stop = threading.Event()
        self._utility = ScoreUtility.for_board(position.size, self.config.score_utility,
                                               self.config.score_utility_dynamic)
        self._centre = 0.0  # the root player's expected lead when the search began
        self._scored = False  # whether the evaluator gives score leads
        self._withheld: set[int] = set()  # moves kept out of the root's candidates
        self._new_root()

    @property
    def position(self) -> Position:
        """A copy of the root position."""
        return self._position.copy()

    @property
    def visits(self) -> int:
        """The root's visits: its own evaluation plus every visit of its children."""
        return self._root_n

    def withhold(self, move: int) -> None:
        """Keep ``move`` out of the root's candidates, with the visits it had, until the root changes
        (``advance`` or a new tree); never the root's last candidate."""
        self._withheld.add(move)
        self._drop_withheld()

    def _drop_withheld(self) -> None:
        """Take the withheld moves out of the expanded root, with their visits and values."""
        root = self.root
        for move in self._withheld:
            if move in root.moves and len(root.moves) > 1:
                visits, wins, leads = root.drop(root.moves.index(move))
                self._root_n -= int(visits)
                self._root_w -= wins
                self._root_lead -= leads

    def stop(self) -> None:
        """Make the running search return after its current step (or, if none runs, the next one
        return right after its root evaluation)."""
        self._stop.set()

    def advance(self, move: int) -> None:
        """Play ``move`` at the root and keep the subtree below it as the new tree.

        Raises IllegalMoveError (the search is unchanged) if the move is illegal.
        """
        old = self.root
        self._position.play(move)
        idx = old.moves.index(move) if move in old.moves else None
        child = old.children.get(idx) if idx is not None else None
        if child is None or not child.moves or child.terminal is not None:
            self._new_root()
            return
        self.root = child
        self._withheld.clear()
        self._owner = None
        self._root_n = int(old.n[idx])
        self._root_w = -float(old.wins[idx])
        self._root_lead = -float(old.leads[idx])
        self._centre = self._root_lead / max(1, self._root_n)
        self._add_root_noise()

    def run(
        self,
        max_visits: int | None = None,
        max_seconds: float | None = None,
        callback: Callable[[SearchResult], None] | None = None,
        every_visits: int | None = None,
        every_seconds: float | None = None,
    ) -> SearchResult:
        """Search until a budget is spent or ``stop`` is called, and return the final result.

        ``callback`` receives every snapshot ``iterate`` yields, the final one included.
        Without a budget the search runs until stopped.
        """
        result = None
        for result in self.iterate(max_visits, max_seconds, every_visits, every_seconds):
            if callback is not None:
                callback(result)
        assert result is not None  # iterate always yields the final result
        return result

    def iterate(
        self,
        max_visits: int | None = None,
        max_seconds: float | None = None,
        every_visits: int | None = None,
        every_seconds: float | None = None,
    ) -> Iterator[SearchResult]:
        """Search and yield a snapshot every ``every_visits`` visits and every ``every_seconds``
        seconds, then the final result once ``max_visits`` new visits are made, ``max_seconds``
        have passed (whichever comes first) or ``stop`` is called.

        The root is evaluated first if it is new, so even a search stopped at once
        returns a legal move.  Raises whatever the evaluator raises.
        """
        start = time.perf_counter()
        start_n = self._root_n

        def finished() -> bool:
            return (
                self._stop.is_set()
                or (max_visits is not None and self._root_n - start_n >= max_visits)
                or (max_seconds is not None and time.perf_counter() - start >= max_seconds)
            )

        next_visits = every_visits or 0
        next_seconds = every_seconds or 0.0
        batch = self.config.batch_size
        try:
            if not self.root.moves:
                self._expand_root()
            while not finished():
                self._step(batch if max_visits is None else min(batch, max_visits - (self._root_n - start_n)))
                done = self._root_n - start_n
                elapsed = time.perf_counter() - start
                due = (every_visits and done >= next_visits) or (every_seconds and elapsed >= next_seconds)
                if due and not finished():
                    while every_visits and next_visits <= done:
                        next_visits += every_visits
                    while every_seconds and next_seconds <= elapsed:
                        next_seconds += every_seconds
                    yield self.result(done, elapsed)
            yield self.result(self._root_n - start_n, time.perf_counter() - start)
        finally:
            self._stop.clear()

    def result(self, new_visits: int = 0, seconds: float = 0.0) -> SearchResult:
        """Return a snapshot of the tree, crediting ``new_visits`` to ``seconds`` of search.

        Raises ValueError if the root has not been evaluated yet (no run so far).
        """
        if not self.root.moves:
            raise ValueError("the search has not started")
        lead = self._root_lead if self._scored else None
        return summarize(self.root, self._root_n, self._root_w, lead, new_visits, seconds)

    # -- the tree --------------------------------------------------------
    def _new_root(self) -> None:
        """Start a fresh tree at the root position."""
        self.root = Node(self._position.to_play, self._position.consecutive_passes())
        self._withheld.clear()
        self._owner: np.ndarray | None = None  # the root's playout ownership, made at the first count
        self._root_n = 0
        self._root_w = 0.0
        self._root_lead = 0.0

    def _expand_root(self) -> None:
        """Evaluate and expand the root, counting one visit; its score lead becomes the centre of
        the dynamic score utility."""
        priors, wins, leads = self.evaluator.evaluate([self._position])
        self._scored = leads is not None
        value, lead = 2.0 * float(wins[0]) - 1.0, float(leads[0]) if leads is not None else 0.0
        self._centre = lead
        self._expand(self.root, self._position, priors[0], self._utility_of(self.root, value, lead))
        self._drop_withheld()
        self._root_n += 1
        self._root_w += value
        self._root_lead += lead
        self._add_root_noise()

    def _utility_of(self, node: Node, win: float, lead: float) -> float:
        """Return the utility of (``win``, ``lead``) for the player to move at ``node``."""
        if not self._scored:
            return win
        centre = self._centre if node.to_play == self.root.to_play else -self._centre
        return self._utility(win, lead, centre)

    def _add_root_noise(self) -> None:
        """Mix Dirichlet noise into the root priors when the config asks for it."""
        eps = self.config.noise_epsilon
        if eps > 0:
            root = self.root
            root.prior = add_dirichlet_noise(root.raw_prior, eps, self.config.noise_alpha, self._rng)

    def _expand(self, node: Node, position: Position, prior: np.ndarray, value: float) -> None:
        """Expand ``node`` with the candidate moves of ``prior`` that are legal in ``position``."""
        legal = np.append(position.legal_points(), True)
        if self._filters:
            depth = len(position.steps) - self._depth_zero
            legal = filtered_legal(legal, self._filters, position.to_play, depth)
        moves, p = candidate_moves(prior, legal, self.config)
        node.expand(moves, p, value)

    def _step(self, limit: int) -> None:
        """Make up to ``limit`` visits: gather leaves under virtual loss, evaluate them at once, back up.

        A descent that ends on a leaf already pending keeps its virtual loss until the
        batch is backed up, so that the next descents turn elsewhere; after ``limit``
        such collisions the batch is evaluated as it is.
        """
        leaves: list[_Leaf] = []
        collided: list[Path] = []
        visits = 0
        while len(leaves) + visits < limit and len(collided) < limit:
            leaf = self._descend()
            node = leaf.node
            if node.terminal is not None:
                self._backup(leaf.path, node.terminal, node.terminal_lead)
                visits += 1
            elif node.pending:
                collided.append(leaf.path)
            else:
                node.pending = True
                leaves.append(leaf)
        for path in collided:
            self._revert(path)
        if not leaves:
            return
        priors, wins, leads = self.evaluator.evaluate([leaf.position for leaf in leaves])
        leads = leads.tolist() if leads is not None else [0.0] * len(leaves)
        for leaf, prior, win, lead in zip(leaves, priors, wins.tolist(), leads, strict=True):
            value = 2.0 * win - 1.0
            self._expand(leaf.node, leaf.position, prior, self._utility_of(leaf.node, value, lead))
            self._backup(leaf.path, value, lead)

    def _descend(self) -> _Leaf:
        """Walk from the root by PUCT, adding virtual loss, to a new, pending or terminal leaf."""
        config = self.config
        c_puct, fpu_reduction, vl = config.c_puct, config.fpu_reduction, config.virtual_loss
        pos = self._position.copy()
        pass_point = pos.pass_point
        node = self.root
        path: Path = []
        while True:
            idx = select_child(node, c_puct, fpu_reduction)
            node.vl[idx] += vl
            path.append((node, idx))
            move = node.moves[idx]
            pos.play(move)
            child = node.children.get(idx)
            if child is None:
                passes = node.passes + 1 if move == pass_point else 0
                final = self._count(pos) if passes >= 2 else (None, 0.0)
                child = Node(pos.to_play, passes, *final)
                node.children[idx] = child
                return _Leaf(path, child, pos)
            if not child.moves:
                return _Leaf(path, child, pos)
            node = child

    def _count(self, pos: Position) -> tuple[float, float]:
        """Return the value and margin of the game ``pos`` ends, its dead stones judged by the root's
        ownership."""
        if self._owner is None:
            self._owner = root_ownership(self._position)
        margin = terminal_margin(pos, self._owner)
        return terminal_value(margin), margin

    def _backup(self, path: Path, value: float, lead: float = 0.0) -> None:
        """Add one visit of ``value`` and ``lead`` (for the leaf's player to move) along ``path``,
        removing its virtual loss; each node's entry is seen from the player who chose it."""
        vl = self.config.virtual_loss
        for node, idx in reversed(path):
            value, lead = -value, -lead
            node.n[idx] += 1.0
            node.w[idx] += self._utility_of(node, value, lead)
            node.wins[idx] += value
            node.leads[idx] += lead
            node.vl[idx] -= vl
        self._root_n += 1
        self._root_w += value
        self._root_lead += lead

    def _revert(self, path: Path) -> None:
        """Remove the virtual loss of a descent that ended on a pending leaf."""
        vl = self.config.virtual_loss
        for node, idx in path:
            node.vl[idx] -= vl
