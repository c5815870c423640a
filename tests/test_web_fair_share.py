"""Fair sharing of the workers: each user's cap of queued or running work, newer requests replacing
waiting ones, the cap message over a websocket flood, and bot moves that never wait behind a
whole-game analysis (the embedded mode's in-process runner; Celery workers in test_web_celery)."""

from __future__ import annotations

import asyncio
import datetime
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async
from channels.testing import ApplicationCommunicator, WebsocketCommunicator

from frontend import tasks
from frontend.models import Analysis, Game, Job
from frontend.services import board, broker, dispatch, game_analysis, jobs
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

REVIEW_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gc];W[cg];B[gg];W[dd];B[ge];W[fc];B[dg])"  # 9 moves
FLOOD = 300
CAP_POSITIONS = "too much work queued: you already have 2 position analyses queued or running"
CAP_GAMES = "too much work queued: you already have 1 whole-game analysis queued or running"



@pytest.fixture(autouse=True)
def messages_unbounded(settings) -> None:
    """The floods here test the ledger, so the socket reads them all (a client address's message
    budget, which would answer most unread, is test_web_socket_budget's)."""
    settings.GOWEB_WS_MESSAGE_RATE = 0


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Hold every position analysis and whole-game position at its start until the event is set
    (at the latest after 60 s, so that no thread outlives the test)."""
    opened = threading.Event()
    answer, entry = tasks.answer_query, game_analysis.game_entry

    def held_answer(*args: object, **kwargs: object) -> dict:
        opened.wait(60)
        return answer(*args, **kwargs)

    def held_entry(*args: object, **kwargs: object) -> dict:
        opened.wait(60)
        return entry(*args, **kwargs)

    monkeypatch.setattr(tasks, "answer_query", held_answer)
    monkeypatch.setattr(game_analysis, "game_entry", held_entry)
    try:
        yield opened
    finally:
        opened.set()


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Count the tasks handed to the runner, by task name."""
    counts: Counter = Counter()
    submit = dispatch.submit

    async def counting(task: object, *args: object) -> None:
        counts[task.name.rsplit(".", 1)[1]] += 1
        await submit(task, *args)

    monkeypatch.setattr(dispatch, "submit", counting)
    return counts


def review_game(owner: str) -> Game:
    game = make_game(owner)
    game.sgf, game.kind = REVIEW_SGF, Game.Kind.REVIEW
    game.save()
    return game


def is_state(message: dict) -> bool:
    return message["type"] == "state"


def is_analysis(message: dict) -> bool:
    return message["type"] == "analysis"


async def running_jobs(kind: str, count: int) -> None:
    """Wait until ``count`` jobs of ``kind`` have started."""
    for _ in range(600):
        started = Job.objects.filter(kind=kind, state=Job.State.RUNNING).acount()
        if await started == count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} {kind} jobs did not start")


async def pong_within(ws: object, seconds: float) -> float:
    """Ping and return the seconds the pong took (at most ``seconds``), skipping other messages."""
    t0 = time.perf_counter()
    await ws.send_json_to({"type": "ping"})
    await receive_until(ws, lambda m: m["type"] == "pong", timeout=seconds)
    return time.perf_counter() - t0


def test_a_flood_on_one_game_keeps_one_analysis_waiting_and_answers_the_newest(
    settings, gate: threading.Event, submitted: Counter
) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    threads = settings.GOWEB_ANALYSIS_THREADS  # the in-process runner's threads for position analyses
    key = new_session()
    game = review_game(key)
    newest = (FLOOD - 1) % 9 + 1

    async def scenario() -> list[int]:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        for k in range(threads):  # every thread busy, held at the start of its analysis
            await ws.send_json_to({"type": "analyze", "move_number": k})
            await running_jobs(Job.Kind.POSITION, k + 1)
        for k in range(FLOOD):
            await ws.send_json_to({"type": "analyze", "move_number": k % 9 + 1})
        await pong_within(ws, 30)  # every request was taken (a refusal would have failed here)
        waiting = await sync_to_async(list)(Job.objects.filter(state=Job.State.PENDING).values("payload"))
        assert [w["payload"]["move_number"] for w in waiting] == [newest]
        gate.set()
        answered = [(await receive_until(ws, is_analysis))["move_number"] for _ in range(threads + 1)]
        await dispatch.wait_idle()
        await ws.send_json_to({"type": "ping"})
        assert await ws.receive_json_from(timeout=5) == {"type": "pong"}  # no other answer came
        await ws.disconnect()
        return answered

    assert sorted(asyncio.run(scenario())) == sorted([*range(threads), newest])
    assert submitted["analyze_position"] == threads + 1  # the running ones and one waiting, not 300 more
    assert not Job.objects.exists()  # every slot freed


