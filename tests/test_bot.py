"""The bot: levels, eye safety, passing at the end, resigning, and genmove over GTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.bot.levels import LEVELS, get_level
from analysis.bot.player import Bot
from analysis.bot.territory_fill import pointless_fill
from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.position import Position
from analysis.mcts import MoveFilter
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.inference import Prediction

ROOT = Path(__file__).resolve().parents[1]


class FakeNet:
    """Returns fixed preferences (over n*n + 1), masked to the legal moves as a real net's are."""

    has_value = True

    def __init__(self, probs: np.ndarray, win: float) -> None:
        self.probs, self.win = probs, win

    def predict(self, positions: list[Position]) -> Prediction:
        p = self.probs * np.append(positions[0].legal_points(), True)
        logit = np.log(self.win / (1 - self.win))
        return Prediction((p / p.sum())[None, None].astype(np.float32), np.array([logit], dtype=np.float32))


def test_levels_are_named_and_documented() -> None:
    assert {"rules", "policy", "policy-t1"} <= set(LEVELS)
    assert all(level.description for level in LEVELS.values())
    with pytest.raises(KeyError, match="known"):
        get_level("godlike")
    with pytest.raises(ValueError, match="needs a network"):
        Bot(get_level("policy"))


EYE = """
    . X . . .
    X X . . .
    . . . . .
    . . . . O
    . . . O .
"""


def test_the_policy_bot_never_fills_its_own_eye() -> None:
    pos = Position.from_diagram(EYE, to_play=BLACK)
    probs = np.full(26, 0.01)
    probs[from_gtp("A5", 5)] = 0.9  # the net loves the eye
    bot = Bot(get_level("policy"), FakeNet(probs / probs.sum(), 0.5))
    move = bot.choose(pos).move
    assert move != from_gtp("A5", 5)
    assert pos.is_legal(move)


def test_the_policy_bot_keeps_to_avoid_and_allow_and_the_rules_bot_refuses_them() -> None:
    pos = Position(5, komi=0.5)
    probs = np.full(26, 0.01)
    probs[from_gtp("C3", 5)] = 0.9
    bot = Bot(get_level("policy"), FakeNet(probs / probs.sum(), 0.5))
    assert bot.choose(pos).move == from_gtp("C3", 5)
    avoid = MoveFilter(BLACK, frozenset({from_gtp("C3", 5)}), 1)
    assert bot.choose(pos, filters=[avoid]).move not in (from_gtp("C3", 5), None, pos.pass_point)
    allow = MoveFilter(BLACK, frozenset({from_gtp("A1", 5)}), 1, allow=True)
    assert bot.choose(pos, filters=[allow]).move == from_gtp("A1", 5)
    not_black = MoveFilter(WHITE, frozenset({from_gtp("A1", 5)}), 1, allow=True)
    assert bot.choose(pos, filters=[not_black]).move == from_gtp("C3", 5)  # White's filter: not Black's
    with pytest.raises(ValueError, match="not the rules level"):
        Bot(get_level("rules")).choose(pos, filters=[avoid])


# Black owns 10 points (its 5 stones and the A column), white 15 plus komi 0.5.
SPLIT_BOARD = """
    . X O . .
    . X O . .
    . X O . .
    . X O . .
    . X O . .
"""


def test_the_bot_passes_after_the_opponent_only_when_it_is_ahead() -> None:
    probs = np.full(26, 1 / 26)
    behind = Position.from_diagram(SPLIT_BOARD, komi=0.5, to_play=WHITE)
    behind.pass_move()  # white passes; black, behind, plays on
    assert Bot(get_level("policy"), FakeNet(probs, 0.5)).choose(behind).move != behind.pass_point
    ahead = Position.from_diagram(SPLIT_BOARD, komi=0.5, to_play=BLACK)
    ahead.pass_move()  # black passes; white, ahead, passes too and the game ends
    assert Bot(get_level("policy"), FakeNet(probs, 0.5)).choose(ahead).move == ahead.pass_point


