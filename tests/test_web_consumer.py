"""The board websocket protocol (docs/protocol.md), with the in-process task runner."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import redis
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator

from frontend.models import Analysis, Game
from frontend.services import board, dispatch, engine, game_analysis, games, outage
from goweb.asgi import application
from tests.score_net import NAME as SCORE_NET
from tests.score_net import write_score_weights, write_zoo
from tests.web_helpers import (
    ORIGIN,
    connect,
    make_game,
    new_session,
    receive_until,
    thread_connection_forgotten,  # noqa: F401  (autouse: each test's end)
)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.django_db(transaction=True)



def is_state(message: dict) -> bool:
    return message["type"] == "state"


def after_bot(message: dict) -> bool:
    return message["type"] == "state" and "bot_move" in message


def test_play_moves_against_the_bot_undo_pass_resign() -> None:
    key = new_session()
    game = make_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        state = await receive_until(ws, is_state)
        assert state["to_play"] == "B" and state["move_number"] == 0 and state["board"] == "." * 81

        taken: set[str] = set()
        for _ in range(2):  # E5, then a corner point the rules bot's random reply left free
            vertex = next(v for v in ("E5", "C3", "G7", "C7") if v not in taken)
            await ws.send_json_to({"type": "play", "move": vertex})
            mine = await receive_until(ws, is_state)
            assert mine["moves"][-1] == ["B", vertex]
            reply = await receive_until(ws, after_bot)
            assert reply["to_play"] == "B" and reply["moves"][-1][0] == "W"
            taken |= {move for _, move in reply["moves"]}
        assert reply["move_number"] == 4

        await ws.send_json_to({"type": "undo"})
        undone = await receive_until(ws, is_state)
        assert undone["move_number"] == 2 and undone["to_play"] == "B"

        await ws.send_json_to({"type": "play", "move": "E5"})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"] == "illegal move: black E5: the point is already occupied"

        await ws.send_json_to({"type": "pass"})
        passed = await receive_until(ws, is_state)
        assert passed["moves"][-1] == ["B", "pass"]
        await receive_until(ws, after_bot)
        await ws.send_json_to({"type": "resign"})
        over = await receive_until(ws, is_state)
        assert over["phase"] == "finished" and over["result"] == "W+R"
        await ws.send_json_to({"type": "play", "move": "A1"})
        assert (await receive_until(ws, lambda m: m["type"] == "error"))["message"] == "the game is over"
        await dispatch.wait_idle()
        await ws.disconnect()

    asyncio.run(scenario())
    game.refresh_from_db()
    assert game.result == "W+R"
    assert ";B[ee]" in game.sgf and "RE[W+R]" in game.sgf


def test_a_bot_that_fails_says_so_on_the_board_instead_of_thinking_for_ever(caplog) -> None:
    key = new_session()
    game = make_game(key)
    Game.objects.filter(pk=game.pk).update(bot_level="no-such-level")  # any failure of the bot

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "play", "move": "E5"})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"].startswith("the bot could not move (KeyError(")
        assert error["message"].endswith("take your move back, or reload the page to ask it again")
        await dispatch.wait_idle()
        await ws.disconnect()

    asyncio.run(scenario())


def test_two_passes_start_scoring_with_toggleable_dead_stones() -> None:
    key = new_session()
    game = make_game(key)
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[])"  # the bot has just passed
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "pass"})
        state = await receive_until(ws, is_state)
        assert state["phase"] == "scoring" and state["score"]["kind"] == "area"
        await ws.send_json_to({"type": "toggle_dead", "point": "C7"})
        toggled = await receive_until(ws, is_state)
        assert ("C7" in toggled["dead"]) != ("C7" in state["dead"])
        assert toggled["score"] != state["score"]
        await ws.send_json_to({"type": "toggle_dead", "point": "A1"})
        assert (await receive_until(ws, lambda m: m["type"] == "error"))[
            "message"
        ] == "there is no stone at A1"
        await ws.send_json_to({"type": "accept_score"})
        final = await receive_until(ws, is_state)
        assert final["phase"] == "finished" and final["result"] == final["score"]["result"]
        await ws.send_json_to({"type": "accept_score"})  # a second click says what happened
        assert (await receive_until(ws, lambda m: m["type"] == "error"))[
            "message"
        ] == f"the game is over already: {final['result']}"
        await ws.disconnect()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"type": "fly"}, "unknown message type 'fly'"),
        ({"move": "D4"}, "message has no 'type' field"),
        ({"type": "play"}, "play: missing field 'move'"),
        ({"type": "play", "move": 3}, "play: field 'move' must be a string"),
        ({"type": "play", "move": "D4", "x": 1}, "play: unknown field(s) x"),
        ({"type": "play", "move": "I5"}, "invalid vertex 'I5'"),
        ({"type": "play", "move": "J10"}, "vertex 'J10' is off a 9x9 board"),
        ({"type": "analyze", "move_number": True}, "analyze: field 'move_number' must be an integer"),
        ({"type": "analyze", "move_number": 5}, "move_number must be between 0 and 0, got 5"),
        ({"type": "analyze", "move_number": 0, "ownership": 1},
         "analyze: field 'ownership' must be a boolean"),
        ({"type": "analyze", "move_number": 0, "backpred": True, "backpred_network": "tk-cnn1"},
         "network 'tk-cnn1' reads 19x19 boards only, not 9x9; back-prediction networks for 9x9: backpred"),
        ({"type": "estimate", "move_number": "0"}, "estimate: field 'move_number' must be an integer"),
        ({"type": "estimate", "move_number": -1}, "move_number must be between 0 and 0, got -1"),
        ({"type": "estimate", "ownership": True}, "estimate: unknown field(s) ownership"),
        ({"type": "features", "move_number": 0, "set": "nope", "plane": "x"}, "unknown feature set 'nope'"),
        ({"type": "toggle_dead", "point": "A1"}, "dead stones can only be marked after both players pass"),
        ({"type": "undo"}, "you have no move to take back"),
        ({"type": "cancel_analysis"}, "no analysis of this game is running"),
        ({"type": "analyze", "move_number": 0, "depth": "abyssal"},
         "unknown depth 'abyssal'; choose fast, normal, deep"),
        ({"type": "analyze_game", "depth": 3}, "analyze_game: field 'depth' must be a string"),
        ([1, 2], "message must be a JSON object"),
    ],
)
def test_bad_messages_get_clear_errors_and_the_socket_stays_open(message: object, error: str) -> None:
    key = new_session()
    game = make_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to(message)
        reply = await ws.receive_json_from(timeout=5)
        assert reply["type"] == "error"
        assert reply["message"].startswith(error)
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from(timeout=5) == {"type": "pong"}
        await ws.disconnect()

    asyncio.run(scenario())


def test_a_search_level_bot_replies_with_the_shared_evaluator() -> None:
    key = new_session()
    game = make_game(key, bot_level="mcts-50")

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "play", "move": "E5"})
        reply = await receive_until(ws, after_bot)
        assert reply["moves"][0] == ["B", "E5"] and reply["moves"][1][0] == "W"
        assert reply["bot_move"] not in ("resign", "pass")
        await dispatch.wait_idle()
        await ws.disconnect()

    asyncio.run(scenario())


def test_another_session_cannot_use_the_board() -> None:
    game = make_game(new_session())
    stranger = new_session()

    async def scenario() -> None:
        for key in (stranger, None):
            ws = await connect(game.pk, key)
            reply = await ws.receive_json_from(timeout=5)
            assert reply == {"type": "error", "message": "this game belongs to another session"}
            assert (await ws.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4403}
        ws = await connect(99999, stranger)
        assert (await ws.receive_json_from(timeout=5))["message"] == "there is no game 99999"

    asyncio.run(scenario())


@pytest.mark.parametrize("message", [{"type": "state"}, {"type": "play", "move": "E5"}, {"type": "tree"},
                                     {"type": "ping"}, {"type": "fly"}])
def test_a_message_sent_at_once_to_a_refused_board_is_ignored(message: dict, caplog) -> None:
    game = make_game(new_session())
    stranger = new_session()

    async def scenario() -> None:
        for game_id, code in ((game.pk, 4403), (99999, 4404)):
            ws = await connect(game_id, stranger)
            await ws.send_json_to(message)  # before the refusal arrives
            reply = await ws.receive_json_from(timeout=5)
            assert reply["type"] == "error" and reply["message"] in (
                "this game belongs to another session", "there is no game 99999")
            assert (await ws.receive_output(timeout=5)) == {"type": "websocket.close", "code": code}
            assert await ws.receive_nothing(timeout=0.5)  # no reply, no "fault of ours"
            await ws.disconnect()
        shared = WebsocketCommunicator(application, "/ws/shared/no-such-link/", headers=[ORIGIN])
        assert (await shared.connect())[0]
        await shared.send_json_to(message)
        reply = await shared.receive_json_from(timeout=5)
        assert reply["message"].startswith("this share link is not valid")
        assert (await shared.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4404}
        assert await shared.receive_nothing(timeout=0.5)
        await shared.disconnect()

    asyncio.run(scenario())
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]
    game.refresh_from_db()
    assert game.sgf.count(";B[") == 0


@pytest.mark.parametrize("path", ["/ws/board/-1/", "/ws/nope/", "/nope", "/ws/board/1/more/"])
def test_a_socket_path_the_site_does_not_serve_is_told_so_and_closed_with_4404(path: str, caplog) -> None:
    async def scenario() -> None:
        ws = WebsocketCommunicator(application, path, headers=[ORIGIN])
        assert (await ws.connect())[0]
        reply = await ws.receive_json_from(timeout=5)
        assert reply["type"] == "error" and reply["message"].startswith(f"there is no websocket at {path!r}")
        assert (await ws.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4404}

    asyncio.run(scenario())
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]


def test_position_analysis_features_and_game_analysis_stream(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 12
    settings.GOWEB_REVIEW_CHUNK = 2  # in-process, the chunks run one after the other
    key = new_session()
    game = make_game(key, bot_level="policy")
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gc];W[cg];B[gg])"
    game.kind = Game.Kind.REVIEW
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "analyze", "move_number": 2})
        result = await receive_until(ws, lambda m: m["type"] == "analysis")
        assert result["move_number"] == 2 and result["to_play"] == "B"
        assert len(result["policy"]) == 82
        assert 0 <= result["winrate"] <= 1 and result["ladders"]["size"] == 9
        visits = [c["visits"] for c in result["candidates"]]
        assert result["visits"] == 12 and result["candidates"][0]["move"] == result["best"]
        assert visits == sorted(visits, reverse=True)  # the search's order, its unvisited ideas last
        assert sum(c["visits"] for c in result["candidates"]) <= 11 and "moves" not in result
        if engine.zoo().names("previous"):
            assert len(result["backpred"]) == 81 and 0.9 < sum(result["backpred"]) < 1.01
        else:
            assert result["backpred"] is None

        await ws.send_json_to(
            {"type": "features", "move_number": 1, "set": "golois", "plane": "their stones"}
        )
        planes = await receive_until(ws, lambda m: m["type"] == "features")
        assert planes["values"][4 * 9 + 4] == 1.0 and sum(planes["values"]) == 1.0

        await ws.send_json_to({"type": "play", "move": "A1"})
        assert "review board" in (await receive_until(ws, lambda m: m["type"] == "error"))["message"]

        other = await connect(game.pk, key)  # another tab: told too, so it drops the old analysis
        await receive_until(other, is_state)
        await ws.send_json_to({"type": "analyze_game"})
        started = await receive_until(ws, lambda m: m["type"] == "analysis_started")
        assert (await receive_until(other, lambda m: m["type"] == "analysis_started")) == started
        await other.disconnect()
        progress = [await receive_until(ws, lambda m: m["type"] == "progress") for _ in range(6)]
        assert [p["done"] for p in progress] == [1, 2, 3, 4, 5, 6] and progress[0]["total"] == 6
        assert progress[0]["entry"]["played"] == "E5" and progress[0]["entry"]["played_rank"] >= 1
        assert all(p["entry"]["visits"] == 12 for p in progress)
        done = await receive_until(ws, lambda m: m["type"] == "analysis_done")
        assert done["analysis"] == started["analysis"]
        await ws.disconnect()

    asyncio.run(scenario())
    analysis = Analysis.objects.get(game=game)
    assert analysis.status == "done" and len(analysis.results) == 6


def test_the_depth_picked_sets_the_visits_of_the_position_and_of_the_whole_game(settings) -> None:
    settings.GOWEB_REVIEW_VISITS, settings.GOWEB_API_MAX_VISITS = 8, 20
    key = new_session()
    game = make_game(key)
    game.sgf, game.kind = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])", Game.Kind.REVIEW
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "analyze", "move_number": 1, "depth": "fast"})
        fast = await receive_until(ws, lambda m: m["type"] == "analysis")
        assert fast["visits"] == fast["max_visits"] == 2  # 8 / 4
        await ws.send_json_to({"type": "analyze_game", "depth": "deep"})
        progress = [await receive_until(ws, lambda m: m["type"] == "progress") for _ in range(3)]
        assert [p["entry"]["visits"] for p in progress] == [20, 20, 20]  # 4 x 8, capped at 20
        record = game_analysis.record_key(game, games.record_of(game))
        assert {p["record"] for p in progress} == {record}  # the page drops other records' messages
        await receive_until(ws, lambda m: m["type"] == "analysis_done")
        await ws.disconnect()

    asyncio.run(scenario())
    assert Analysis.objects.get(game=game).visits == 20
    assert board.analysis_state(game.pk)["visits"] == 20


def test_game_analysis_can_be_cancelled(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    key = new_session()
    game = make_game(key)
    moves = "".join(f";{'BW'[i % 2]}[]" for i in range(400))  # passes: long enough to cancel
    game.sgf = f"(;GM[1]FF[4]SZ[9]KM[7.5]{moves})"
    game.kind = Game.Kind.REVIEW
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "analyze_game"})
        await receive_until(ws, lambda m: m["type"] == "progress")
        await ws.send_json_to({"type": "cancel_analysis"})
        await receive_until(ws, lambda m: m["type"] == "cancelling")
        cancelled = await receive_until(ws, lambda m: m["type"] == "analysis_cancelled")
        assert cancelled["done"] < 401
        await ws.disconnect()

    asyncio.run(scenario())
    analysis = Analysis.objects.get(game=game)
    assert analysis.status == "cancelled"


def test_comparing_networks_refuses_the_same_one_twice_and_unknown_ones() -> None:
    key = new_session()
    game = make_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "compare", "a": "golois", "b": "golois"})
        same = await receive_until(ws, lambda m: m["type"] == "error")
        assert same["message"] == "choose two different networks to compare"
        await ws.send_json_to({"type": "compare", "a": "golois", "b": "alphago"})
        unknown = await receive_until(ws, lambda m: m["type"] == "error")
        assert unknown["message"].startswith("unknown next-move network 'alphago'; known: golois")
        await ws.send_json_to({"type": "ping"})
        assert (await receive_until(ws, lambda m: m["type"] == "pong")) == {"type": "pong"}
        await ws.disconnect()

    asyncio.run(scenario())


def test_the_estimate_without_score_and_ownership_heads_says_so(settings, tmp_path: Path) -> None:
    """A default network with a value head only (the first Golois net): the estimate has its win
    rate, null fields for the rest and a message naming the heads it lacks."""
    (tmp_path / "golois.pt").symlink_to(ROOT / "weights" / "golois.pt")
    golois = {"name": "golois", "file": "golois.pt", "role": "next", "value_head": True}
    write_zoo(tmp_path, "golois", [golois])
    settings.GOWEB_WEIGHTS_DIR = str(tmp_path)
    key = new_session()
    game = make_game(key)
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])"
    game.rules = Game.Rules.JAPANESE
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "estimate"})
        estimate = await receive_until(ws, lambda m: m["type"] == "estimate")
        assert estimate["count_kind"] == "territory" and isinstance(estimate["black_count"], float)
        name = engine.pick(None).name
        assert estimate["move_number"] == 2 and estimate["to_play"] == "B" and estimate["network"] == name
        assert 0 <= estimate["black_winrate"] <= 1
        assert estimate["black_score_lead"] is None and estimate["score_stdev"] is None
        assert estimate["ownership"] is None
        assert estimate["message"] == (
            f"the network {name} has no score or ownership head, so this estimate has no score lead or "
            "territory"
        )
        await ws.disconnect()

    asyncio.run(scenario())


@pytest.fixture
def score_network_site(settings, tmp_path):
    """The site's default next-move network is an untrained net with score and ownership heads."""
    settings.GOWEB_WEIGHTS_DIR = write_score_weights(tmp_path)
    settings.GOWEB_REVIEW_VISITS = 8