def test_over_the_cap_a_websocket_flood_gets_the_cap_message_and_the_server_stays_responsive(
    settings, gate: threading.Event, submitted: Counter
) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    settings.GOWEB_MAX_POSITION_ANALYSES = 2
    key, other = new_session(), new_session()
    first, second, third = (review_game(key) for _ in range(3))
    others = review_game(other)

    async def scenario() -> None:
        sockets = [await connect(g.pk, key) for g in (first, second, third)]
        for ws in sockets:
            await receive_until(ws, is_state)
        for ws in sockets[:2]:
            await ws.send_json_to({"type": "analyze", "move_number": 0})
        await running_jobs(Job.Kind.POSITION, 2)  # this user's two slots are taken
        flooded = sockets[2]
        for k in range(FLOOD):
            await flooded.send_json_to({"type": "analyze", "move_number": k % 10})
        refusals = [await flooded.receive_json_from(timeout=10) for _ in range(FLOOD)]
        assert all(r["type"] == "error" and r["message"].startswith(CAP_POSITIONS) for r in refusals)
        assert await pong_within(flooded, 5) < 5  # past the flood, the socket answers at once

        outsider = await connect(others.pk, other)  # someone else is not held back by the flood
        await receive_until(outsider, is_state)
        await outsider.send_json_to({"type": "analyze", "move_number": 3})
        await sockets[0].send_json_to({"type": "analyze_game"})
        await receive_until(sockets[0], lambda m: m["type"] == "analysis_started")
        await sockets[1].send_json_to({"type": "analyze_game"})
        refused = await receive_until(sockets[1], lambda m: m["type"] == "error")
        assert refused["message"].startswith(CAP_GAMES)

        gate.set()
        assert (await receive_until(outsider, is_analysis))["move_number"] == 3
        for ws in sockets[:2]:
            assert (await receive_until(ws, is_analysis))["move_number"] == 0
        await receive_until(sockets[0], lambda m: m["type"] == "analysis_done", timeout=60)
        await flooded.send_json_to({"type": "analyze", "move_number": 5})  # the slots are free again
        assert (await receive_until(flooded, is_analysis))["move_number"] == 5
        await sockets[1].send_json_to({"type": "analyze_game"})
        await receive_until(sockets[1], lambda m: m["type"] == "analysis_done", timeout=60)
        await dispatch.wait_idle()
        for ws in [*sockets, outsider]:
            await ws.disconnect()

    asyncio.run(scenario())
    assert submitted["analyze_position"] == 4 and submitted["analyze_game"] == 2
    assert not Job.objects.exists()


def test_a_bot_move_is_served_while_whole_game_analyses_hold_every_analysis_thread(
    settings, gate: threading.Event
) -> None:
    """In-process, each queue has threads of its own, as each kind of work has workers of its own."""
    settings.GOWEB_REVIEW_VISITS = 4
    players = [new_session() for _ in range(settings.GOWEB_ANALYSIS_THREADS + 1)]
    reviews = [review_game(key) for key in players]
    game = make_game(players[0])

    async def scenario() -> None:
        watching = [await connect(g.pk, key) for g, key in zip(reviews, players, strict=True)]
        for ws in watching:
            await receive_until(ws, is_state)
            await ws.send_json_to({"type": "analyze_game"})
            await receive_until(ws, lambda m: m["type"] == "analysis_started")
        await running_jobs(Job.Kind.GAME, settings.GOWEB_ANALYSIS_THREADS)  # every thread is busy
        ws = await connect(game.pk, players[0])
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "play", "move": "E5"})
        reply = await receive_until(ws, lambda m: m["type"] == "state" and "bot_move" in m, timeout=20)
        assert reply["move_number"] == 2
        assert not gate.is_set()  # the analyses were still held at their first position
        gate.set()
        for review in watching:
            await receive_until(review, lambda m: m["type"] == "analysis_done", timeout=60)
        await dispatch.wait_idle()
        for socket in [*watching, ws]:
            await socket.disconnect()

    asyncio.run(scenario())


