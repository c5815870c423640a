"""The game clock: byo-yomi, Canadian and Fischer charging, running out, and the bot's share of its clock."""

from __future__ import annotations

import math

import pytest

from analysis.play.clock import MIN_SECONDS, PlayerClock, TimeControl, TimeControlError, moves_left

BYOYOMI = TimeControl("byoyomi", main=600, period=30, periods=5)
FISCHER = TimeControl("fischer", main=300, period=10)
CANADIAN = TimeControl("canadian", main=600, period=300, periods=25)


def test_byoyomi_spends_main_time_first_then_keeps_a_period_used_within_it() -> None:
    start = BYOYOMI.start()
    assert start == PlayerClock(600.0, 5)
    assert BYOYOMI.charge(start, 45.5) == PlayerClock(554.5, 5)
    in_periods = PlayerClock(0.0, 5)
    assert BYOYOMI.charge(in_periods, 30.0) == PlayerClock(0.0, 5)  # within a period: it stays whole
    assert BYOYOMI.charge(in_periods, 30.5) == PlayerClock(0.0, 4)  # past the first period: it is gone
    assert BYOYOMI.charge(in_periods, 75.0) == PlayerClock(0.0, 3)  # two periods gone, in the third
    assert BYOYOMI.charge(PlayerClock(10.0, 5), 25.0) == PlayerClock(0.0, 5)  # 15 s into the first


def test_the_last_periods_end_loses_on_time() -> None:
    last = PlayerClock(0.0, 1)
    assert BYOYOMI.charge(last, 30.0) == last
    assert BYOYOMI.charge(last, 30.1) is None
    assert BYOYOMI.time_left(last, 12.0) == 18.0
    absolute = TimeControl("byoyomi", main=60)
    assert absolute.charge(absolute.start(), 59.0) == PlayerClock(1.0, 0)
    assert absolute.charge(PlayerClock(1.0, 0), 1.5) is None


def test_fischer_adds_the_increment_after_each_move_and_loses_at_zero() -> None:
    assert FISCHER.start() == PlayerClock(300.0, 0)
    assert FISCHER.charge(FISCHER.start(), 25.0) == PlayerClock(285.0, 0)
    assert FISCHER.charge(PlayerClock(5.0), 4.0) == PlayerClock(11.0, 0)
    assert FISCHER.charge(PlayerClock(5.0), 5.0) == PlayerClock(10.0, 0)
    assert FISCHER.charge(PlayerClock(5.0), 5.5) is None


def test_overtimes_that_add_nothing_are_absolute_time() -> None:
    absolute = TimeControl("byoyomi", main=600)
    assert TimeControl("byoyomi", main=600, period=0, periods=5) == absolute
    assert TimeControl("byoyomi", main=600, period=30, periods=0) == absolute
    assert TimeControl("fischer", main=600, period=0) == absolute
    assert TimeControl("fischer", main=600, period=10, periods=5).periods == 0
    assert TimeControl("none", main=600, period=30, periods=5) == TimeControl()
    assert absolute.start() == PlayerClock(600.0, 0) and absolute.overtime() == ""


def test_canadian_overtime_gives_a_block_of_moves_a_time_and_a_new_block_after_its_last() -> None:
    assert CANADIAN.start() == PlayerClock(600.0, 0)  # main time: no block yet
    assert CANADIAN.charge(PlayerClock(600.0, 0), 100.0) == PlayerClock(500.0, 0)
    # main time runs out 10 s into the move: that move is the block's first, its 10 s the block's
    assert CANADIAN.charge(PlayerClock(20.0, 0), 30.0) == PlayerClock(290.0, 24)
    assert CANADIAN.charge(PlayerClock(290.0, 24), 90.0) == PlayerClock(200.0, 23)
    assert CANADIAN.charge(PlayerClock(12.0, 1), 11.5) == PlayerClock(300.0, 25)  # the last: a new block
    assert CANADIAN.charge(PlayerClock(12.0, 2), 12.5) is None  # past the block's end
    assert CANADIAN.time_left(PlayerClock(20.0, 0), 0.0) == 320.0
    assert CANADIAN.time_left(PlayerClock(20.0, 3), 5.0) == 15.0
    # without main time the game starts in a block; a turn taken back plays no move of it
    pure = TimeControl("canadian", period=60, periods=10)
    assert pure.start() == PlayerClock(60.0, 10)
    assert pure.charge(PlayerClock(60.0, 10), 5.0, moved=False) == PlayerClock(55.0, 10)
    assert TimeControl("canadian", main=60, period=0, periods=25) == TimeControl("byoyomi", main=60)
    assert TimeControl("canadian", main=60, period=300, periods=0) == TimeControl("byoyomi", main=60)
    assert CANADIAN.overtime() == "25/300 Canadian"
    assert CANADIAN.describe() == "10 min + 25 moves in 5 min"
    assert pure.describe() == "10 moves in 1 min"
    assert TimeControl("canadian", period=90, periods=1).describe() == "1 move in 90 s"


