"""Time controls on games against the bot: the server's clock charges each move, ends the game on
time, stops while scoring, is recorded in the SGF, and reaches the page and the bot."""

from __future__ import annotations

import asyncio
import time

import pytest

from analysis.play.clock import TimeControl
from analysis.sgf import read_sgf
from frontend import tasks
from frontend.forms import NewGameForm
from frontend.models import Game
from frontend.services import board, clock, dispatch, games
from tests.web_helpers import connect, make_game, new_session, receive_until

pytestmark = pytest.mark.django_db(transaction=True)

BYOYOMI = TimeControl("byoyomi", main=60, period=10, periods=2)


def timed_game(control: TimeControl = BYOYOMI, **settings: object) -> Game:
    return make_game(new_session(), time_control=control, **settings)


def age(game: Game, seconds: float) -> None:
    """Move the running turn's start ``seconds`` into the past (as if the player had thought)."""
    game.refresh_from_db()
    game.clock["since"] -= seconds
    game.save()


def test_a_new_game_records_its_control_and_runs_the_first_players_clock() -> None:
    game = timed_game()
    assert game.clock["B"] == [60.0, 2] and game.clock["W"] == [60.0, 2] and game.clock["since"] > 0
    root = read_sgf(game.sgf).root
    assert root.get("TM") == "60" and root.get("OT") == "2x10 byo-yomi"
    state = board.current(game.pk).state["clock"]
    assert state["running"] == "B" and state["B"] == {"main": 60.0, "periods": 2}
    assert state["overtime"] == "2x10 byo-yomi" and 0 <= state["elapsed"] < 5
    assert board.current(make_game(new_session()).pk).state["clock"] is None  # no clock, none shown
    assert timed_game(handicap=2).clock["turn"] == "W"  # White moves first after the handicap


def test_each_move_is_charged_to_its_player_and_recorded_in_the_sgf() -> None:
    game = timed_game(bot_level="policy")
    age(game, 25.0)
    board.human_move(game.pk, "E5")
    game.refresh_from_db()
    assert game.clock["B"][0] == pytest.approx(35.0, abs=1.0) and game.clock["B"][1] == 2
    moves = list(read_sgf(game.sgf).main_line())
    assert float(moves[-1].get("BL")) == pytest.approx(35.0, abs=1.0)
    with games.locked(game.pk) as loaded:  # the bot's reply, 75 s later: main time and a period gone
        games.play(loaded, "W", "C3", now=loaded.game.clock["since"] + 75.0)
    game.refresh_from_db()
    assert game.clock["W"] == [0.0, 1]
    last = list(read_sgf(game.sgf).main_line())[-1]  # in byo-yomi: the period ahead and the periods left
    assert (last.get("WL"), last.get("OW")) == ("10.0", "1")
    assert moves[-1].get("OB") is None  # Black is still in its main time


def test_a_canadian_clock_counts_its_periods_moves_in_the_sgf_and_an_undo_restores_them() -> None:
    game = timed_game(control=TimeControl("canadian", main=30, period=60, periods=3), bot_level="policy")
    assert read_sgf(game.sgf).root.get("OT") == "3/60 Canadian"
    with games.locked(game.pk) as loaded:
        start = loaded.game.clock["since"] = time.time() - 85.0  # Black's turn: 5 s ago
        games.play(loaded, "B", "E5", now=start + 10.0)  # main time: 20 s left
        games.play(loaded, "W", "C3", now=start + 50.0)  # 30 s of main, 10 s of the period: 50 s, 2 moves
        games.play(loaded, "B", "G5", now=start + 60.0)
        games.play(loaded, "W", "C7", now=start + 80.0)  # 30 s left for 1 move
    game.refresh_from_db()
    assert game.clock["B"] == [10.0, 0] and game.clock["W"] == [30.0, 1]
    moves = list(read_sgf(game.sgf).main_line())
    assert (moves[2].get("WL"), moves[2].get("OW")) == ("50.0", "2")  # the period's seconds and moves left
    assert moves[-1].get("OW") == "1" and moves[-2].get("OB") is None
    board.undo(game.pk)  # G5 and C7 taken back: White has 50 s for 2 moves again
    game.refresh_from_db()
    assert game.clock["W"] == [50.0, 2]
    assert board.current(game.pk).state["clock"]["W"] == {"main": 50.0, "periods": 2}
    assert game.clock["B"][1] == 0 and game.clock["B"][0] == pytest.approx(20.0 - 5.0, abs=1.0)