def test_ownership_on_request_and_the_estimate_with_a_score_network(score_network_site) -> None:
    key = new_session()
    game = make_game(key)
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gc])"
    game.kind = Game.Kind.REVIEW  # the estimate is on review boards too
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "analyze", "move_number": 1})
        plain = await receive_until(ws, lambda m: m["type"] == "analysis")
        assert plain["network"] == SCORE_NET and "ownership" not in plain
        assert plain["black_score_lead"] == -plain["score_lead"]  # white to play after move 1
        assert all(c["score_lead"] is not None for c in plain["candidates"] if c["visits"])

        await ws.send_json_to({"type": "analyze", "move_number": 1, "ownership": True})
        owned = await receive_until(ws, lambda m: m["type"] == "analysis")
        assert len(owned["ownership"]) == 81 and all(-1 <= v <= 1 for v in owned["ownership"])
        assert owned["score_stdev"] > 0

        await ws.send_json_to({"type": "estimate"})  # the game's end: three moves, white to play
        estimate = await receive_until(ws, lambda m: m["type"] == "estimate")
        assert (estimate["move_number"], estimate["to_play"], estimate["network"]) == (3, "W", SCORE_NET)
        assert estimate["message"] is None and estimate["score_stdev"] > 0
        assert 0 <= estimate["black_winrate"] <= 1 and isinstance(estimate["black_score_lead"], float)
        assert len(estimate["ownership"]) == 81 and all(-1 <= v <= 1 for v in estimate["ownership"])
        assert estimate["count_kind"] == "area" and isinstance(estimate["black_count"], float)

        await ws.send_json_to({"type": "estimate", "move_number": 1})
        earlier = await receive_until(ws, lambda m: m["type"] == "estimate")
        assert earlier["move_number"] == 1 and earlier["to_play"] == "W"
        await dispatch.wait_idle()
        await ws.disconnect()

    asyncio.run(scenario())


