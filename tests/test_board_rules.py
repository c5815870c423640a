"""Rules of play on ASCII diagrams: captures, suicide, ko, superko, undo, hashing.

Diagrams: X black, O white, . empty; row 1 is the bottom line, column A the left.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from analysis.go.coords import BLACK, WHITE, CoordinateError, from_gtp
from analysis.go.diagram import format_board, parse_board
from analysis.go.position import GoError, IllegalMoveError, Position


def at(pos: Position, vertex: str) -> int:
    return from_gtp(vertex, pos.size)


def play(pos: Position, *vertices: str) -> None:
    """Play alternating moves starting with the colour to move."""
    for v in vertices:
        pos.play(at(pos, v))


def board(pos: Position) -> str:
    return format_board(pos.stones())


def same(diagram: str) -> str:
    return format_board(parse_board(diagram))


def test_single_stone_in_the_centre_is_captured_and_counted_as_prisoner() -> None:
    pos = Position.from_diagram("""
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
    """)
    assert pos.liberties(at(pos, "C3")) == 1
    assert pos.play(at(pos, "C2"), BLACK) == 1
    assert board(pos) == same("""
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
    """)
    assert pos.prisoners(BLACK) == 1 and pos.prisoners(WHITE) == 0


def test_corner_and_edge_stones_are_captured_on_their_last_liberty() -> None:
    pos = Position.from_diagram("""
        O X . . O
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    assert pos.liberties(at(pos, "A5")) == 1
    assert pos.liberties(at(pos, "E5")) == 2
    assert pos.liberties(at(pos, "B5")) == 2
    assert pos.play(at(pos, "E4"), BLACK) == 0
    assert pos.play(at(pos, "D5"), BLACK) == 1
    assert pos.color_at(at(pos, "E5")) == 0
    assert pos.play(at(pos, "A4"), BLACK) == 1
    assert not (pos.stones() == WHITE).any()


def test_multi_stone_string_is_captured_whole_and_liberties_of_neighbours_grow() -> None:
    pos = Position.from_diagram("""
        . X X X .
        X O O O X
        X O . O X
        . X . X .
        . . . . .
    """)
    white = at(pos, "B4")
    assert len(pos.string(white)) == 5
    assert pos.liberties(white) == 1
    assert pos.liberties(at(pos, "B5")) == 2
    assert pos.play(at(pos, "C3"), BLACK) == 5
    assert board(pos) == same("""
        . X X X .
        X . . . X
        X . X . X
        . X . X .
        . . . . .
    """)
    assert pos.liberties(at(pos, "C3")) == 4
    assert pos.liberties(at(pos, "B5")) == 5
    assert pos.prisoners(BLACK) == 5


def test_a_move_that_looks_like_suicide_is_legal_when_it_captures() -> None:
    pos = Position.from_diagram("""
        . O X . .
        O X . . .
        X . . . .
        . . . . .
        . . . . .
    """, to_play=BLACK)
    # Black at A5 has no liberty of its own but captures the white stones A4 and B5.
    assert pos.play(at(pos, "A5")) == 2