def test_a_bot_move_task_whose_position_was_undone_replies_to_the_game_as_it_is_unless_a_job_waits() -> None:
    """The page's request for the bot finds both of the game's bot jobs running, each about a
    position undone since: one of them thinks again, or the game would wait with the bot's clock
    running."""
    game = make_game("s")
    board.human_move(game.pk, "E5")
    waiting = jobs.request(f"game:{game.pk}", jobs.Kind.BOT, {"expected_moves": 1}, game_id=game.pk)
    assert tasks._bot_move(game.pk, 3) == {"skipped": "the game changed since the move was requested"}
    assert Game.objects.get(pk=game.pk).sgf.count(";W[") == 0  # the waiting job replies
    jobs.claim(waiting.job)  # running now, about a position of its own
    outcome = tasks._bot_move(game.pk, 3)
    assert set(outcome) == {"move"} and Game.objects.get(pk=game.pk).sgf.count(";W[") == 1
    assert tasks._bot_move(game.pk, 3)["skipped"]  # the human's turn: nothing owed


def test_a_flood_of_state_requests_asks_the_bot_once(settings, submitted: Counter, monkeypatch) -> None:
    """A bot move asked again while one is waiting replaces it: one task, one reply."""
    thinking = threading.Event()
    move = tasks._bot_move

    def slow_bot(*args: object) -> dict:
        thinking.wait(30)
        return move(*args)

    monkeypatch.setattr(tasks, "_bot_move", slow_bot)
    key = new_session()
    game = make_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "play", "move": "E5"})
        await receive_until(ws, is_state)
        for _ in range(100):
            await ws.send_json_to({"type": "state"})
        for _ in range(100):
            await receive_until(ws, is_state)
        await pong_within(ws, 10)  # every state request was handled (a reply goes before its request)
        thinking.set()
        await receive_until(ws, lambda m: m["type"] == "state" and "bot_move" in m)
        await dispatch.wait_idle()
        await ws.disconnect()

    asyncio.run(scenario())
    assert submitted["bot_move"] <= 2  # the one thinking and at most one waiting, not 101
    assert not Job.objects.exists()
    assert len(Game.objects.get(pk=game.pk).sgf.split(";")) == 4  # root, E5 and one reply


def test_the_cap_and_replacement_in_the_ledger(settings) -> None:
    settings.GOWEB_MAX_POSITION_ANALYSES = 2
    game = make_game("s")
    first = jobs.request("user:1", jobs.Kind.POSITION, {"move_number": 1}, game_id=game.pk)
    again = jobs.request("user:1", jobs.Kind.POSITION, {"move_number": 2}, game_id=game.pk)
    assert first.new and not again.new and again.job == first.job
    assert Job.objects.get(pk=first.job).payload == {"move_number": 2}
    assert jobs.claim(first.job).payload == {"move_number": 2}  # started: no longer replaceable
    assert jobs.request("user:1", jobs.Kind.POSITION, {"move_number": 3}, game_id=game.pk).new
    with pytest.raises(jobs.CapReached, match="you already have 2 position analyses"):
        jobs.request("user:1", jobs.Kind.POSITION, {}, game_id=None)
    assert jobs.request("user:2", jobs.Kind.POSITION, {}).new  # another user has slots of their own
    jobs.release(first.job)
    assert jobs.claim(first.job) is None  # gone: its task is skipped
    assert jobs.request("user:1", jobs.Kind.POSITION, {}).new  # the freed slot


