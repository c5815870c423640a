"""The bot's answer to a pass: a pass on a settled board it wins, a move on an open one.

Issue 34: on 9x9, E5 and then a pass were answered with a pass, and the game was scored at
move 4; on 19x19 a pass at move 39 was answered with a pass ("W+8.5 by area").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.bot.settled import settlement
from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.handicap import fixed_handicap_points
from analysis.go.position import Position
from analysis.mcts import Search
from analysis.nets.inference import Prediction

# A finished 9x9 game: every point is Black's or White's.  Black 45 points, White 36 and komi.
FINISHED = """
    . . X O . O . . .
    . X X O O . O . .
    X . X X O O . O .
    . X . X X O O . .
    X X X . X X O O O
    . . X X . X X O .
    . X . X X . X O O
    . . X . X X O . O
    . X X X O O O O .
"""

# Black's wall and its 27 points: random playouts let White live inside now and then.
WALL = """
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
"""

# 38 moves of a 19x19 opening: the pass came at move 39.
OPENING_19 = " ".join((
    "Q16 D4 Q4 D16 C14 F17 C17 C16 D17 E17 E18 F18 R6 O3 C6 C3 D10 K16 K4 R14",
    "P15 R17 R16 Q17 P17 Q18 S17 R18 S16 O16 O15 N16 E12 M4 L3 M3 L4 N5",
))


class LikesPassing:
    """A policy net that likes passing best everywhere, its legal moves even, and an even game."""

    has_value = True

    def predict(self, positions: Sequence[Position]) -> Prediction:
        pos = positions[0]
        p = np.append(pos.legal_points().astype(np.float64), 50.0)
        return Prediction((p / p.sum())[None, None].astype(np.float32), np.zeros(1, dtype=np.float32))


class SeesOwners(LikesPassing):
    """LikesPassing with an ownership head: ``black_owner`` ((size, size), +1 Black) seen from the
    player to move, as a real head gives it."""

    def __init__(self, black_owner: np.ndarray) -> None:
        self.black_owner = black_owner

    def predict(self, positions: Sequence[Position]) -> Prediction:
        prediction = super().predict(positions)
        owner = (self.black_owner * positions[0].to_play).reshape(1, -1).astype(np.float32)
        return Prediction(prediction.heads, prediction.value_logit, ownership=owner)


class EvenEvaluator:
    """A search evaluator: the same prior for every legal move, ``pass_weight`` times it for the
    pass, and an even game."""

    def __init__(self, pass_weight: float = 1.0) -> None:
        self.pass_weight = pass_weight

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        priors = np.array([np.append(p.legal_points(), self.pass_weight) for p in positions], dtype=float)
        return priors / priors.sum(axis=1, keepdims=True), np.full(len(positions), 0.5), None


def bot(level: str) -> Bot:
    """A bot at ``level`` (``policy`` or a search level) with a fake network, never resigning."""
    if level == "policy":
        return Bot(get_level(level), LikesPassing(), resign_threshold=0)
    return Bot(get_level(level), evaluator=EvenEvaluator(), resign_threshold=0)


def played(size: int, moves: Sequence[str], komi: float = 7.0) -> Position:
    """The position after ``moves`` (GTP coordinates) on an empty ``size`` board."""
    position = Position(size, komi=komi)
    for move in moves:
        position.play(from_gtp(move, size))
    return position


@pytest.mark.parametrize("level", ["policy", "mcts-50"])
def test_on_an_open_board_the_bot_answers_an_early_pass_with_a_move(level: str) -> None:
    position = played(9, ["E5", "C3"])  # White is ahead by komi on the count
    position.pass_move()
    assert settlement(position).count.margin < 0
    decision = bot(level).choose(position)
    assert decision.move not in (None, position.pass_point)
    assert position.is_legal(decision.move)


def test_the_search_keeps_playing_after_an_early_pass_it_had_read_in_its_kept_tree() -> None:
    player = Bot(get_level("mcts-200"), evaluator=EvenEvaluator(pass_weight=80.0), resign_threshold=0)
    position = played(9, ["E5"])
    reply = player.choose(position).move
    position.play(reply)
    player.search_at(position).run(max_visits=200)  # the tree under the opponent's pass, and its end
    position.pass_move()
    kept = player.search_at(position)
    assert kept.visits > 0 and kept.root.n[kept.root.moves.index(position.pass_point)] > 0
    decision = player.choose(position)
    assert decision.move not in (None, position.pass_point)
    assert position.pass_point not in player.search_at(position).root.moves


def test_a_pass_at_move_39_on_19x19_is_answered_with_a_move() -> None:
    position = played(19, OPENING_19.split())
    position.pass_move()
    assert len(position.moves) == 39 and not settlement(position).settled
    decision = bot("mcts-50").choose(position)
    assert decision.move not in (None, position.pass_point)


@pytest.mark.parametrize("level", ["policy", "mcts-50"])
def test_on_a_settled_board_the_bot_answers_a_pass_with_a_pass_when_it_is_ahead(level: str) -> None:
    ahead = Position.from_diagram(FINISHED, komi=0.5, to_play=WHITE)
    ahead.pass_move()  # White passes; Black leads by 8.5
    assert settlement(ahead).settled
    decision = bot(level).choose(ahead)
    assert decision.move == ahead.pass_point and "settled" in decision.reason


def test_a_board_is_settled_only_when_few_points_are_neutral_and_every_owned_point_is_decided() -> None:
    finished = settlement(Position.from_diagram(FINISHED, komi=0.5))
    assert finished.settled and finished.neutral == 0 and finished.undecided == 0
    assert finished.count.result() == "B+8.5"
    opening = settlement(played(9, ["E5", "C3"]))
    assert not opening.settled and opening.neutral == 79
    handicap = Position(19, komi=0.5)
    handicap.setup(fixed_handicap_points(19, 9), [], to_play=BLACK)
    stones_only = settlement(handicap)  # Black owns the board on the count, and nothing is decided
    assert stones_only.neutral == 0 and stones_only.undecided > 300 and not stones_only.settled


def test_the_networks_ownership_decides_what_the_playouts_leave_open() -> None:
    position = Position.from_diagram(WALL, komi=7.0)
    alone = settlement(position)
    assert alone.neutral == 0 and alone.undecided > 0 and not alone.settled
    net_owner = np.where(np.arange(9) < 4, 0.95, -0.95)[None, :].repeat(9, axis=0)  # columns A-D Black's
    assert settlement(position, net_owner).settled
    with pytest.raises(ValueError, match="shape"):
        settlement(position, np.zeros((5, 5)))


def test_the_bot_passes_back_where_its_networks_ownership_decides_what_the_playouts_leave_open() -> None:
    position = Position.from_diagram(WALL, komi=0.5, to_play=BLACK)
    position.pass_move()  # Black passes; White leads by 9.5 and the playouts doubt Black's 27 points
    assert settlement(position).count.margin < 0 and not settlement(position).settled
    black_owner = np.where(np.arange(9) < 4, 0.95, -0.95)[None, :].repeat(9, axis=0)
    assert Bot(get_level("policy"), SeesOwners(black_owner)).choose(position).move == position.pass_point
    unsure = Bot(get_level("policy"), SeesOwners(np.zeros((9, 9))), resign_threshold=0)
    assert unsure.choose(position).move not in (None, position.pass_point)


def test_a_withheld_move_leaves_the_root_with_its_visits() -> None:
    position = played(9, ["E5", "C3"])
    position.pass_move()
    search = Search(position, EvenEvaluator())
    search.run(max_visits=100)
    assert position.pass_point in search.root.moves
    search.withhold(position.pass_point)
    root = search.root
    assert position.pass_point not in root.moves
    assert search.visits == 1 + int(root.n.sum())
    assert max(root.children, default=-1) < len(root.moves)
    result = search.run(max_visits=50)
    assert result.best != position.pass_point and search.visits == 1 + int(search.root.n.sum())
    search.advance(result.best)  # a new root: nothing is withheld there
    search.run(max_visits=20)
    assert position.pass_point in search.root.moves


def test_the_rules_level_answers_a_pass_on_a_settled_board_it_wins_with_a_pass() -> None:
    ahead = Position.from_diagram(FINISHED, komi=0.5, to_play=WHITE)
    ahead.pass_move()  # White passes; Black leads by 8.5
    decision = Bot(get_level("rules"), None, resign_threshold=0).choose(ahead)
    assert decision.move == ahead.pass_point and "settled" in decision.reason


def test_the_rules_level_behind_on_a_settled_board_passes_so_that_the_game_is_counted() -> None:
    behind = Position.from_diagram(FINISHED, komi=20.5, to_play=WHITE)  # White wins by 11.5
    behind.pass_move()
    decision = Bot(get_level("rules"), None, resign_moves=3).choose(behind)
    assert decision.move == behind.pass_point and "counted (behind by 11.5)" in decision.reason
