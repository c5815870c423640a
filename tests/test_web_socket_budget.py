"""What one client address may spend on websockets (frontend.services.socket_budget): sockets open
at once and messages read, each past its budget refused with a clear error that changes nothing;
and the board messages that read a game's record share one parse of it (frontend.services.parsed)."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.testing import WebsocketCommunicator

from analysis.sgf import read_sgf, write_sgf
from frontend.consumers import BUG, PingConsumer
from frontend.models import Game
from frontend.services import board, games, parsed, socket_budget, variations
from goweb.asgi import application
from tests.web_helpers import (
    ORIGIN,
    connect,
    make_game,
    new_session,
    receive_until,
    thread_connection_forgotten,  # noqa: F401  (autouse: each test's end)
)

pytestmark = pytest.mark.django_db(transaction=True)

TOO_MANY_MESSAGES = "too many messages from your address"


def ping_socket(address: str) -> WebsocketCommunicator:
    """A ping socket from ``address`` (as the trusted proxy names it)."""
    headers = [ORIGIN, (b"x-forwarded-for", address.encode())]
    return WebsocketCommunicator(application, "/ws/ping/", headers=headers)


def costing(seconds: float, func):
    """Return ``func`` made to take ``seconds`` of its thread's time first."""
    def costly(*args):
        started = time.thread_time()
        while time.thread_time() - started < seconds:
            pass
        return func(*args)

    return costly


@pytest.fixture
def behind_a_proxy(settings) -> None:
    settings.GOWEB_TRUSTED_PROXIES = 1


def test_a_socket_past_its_addresss_limit_is_refused_with_4429_and_a_socket_closed_frees_its_place(
    settings, behind_a_proxy
) -> None:
    settings.GOWEB_WS_PER_ADDRESS = 2

    async def scenario() -> None:
        first, second = ping_socket("203.0.113.7"), ping_socket("203.0.113.7")
        assert (await first.connect())[0] and (await second.connect())[0]
        third = ping_socket("203.0.113.7")
        assert (await third.connect())[0]  # accepted, to say why before closing
        refused = await third.receive_json_from()
        assert refused == {"type": "error", "message": "too many boards open from your address "
                                                       "(at most 2): close one and reload this page"}
        assert (await third.receive_output())["code"] == 4429
        elsewhere = ping_socket("198.51.100.8")
        assert (await elsewhere.connect())[0]
        await elsewhere.send_json_to({"type": "ping"})
        assert await elsewhere.receive_json_from() == {"type": "pong"}
        await first.disconnect()
        again = ping_socket("203.0.113.7")
        assert (await again.connect())[0]
        await again.send_json_to({"type": "ping"})
        assert await again.receive_json_from() == {"type": "pong"}
        for socket in (second, elsewhere, again):
            await socket.disconnect()

    asyncio.run(scenario())


def test_messages_past_the_addresss_burst_are_answered_unread_until_its_bucket_refills(
    settings, behind_a_proxy
) -> None:
    settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST = 4, 5

    async def scenario() -> None:
        one, two = ping_socket("203.0.113.7"), ping_socket("203.0.113.7")
        assert (await one.connect())[0] and (await two.connect())[0]  # two of five: three left
        for socket in (one, two, one, two, one):  # the address's sockets share one bucket
            await socket.send_json_to({"type": "ping"})
        replies = [await s.receive_json_from() for s in (one, two, one, two, one)]
        errors = [reply for reply in replies if reply != {"type": "pong"}]
        assert len(errors) == 2  # which two depends on the order the sockets' tasks ran in
        for reply in errors:
            assert reply["type"] == "error" and reply["message"].startswith(TOO_MANY_MESSAGES)
            assert "(at most 4 a second): this one was not read; send it again in 0." in reply["message"]
        other = ping_socket("198.51.100.8")  # another address has its own
        assert (await other.connect())[0]
        await other.send_json_to({"type": "ping"})
        assert await other.receive_json_from() == {"type": "pong"}
        await asyncio.sleep(0.3)  # a token and more back at 4 a second
        await two.send_json_to({"type": "ping"})
        assert await two.receive_json_from() == {"type": "pong"}
        for socket in (one, two, other):
            await socket.disconnect()

    asyncio.run(scenario())