def test_an_addresss_sessions_and_games_share_its_cap_and_another_address_has_its_own(settings) -> None:
    settings.GOWEB_MAX_ADDRESS_JOBS = 3
    games = [make_game("s") for _ in range(2)]
    here, there = "203.0.113.7", "198.51.100.8"
    held = [jobs.request(f"session:{k}", jobs.Kind.POSITION, {}, address=here).job for k in range(2)]
    held.append(jobs.request(f"game:{games[0].pk}", jobs.Kind.BOT, {}, game_id=games[0].pk, address=here).job)
    refused = r"too much work queued from your address \(at most 3 analyses or bot moves at once\)"
    with pytest.raises(jobs.AddressCapReached, match=refused):
        jobs.request("session:another", jobs.Kind.GAME, {}, replace=False, address=here)
    with pytest.raises(jobs.AddressCapReached, match="the bot cannot start thinking yet: " + refused):
        board.request_bot_move(games[1].pk, 0, here)
    assert jobs.request("session:another", jobs.Kind.GAME, {}, replace=False, address=there).new
    assert jobs.request("session:another", jobs.Kind.POSITION, {}).new  # no address: not counted
    jobs.release(held[0])
    assert jobs.request("session:another", jobs.Kind.POSITION, {}, address=here).new  # the freed slot
    assert Job.objects.filter(address=here).count() == 3


def test_a_move_whose_reply_the_address_has_no_room_to_queue_is_not_played(settings) -> None:
    settings.GOWEB_MAX_ADDRESS_JOBS = 1
    game, here = make_game("s"), "203.0.113.7"
    held = jobs.request("session:s", jobs.Kind.POSITION, {}, address=here)
    refused = (r"your move was not played, as the bot could not think about its reply: too much work "
               r"queued from your address \(at most 1 analyses or bot moves at once\)")
    with pytest.raises(jobs.AddressCapReached, match=refused):
        board.human_move(game.pk, "E5", here)
    game.refresh_from_db()
    assert ";B[" not in game.sgf
    assert board.human_move(game.pk, "E5", "198.51.100.8").bot_expected_moves == 1  # another address
    jobs.release(held.job)


def test_two_sessions_of_one_address_share_its_cap_over_their_sockets(
    settings, gate: threading.Event
) -> None:
    settings.GOWEB_REVIEW_VISITS, settings.GOWEB_MAX_ADDRESS_JOBS, settings.GOWEB_TRUSTED_PROXIES = 4, 1, 1
    keys = [new_session() for _ in range(2)]
    boards = [review_game(key) for key in keys]

    async def open_from(game: Game, key: str) -> WebsocketCommunicator:
        headers = [ORIGIN, (b"cookie", f"sessionid={key}".encode()), (b"x-forwarded-for", b"203.0.113.7")]
        ws = WebsocketCommunicator(application, f"/ws/board/{game.pk}/", headers=headers)
        assert (await ws.connect())[0]
        await receive_until(ws, is_state)
        return ws

    async def scenario() -> None:
        first, second = [await open_from(game, key) for game, key in zip(boards, keys, strict=True)]
        await first.send_json_to({"type": "analyze", "move_number": 2})
        await running_jobs(Job.Kind.POSITION, 1)
        await second.send_json_to({"type": "analyze", "move_number": 3})
        refused = await receive_until(second, lambda m: m["type"] == "error")
        assert refused["message"] == ("too much work queued from your address (at most 1 analyses or bot "
                                      "moves at once); wait for one to finish")
        gate.set()
        assert (await receive_until(first, is_analysis))["move_number"] == 2
        await dispatch.wait_idle()
        await second.send_json_to({"type": "analyze", "move_number": 3})  # the address's slot is free
        assert (await receive_until(second, is_analysis))["move_number"] == 3
        await dispatch.wait_idle()
        for ws in (first, second):
            await ws.disconnect()

    asyncio.run(scenario())
    assert not Job.objects.exists()


def test_an_addresss_lost_job_stops_counting_after_the_lease(settings) -> None:
    settings.GOWEB_MAX_ADDRESS_JOBS = 1
    lost = jobs.request("session:s", jobs.Kind.POSITION, {}, address="203.0.113.7")
    with pytest.raises(jobs.AddressCapReached):
        jobs.request("session:t", jobs.Kind.POSITION, {}, address="203.0.113.7")
    Job.objects.filter(pk=lost.job).update(heartbeat=Job.objects.get(pk=lost.job).heartbeat - jobs.lease())
    assert jobs.request("session:t", jobs.Kind.POSITION, {}, address="203.0.113.7").new


