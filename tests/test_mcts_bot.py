"""The search levels of the bot: legal moves, tree reuse, eye safety, time, resigning, handicap.

Most tests use fake evaluators (fast, and with the win rates the test needs); one plays
with a tiny untrained network through the real evaluator.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pytest
import torch

from analysis.bot.levels import LEVELS, get_level
from analysis.bot.load import load_bot
from analysis.bot.player import Bot
from analysis.bot.resign import resign_threshold
from analysis.features import get_feature_set
from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.handicap import fixed_handicap_points
from analysis.go.position import Position
from analysis.go.ruled import handicap_stones
from analysis.gtp.engine import GtpEngine
from analysis.mcts.candidates import candidate_moves
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.inference import Network


class FixedEvaluator:
    """Priors from ``weights`` (uniform if None; pass always 0.01), Black's win rate ``black_wins``
    in every position; counts the positions it evaluates and sleeps ``delay`` per call."""

    def __init__(
        self, black_wins: float = 0.5, weights: np.ndarray | None = None, delay: float = 0.0
    ) -> None:
        self.black_wins, self.weights, self.delay = black_wins, weights, delay
        self.evaluated = 0

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        time.sleep(self.delay)
        self.evaluated += len(positions)
        n = positions[0].size ** 2 + 1
        priors = np.tile(np.ones(n) if self.weights is None else self.weights, (len(positions), 1))
        priors[:, -1] = 0.01
        wins = [self.black_wins if p.to_play == BLACK else 1 - self.black_wins for p in positions]
        return priors, np.array(wins), None


def mcts(level: str = "mcts-50", **options: object) -> Bot:
    options.setdefault("evaluator", FixedEvaluator())
    return Bot(get_level(level), **options)


def test_search_levels_are_named_and_limited_in_visits_or_time() -> None:
    assert {f"mcts-{n}" for n in (50, 200, 800, 1600)} | {"mcts-2s"} <= set(LEVELS)
    assert [LEVELS[f"mcts-{n}"].visits for n in (50, 200, 800, 1600)] == [50, 200, 800, 1600]
    assert LEVELS["mcts-2s"].seconds == 2.0 and LEVELS["mcts-2s"].visits == 0
    with pytest.raises(ValueError, match="needs a network"):
        Bot(get_level("mcts-50"))


def test_a_search_level_with_a_tiny_net_plays_legal_moves_on_9x9() -> None:
    torch.manual_seed(0)
    net = GoloisNet(GoloisConfig(get_feature_set("golois").num_planes, blocks=1, channels=8, value_head=True))
    bot = Bot(get_level("mcts-50"), Network(net), resign_threshold=0)
    pos = Position(9)
    for _ in range(4):
        decision = bot.choose(pos)
        assert decision.move is not None and pos.is_legal(decision.move)
        assert 0 <= decision.win_rate <= 1
        pos.play(decision.move)


def test_the_tree_is_kept_across_both_players_moves_and_rebuilt_after_an_undo() -> None:
    evaluator = FixedEvaluator()
    bot = mcts("mcts-200", evaluator=evaluator)
    pos = Position(9)
    pos.play(from_gtp("E5", 9))
    first = bot.choose(pos).move
    assert evaluator.evaluated == 200
    pos.play(first)
    reply = bot.search_at(pos).result().best  # the opponent plays the reply the bot read most
    pos.play(reply)
    kept = bot.search_at(pos).visits
    assert kept > 0
    evaluator.evaluated = 0
    assert pos.is_legal(bot.choose(pos).move)
    assert evaluator.evaluated == 200 - kept  # only what the kept subtree lacked
    pos.undo()
    assert bot.search_at(pos).visits == 0  # the position no longer follows the root: a new tree


def test_a_search_level_never_fills_its_own_eye_and_passes_when_only_eyes_are_left() -> None:
    eye = """
        . X . . .
        X X . . .
        . . . . .
        . . . . O
        . . . O .
    """
    pos = Position.from_diagram(eye, to_play=BLACK)
    weights = np.full(26, 0.01)
    weights[from_gtp("A5", 5)] = 100.0  # the net loves the eye
    bot = mcts(evaluator=FixedEvaluator(weights=weights))
    move = bot.choose(pos).move
    assert move not in (from_gtp("A5", 5), pos.pass_point) and pos.is_legal(move)
    only_eyes = """
        . X . X .
        X X X X X
        X X . X X
        X X X X X
        . X . X .
    """
    full = Position.from_diagram(only_eyes, to_play=BLACK)
    assert mcts().choose(full).move == full.pass_point


def test_a_timed_level_stops_in_time_and_a_clock_share_shortens_it() -> None:
    pos = Position(9)
    t0 = time.perf_counter()
    decision = mcts("mcts-2s", evaluator=FixedEvaluator(delay=0.01)).choose(pos)
    assert 1.0 < time.perf_counter() - t0 <= 2.0 and pos.is_legal(decision.move)
    t0 = time.perf_counter()
    mcts("mcts-1600", evaluator=FixedEvaluator(delay=0.01)).choose(pos, seconds=0.3)
    assert time.perf_counter() - t0 <= 0.3


def test_a_search_level_resigns_after_several_hopeless_moves_and_never_when_off() -> None:
    pos = Position(9)  # black to play, and black always loses
    bot = mcts(evaluator=FixedEvaluator(black_wins=0.01), resign_moves=3)
    decisions = [bot.choose(pos) for _ in range(3)]
    assert [d.move is None for d in decisions] == [False, False, True]
    assert all(d.win_rate < 0.05 for d in decisions)  # the search root's win rate
    never = mcts(evaluator=FixedEvaluator(black_wins=0.01), resign_threshold=0)
    assert all(never.choose(pos).move is not None for _ in range(5))
    fine = mcts(evaluator=FixedEvaluator(black_wins=0.3), resign_moves=1)
    assert fine.choose(pos).move is not None


def handicap_game(stones: int = 4, komi: float = 0.5) -> Position:
    pos = Position(9, komi=komi)
    pos.setup(black=fixed_handicap_points(9, stones), to_play=WHITE)
    return pos


def test_white_in_a_handicap_game_plays_on_with_a_low_win_rate_and_keeps_the_komi() -> None:
    pos = handicap_game()
    assert handicap_stones(pos) == 4
    bot = mcts(evaluator=FixedEvaluator(black_wins=0.98))  # white's win rate: 0.02
    for _ in range(4):
        decision = bot.choose(pos)
        assert decision.move is not None and pos.is_legal(decision.move), decision
        pos.play(decision.move)
        pos.play(bot.search_at(pos).result().best)  # black replies
    assert bot.search_at(pos).position.komi == 0.5
    even = Position(9, komi=0.5)
    even.to_play = WHITE
    bot = mcts(evaluator=FixedEvaluator(black_wins=0.98))
    assert [bot.choose(even).move is None for _ in range(3)] == [False, False, True]


def test_gtp_genmove_as_white_after_a_fixed_handicap_searches_the_handicap_with_whites_bonus() -> None:
    bot = mcts(evaluator=FixedEvaluator(black_wins=0.98))
    engine = GtpEngine(size=9, bot=bot)
    for line in ("komi 0.5", "fixed_handicap 4", "genmove w", "play b E5", "genmove w", "genmove w"):
        reply = engine.respond(line)
        assert reply.startswith("= ") and "resign" not in reply, (line, reply)
    searched = bot.search_at(engine.position).position
    # Chinese rules (the engine's default) give White a point for each handicap stone
    assert searched.komi == 4.5 and handicap_stones(searched) == 4 and len(searched.moves) == 4


def test_white_plays_on_early_in_a_handicap_game_whatever_its_win_rate() -> None:
    pos = handicap_game()
    for _ in range(25):
        assert resign_threshold(0.05, pos) == 0
        pos.pass_move()
        pos.pass_move()
    assert resign_threshold(0.05, pos) == 0.05  # 50 moves: past 0.6 of the 81 points
    assert resign_threshold(0.05, Position(9)) == 0.05


def test_the_darkforest_level_searches_only_the_top_moves_of_the_shipped_three_step_net() -> None:
    bot, _ = load_bot("darkforest-2s", resign_threshold=0)
    assert bot.net.config.future_moves == 3 and bot.level.tree_policy == "darkforest"
    pos = Position(19)
    for vertex in ("Q16", "D4", "Q3", "D16"):
        pos.play(from_gtp(vertex, 19))
    prior = bot.net.predict([pos]).policy[0]
    legal = np.append(pos.legal_points(), True)  # pass is always legal
    searched, _ = candidate_moves(prior, legal, bot.search_at(pos).config)
    assert 1 <= len(searched) < 20
    decision = bot.choose(pos)
    assert decision.move in searched.tolist() and 0 <= decision.win_rate <= 1