def test_a_socket_whose_consumer_fails_frees_its_addresss_place(
    settings, behind_a_proxy, monkeypatch
) -> None:
    settings.GOWEB_WS_PER_ADDRESS = 1

    async def fail(self, content, **kwargs) -> None:
        raise RuntimeError("a fault that ends the consumer")

    async def scenario() -> None:
        with monkeypatch.context() as patch:
            patch.setattr(PingConsumer, "receive_json", fail)
            failing = ping_socket("203.0.113.7")
            assert (await failing.connect())[0]
            await failing.send_json_to({"type": "ping"})
            with pytest.raises(RuntimeError, match="ends the consumer"):
                await failing.receive_output()  # the consumer ended without a disconnect
        again = ping_socket("203.0.113.7")
        assert (await again.connect())[0]
        await again.send_json_to({"type": "ping"})
        assert await again.receive_json_from() == {"type": "pong"}
        await again.disconnect()

    asyncio.run(scenario())


def test_reopening_sockets_starts_from_what_the_address_had_left_and_a_refused_one_closes_with_1013(
    settings, behind_a_proxy
) -> None:
    settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST = 2, 3

    async def scenario() -> None:
        first = ping_socket("203.0.113.7")
        assert (await first.connect())[0]  # one of three
        for _ in range(2):
            await first.send_json_to({"type": "ping"})
            assert await first.receive_json_from() == {"type": "pong"}
        await first.disconnect()  # its last socket: the empty bucket is kept, not forgotten
        again = ping_socket("203.0.113.7")
        assert (await again.connect())[0]  # accepted, to say why before closing
        refused = await again.receive_json_from()
        assert refused["type"] == "error" and refused["message"].startswith(
            "too many messages from your address (at most 2 a second, opening a board counting as one): "
            "this board will reconnect; wait 0.")
        assert (await again.receive_output())["code"] == 1013  # the page tries again later
        await asyncio.sleep(0.6)  # a token back at 2 a second
        later = ping_socket("203.0.113.7")
        assert (await later.connect())[0]
        await later.send_json_to({"type": "ping"})
        assert (await later.receive_json_from())["type"] == "error"  # the opening took that token
        await later.disconnect()

    asyncio.run(scenario())


def test_the_work_of_opening_a_board_comes_out_of_the_addresss_budget(settings, monkeypatch) -> None:
    settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST = 10, 3
    key = new_session()
    game = make_game(key)
    monkeypatch.setattr(board, "current", costing(0.5, board.current))  # five messages' worth

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, lambda m: m["type"] == "state")
        await ws.send_json_to({"type": "ping"})
        refused = await ws.receive_json_from()
        assert refused["type"] == "error" and refused["message"].startswith(TOO_MANY_MESSAGES)
        await ws.disconnect()

    asyncio.run(scenario())


def test_addresses_with_no_socket_are_forgotten_once_refilled_and_what_is_kept_stays_bounded(
    settings, monkeypatch
) -> None:
    settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST = 10, 40
    clock = [1000.0]
    monkeypatch.setattr(socket_budget.time, "monotonic", lambda: clock[0])
    kept = []
    for n in range(2000):  # each address opens a socket, spends its burst and closes it
        address = f"10.0.{n // 256}.{n % 256}"
        assert socket_budget.open_socket(address)
        socket_budget.spend_work(address, 4.0)
        socket_budget.close_socket(address)
        clock[0] += 0.1  # 8 s later the first is full again
        kept.append(len(socket_budget._addresses))
    assert max(kept) <= 2 * 81 + 1  # the 81 spent in the last 8 s, and those since the last sweep
    assert "10.0.7.207" in socket_budget._addresses  # the last one still owes its bucket
    socket_budget.spend_message("10.0.7.207")
    assert socket_budget.open_socket("10.0.7.207") and socket_budget.spend_message("10.0.7.207") > 0
    clock[0] += 60
    socket_budget.close_socket("10.0.7.207")  # last socket, bucket full: forgotten at once
    assert "10.0.7.207" not in socket_budget._addresses