def test_an_undo_of_the_move_that_finished_a_canadian_period_does_not_give_a_new_one() -> None:
    game = timed_game(control=TimeControl("canadian", main=0, period=60, periods=2), bot_level="policy")
    with games.locked(game.pk) as loaded:
        start = loaded.game.clock["since"] = time.time() - 62.0
        games.play(loaded, "B", "E5", now=start + 40.0)  # 20 s left for 1 move
        games.play(loaded, "W", "C3", now=start + 45.0)
        games.play(loaded, "B", "G5", now=start + 50.0)  # the period's last move: a new one, whole
        games.play(loaded, "W", "C7", now=start + 60.0)
    game.refresh_from_db()
    assert game.clock["B"] == [60.0, 2]
    board.undo(game.pk)  # 2 s after C7: Black is back in its period, 20 s for 1 move, less those 2 s
    game.refresh_from_db()
    assert game.clock["B"][1] == 1 and game.clock["B"][0] == pytest.approx(18.0, abs=1.0)


def test_a_paused_clock_stops_refuses_moves_and_runs_on_from_where_it_stopped() -> None:
    game = timed_game(bot_level="policy")
    age(game, 20.0)
    outcome = board.pause(game.pk)
    paused = outcome.state["clock"]
    assert paused["paused"] == "B" and paused["running"] is None
    assert paused["elapsed"] == pytest.approx(20, abs=1)
    game.refresh_from_db()
    game.clock["paused"] = 80.0  # well past the player's 60 s + 2 periods, had the clock run: it did not
    game.save()
    assert board.current(game.pk).state["phase"] == "playing"
    for refused, message in ((lambda: board.human_move(game.pk, "E5"), "paused: resume the clock to play"),
                             (lambda: board.undo(game.pk), "paused: resume the clock to undo"),
                             (lambda: board.pause(game.pk), "already paused")):
        with pytest.raises(games.GameError, match=message):
            refused()
    game.clock["paused"] = 20.0
    game.save()
    state = board.resume(game.pk).state
    assert state["clock"]["running"] == "B" and state["clock"]["paused"] is None
    assert state["clock"]["elapsed"] == pytest.approx(20, abs=1)  # where it stopped
    board.human_move(game.pk, "E5")
    game.refresh_from_db()
    assert game.clock["B"][0] == pytest.approx(40.0, abs=1.0)
    with pytest.raises(games.GameError, match="not paused"):
        board.resume(game.pk)


def test_only_the_humans_turn_of_a_timed_game_in_play_pauses_and_resigning_ends_a_pause() -> None:
    with pytest.raises(games.GameError, match="no clock"):
        board.pause(make_game(new_session()).pk)
    bots_turn = timed_game(human_color="W")
    with pytest.raises(games.GameError, match="your turn only"):
        board.pause(bots_turn.pk)
    game = timed_game()
    board.pause(game.pk)
    state = board.resign(game.pk).state
    assert state["result"] == "W+R" and state["clock"]["paused"] is None
    with pytest.raises(games.GameError, match="only a game in play"):
        board.pause(game.pk)


def test_a_move_after_the_time_ran_out_is_not_played_and_loses_on_time() -> None:
    game = timed_game()
    age(game, 60 + 2 * 10 + 0.5)
    outcome = board.human_move(game.pk, "E5")
    assert outcome.state["phase"] == "finished" and outcome.state["result"] == "W+T"
    assert outcome.state["move_number"] == 0 and outcome.bot_expected_moves is None
    game.refresh_from_db()
    assert "RE[W+T]" in game.sgf and game.clock["since"] is None


def test_a_game_lost_on_time_shows_no_count_and_the_losers_clock_at_zero() -> None:
    game = timed_game()
    age(game, 100.0)
    state = board.current(game.pk).state
    assert state["result"] == "W+T" and state["score"] is None
    assert state["clock"]["B"] == {"main": 0.0, "periods": 0} and state["clock"]["running"] is None
    canadian = timed_game(control=TimeControl("canadian", main=10, period=20, periods=5))
    age(canadian, 40.0)  # out of main time and of its first period: 0 s left for the period's 5 moves
    assert board.current(canadian.pk).state["clock"]["B"] == {"main": 0.0, "periods": 5}