def test_single_stone_suicide_is_illegal_and_leaves_the_board_unchanged() -> None:
    pos = Position.from_diagram("""
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    before = board(pos), pos.hash
    with pytest.raises(IllegalMoveError) as err:
        pos.play(at(pos, "A5"), BLACK)
    assert err.value.reason == "suicide"
    assert "A5" in str(err.value) and "suicide" in str(err.value)
    assert (board(pos), pos.hash) == before
    assert pos.moves == []


def test_multi_stone_suicide_is_illegal() -> None:
    pos = Position.from_diagram("""
        X X O . .
        . O . . .
        O . . . .
        . . . . .
        . . . . .
    """)
    with pytest.raises(IllegalMoveError, match="suicide"):
        pos.play(at(pos, "A4"), BLACK)


def test_snapback_recaptures_more_stones_than_were_sacrificed() -> None:
    pos = Position.from_diagram("""
        . . . . .
        . . . . .
        O O O O .
        X X X X O
        X . . X O
    """, to_play=WHITE)
    assert pos.play(at(pos, "B1")) == 0  # the throw-in: in atari, but not suicide
    assert pos.liberties(at(pos, "A1")) == 1
    assert pos.play(at(pos, "C1")) == 1  # black takes it...
    assert pos.ko_point is None  # ...with a 7-stone string, so no ko
    assert pos.liberties(at(pos, "C1")) == 1
    assert pos.play(at(pos, "B1")) == 7  # ...and white takes the whole string back
    assert board(pos) == same("""
        . . . . .
        . . . . .
        O O O O .
        . . . . O
        . O . . O
    """)





def test_simple_ko_forbids_the_immediate_recapture_but_not_after_a_threat() -> None:
    pos = Position.from_diagram("""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
    """, to_play=WHITE)
    assert pos.play(at(pos, "B4")) == 1  # white takes the ko at C4
    ko = at(pos, "C4")
    assert pos.ko_point == ko
    assert pos.illegal_reason(ko) == "ko"
    with pytest.raises(IllegalMoveError) as err:
        pos.play(ko)
    assert err.value.reason == "ko"
    play(pos, "E1", "E2")  # a threat and an answer elsewhere
    assert pos.play(ko) == 1  # now black may retake
    assert pos.illegal_reason(at(pos, "B4")) == "ko"


def test_capturing_two_stones_is_not_a_ko() -> None:
    pos = Position.from_diagram("""
        . X O O .
        . . X X O
        . . . . .
        . . . . .
        . . . . .
    """)
    assert pos.play(at(pos, "E5"), BLACK) == 2
    assert pos.liberties(at(pos, "E5")) == 1
    assert pos.ko_point is None
    assert pos.play(at(pos, "D5"), WHITE) == 1  # the immediate recapture is legal


def test_ko_point_is_forbidden_only_to_the_player_who_would_recapture() -> None:
    pos = Position.from_diagram("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
    """, to_play=BLACK)
    assert pos.play(at(pos, "C4")) == 1  # black captures B4 in a ko
    ko = at(pos, "B4")
    assert pos.board.ko == ko
    assert pos.illegal_reason(ko, WHITE) == "ko"
    assert pos.illegal_reason(ko, BLACK) is None  # black may fill the ko


SUPERKO_MOVES = ["A1", "B3", "A3", "B4", "D3", "C1", "B2", "C3", "D2", "D1", "A4", "A2"]


def test_positional_superko_forbids_recreating_an_earlier_position() -> None:
    pos = Position(4, superko=True)
    play(pos, *SUPERKO_MOVES)
    assert board(pos) == same("""
        . O . .
        . O O X
        O X . X
        X . O O
    """)
    # Black A3 would capture A2 and recreate the position after white's D1:
    # not a simple ko (white's A2 captured two stones), but a superko.
    assert pos.illegal_reason(at(pos, "A3")) == "superko"
    with pytest.raises(IllegalMoveError) as err:
        pos.play(at(pos, "A3"))
    assert err.value.reason == "superko"
    pos.superko = False
    assert pos.play(at(pos, "A3")) == 1


def test_pass_clears_the_ko_and_is_recorded() -> None:
    pos = Position.from_diagram("""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
    """, to_play=WHITE)
    pos.play(at(pos, "B4"))
    pos.pass_move()
    pos.pass_move()
    assert pos.consecutive_passes() == 2
    assert pos.ko_point is None
    assert pos.play(at(pos, "C4")) == 1


def test_occupied_point_is_illegal() -> None:
    pos = Position(9)
    pos.play(at(pos, "E5"))
    with pytest.raises(IllegalMoveError) as err:
        pos.play(at(pos, "E5"))
    assert err.value.reason == "occupied"


def test_off_board_points_and_sizes_are_rejected() -> None:
    pos = Position(9)
    with pytest.raises(ValueError):
        pos.play(82)
    with pytest.raises(ValueError):
        pos.play(-1)
    for bad in (1, 26, 0):
        with pytest.raises(CoordinateError):
            Position(bad)
    Position(2).play(0)
    Position(25).play(624)