def test_a_fault_of_the_servers_in_a_board_message_is_said_and_the_socket_stays_open(monkeypatch) -> None:
    key = new_session()
    game = make_game(key)

    def fail(*args) -> None:
        raise RuntimeError("a fault of ours")

    monkeypatch.setattr(variations, "show", fail)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, lambda m: m["type"] == "state")
        await ws.send_json_to({"type": "tree"})
        assert await ws.receive_json_from() == {"type": "error", "message": BUG}
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from() == {"type": "pong"}
        await ws.disconnect()

    asyncio.run(scenario())


def test_one_sockets_slow_message_holds_up_no_other_socket(monkeypatch) -> None:
    owners = [new_session() for _ in range(2)]
    slow_game, other_game = (make_game(key) for key in owners)
    shown = variations.show

    def slow_show(*args):
        time.sleep(3)  # a large game's tree, say
        return shown(*args)

    monkeypatch.setattr(variations, "show", slow_show)

    async def scenario() -> None:
        slow, other = await connect(slow_game.pk, owners[0]), await connect(other_game.pk, owners[1])
        for ws in (slow, other):
            await receive_until(ws, lambda m: m["type"] == "state")
        await slow.send_json_to({"type": "tree"})
        await asyncio.sleep(0.2)  # its work has begun
        started = time.perf_counter()
        await other.send_json_to({"type": "state"})
        await receive_until(other, lambda m: m["type"] == "state")
        assert time.perf_counter() - started < 1.5  # 2.8 s and more on Channels' one shared thread
        assert (await receive_until(slow, lambda m: m["type"] == "tree", timeout=10))["nodes"]
        for ws in (slow, other):
            await ws.disconnect()

    asyncio.run(scenario())


def test_the_servers_work_on_an_addresss_messages_comes_out_of_its_budget(settings, monkeypatch) -> None:
    settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST = 10, 3
    key = new_session()
    game = make_game(key)
    monkeypatch.setattr(variations, "show", costing(0.5, variations.show))  # five messages' worth

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, lambda m: m["type"] == "state")
        await ws.send_json_to({"type": "tree"})
        await receive_until(ws, lambda m: m["type"] == "tree")
        await ws.send_json_to({"type": "ping"})  # the bucket is about 3 below zero now
        refused = await ws.receive_json_from()
        assert refused["type"] == "error" and refused["message"].startswith(TOO_MANY_MESSAGES)
        await asyncio.sleep(0.5)
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from() == {"type": "pong"}
        await ws.disconnect()

    asyncio.run(scenario())


def test_a_move_sent_past_the_budget_is_not_played_and_the_board_says_why(settings) -> None:
    settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST = 0.5, 3
    key = new_session()
    game = make_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)  # a message and its work: a little under two left
        await receive_until(ws, lambda m: m["type"] == "state")
        await ws.send_json_to({"type": "ping"})
        await ws.send_json_to({"type": "ping"})  # read only if a token refilled since the opening
        await ws.send_json_to({"type": "play", "move": "E5"})
        assert (await ws.receive_json_from())["type"] == "pong"
        await ws.receive_json_from()
        refused = await ws.receive_json_from()
        assert refused["type"] == "error" and refused["message"].startswith(TOO_MANY_MESSAGES)
        await ws.disconnect()

    asyncio.run(scenario())
    assert write_sgf(games.record_of(Game.objects.get(pk=game.pk))).count(b";B[") == 0