def test_a_game_whose_time_ran_out_unopened_lists_and_downloads_with_its_result(client) -> None:
    game = timed_game()
    session = client.session
    session.save()
    Game.objects.filter(pk=game.pk).update(owner=session.session_key)
    age(game, 100.0)
    listed = client.get("/games")
    assert listed.status_code == 200 and "W+T" in listed.content.decode()
    assert "<td>1 min + 2×10 s byo-yomi</td>" in listed.content.decode()  # the list names the clock
    assert "RE[W+T]" in client.get(f"/game/{game.pk}/sgf").content.decode()
    assert "1 min + 2×10 s byo-yomi" in client.get(f"/game/{game.pk}/review").content.decode()


def test_an_undo_charges_the_humans_turn_and_gives_the_bot_back_its_replys_time() -> None:
    game = timed_game(control=TimeControl("fischer", main=300, period=10), bot_level="policy")
    with games.locked(game.pk) as loaded:
        start = loaded.game.clock["since"] = time.time() - 195.0  # the game began 195 s ago
        games.play(loaded, "B", "E5", now=start + 20.0)  # 300 - 20 + 10
        games.play(loaded, "W", "C3", now=start + 60.0)  # 300 - 40 + 10
        games.play(loaded, "B", "G5", now=start + 65.0)  # 290 - 5 + 10
        games.play(loaded, "W", "C7", now=start + 165.0)  # 270 - 100 + 10
    game.refresh_from_db()
    assert game.clock["B"] == [295.0, 0] and game.clock["W"] == [180.0, 0]
    board.undo(game.pk)  # 30 s after C7, the human takes G5 and C7 back
    game.refresh_from_db()
    assert game.clock["W"] == [270.0, 0]  # as after its first reply
    # G5's 5 s and these 30 s spent, G5's increment taken back, none for this turn: 290 - 5 - 30
    assert game.clock["B"][0] == pytest.approx(255.0, abs=1.0)
    assert game.clock["turn"] == "B" and len(list(read_sgf(game.sgf).main_line())) == 3
    for _ in range(3):  # undo after undo earns nothing
        board.human_move(game.pk, "G5")
        with games.locked(game.pk) as loaded:
            games.play(loaded, "W", "C7")
        board.undo(game.pk)
    game.refresh_from_db()
    assert game.clock["B"][0] <= 255.0


def test_an_undo_after_the_time_ran_out_ends_the_game_on_time() -> None:
    game = timed_game(bot_level="policy")
    with games.locked(game.pk) as loaded:
        games.play(loaded, "B", "E5")
        games.play(loaded, "W", "C3")
    age(game, 200.0)
    outcome = board.undo(game.pk)
    assert outcome.state["result"] == "W+T" and outcome.state["move_number"] == 2


def test_asking_for_the_state_ends_the_game_of_a_player_out_of_time_and_says_it_changed() -> None:
    game = timed_game(control=TimeControl("fischer", main=30, period=5))
    assert not board.current(game.pk).changed
    age(game, 31.0)
    outcome = board.current(game.pk)
    assert outcome.changed and outcome.state["result"] == "W+T"
    assert not board.current(game.pk).changed  # once


def test_the_clock_stops_while_scoring_and_runs_again_after_an_undo() -> None:
    game = timed_game(bot_level="policy")
    with games.locked(game.pk) as loaded:
        games.play(loaded, "B", "pass")
        games.play(loaded, "W", "pass")
    game.refresh_from_db()
    assert game.phase == Game.Phase.SCORING and game.clock["since"] is None
    age_free = board.current(game.pk).state["clock"]
    assert age_free["running"] is None and age_free["elapsed"] == 0
    board.undo(game.pk)
    game.refresh_from_db()
    assert game.phase == Game.Phase.PLAYING and game.clock["since"] is not None


