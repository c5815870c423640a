"""The analysis tasks on real Celery workers, with Redis as broker, result backend and channel layer.

The other tests run the whole site (daphne and workers as subprocesses, see analysis.bench.webstack):
a game is uploaded, its analysis streams over the websocket, and the worker running it is killed
mid-run; a new worker takes the unacknowledged task over and the analysis resumes and finishes.
On one worker taking every queue, a bot move is served while a whole-game analysis runs, and a
flood of whole-game analyses past the user's cap gets the cap message while the site stays
responsive; the worker frees the slot when the analysis ends.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from celery import Celery
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from analysis.bench.webclient import SiteSession, receive, send
from analysis.bench.webstack import WebStack
from analysis.review.query import PositionQuery
from goweb.envconfig import redis_host

REDIS_URL = "redis://127.0.0.1:6379/15"
ROOT = Path(__file__).resolve().parent.parent


def _redis_reachable() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=1).ping())
    except redis.RedisError:
        return False


pytestmark = pytest.mark.skipif(not _redis_reachable(), reason=f"Redis not reachable at {REDIS_URL}")


@pytest.fixture
def worker(tmp_path: Path):
    """Start ``celery -A goweb worker --pool=solo`` on a private queue; yield the queue name."""
    queue = f"goweb-test-{uuid.uuid4().hex}"
    env = {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "GOWEB_SQLITE_PATH": str(tmp_path / "worker.sqlite3"),
    }
    celery = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "goweb",
        "worker",
        "--pool=solo",
        "-Q",
        queue,
        "-l",
        "info",
    ]
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(celery, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield queue
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def test_position_analysis_runs_on_a_worker_and_replies_over_the_channel_layer(worker: str) -> None:
    client = Celery("goweb-test", broker=REDIS_URL, backend=REDIS_URL)
    client.conf.update(task_serializer="json", accept_content=["json"], result_accept_content=["json"])
    moves = [["B", "E5"], ["W", "C3"]]
    query = PositionQuery(size=9, komi=7.5, rules="chinese", visits=settings.GOWEB_REVIEW_VISITS, moves=moves)
    query = query.to_json()

    async def scenario() -> None:
        layer = RedisChannelLayer(hosts=[redis_host(REDIS_URL)])
        try:
            channel = await layer.new_channel()
            result = client.send_task("frontend.tasks.analyze_position", args=[query, channel], queue=worker)
            reply = await asyncio.wait_for(layer.receive(channel), timeout=90)
            assert reply["type"] == "board.message"
            message = reply["message"]
            assert message["type"] == "analysis" and message["move_number"] == 2
            assert len(message["candidates"]) == 10 and message["ladders"]["size"] == 9
            stored = await asyncio.to_thread(result.get, timeout=30)
            assert stored["candidates"] == message["candidates"]
        finally:
            await layer.flush()
            await layer.close_pools()

    asyncio.run(scenario())


def wall_game(moves: int) -> str:
    """Return a legal 19x19 game of ``moves`` moves (black fills row 4, white row 16, no captures)."""
    letters = "abcdefghijklmnopqrs"
    nodes = [f";{'BW'[i % 2]}[{letters[i // 2 % 19]}{'dp'[i % 2]}]" for i in range(moves)]
    return "(;GM[1]FF[4]SZ[19]KM[7.5]" + "".join(nodes) + ")"


def test_killed_worker_mid_analysis_the_task_is_redelivered_and_the_analysis_resumes(tmp_path: Path) -> None:
    env = {
        "GOWEB_REVIEW_VISITS": "48",
        "GOWEB_REVIEW_CHUNK": "4",
        "GOWEB_TASK_VISIBILITY_TIMEOUT": "4",
        "DJANGO_DEBUG": "0",
    }
    moves = 36
    with WebStack(tmp_path, REDIS_URL, workers=1, env=env) as stack:
        session = SiteSession(stack.base_url)
        game_id = session.upload(wall_game(moves))

        async def scenario() -> tuple[list[int], list[int], dict]:
            async with session.board(game_id) as ws:
                assert (await receive(ws))["type"] == "state"
                await send(ws, {"type": "analyze_game"})
                assert (await receive(ws))["type"] == "analysis_started"
                before, after = [], []
                while len(before) < 6:
                    message = await asyncio.wait_for(receive(ws), 60)
                    assert message["type"] == "progress", message
                    before.append(message["entry"]["move_number"])
                await asyncio.to_thread(stack.kill_worker, 0)
                killed_at = time.monotonic()
                stack.start_worker()
                while True:
                    message = await asyncio.wait_for(receive(ws), 90)
                    if message["type"] == "analysis_done":
                        break
                    assert message["type"] == "progress", message
                    if time.monotonic() - killed_at > 1:  # not in flight when the worker died
                        after.append(message["entry"]["move_number"])
                return before, after, message

        before, after, done = asyncio.run(scenario())
        assert before == list(range(6))
        assert after and after[-1] == moves  # the new worker went on to the last position
        # The killed worker was in the middle of the chunk of positions 4-7: its message came back,
        # and the positions it had sent but not saved were analysed again.
        assert {4, 5} <= set(after)
        assert set(before) | set(after) >= set(range(max(before) + 1, moves + 1))
        assert isinstance(done["mistakes"], list)

        async def reconnect() -> dict:
            async with session.board(game_id) as ws:
                await receive(ws)  # state
                return await receive(ws)

        saved = asyncio.run(reconnect())
        assert saved["type"] == "analysis_state" and saved["status"] == "done"
        assert [r["move_number"] for r in saved["results"]] == list(range(moves + 1))
        assert all(r["visits"] == 48 for r in saved["results"])
    # The message the killed worker held was acknowledged late: the new worker received it again.
    received = re.compile(r"Task frontend\.tasks\.analyze_game\[([0-9a-f-]+)\] received")
    in_flight = received.findall((tmp_path / "worker0.log").read_text())[-1]
    assert in_flight in received.findall((tmp_path / "worker1.log").read_text())


def long_game(moves: int) -> str:
    """Return a legal 19x19 game of up to 342 moves: black fills the top nine rows, white the
    bottom nine, row by row; the empty tenth row keeps them apart, so nothing is captured."""
    letters = "abcdefghijklmnopqrs"
    nodes = []
    for i in range(moves):
        k = i // 2
        row = k // 19 + (10 if i % 2 else 0)
        nodes.append(f";{'BW'[i % 2]}[{letters[k % 19]}{letters[row]}]")
    return "(;GM[1]FF[4]SZ[19]KM[7.5]" + "".join(nodes) + ")"


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    """The site with a single worker taking every queue: one pool for all the work."""
    env = {"GOWEB_REVIEW_VISITS": "48", "GOWEB_REVIEW_CHUNK": "4", "DJANGO_DEBUG": "0"}
    with WebStack(tmp_path_factory.mktemp("one-worker"), REDIS_URL, workers=1, env=env) as stack:
        yield stack


def is_bot_reply(message: dict) -> bool:
    return message["type"] == "state" and "bot_move" in message


async def until(ws: object, accept: object, seconds: float = 60) -> dict:
    """Return the first message ``accept`` takes; an error message fails at once."""
    while True:
        message = await asyncio.wait_for(receive(ws), seconds)
        if accept(message):
            return message
        assert message["type"] != "error", message


def test_a_bot_move_is_served_while_a_whole_game_analysis_runs_on_the_same_worker(
    one_worker: WebStack,
) -> None:
    reviewer, player = SiteSession(one_worker.base_url), SiteSession(one_worker.base_url)
    review_id = reviewer.upload(long_game(120))
    game_id = player.new_game("policy", size=9)

    async def scenario() -> tuple[float, int, int]:
        async with reviewer.board(review_id) as review, player.board(game_id) as board:
            await until(review, lambda m: m["type"] == "state")
            await send(review, {"type": "analyze_game"})
            await until(review, lambda m: m["type"] == "progress")  # the worker is analysing
            await until(board, lambda m: m["type"] == "state")
            t0 = time.perf_counter()
            await send(board, {"type": "play", "move": "E5"})
            reply = await until(board, is_bot_reply)
            waited = time.perf_counter() - t0
            after = [await until(review, lambda m: m["type"] in ("progress", "analysis_done"))]
            while after[-1]["type"] != "analysis_done":
                after.append(await until(review, lambda m: m["type"] in ("progress", "analysis_done")))
            return waited, reply["move_number"], len(after) - 1

    waited, moves, positions_after = asyncio.run(scenario())
    assert moves == 2 and waited < 15
    assert positions_after >= 20  # the analysis had most of its way to go when the bot replied


def test_a_flood_past_the_cap_gets_the_cap_message_on_workers_and_the_slot_frees_when_done(
    one_worker: WebStack,
) -> None:
    visitor = SiteSession(one_worker.base_url)
    first, second = visitor.upload(long_game(100)), visitor.upload(long_game(8))
    cap = "too much work queued: you already have 1 whole-game analysis queued or running"
    budget = "too many messages from your address"

    async def scenario() -> float:
        async with visitor.board(first) as running, visitor.board(second) as flooded:
            await until(running, lambda m: m["type"] == "state")
            await until(flooded, lambda m: m["type"] == "state")
            await send(running, {"type": "analyze_game"})
            await until(running, lambda m: m["type"] == "progress")
            for _ in range(300):
                await send(flooded, {"type": "analyze_game"})
            replies = [await asyncio.wait_for(receive(flooded), 30) for _ in range(300)]
            capped = [r for r in replies if r["type"] == "error" and r["message"].startswith(cap)]
            unread = [r for r in replies if r["type"] == "error" and r["message"].startswith(budget)]
            assert len(capped) >= 30 and len(capped) + len(unread) == 300  # the burst read, then the budget
            await asyncio.sleep(0.2)  # a message's worth of the address's budget back
            t0 = time.perf_counter()
            await send(flooded, {"type": "ping"})
            assert (await asyncio.wait_for(receive(flooded), 10)) == {"type": "pong"}
            responsive = time.perf_counter() - t0
            await until(running, lambda m: m["type"] == "analysis_done", 120)
            await send(flooded, {"type": "analyze_game"})  # the worker freed the slot: accepted
            await until(flooded, lambda m: m["type"] == "analysis_started")
            await until(flooded, lambda m: m["type"] == "analysis_done", 120)
            return responsive

    assert asyncio.run(scenario()) < 2