def test_the_board_messages_reading_a_record_parse_it_once_and_a_change_is_read_afresh(
    monkeypatch
) -> None:
    parses = []
    real = parsed.read_sgf
    monkeypatch.setattr(parsed, "read_sgf", lambda *a, **k: parses.append(a) or real(*a, **k))
    monkeypatch.setattr(parsed, "_records", parsed.Recent(parsed.KEPT))
    key = new_session()
    game = make_game(key)
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee](;W[cc];B[gc])(;W[gg]))"
    game.kind, game.phase = Game.Kind.REVIEW, Game.Phase.FINISHED
    game.save()

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, lambda m: m["type"] == "state")
        for kind in ("state", "tree", "state", "tree"):
            await ws.send_json_to({"type": kind})
            await receive_until(ws, lambda m, kind=kind: m["type"] == kind)
        assert len(parses) == 1
        await ws.send_json_to({"type": "branch", "node": "BE5", "moves": ["D4"]})
        tree = await receive_until(ws, lambda m: m["type"] == "tree")
        assert len(tree["nodes"]) == 6
        await ws.send_json_to({"type": "state"})
        await receive_until(ws, lambda m: m["type"] == "state")
        await ws.disconnect()

    asyncio.run(scenario())
    assert len(parses) == 2  # the branch saved a new record, read once more
    assert games.record_of(Game.objects.get(pk=game.pk)) is games.record_of(Game.objects.get(pk=game.pk))


def test_a_record_to_change_is_a_copy_that_leaves_the_shared_one_as_it_was() -> None:
    game = make_game(new_session())
    shared = games.record_of(game)
    before = write_sgf(shared)
    mine = games.editable_record(game)
    mine.root.set("C", "mine")
    mine.root.add_child({"B": "ee"})
    assert write_sgf(games.record_of(game)) == before and games.record_of(game) is shared
    assert write_sgf(read_sgf(game.sgf)) == before


def test_the_message_rate_setting_takes_zero_to_turn_it_off_and_refuses_a_negative_one(monkeypatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from goweb.envconfig import env_float

    monkeypatch.setenv("GOWEB_WS_MESSAGE_RATE", "0")
    assert env_float("GOWEB_WS_MESSAGE_RATE", 10.0, zero=True) == 0.0
    with pytest.raises(ImproperlyConfigured, match=r"must be a positive number$"):
        env_float("GOWEB_WS_MESSAGE_RATE", 10.0)  # a setting that 0 does not turn off
    monkeypatch.setenv("GOWEB_WS_MESSAGE_RATE", "-1")
    with pytest.raises(ImproperlyConfigured, match=r"'-1' must be a positive number or 0$"):
        env_float("GOWEB_WS_MESSAGE_RATE", 10.0, zero=True)


def test_the_memo_keeps_the_most_recently_asked_and_nothing_that_failed() -> None:
    from frontend.services.recent import Recent

    made: list[str] = []
    memo: Recent[str, str] = Recent(2)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    for key in ("a", "b", "a", "c", "a", "b"):
        assert memo.get(key, lambda key=key: make(key)) == key.upper()
    assert made == ["a", "b", "c", "b"]  # b was the least recently asked when c came
    with pytest.raises(ZeroDivisionError):
        memo.get("d", lambda: 1 / 0)
    assert memo.get("d", lambda: "D") == "D"


def test_a_message_holding_nan_is_replaced_by_an_error_that_a_browser_can_read() -> None:
    import json

    from frontend.consumers import UNSENDABLE, JsonConsumer

    async def encode(content):
        return await JsonConsumer.encode_json(content)

    assert json.loads(asyncio.run(encode({"type": "pong", "lead": 1.5}))) == {"type": "pong", "lead": 1.5}
    for bad in (float("nan"), float("inf"), -float("inf")):
        text = asyncio.run(encode({"type": "analysis", "candidates": [{"winrate": bad}]}))
        assert "NaN" not in text and "Infinity" not in text
        assert json.loads(text) == {"type": "error", "message": UNSENDABLE}
