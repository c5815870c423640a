"""A Redis outage under the whole site: daphne and a worker on a Redis server of the test's own
(other tests and agents share the one at 6379), which the test stops and starts again without
persistence, as a restarted container would.

During the outage an open board stays open and refuses a move with a message saying nothing was
changed; after it, the first connection works and the game goes on, the bot answering.  A bot
move whose task the restarted Redis forgot is queued again when the board reconnects.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis.bench.webclient import SiteSession, receive, send
from analysis.bench.webstack import WebStack, free_port
from frontend.services.outage import REFUSED

REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")


class RedisServer:
    """A Redis server on a free port of 127.0.0.1, without persistence, that can be stopped and
    started again on the same port."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the server and return once it answers; raises RuntimeError if it does not."""
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                   "--appendonly", "no", "--dir", str(self.directory)]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ping = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True)
            if ping.stdout.strip() == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        """Stop the server (its data is gone: no persistence)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def until(ws: object, accept: object, seconds: float) -> dict:
    """Return the first message ``accept`` takes; an error message fails at once."""
    while True:
        message = await asyncio.wait_for(receive(ws), seconds)
        if accept(message):
            return message
        assert message["type"] != "error", message


def test_during_a_redis_outage_a_move_is_refused_with_a_message_and_the_first_connection_after_works(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """Issue 35, item 10: the open socket was dropped (1006) with no message and the move not
    played; after Redis came back, the first connection failed with 1011 (a stale pooled
    connection)."""
    with WebStack(tmp_path, redis_server.url, workers=1, env={"DJANGO_DEBUG": "0"}) as stack:
        player = SiteSession(stack.base_url)
        game_id = player.new_game("rules", size=9)

        async def scenario() -> tuple[dict, dict, dict, dict]:
            async with player.board(game_id) as board:
                await until(board, lambda m: m["type"] == "state", 30)
                redis_server.stop()
                await send(board, {"type": "play", "move": "E5"})
                refused = await asyncio.wait_for(receive(board), 30)
                await send(board, {"type": "ping"})
                pong = await asyncio.wait_for(receive(board), 10)
                redis_server.start()
                async with player.board(game_id) as again:  # the first connection after the outage
                    state = await asyncio.wait_for(receive(again), 30)
                    await send(again, {"type": "play", "move": "E5"})
                    reply = await until(again, lambda m: m["type"] == "state" and "bot_move" in m, 90)
            return refused, pong, state, reply

        refused, pong, state, reply = asyncio.run(scenario())
    assert refused == {"type": "error", "message": REFUSED}
    assert pong == {"type": "pong"}  # the socket stayed open
    assert state["type"] == "state" and state["moves"] == []  # the refused move was not played
    assert reply["moves"][0] == ["B", "E5"] and reply["move_number"] == 2


def test_a_bot_move_queued_before_redis_restarted_without_its_queues_is_made_once_a_worker_runs(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """Issue 35, item 9, on the whole site: with no worker running, the human plays; Redis restarts
    and forgets the queued task; a worker starts.  Reconnecting asked for the bot's move but queued
    nothing (the waiting job was only refreshed), so the bot never answered."""
    with WebStack(tmp_path, redis_server.url, workers=0, env={"DJANGO_DEBUG": "0"}) as stack:
        player = SiteSession(stack.base_url)
        game_id = player.new_game("rules", size=9)

        async def play() -> None:
            async with player.board(game_id) as board:
                await until(board, lambda m: m["type"] == "state", 30)
                await send(board, {"type": "play", "move": "E5"})
                await until(board, lambda m: m["type"] == "state" and m["move_number"] == 1, 30)

        async def reconnect() -> dict:
            async with player.board(game_id) as board:
                return await until(board, lambda m: m["type"] == "state" and "bot_move" in m, 90)

        asyncio.run(play())
        redis_server.stop()
        redis_server.start()
        stack.start_worker()
        reply = asyncio.run(reconnect())
    assert reply["move_number"] == 2 and reply["moves"][0] == ["B", "E5"]