def test_a_lost_job_stops_counting_after_the_lease(settings) -> None:
    settings.GOWEB_MAX_GAME_ANALYSES = 1
    lost = jobs.request("session:s", jobs.Kind.GAME, {}, replace=False)
    with pytest.raises(jobs.CapReached, match="1 whole-game analysis queued or running"):
        jobs.request("session:s", jobs.Kind.GAME, {}, replace=False)
    Job.objects.filter(pk=lost.job).update(heartbeat=Job.objects.get(pk=lost.job).heartbeat - jobs.lease())
    assert jobs.request("session:s", jobs.Kind.GAME, {}, replace=False).new
    assert not Job.objects.filter(pk=lost.job).exists()


def test_the_in_process_runner_forgets_the_jobs_of_an_earlier_process(monkeypatch) -> None:
    """After a restart in the embedded mode, the dead threads' jobs no longer take slots, and their
    analyses no longer read as running."""
    earlier = jobs.request("session:s", jobs.Kind.POSITION, {})
    Job.objects.filter(pk=earlier.job).update(created=dispatch.STARTED - datetime.timedelta(minutes=1))
    mine = jobs.request("session:s", jobs.Kind.POSITION, {})
    game = make_game("s")
    left = game.analyses.create(status=Analysis.Status.RUNNING)
    Analysis.objects.filter(pk=left.pk).update(updated=dispatch.STARTED - datetime.timedelta(minutes=1))
    monkeypatch.setattr(dispatch, "_pools", {})  # this process has run nothing in-process yet
    monkeypatch.setattr(dispatch, "_forgotten", False)
    asyncio.run(dispatch._executor("play"))
    assert list(Job.objects.values_list("pk", flat=True)) == [mine.job]
    assert Analysis.objects.get(pk=left.pk).status == "cancelled"  # nobody runs it any more


def test_the_slot_is_free_when_the_board_hears_the_analysis_is_done(settings, monkeypatch) -> None:
    """A user told ``analysis_done`` may ask for the next whole-game analysis at once."""
    settings.GOWEB_MAX_GAME_ANALYSES = 1
    settings.GOWEB_REVIEW_VISITS = 4
    game = make_game("s")
    game.sgf, game.kind = REVIEW_SGF, Game.Kind.REVIEW
    game.save()
    analysis = game.analyses.create()
    ticket = jobs.request("session:s", jobs.Kind.GAME, {}, replace=False)
    heard: list[tuple[str, bool]] = []

    def to_group(game_id: int, message: dict) -> None:
        heard.append((message["type"], Job.objects.filter(pk=ticket.job).exists()))

    monkeypatch.setattr(game_analysis.notify, "to_group", to_group)
    tasks.analyze_game.apply(args=(analysis.pk, ticket.job))
    assert heard[-1] == ("analysis_done", False)  # the slot was freed before the message went out
    assert all(held for kind, held in heard if kind == "progress")
    assert jobs.request("session:s", jobs.Kind.GAME, {}, replace=False).new


API_MOVES = [["B", "E5"], ["W", "C3"], ["B", "G7"], ["W", "C7"]]


async def api_query(moves: int) -> ApplicationCommunicator:
    """POST a 9x9 query of the first ``moves`` moves to /api/analyze (from one address) and return the
    conversation, the request sent and its answer not yet read."""
    body = json.dumps({"moves": API_MOVES[:moves], "boardXSize": 9, "maxVisits": 4}).encode()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/analyze", "raw_path": b"/api/analyze", "query_string": b"",
        "root_path": "", "headers": [(b"host", b"localhost"), (b"content-type", b"application/json")],
        "client": ("198.51.100.7", 4000), "server": ("localhost", 80),
    }  # fmt: skip
    talk = ApplicationCommunicator(application, scope)
    await talk.send_input({"type": "http.request", "body": body, "more_body": False})
    return talk


async def api_answer(talk: ApplicationCommunicator) -> tuple[int, dict]:
    """Return the status and JSON body of a query's answer."""
    start = await talk.receive_output(timeout=30)
    body = await talk.receive_output(timeout=30)
    return start["status"], json.loads(body["body"])


async def hang_up(talk: ApplicationCommunicator) -> None:
    """Leave before the answer, as a client whose timeout ran out, and wait for the view to end."""
    await talk.send_input({"type": "http.disconnect"})
    await talk.wait(timeout=10)


async def jobs_of_kind(kind: str, count: int) -> None:
    """Wait until there are ``count`` jobs of ``kind``."""
    for _ in range(600):
        if await Job.objects.filter(kind=kind).acount() == count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"there are not {count} {kind} jobs")


