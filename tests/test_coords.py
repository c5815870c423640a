"""Coordinate conversions between SGF, GTP, (row, col) and flat indices."""

from __future__ import annotations

import pytest

from analysis.go import coords
from analysis.go.coords import CoordinateError


@pytest.mark.parametrize(
    ("sgf", "gtp", "rowcol", "size"),
    [
        ("pd", "Q16", (3, 15), 19),
        ("dp", "D4", (15, 3), 19),
        ("aa", "A19", (0, 0), 19),
        ("ss", "T1", (18, 18), 19),
        ("ia", "J9", (0, 8), 9),
        ("ee", "E5", (4, 4), 9),
        ("ai", "A1", (8, 0), 9),
        ("yy", "Z1", (24, 24), 25),
    ],
)
def test_every_notation_names_the_same_point(sgf: str, gtp: str, rowcol: tuple[int, int], size: int) -> None:
    point = coords.from_rowcol(*rowcol, size)
    assert coords.from_sgf(sgf, size) == point
    assert coords.from_gtp(gtp, size) == point
    assert coords.from_gtp(gtp.lower(), size) == point
    assert coords.to_sgf(point, size) == sgf
    assert coords.to_gtp(point, size) == gtp
    assert coords.to_rowcol(point, size) == rowcol


def test_gtp_columns_skip_the_letter_i() -> None:
    assert coords.to_gtp(coords.from_rowcol(0, 8, 19), 19) == "J19"
    with pytest.raises(CoordinateError):
        coords.from_gtp("I5", 19)


def test_pass_in_every_notation() -> None:
    assert coords.from_sgf("", 19) == 361
    assert coords.from_sgf("tt", 19) == 361
    assert coords.from_sgf("tt", 9) == 81
    assert coords.from_gtp("PASS", 9) == 81
    assert coords.to_gtp(81, 9) == "pass"
    assert coords.to_sgf(81, 9) == ""
    assert coords.to_rowcol(81, 9) is None
    assert coords.is_pass(81, 9)


def test_tt_is_a_real_point_on_boards_larger_than_19() -> None:
    assert coords.from_sgf("tt", 21) == coords.from_rowcol(19, 19, 21)


@pytest.mark.parametrize("text", ["zz", "p", "pdd", "P4", "t"])
def test_malformed_or_off_board_sgf_points_raise(text: str) -> None:
    with pytest.raises(CoordinateError):
        coords.from_sgf(text, 19)


@pytest.mark.parametrize("text", ["K1", "A0", "A10", "11", "", "E5x", "I3"])
def test_malformed_or_off_board_gtp_vertices_raise(text: str) -> None:
    with pytest.raises(CoordinateError):
        coords.from_gtp(text, 9)


@pytest.mark.parametrize("text", ["A\u0663", "A\u00b2", "E\uff15", "\u212a5", "A" + "1" * 5000, "A+3", "A 3"])
def test_a_vertex_is_an_ascii_letter_and_ascii_digits_and_the_error_quotes_a_short_part(text: str) -> None:
    with pytest.raises(CoordinateError) as refused:
        coords.from_gtp(text, 19)
    assert str(refused.value).startswith("invalid vertex '") and len(str(refused.value)) < 40


def test_a_vertex_may_have_a_leading_zero_and_any_case_and_surrounding_spaces() -> None:
    assert coords.from_gtp(" a03 ", 9) == coords.from_gtp("A3", 9) == 6 * 9


@pytest.mark.parametrize("size", [0, 1, 26, 19.0])
def test_unsupported_board_sizes_raise(size: int) -> None:
    with pytest.raises(CoordinateError):
        coords.check_size(size)


def test_neighbours_stop_at_the_edges() -> None:
    assert sorted(coords.neighbors(0, 9)) == [1, 9]
    assert sorted(coords.neighbors(40, 9)) == [31, 39, 41, 49]
    assert len(coords.neighbors(80, 9)) == 2


def test_colours() -> None:
    assert coords.parse_color("B") == coords.BLACK
    assert coords.parse_color("white") == coords.WHITE
    with pytest.raises(ValueError):
        coords.parse_color("red")