def test_on_a_settled_board_the_bot_behind_passes_after_the_opponent_and_the_game_is_counted() -> None:
    settled_behind = Position.from_diagram("""
        . X O . .
        . X O . .
        . X . O .
        . X O . .
        . X O . .
    """, komi=0.5, to_play=WHITE)
    settled_behind.pass_move()  # black trails by 4.5 on a settled board: it passes, not plays in its area
    decision = Bot(get_level("policy"), FakeNet(np.full(26, 1 / 26), 0.5)).choose(settled_behind)
    assert decision.move == settled_behind.pass_point and "behind by 4.5" in decision.reason


# White filled its own territory: by area it leads (15 points and 0.5 komi against 10), by
# territory it trails (2 points and 0.5 komi against Black's 5).
FILLED = """
    . X O O O
    . X O O .
    . X O O O
    . X O O .
    . X O O O
"""


@pytest.mark.parametrize(("scoring", "count"), [("territory", "ahead by 2.5"), ("area", "behind by 5.5")])
def test_after_the_opponents_pass_the_bot_counts_by_the_positions_scoring(scoring: str, count: str) -> None:
    position = Position.from_diagram(FILLED, komi=0.5, to_play=WHITE)
    position.scoring = scoring
    position.pass_move()  # white passes on a settled board: black passes too, and says by what count
    probs = np.full(26, 1 / 26)
    decision = Bot(get_level("policy"), FakeNet(probs, 0.5)).choose(position)
    assert decision.move == position.pass_point and f"counted ({count})" in decision.reason


# A settled 7x7 board: Black's territory is columns A-B, White's E-G, where White then fills a
# point (G1), late in the game; Black to move.
SETTLED = """
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . . X O . . .
"""


def settled_late(moves: int) -> Position:
    """SETTLED after ``moves`` passes (standing for a game's moves) and White's fill at G1."""
    position = Position.from_diagram(SETTLED, komi=0.5, to_play=BLACK if moves % 2 == 0 else WHITE)
    for _ in range(moves):
        position.pass_move()
    position.play(from_gtp("G1", 7), WHITE)
    return position