def test_the_bot_thinks_within_its_share_of_its_clock() -> None:
    game = timed_game(control=TimeControl("byoyomi", main=0, period=5, periods=1), human_color="W")
    assert game.clock["turn"] == "B"
    seconds = clock.bot_seconds(game, "B", 0, game.clock["since"] + 1.5)
    assert seconds == pytest.approx(5 - 1.5 - clock.BOT_LAG_SECONDS)
    assert clock.bot_seconds(make_game(new_session()), "W", 0, 0.0) is None


@pytest.mark.parametrize(("fields", "error"), [
    ({"time_system": "byoyomi", "time_main": 0, "time_period": 0, "time_periods": 3}, "byo-yomi needs"),
    ({"time_system": "fischer", "time_main": 0, "time_period": 10, "time_periods": 0}, "needs main time"),
    ({"time_system": "byoyomi", "time_main": 10, "time_period": 30, "time_periods": 31}, "or equal to 30"),
    ({"time_system": "sudden", "time_main": 10, "time_period": 30, "time_periods": 3}, "valid choice"),
    ({"time_system": "canadian", "time_main": 0, "time_period": 300, "time_periods": 0}, "at least one move"),
    ({"time_system": "canadian", "time_main": 10, "time_period": 20, "time_periods": 0}, "at least one move"),
    ({"time_system": "canadian", "time_main": 10, "time_period": 0, "time_periods": 25}, "some seconds"),
])
def test_the_new_game_form_refuses_a_clock_with_no_time_and_says_why(fields: dict, error: str) -> None:
    data = {"human_color": "B", "size": 9, "handicap": 0, "komi": 7.5, "rules": "chinese",
            "bot_level": "policy", **fields}
    form = NewGameForm(data)
    assert not form.is_valid()
    assert error in str(form.errors)


def test_the_new_game_form_leaves_out_the_fields_the_chosen_clock_does_not_use() -> None:
    data = {"human_color": "B", "size": 9, "handicap": 0, "komi": 7.5, "rules": "chinese",
            "bot_level": "policy", "time_system": "fischer", "time_main": 5, "time_period": 10,
            "time_periods": 99}  # hidden for Fischer: its error does not count
    form = NewGameForm(data)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["time_control"] == TimeControl("fischer", 300, 10)
    form = NewGameForm({**data, "time_system": "none", "time_main": 100000})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["time_control"] == TimeControl()


def test_the_new_game_form_makes_the_time_control() -> None:
    data = {"human_color": "B", "size": 9, "handicap": 0, "komi": 7.5, "rules": "chinese",
            "bot_level": "policy", "time_system": "byoyomi", "time_main": 5, "time_period": 20,
            "time_periods": 3}
    form = NewGameForm(data)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["time_control"] == TimeControl("byoyomi", 300, 20, 3)
    assert "time_main" not in form.cleaned_data
    form = NewGameForm({**data, "time_system": "canadian", "time_period": 300, "time_periods": 25})
    assert form.is_valid() and form.cleaned_data["time_control"] == TimeControl("canadian", 300, 300, 25)
    data["time_system"] = "none"
    form = NewGameForm(data)
    assert form.is_valid() and form.cleaned_data["time_control"] == TimeControl()


def test_the_page_is_told_when_the_game_ends_on_time() -> None:
    key = new_session()
    game = make_game(key, time_control=TimeControl("byoyomi", main=0, period=1, periods=1))

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        first = await receive_until(ws, lambda m: m["type"] == "state")
        assert first["clock"]["running"] == "B" and first["phase"] == "playing"
        await asyncio.sleep(1.3)
        await ws.send_json_to({"type": "state"})
        over = await receive_until(ws, lambda m: m["type"] == "state")
        assert over["phase"] == "finished" and over["result"] == "W+T" and over["clock"]["running"] is None
        await dispatch.wait_idle()
        await ws.disconnect()

    asyncio.run(scenario())


def test_a_bot_out_of_time_before_it_moves_loses_on_time_without_searching() -> None:
    game = timed_game(control=TimeControl("fischer", main=30, period=5), bot_level="policy")
    board.human_move(game.pk, "E5")
    age(game, 40.0)  # the worker queue held the bot's move for 40 s
    assert tasks.bot_move(game.pk, 1) == {"lost": "on time"}
    game.refresh_from_db()
    assert game.result == "B+T" and game.phase == Game.Phase.FINISHED
