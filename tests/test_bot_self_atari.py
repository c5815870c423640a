"""The bot never gives a string away by a self-atari that captures nothing (analysis.bot.self_atari),
as it did by filling a seki's shared liberty in a won game, but keeps its sacrifices: throw-ins of
up to three stones, and stones given up inside the opponent's eye space in a killing shape.

Diagrams: X black, O white, . empty; row 1 is the bottom line, column A the left.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis.bot.eye_safe import EyeSafeEvaluator
from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.bot.self_atari import bad_self_ataris, is_killing_shape
from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.position import Position
from analysis.nets.inference import Prediction

# A corner seki: Black's three stones (eye A9) and White's group (eye E9) share the liberty C9.
# Black filling C9 puts its four stones in atari and White's A9 takes them (the audit's game).
SEKI = """
    . X . O . O X . .
    X X O O O O X . .
    O O O X X X X . .
    X X X X . . . . .
    . . . . . . . . .
    X X X X X X X X X
    O O O O O O O O O
    . . . . . . . . .
    . . . . . . . . .
"""

# Black's four stones inside White's eye space would make a square four once taken: a sacrifice.
NAKADE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    O O O O O . . . .
    O X X . O . . . .
    O X . O O . . . .
    O O O O . . . . .
"""


def at(vertex: str) -> int:
    return from_gtp(vertex, 9)


def test_the_killing_shapes_count_in_every_orientation_and_living_shapes_do_not() -> None:
    square = [at(v) for v in ("A1", "B1", "A2", "B2")]
    bent = [at(v) for v in ("A1", "B1", "C1", "C2")]  # bent four: two eyes
    pyramid = [at(v) for v in ("E5", "D4", "E4", "F4")]
    upside_down = [at(v) for v in ("E3", "D4", "E4", "F4")]
    rabbity = [at(v) for v in ("B3", "A2", "B2", "C2", "B1", "C1")]
    assert is_killing_shape(square, 9) and is_killing_shape(pyramid, 9) and is_killing_shape(upside_down, 9)
    assert is_killing_shape(rabbity, 9) and not is_killing_shape(bent, 9)


def test_filling_a_sekis_shared_liberty_or_ones_own_eye_in_it_is_a_bad_self_atari_and_nothing_else() -> None:
    position = Position.from_diagram(SEKI, komi=7.5, to_play=BLACK)
    legal = np.flatnonzero(position.legal_points()).tolist()
    assert bad_self_ataris(position, legal) == [at("C9")]
    white = Position.from_diagram(SEKI, komi=7.5, to_play=WHITE)
    assert bad_self_ataris(white, np.flatnonzero(white.legal_points()).tolist()) == [at("C9"), at("E9")]
    assert position.stones().tolist() == Position.from_diagram(SEKI).stones().tolist()  # unchanged


def test_a_throw_in_and_a_sacrifice_in_a_killing_shape_are_kept() -> None:
    position = Position.from_diagram(NAKADE, komi=7.5, to_play=BLACK)
    assert position.liberties(at("B3")) == 2
    assert bad_self_ataris(position, [at("C2")]) == []  # four stones in atari: a square four once taken
    throw_in = Position.from_diagram(SEKI, komi=7.5, to_play=WHITE)
    assert bad_self_ataris(throw_in, [at("A9")]) == []  # one stone into Black's eye: suicide-free throw-in


class LovesC9:
    """A policy net whose first choice is C9, then E5; an even game."""

    has_value = True

    def predict(self, positions: Sequence[Position]) -> Prediction:
        p = np.full(82, 1e-4)
        p[at("C9")], p[at("E5")] = 0.9, 0.05
        return Prediction((p / p.sum())[None, None].astype(np.float32), np.zeros(1, dtype=np.float32))


class SekiEvaluator:
    """A search evaluator whose priors favour C9 and whose values are even."""

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        priors = np.array([np.append(p.legal_points(), 1.0) for p in positions], dtype=float)
        priors[:, at("C9")] *= 200
        return priors / priors.sum(axis=1, keepdims=True), np.full(len(positions), 0.5), None


def test_neither_the_policy_level_nor_the_searchs_priors_fill_the_seki() -> None:
    position = Position.from_diagram(SEKI, komi=7.5, to_play=BLACK)
    decision = Bot(get_level("policy"), LovesC9(), resign_threshold=0).choose(position)
    assert decision.move == at("E5")
    priors, _, _ = EyeSafeEvaluator(SekiEvaluator()).evaluate([position])
    assert priors[0][at("C9")] == 0 and priors[0][at("A9")] == 0  # the seki's liberty, and Black's eye