class FixedPriors:
    """A search evaluator with the same priors everywhere (legal moves only) and an even value."""

    def __init__(self, probs: np.ndarray) -> None:
        self.probs = probs

    def evaluate(self, positions: list[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        priors = np.array([self.probs * np.append(p.legal_points(), True) for p in positions])
        return priors / priors.sum(axis=1, keepdims=True), np.full(len(positions), 0.5), None


@pytest.mark.parametrize("level", ["policy", "mcts-50"])
@pytest.mark.parametrize(("scoring", "passes"), [("territory", True), ("area", False)])
def test_on_a_settled_board_the_bot_passes_rather_than_fill_its_own_territory_under_territory_counting(
    level: str, scoring: str, passes: bool
) -> None:
    position = settled_late(20)  # 21 moves: past 0.4 of the board's 49 points
    position.scoring = scoring
    probs = np.full(50, 1e-4)
    probs[from_gtp("A4", 7)] = 0.99  # the net likes a point of Black's own territory
    probs /= probs.sum()
    if level == "policy":
        bot = Bot(get_level(level), FakeNet(probs, 0.5))
    else:
        bot = Bot(get_level(level), evaluator=FixedPriors(probs))
    decision = bot.choose(position)
    assert (decision.move == position.pass_point) is passes, decision
    assert passes or decision.move == from_gtp("A4", 7)


def test_before_the_end_a_move_inside_its_own_area_may_be_a_reinforcement() -> None:
    position = settled_late(18)  # 19 moves: the game is not late enough
    position.scoring = "territory"
    assert position.to_play == BLACK and not pointless_fill(position, from_gtp("A4", 7))
    assert pointless_fill(settled_late(20), from_gtp("A4", 7)) is False  # area scoring by default
    late = settled_late(20)
    late.scoring = "territory"
    assert pointless_fill(late, from_gtp("A4", 7)) and not pointless_fill(late, from_gtp("E4", 7))


# Black's corner lives only if it plays B1 in its straight three (A1-C1): a move inside its own
# region that must never be taken for a pointless fill.
STRAIGHT_THREE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    O O O O O . . . .
    X X X X O . . . .
    . . . X O . . . .
"""


def test_a_move_that_makes_two_eyes_is_never_taken_for_a_pointless_fill() -> None:
    position = Position.from_diagram(STRAIGHT_THREE, komi=6.5)
    position.scoring = "territory"
    for _ in range(34):  # standing for the moves of a game near its end
        position.pass_move()
    position.play(from_gtp("J9", 9), WHITE)
    assert position.to_play == BLACK and position.liberties(from_gtp("A2", 9)) == 3
    assert not pointless_fill(position, from_gtp("B1", 9))


def test_the_bot_resigns_when_the_opponent_keeps_passing_and_it_stays_behind_on_the_count() -> None:
    probs = np.full(26, 1 / 26)
    behind = Position.from_diagram(SPLIT_BOARD, komi=0.5, to_play=WHITE)
    behind.pass_move()  # black trails by 5.5 and its value head sees an even game
    bot = Bot(get_level("policy"), FakeNet(probs, 0.5), resign_moves=3)
    decisions = [bot.choose(behind) for _ in range(3)]
    assert [d.move is None for d in decisions] == [False, False, True]
    assert "passed 3 times" in decisions[2].reason and "by 5.5" in decisions[2].reason
    bot.reset()
    assert bot.choose(behind).move is not None
    never = Bot(get_level("policy"), FakeNet(probs, 0.5), resign_threshold=0)
    assert all(never.choose(behind).move is not None for _ in range(5))


def test_the_opponents_passes_early_in_the_game_never_make_the_bot_resign() -> None:
    opening = Position(9, komi=7.5)
    opening.play(from_gtp("E5", 9))
    opening.play(from_gtp("C3", 9))
    opening.play(from_gtp("G7", 9))
    opening.pass_move()  # white passes with most of the board unowned; black trails by komi
    bot = Bot(get_level("policy"), FakeNet(np.full(82, 1 / 82), 0.5), resign_moves=3)
    assert all(bot.choose(opening).move is not None for _ in range(5))


def test_the_bot_resigns_only_after_several_hopeless_moves_and_never_when_off() -> None:
    pos = Position(9)
    probs = np.full(82, 1 / 82)
    bot = Bot(get_level("policy"), FakeNet(probs, 0.01), resign_moves=3)
    assert [bot.choose(pos).move is None for _ in range(3)] == [False, False, True]
    never = Bot(get_level("policy"), FakeNet(probs, 0.01), resign_threshold=0)
    assert all(never.choose(pos).move is not None for _ in range(5))


def test_sampling_with_temperature_varies_and_stays_legal() -> None:
    pos = Position(9)
    pos.play(40)
    probs = np.full(82, 1 / 82)
    bot = Bot(get_level("policy-t1"), FakeNet(probs, 0.5), seed=3)
    moves = {bot.choose(pos).move for _ in range(20)}
    assert len(moves) > 5 and all(pos.is_legal(m) for m in moves)


def test_gtp_genmove_plays_the_network_level(tmp_path: Path) -> None:
    weights = tmp_path / "tiny.pt"
    checkpoint.save(
        weights, GoloisNet(GoloisConfig(in_planes=39, blocks=1, channels=8, value_head=True)), "t"
    )
    commands = "boardsize 9\nclear_board\ngenmove b\ngenmove w\nlist_stones black\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "analysis.gtp", "--level", "policy", "--weights", str(weights)],
        input=commands,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    replies = [r for r in done.stdout.split("\n\n") if r]
    assert all(r.startswith("=") for r in replies), done.stdout
    black_move = replies[2].split()[1]
    assert replies[4].split()[1:] == ([] if black_move == "pass" else [black_move])
    bad = subprocess.run(
        [sys.executable, "-m", "analysis.gtp", "--level", "policy", "--weights", str(tmp_path / "none.pt")],
        input="quit\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert bad.returncode != 0 and "cannot load the network" in bad.stderr
