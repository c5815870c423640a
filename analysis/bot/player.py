"""The bot: picks a move for a position at a strength level, passes when the game is over, resigns.

Policy levels never fill their own real eyes.  After the opponent passes the bot
passes too if it is ahead on the area count (with the estimated dead stones);
it also passes when the policy likes passing best or nothing sensible is left.
With a value head it resigns once its win rate has stayed below
``resign_threshold`` for ``resign_moves`` moves in a row (``resign_threshold=0``
turns resigning off).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.bot.levels import Level, get_level
from analysis.bot.policy import PolicyNet
from analysis.go.position import Position
from analysis.go.scoring import area_score, estimate_dead
from analysis.nets import checkpoint
from analysis.play.simple import choose_move


@dataclass(frozen=True)
class Decision:
    """A chosen move (``None`` means resign), with the win rate the bot saw, if any."""

    move: int | None
    win_rate: float | None = None
    reason: str = ""


@dataclass
class Bot:
    """A player at one level; keep one per game (it remembers its recent win rates)."""

    level: Level
    net: PolicyNet | None = None
    seed: int = 0
    resign_threshold: float = 0.05
    resign_moves: int = 3
    history: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        if self.level.kind != "rules" and self.net is None:
            raise ValueError(f"level {self.level.name} needs a network")

    @classmethod
    def load(cls, level: str, weights: str | Path | None = None, **options: object) -> Bot:
        """Return a bot at ``level`` with the network from ``weights`` (default weights if None).

        Raises KeyError for an unknown level, FileNotFoundError or CheckpointError for bad weights.
        """
        lvl = get_level(level)
        net = None
        if lvl.kind != "rules":
            model, _ = checkpoint.load_model(weights or checkpoint.DEFAULT_WEIGHTS)
            net = PolicyNet(model)
        return cls(lvl, net, **options)

    def reset(self) -> None:
        """Forget the game: call on a new game."""
        self.history.clear()

    def choose(self, position: Position) -> Decision:
        """Return the bot's decision for the player to move in ``position`` (the position is unchanged)."""
        color = position.to_play
        if self.level.kind == "rules":
            return Decision(choose_move(position, color, self.rng), reason="rules")
        if self._opponent_passed(position) and self._ahead(position):
            return Decision(position.pass_point, reason="the opponent passed and we are ahead")
        probs, wins = self.net.evaluate([position])
        p, win = probs[0], (float(wins[0]) if wins is not None else None)
        if win is not None:
            self.history.append(win)
            recent = self.history[-self.resign_moves :]
            hopeless = len(recent) == self.resign_moves and max(recent) < self.resign_threshold
            if self.resign_threshold > 0 and hopeless:
                return Decision(None, win, "resign")
        candidates = p.copy()
        for point in np.flatnonzero(candidates[:-1]):
            if position.is_eye(int(point), color):
                candidates[point] = 0
        if candidates[:-1].sum() <= 0 or candidates.argmax() == position.pass_point:
            return Decision(position.pass_point, win, "nothing sensible left")
        candidates[-1] = 0
        if self.level.temperature > 0:
            weights = candidates ** (1 / self.level.temperature)
            move = self.rng.choices(range(len(weights)), weights=weights.tolist())[0]
        else:
            move = int(candidates.argmax())
        return Decision(move, win, self.level.name)

    @staticmethod
    def _opponent_passed(position: Position) -> bool:
        last = position.last_move
        return last is not None and last.point == position.pass_point

    @staticmethod
    def _ahead(position: Position) -> bool:
        margin = area_score(position, estimate_dead(position)).margin
        return margin * position.to_play > 0