def redis_gone(*args: object, **kwargs: object) -> None:
    raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def test_a_move_made_before_redis_was_lost_is_shown_to_its_socket_with_a_message(monkeypatch) -> None:
    """Redis lost between the move and the bot's request: the move stands, this socket sees it and
    is told what failed, and the connection stays open; reconnecting asks for the bot's move."""
    key = new_session()
    game = make_game(key)

    async def scenario() -> tuple[dict, dict]:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        with monkeypatch.context() as patched:
            patched.setattr(board, "request_bot_move", redis_gone)
            await ws.send_json_to({"type": "play", "move": "E5"})
            # the state sent to this socket after the failure, the message, and the broadcast
            replies = [await ws.receive_json_from(timeout=5) for _ in range(3)]
        states = [m for m in replies if is_state(m)]
        (told,) = [m for m in replies if not is_state(m)]
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from(timeout=5) == {"type": "pong"}
        await ws.disconnect()
        again = await connect(game.pk, key)
        reply = await receive_until(again, after_bot)
        await dispatch.wait_idle()
        await again.disconnect()
        assert len(states) == 2 and all(m["moves"] == [["B", "E5"]] for m in states)
        return told, reply

    told, reply = asyncio.run(scenario())
    assert told == {"type": "error", "message": outage.MADE_UNTOLD}
    assert reply["move_number"] == 2


def test_a_board_opened_while_redis_is_away_closes_with_1013_and_a_message(monkeypatch) -> None:
    key = new_session()
    game = make_game(key)
    monkeypatch.setattr(InMemoryChannelLayer, "group_add", redis_gone)

    async def scenario() -> tuple[dict, dict]:
        ws = await connect(game.pk, key)
        return await ws.receive_json_from(timeout=5), await ws.receive_output(timeout=5)

    told, closed = asyncio.run(scenario())
    assert told == {"type": "error", "message": outage.CONNECT}
    assert closed == {"type": "websocket.close", "code": 1013}  # try again later (RFC 6455)