def test_the_bot_shares_a_canadian_block_over_its_moves() -> None:
    start = CANADIAN.move_seconds(CANADIAN.start(), 0.0, 19, 0, lag=1.0)
    assert start == pytest.approx(600 / 144 + 300 / 25 - 1)  # main time spread, and a block's move
    assert CANADIAN.move_seconds(PlayerClock(100.0, 4), 0.0, 19, 200, lag=1.0) == pytest.approx(25 - 1)
    assert CANADIAN.move_seconds(PlayerClock(10.0, 0), 20.0, 19, 200, lag=1.0) == pytest.approx(290 / 25 - 1)
    clock = CANADIAN.start()
    for move in range(0, 400, 2):  # a long game, half a second late each move and the lag spent
        spent = 0.5 + CANADIAN.move_seconds(clock, 0.5, 19, move, lag=1.0) + 1.0
        clock = CANADIAN.charge(clock, spent)
        assert clock is not None, move


def test_a_turn_taken_back_is_charged_without_fischers_increment() -> None:
    assert FISCHER.charge(PlayerClock(100.0), 20.0, moved=False) == PlayerClock(80.0, 0)
    assert BYOYOMI.charge(PlayerClock(0.0, 3), 45.0, moved=False) == PlayerClock(0.0, 2)


def test_no_clock_charges_nothing_and_never_runs_out() -> None:
    none = TimeControl()
    assert not none.timed and none.charge(none.start(), 1e6) == none.start()
    assert none.time_left(none.start(), 1e6) == math.inf
    assert none.move_seconds(none.start(), 0.0, 19, 0, lag=1.0) is None


@pytest.mark.parametrize("settings", [
    {"system": "blitz"}, {"system": "byoyomi"}, {"system": "fischer", "period": 10},
    {"system": "byoyomi", "main": -1}, {"system": "byoyomi", "main": 60, "period": 1801, "periods": 1},
    {"system": "byoyomi", "main": 60, "period": 30, "periods": 31},
    {"system": "fischer", "main": 3 * 3600 + 1}, {"system": "canadian", "period": 300},
    {"system": "canadian", "main": 60, "period": 300, "periods": 31},
])
def test_settings_that_make_no_clock_are_refused_with_the_reason(settings: dict) -> None:
    with pytest.raises(TimeControlError):
        TimeControl(**settings)


def test_the_overtime_is_named_as_sgf_ot_names_it_and_the_control_in_words() -> None:
    assert BYOYOMI.overtime() == "5x30 byo-yomi"
    assert FISCHER.overtime() == "Fischer 10"
    assert TimeControl("byoyomi", main=60).overtime() == TimeControl().overtime() == ""
    assert BYOYOMI.describe() == "10 min + 5×30 s byo-yomi"
    assert FISCHER.describe() == "5 min + 10 s Fischer"
    assert TimeControl("byoyomi", main=90).describe() == "90 s absolute"
    assert TimeControl("byoyomi", period=20, periods=3).describe() == "3×20 s byo-yomi"


def test_the_bot_spreads_main_time_and_stays_inside_its_period() -> None:
    # 19x19 from the start: 144 moves of its own ahead; a period is spent only after the main time.
    assert moves_left(19, 0) == 144
    assert BYOYOMI.move_seconds(BYOYOMI.start(), 0.0, 19, 0, lag=1.0) == pytest.approx(600 / 144 + 30 - 1)
    # In byo-yomi, 12 s into a period (the queue's delay): what the period has left, less the lag.
    assert BYOYOMI.move_seconds(PlayerClock(0.0, 3), 12.0, 19, 200, lag=1.0) == pytest.approx(17.0)
    assert BYOYOMI.move_seconds(PlayerClock(0.0, 3), 72.0, 19, 200, lag=1.0) == pytest.approx(17.0)
    assert BYOYOMI.move_seconds(PlayerClock(0.0, 1), 30.0, 19, 200, lag=1.0) == MIN_SECONDS  # none left
    # Fischer: never more than half of what is left.
    assert FISCHER.move_seconds(PlayerClock(20.0), 0.0, 9, 60, lag=1.0) == pytest.approx(10.0 - 1)
    # Half a second into its turn, its share, then the lag it kept: on a long game (300 moves on
    # 19x19; absolute time on 9x9 for 80 moves, more than most 9x9 games last) every move is in time.
    absolute = TimeControl("byoyomi", main=120)
    for control, size, moves in ((BYOYOMI, 19, 300), (FISCHER, 19, 300), (absolute, 9, 80)):
        clock = control.start()
        for move in range(0, moves, 2):
            spent = 0.5 + control.move_seconds(clock, 0.5, size, move, lag=1.0) + 1.0
            clock = control.charge(clock, spent)
            assert clock is not None, (control, move)
