"""The bot: picks a move for a position at a strength level, passes when the game is over, resigns.

Neither the policy levels nor the search levels ever fill their own real eyes, and
under territory counting they pass rather than fill their own settled territory
(territory_fill.py).
After the opponent passes the bot passes too if the board is settled (settled.py: every point
decided, few dame left), ahead or behind on the count by the position's scoring, area or
territory (with the estimated dead stones): the game is counted.  On a board that is not
settled it plays on, as the bots of OGS do, whatever the count: neither level passes back then
while it has another move
(a search would otherwise end a game it wins on the count at move 4).  Otherwise
a policy level also passes when the policy likes passing best or nothing sensible
is left, and a search level when
its most visited move is a pass; and once the opponent has passed
``resign_moves`` times on an unsettled board with few dame left and the bot behind on the count
every time, the bot resigns (a weak value head would otherwise play on for a
hundred moves).
The search levels keep their tree between moves (see tree.py).  With a value
head the bot resigns once its win rate (the network's, or the search root's)
has stayed below ``resign_threshold`` for ``resign_moves`` moves in a row
(``resign_threshold=0`` turns resigning off);
White plays on early in a handicap game, whatever its win rate (resign.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from analysis.bot.eye_safe import EyeSafeEvaluator, keep_out_of_blunders
from analysis.bot.levels import Level
from analysis.bot.resign import resign_threshold
from analysis.bot.settled import Settlement, settlement
from analysis.bot.territory_fill import pointless_fill
from analysis.bot.tree import SearchTree
from analysis.go.position import Position
from analysis.mcts import Evaluator, MoveFilter, NetEvaluator, Search, SearchConfig, SearchResult, choose_move
from analysis.mcts.restrict import filtered_legal
from analysis.play.simple import choose_move as choose_rules_move

if TYPE_CHECKING:
    from analysis.nets.inference import Network

FILL_REASON = "under territory counting, filling its own territory would cost a point"
MARGIN_SECONDS = 0.1  # kept free of a timed search's budget, besides two batches' time (at most a
# quarter of the budget): the search only looks at the clock between batches


@dataclass(frozen=True)
class Decision:
    """A chosen move (``None`` means resign), with the win rate the bot saw, if any."""

    move: int | None
    win_rate: float | None = None
    reason: str = ""


def _allowed(position: Position, move: int, filters: Sequence[MoveFilter]) -> bool:
    """Return whether ``filters`` leave ``move`` (a point, or the pass) to the player to move."""
    legal = np.ones(position.size * position.size + 1, dtype=bool)
    return bool(filtered_legal(legal, filters, position.to_play, 0)[move])


@dataclass
class Bot:
    """A player at one level; keep one per game (it remembers its recent win rates and its tree).

    A search level evaluates with ``evaluator``, by default a NetEvaluator of ``net``'s model.
    """

    level: Level
    net: Network | None = None
    seed: int = 0
    resign_threshold: float = 0.05
    resign_moves: int = 3
    evaluator: Evaluator | None = None
    history: list[float] = field(default_factory=list)
    behind_on_passes: int = 0  # the opponent's passes so far with the bot behind on the count

    def __post_init__(self) -> None:
        """Raises ValueError if the level needs a network and has none (or one without a value head)."""
        self.rng = random.Random(self.seed)
        self.np_rng = np.random.default_rng(self.seed)
        self._tree: SearchTree | None = None
        self._batch_seconds = 0.1  # one search batch's time, measured on every search
        self.searching: Search | None = None  # the search a search level's last choice ran
        if self.level.kind == "policy" and self.net is None:
            raise ValueError(f"level {self.level.name} needs a network")
        if self.level.kind == "mcts" and not self.can_search:
            raise ValueError(f"level {self.level.name} needs a network with a value head")

    @property
    def can_search(self) -> bool:
        """Whether the bot has what a search needs: an evaluator, or a network with a value head."""
        return self.evaluator is not None or (self.net is not None and self.net.has_value)

    @property
    def takes_filters(self) -> bool:
        """Whether :meth:`choose` takes avoid and allow filters: at the policy and search levels."""
        return self.level.kind != "rules"

    def search_at(self, position: Position) -> Search:
        """Return the bot's search tree rooted at ``position``, kept from earlier calls when it follows.

        Raises ValueError if the bot cannot search (``can_search`` is False).
        """
        return self._search_tree().search_at(position)

    def fresh_search(self, position: Position, filters: Sequence[MoveFilter]) -> Search:
        """Return a new search rooted at ``position`` with ``filters`` (KataGo's avoid and allow),
        evaluated and configured as the bot's tree is; the kept tree is neither reused nor changed.

        Raises ValueError if the bot cannot search (``can_search`` is False).
        """
        return self._search_tree().fresh_search(position, filters)

    @property
    def kept_search(self) -> Search | None:
        """The search of the bot's kept tree (the one ``search_at`` last returned), None before any."""
        return self._tree.search if self._tree is not None else None

    def _search_tree(self) -> SearchTree:
        """Return the bot's SearchTree, made on first use; raises ValueError if the bot cannot search."""
        if self._tree is None:
            if not self.can_search:
                raise ValueError("searching needs a network with a value head")
            if self.evaluator is None:
                self.evaluator = NetEvaluator(self.net)
            config = SearchConfig.analysis(tree_policy=self.level.tree_policy)
            self._tree = SearchTree(EyeSafeEvaluator(self.evaluator), config)
        return self._tree

    def reset(self) -> None:
        """Forget the game: call on a new game."""
        self.history.clear()
        self.behind_on_passes = 0
        if self._tree is not None:
            self._tree.reset()

    def choose(
        self,
        position: Position,
        seconds: float | None = None,
        callback: Callable[[SearchResult], None] | None = None,
        every_seconds: float | None = None,
        filters: Sequence[MoveFilter] = (),
    ) -> Decision:
        """Return the bot's decision for the player to move in ``position`` (the position is unchanged).

        ``seconds`` caps a search level's wall time for this move (a clock's share); a search
        level passes its snapshots to ``callback`` every ``every_seconds``, and the last one.
        ``filters`` (KataGo's avoid and allow) restrict the policy levels' move and a search
        level's search, which is then a fresh one (the kept tree is left alone).  Raises
        ValueError for filters at the ``rules`` level, whose moves know none.
        """
        if filters and not self.takes_filters:
            raise ValueError("avoid and allow need a policy or search level, not the rules level")
        start = time.perf_counter()
        may_pass = True
        if self._opponent_passed(position):
            board = settlement(position, self._net_ownership(position))
            ended = self._answer_to_a_pass(position, board)
            if ended is not None and (ended.move is None or _allowed(position, ended.move, filters)):
                return ended
            may_pass = board.settled
        if self.level.kind == "rules":
            decision = Decision(choose_rules_move(position, position.to_play, self.rng), reason="rules")
        elif self.level.kind == "mcts":
            decision = self._search(position, start, seconds, callback, every_seconds, may_pass, filters)
        else:
            decision = self._policy(position, may_pass, filters)
        return self._without_pointless_fill(position, decision)

    @staticmethod
    def _without_pointless_fill(position: Position, decision: Decision) -> Decision:
        """Return ``decision``, or a pass where its move would only fill the mover's own settled
        territory under territory counting (:func:`~analysis.bot.territory_fill.pointless_fill`)."""
        if decision.move is not None and pointless_fill(position, decision.move):
            return Decision(position.pass_point, decision.win_rate, FILL_REASON)
        return decision

    def _policy(
        self, position: Position, may_pass: bool = True, filters: Sequence[MoveFilter] = ()
    ) -> Decision:
        """Return the policy levels' decision: the net's top or sampled move among those ``filters``
        leave, never into an own eye nor a bad self-atari
        (:func:`~analysis.bot.eye_safe.keep_out_of_blunders`); unless ``may_pass``, a pass only when
        nothing sensible is left."""
        prediction = self.net.predict([position])
        p = prediction.policy[0]
        win = float(prediction.value[0]) if prediction.value is not None else None
        if win is not None and self._hopeless(win, position):
            return Decision(None, win, "resign")
        candidates = p.copy()
        candidates[~filtered_legal(np.ones(candidates.size, dtype=bool), filters, position.to_play, 0)] = 0
        keep_out_of_blunders(position, candidates)
        if not may_pass:
            candidates[-1] = 0
        if candidates[:-1].sum() <= 0 or candidates.argmax() == position.pass_point:
            return Decision(position.pass_point, win, "nothing sensible left")
        candidates[-1] = 0
        if self.level.temperature > 0:
            weights = candidates ** (1 / self.level.temperature)
            move = self.rng.choices(range(len(weights)), weights=weights.tolist())[0]
        else:
            move = int(candidates.argmax())
        return Decision(move, win, self.level.name)

    def _search(
        self,
        position: Position,
        start: float,
        seconds: float | None,
        callback: Callable[[SearchResult], None] | None,
        every_seconds: float | None,
        may_pass: bool = True,
        filters: Sequence[MoveFilter] = (),
    ) -> Decision:
        """Return the search levels' decision: search to the level's visits or time (or ``seconds``
        since ``start``, if sooner), then play the most visited move or resign; unless ``may_pass``,
        the search leaves the pass out while it has another move.  With ``filters`` the search is
        a fresh one restricted by them (:meth:`fresh_search`)."""
        search = self.fresh_search(position, filters) if filters else self.search_at(position)
        self.searching = search
        if not may_pass:
            search.withhold(position.pass_point)
        limits = [s for s in (self.level.seconds or None, seconds) if s is not None]
        max_seconds = None
        if limits:
            limit = min(limits)
            reserve = min(2 * self._batch_seconds, limit / 4) + MARGIN_SECONDS
            max_seconds = max(0.0, limit - (time.perf_counter() - start) - reserve)
        max_visits = max(0, self.level.visits - search.visits) if self.level.visits else None
        result = search.run(max_visits, max_seconds, callback=callback, every_seconds=every_seconds)
        batch = search.config.batch_size
        if result.new_visits >= batch:
            self._batch_seconds = result.seconds * batch / result.new_visits
        if self._hopeless(result.winrate, position):
            return Decision(None, result.winrate, "resign")
        move = choose_move(result, len(position.moves), self.np_rng, temperature=self.level.temperature)
        reason = "the search prefers passing" if move == position.pass_point else self.level.name
        return Decision(move, result.winrate, reason)

    def _hopeless(self, win: float, position: Position) -> bool:
        """Record ``win`` and return True if the last ``resign_moves`` win rates were all below the
        resign threshold for ``position`` (never when resigning is off)."""
        self.history.append(win)
        recent = self.history[-self.resign_moves :]
        threshold = resign_threshold(self.resign_threshold, position)
        return self.resign_threshold > 0 and len(recent) == self.resign_moves and max(recent) < threshold

    @staticmethod
    def _opponent_passed(position: Position) -> bool:
        """Whether the last move of ``position`` was a pass."""
        last = position.last_move
        return last is not None and last.point == position.pass_point

    def _net_ownership(self, position: Position) -> np.ndarray | None:
        """Return the network's ownership of ``position`` ((size, size), +1 Black), None without an
        ownership head."""
        if self.net is None:
            return None
        owner = self.net.predict([position]).ownership
        if owner is None:
            return None
        return owner[0].reshape(position.size, position.size) * position.to_play

    def _answer_to_a_pass(self, position: Position, board: Settlement) -> Decision | None:
        """Return, after the opponent's pass, a pass if ``board`` (the position's settlement) is
        settled, ahead or behind on its count, so that the game is counted (as the bots of OGS let
        it be: a bot behind that played on in its own area, then resigned, took the winner's count
        away); a resignation if the opponent has now passed ``resign_moves`` times on an unsettled
        board with few dame left and us behind; else None."""
        margin = board.count.margin * position.to_play
        if board.settled:
            side = "ahead" if margin > 0 else "behind" if margin < 0 else "level"
            return Decision(position.pass_point, reason=f"the opponent passed and the board is settled: "
                            f"the game is counted ({side} by {abs(margin):g})")
        if margin > 0:
            return None
        self.behind_on_passes += board.few_neutral
        if self.resign_threshold > 0 and self.behind_on_passes >= self.resign_moves:
            return Decision(None, reason=f"the opponent passed {self.behind_on_passes} times "
                            f"with us behind on the count (by {-margin:g} now)")
        return None
