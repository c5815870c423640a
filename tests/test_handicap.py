"""Handicap placement: fixed handicap matches GNU Go stone for stone; free handicap spreads out."""

from __future__ import annotations

import shutil

import pytest

from analysis.go.coords import to_gtp
from analysis.go.handicap import (
    HandicapError,
    fixed_handicap_points,
    free_handicap_points,
    max_fixed_handicap,
)
from analysis.gtp.client import GNUGO, GtpError, gnugo


@pytest.mark.skipif(shutil.which(GNUGO) is None, reason="GNU Go is installed by `make test`")
def test_fixed_handicap_matches_gnugo_on_every_size_and_count() -> None:
    checked = 0
    with gnugo() as engine:
        for size in range(2, 20):
            engine.send(f"boardsize {size}")
            for stones in range(2, 10):
                engine.send("clear_board")
                try:
                    theirs = set(engine.send(f"fixed_handicap {stones}").split())
                except GtpError:
                    theirs = None
                if theirs is None:
                    with pytest.raises(HandicapError):
                        fixed_handicap_points(size, stones)
                else:
                    ours = {to_gtp(p, size) for p in fixed_handicap_points(size, stones)}
                    assert ours == theirs, (size, stones)
                    checked += 1
    assert checked >= 8 * 3  # at least every count on 9, 13 and 19


def test_fixed_handicap_order_follows_the_gtp_spec() -> None:
    assert [to_gtp(p, 19) for p in fixed_handicap_points(19, 5)] == ["Q16", "D4", "D16", "Q4", "K10"]
    assert [to_gtp(p, 9) for p in fixed_handicap_points(9, 2)] == ["G7", "C3"]


def test_fixed_handicap_limits() -> None:
    assert max_fixed_handicap(19) == 9
    assert max_fixed_handicap(10) == 4
    assert max_fixed_handicap(7) == 4
    assert max_fixed_handicap(5) == 0
    with pytest.raises(HandicapError, match="invalid handicap"):
        fixed_handicap_points(19, 10)
    with pytest.raises(HandicapError):
        fixed_handicap_points(19, 1)


@pytest.mark.parametrize(
    ("size", "stones"), [(19, 2), (19, 9), (19, 13), (19, 30), (9, 12), (13, 20), (3, 8)]
)
def test_free_handicap_gives_distinct_points(size: int, stones: int) -> None:
    points = free_handicap_points(size, stones)
    assert len(points) == stones
    assert len(set(points)) == stones
    assert all(0 <= p < size * size for p in points)


def test_free_handicap_rejects_impossible_counts() -> None:
    with pytest.raises(HandicapError):
        free_handicap_points(9, 81)
    with pytest.raises(HandicapError):
        free_handicap_points(9, 1)