def test_undo_restores_stones_hash_ko_and_prisoners_exactly() -> None:
    rng = random.Random(3)
    pos = Position(9, superko=True)
    snapshots = []
    for _ in range(400):
        snapshots.append((pos.stones(), pos.hash, pos.board.ko, pos.prisoners(BLACK), pos.prisoners(WHITE),
                          pos.liberty_counts(), pos.to_play))
        legal = pos.legal_points().nonzero()[0].tolist()
        pos.play(rng.choice(legal) if legal else pos.pass_point)
    while pos.moves:
        pos.undo()
        stones, h, ko, pb, pw, libs, to_play = snapshots.pop()
        assert np.array_equal(pos.stones(), stones)
        assert (pos.hash, pos.board.ko, pos.prisoners(BLACK), pos.prisoners(WHITE), pos.to_play) == (
            h, ko, pb, pw, to_play)
        assert np.array_equal(pos.liberty_counts(), libs)
    with pytest.raises(GoError):
        pos.undo()


def test_incremental_liberties_match_a_recount_from_scratch() -> None:
    rng = random.Random(11)
    pos = Position(13)
    for _ in range(300):
        legal = pos.legal_points().nonzero()[0].tolist()
        pos.play(rng.choice(legal) if legal else pos.pass_point)
    fresh = Position.from_diagram(format_board(pos.stones()))
    assert np.array_equal(pos.liberty_counts(), fresh.liberty_counts())
    assert pos.hash == fresh.hash


def test_the_same_position_reached_by_two_move_orders_has_the_same_hash() -> None:
    a, b = Position(9), Position(9)
    play(a, "C3", "G7", "D4", "F6")
    play(b, "D4", "F6", "C3", "G7")
    assert a.hash == b.hash
    play(b, "E5")
    assert a.hash != b.hash


def test_setup_stones_are_one_undoable_step() -> None:
    pos = Position(9)
    pos.setup(black=[at(pos, "C3"), at(pos, "G7")], white=[at(pos, "E5")], to_play=WHITE)
    assert pos.to_play == WHITE
    assert pos.color_at(at(pos, "E5")) == WHITE
    assert pos.moves == []
    pos.undo()
    assert not pos.stones().any()
    assert pos.to_play == BLACK


def test_copy_is_independent() -> None:
    pos = Position(9)
    play(pos, "E5")
    other = pos.copy()
    play(other, "E6")
    assert pos.color_at(at(pos, "E6")) == 0
    assert other.color_at(at(other, "E6")) == WHITE
    assert len(other.moves) == 2 and len(pos.moves) == 1


def test_two_by_two_board_where_every_filling_move_captures() -> None:
    pos = Position(2)
    play(pos, "A1", "B2", "B1")
    assert pos.play(at(pos, "A2"), WHITE) == 2  # fills its own last liberty but captures first
    assert board(pos) == same("""
        O O
        . .
    """)
    assert pos.play(at(pos, "A1"), BLACK) == 0
    assert pos.play(at(pos, "B1"), WHITE) == 1  # A1 had only B1
    assert pos.play(at(pos, "A1"), BLACK) == 3  # and now white has only A1
    assert pos.ko_point is None  # three stones were taken: no ko
    assert board(pos) == same("""
        . .
        X .
    """)


def test_eye_detection_counts_diagonals() -> None:
    pos = Position.from_diagram("""
        . X . . . .
        X O . . . .
        . . . . . .
        . X X O . .
        . X . X . .
        . X X X . .
    """)
    assert not pos.is_eye(at(pos, "A6"), BLACK)  # on the edge, one enemy diagonal makes it false
    assert pos.is_eye(at(pos, "C2"), BLACK)  # in the middle, one enemy diagonal is allowed
    pos.setup(white=[at(pos, "D1")])
    assert not pos.is_eye(at(pos, "C2"), BLACK)  # two enemy diagonals: a false eye
    assert not pos.is_eye(at(pos, "C2"), WHITE)
    assert not pos.is_eye(at(pos, "B2"), BLACK)  # occupied