def test_an_api_client_that_hangs_up_keeps_its_slot_while_its_search_runs_and_its_queued_query_is_skipped(
    settings, gate: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35, item 5: queries of clients that had gone kept running and filled the queue."""
    settings.GOWEB_ANALYSIS_THREADS = 1
    settings.GOWEB_MAX_POSITION_ANALYSES = 2
    monkeypatch.setattr(dispatch, "_pools", {})  # a pool of one thread for this test's settings
    searched: list[int] = []
    search = tasks.answer_query

    def counting(query: object, *args: object) -> dict:
        searched.append(len(query.moves))
        return search(query, *args)

    monkeypatch.setattr(tasks, "answer_query", counting)

    async def scenario() -> tuple[int, int, dict]:
        first = await api_query(1)
        while not searched:  # searching, held by the gate
            await asyncio.sleep(0.05)
        await hang_up(first)
        second = await api_query(2)  # queued behind the first: the one thread is busy
        await jobs_of_kind(Job.Kind.POSITION, 2)
        await hang_up(second)
        third = await api_query(3)
        await jobs_of_kind(Job.Kind.POSITION, 2)
        refused, _ = await api_answer(await api_query(4))  # the first still runs: its slot counts
        gate.set()
        status, answer = await api_answer(third)
        await dispatch.wait_idle()
        return refused, status, answer

    refused, status, answer = asyncio.run(scenario())
    assert refused == 429
    assert status == 200 and answer["turnNumber"] == 3
    assert searched == [1, 3]  # the query whose client had gone before it started was never searched
    assert not Job.objects.exists()  # every slot freed when its work ended


def test_a_bot_move_whose_task_was_lost_is_queued_again_on_reconnection_and_made_once(
    settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35, item 9: the broker lost the bot move's task (a Redis without persistence restarted);
    every reconnection refreshed the waiting job and queued nothing, so the bot never moved."""
    settings.GOWEB_TASK_START_TIMEOUT = 1
    lost: list[tuple] = []
    submit = dispatch.submit

    async def losing_the_first(task: object, *args: object) -> None:
        if task is tasks.bot_move and not lost:
            lost.append(args)
            return
        await submit(task, *args)

    monkeypatch.setattr(dispatch, "submit", losing_the_first)
    key = new_session()
    game = make_game(key)

    async def scenario() -> dict:
        ws = await connect(game.pk, key)
        await receive_until(ws, is_state)
        await ws.send_json_to({"type": "play", "move": "E5"})
        await receive_until(ws, is_state)
        await ws.disconnect()
        assert lost and await Job.objects.filter(kind=Job.Kind.BOT).acount() == 1
        await asyncio.sleep(1.2)  # longer than a queued job may wait for a worker to take it
        ws = await connect(game.pk, key)
        reply = await receive_until(ws, lambda m: is_state(m) and "bot_move" in m)
        await dispatch.wait_idle()
        await ws.disconnect()
        return reply

    assert asyncio.run(scenario())["move_number"] == 2
    assert tasks.bot_move.apply(args=lost[0]).get() == {"skipped": "the request was withdrawn"}  # late
    assert len(Game.objects.get(pk=game.pk).sgf.split(";")) == 4  # root, E5 and one reply
    assert not Job.objects.exists()


def test_a_waiting_job_queued_under_another_run_of_the_broker_is_queued_again(
    settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broker that restarted (Redis gives each run an id of its own) may have lost the queued
    tasks: a request for a job queued before it is queued again at once."""
    run = ["first-run"]
    monkeypatch.setattr(broker, "current_run", lambda: run[0])
    game = make_game("s")
    first = jobs.request("game:1", jobs.Kind.BOT, {"expected_moves": 1}, game_id=game.pk)
    again = jobs.request("game:1", jobs.Kind.BOT, {"expected_moves": 1}, game_id=game.pk)
    assert first.new and not again.new  # its task is queued already
    run[0] = "second-run"
    requeued = jobs.request("game:1", jobs.Kind.BOT, {"expected_moves": 1}, game_id=game.pk)
    assert requeued == jobs.Ticket(first.job, new=True)
    assert not jobs.request("game:1", jobs.Kind.BOT, {"expected_moves": 1}, game_id=game.pk).new
