"""The analysis tasks on a real Celery worker, with Redis as broker, result backend and channel layer."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis
from celery import Celery
from channels_redis.core import RedisChannelLayer

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
    query = {"size": 9, "komi": 7.5, "moves": [["B", "E5"], ["W", "C3"]], "move_number": 2}

    async def scenario() -> None:
        layer = RedisChannelLayer(hosts=[REDIS_URL])
        try:
            channel = await layer.new_channel()
            result = client.send_task("analysis.tasks.analyze_position", args=[query, channel], queue=worker)
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
