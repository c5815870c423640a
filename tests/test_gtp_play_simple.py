"""The simple move chooser behind genmove, and the final status of strings behind final_status_list."""

from __future__ import annotations

import random

from analysis.go.coords import BLACK, WHITE, from_gtp, to_gtp
from analysis.go.position import Position
from analysis.play.simple import best_capture, best_rescue, candidates, choose_move, is_big_self_atari
from analysis.play.status import string_statuses


def gtp(points: list[int], size: int) -> list[str]:
    return [to_gtp(p, size) for p in points]


def test_captures_the_largest_string_in_atari() -> None:
    pos = Position.from_diagram(
        """
        . O X . . . .
        O X . . . . .
        X . . . . . .
        . . . . . X X
        . . . . X O O
        . . . . X O O
        . . . . . X .
        """
    )
    # White B7 and A6 (two stones, both with the liberty A7) and F3-G2 (four, liberty G1) are in atari.
    assert to_gtp(choose_move(pos, BLACK, random.Random(0)), 7) == "G1"
    assert to_gtp(best_capture(pos, BLACK, set(candidates(pos, BLACK))), 7) == "G1"


def test_saves_a_string_in_atari_when_extending_gives_more_than_two_liberties() -> None:
    pos = Position.from_diagram(
        """
        . . . . . . .
        . . . . . . .
        . . O . . . .
        . O X O . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    assert to_gtp(choose_move(pos, BLACK, random.Random(1)), 7) == "C3"


def test_does_not_extend_when_the_string_would_still_be_short_of_liberties() -> None:
    pos = Position.from_diagram(
        """
        . . . . . . .
        . . . . . . .
        . . O . . . .
        . O X O . . .
        . O . O . . .
        . . O . . . .
        . . . . . . .
        """
    )
    assert best_rescue(pos, BLACK, set(candidates(pos, BLACK))) is None


def test_never_fills_its_own_real_eye() -> None:
    pos = Position.from_diagram(
        """
        . X . X O . .
        X X X X O . .
        X . X X O . .
        X X X O O . .
        O O O O . . .
        . . . . . . .
        . . . . . . .
        """
    )
    eyes = {"A7", "C7", "B5"}
    for seed in range(40):
        assert to_gtp(choose_move(pos, BLACK, random.Random(seed)), 7) not in eyes


def test_avoids_self_atari_of_more_than_one_stone() -> None:
    pos = Position.from_diagram(
        """
        . X . . . . .
        X O X . . . .
        X . X . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_play=WHITE,
    )
    # Extending B6 to B5 leaves two white stones with the single liberty B4.
    extend = from_gtp("B5", 7)
    assert is_big_self_atari(pos, extend, WHITE)
    assert not is_big_self_atari(pos, from_gtp("E4", 7), WHITE)
    assert extend not in candidates(pos, WHITE)
    assert best_rescue(pos, WHITE, set(candidates(pos, WHITE))) is None


def test_single_stone_self_atari_is_allowed() -> None:
    pos = Position.from_diagram(
        """
        . . . . .
        . . . . .
        . . X . .
        . X . X .
        . . . . .
        """
    )
    point = from_gtp("C2", 5)
    assert not is_big_self_atari(pos, point, WHITE)
    assert point in candidates(pos, WHITE)


def test_opening_moves_are_on_the_third_and_fourth_lines() -> None:
    pos = Position(19)
    lines = {3, 4}
    for seed in range(30):
        row, col = divmod(choose_move(pos, BLACK, random.Random(seed)), 19)
        assert min(row, col, 18 - row, 18 - col) + 1 in lines


def test_later_moves_stay_near_the_last_moves() -> None:
    rng = random.Random(5)
    pos = Position(9)
    for point in rng.sample(range(81), 14):
        if pos.is_legal(point):
            pos.play(point)
    pos.play(from_gtp("E5", 9) if pos.is_legal(from_gtp("E5", 9)) else pos.pass_point)
    recent = [divmod(m.point, 9) for m in pos.moves[-2:] if m.point != pos.pass_point]
    for seed in range(30):
        row, col = divmod(choose_move(pos, pos.to_play, random.Random(seed)), 9)
        assert any(abs(row - r) <= 2 and abs(col - c) <= 2 for r, c in recent)


def test_choosing_leaves_the_position_unchanged() -> None:
    pos = Position(9)
    for vertex in ("E5", "D5", "D4", "E4", "F4", "C4"):
        pos.play(from_gtp(vertex, 9))
    before = (pos.hash, list(pos.steps), pos.to_play)
    choose_move(pos, BLACK, random.Random(0))
    assert (pos.hash, list(pos.steps), pos.to_play) == before


def test_passes_when_no_sensible_move_is_left() -> None:
    pos = Position.from_diagram(
        """
        . X O . O
        X X O O O
        X X O . O
        X X O O O
        . X O O .
        """
    )
    assert choose_move(pos, BLACK, random.Random(0)) == pos.pass_point
    assert choose_move(pos, WHITE, random.Random(0)) == pos.pass_point


def test_string_statuses_sort_strings_into_alive_dead_and_seki() -> None:
    pos = Position.from_diagram(
        """
        . O O X .
        X X O X .
        . O O X .
        X X X X .
        . . . . O
        """
    )
    statuses = string_statuses(pos, dead={from_gtp("E1", 5)})
    named = {status: [gtp(s, 5) for s in strings] for status, strings in statuses.items()}
    assert named["seki"] == [["B5", "C5", "C4", "B3", "C3"], ["A4", "B4"]]
    assert named["dead"] == [["E1"]]
    assert named["alive"] == [["D5", "D4", "D3", "A2", "B2", "C2", "D2"]]
