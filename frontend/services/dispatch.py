"""Running analysis tasks: on Celery workers when a broker is set, else in-process on threads.

The embedded default (no broker, ``CELERY_TASK_ALWAYS_EAGER``) runs the very same task code with
``Task.apply`` on small thread pools, so the event loop keeps serving websockets meanwhile: one
pool per Celery queue (``play``, ``analysis``, ``review``), as workers of their own would, so a
bot move never waits behind a whole-game analysis.  The first task a process runs in-process
clears the jobs an earlier process left (:func:`frontend.services.jobs.forget_before`): their
threads died with it.  Results always come back through the channel layer (see
:mod:`frontend.services.notify`); ``ask`` waits for a task's reply on a channel of its own.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from celery import Task
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

from frontend.services import jobs

log = logging.getLogger(__name__)

STARTED = timezone.now()
_pools: dict[str, ThreadPoolExecutor] = {}
_running: set[asyncio.Future] = set()


def queue_of(task: Task) -> str:
    """Return the Celery queue that ``task`` is routed to (``CELERY_TASK_ROUTES``)."""
    route = settings.CELERY_TASK_ROUTES.get(task.name, {})
    return route.get("queue", settings.CELERY_TASK_DEFAULT_QUEUE)


async def _executor(queue: str) -> ThreadPoolExecutor:
    if not _pools:
        forgotten = await sync_to_async(jobs.forget_before)(STARTED)
        if forgotten:
            log.info("forgot %d jobs of an earlier process", forgotten)
    if queue not in _pools:
        _pools[queue] = ThreadPoolExecutor(settings.GOWEB_ANALYSIS_THREADS, thread_name_prefix=queue)
    return _pools[queue]


def _report(future: asyncio.Future) -> None:
    _running.discard(future)
    if not future.cancelled() and future.exception() is not None:
        log.error("in-process task failed", exc_info=future.exception())


async def submit(task: Task, *args: Any) -> None:
    """Start ``task(*args)`` (JSON arguments) without waiting for it to finish."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        run = sync_to_async(task.apply, thread_sensitive=False, executor=await _executor(queue_of(task)))
        future = asyncio.ensure_future(run(args=args))
        _running.add(future)
        future.add_done_callback(_report)
    else:
        await sync_to_async(task.apply_async, thread_sensitive=False)(args=args)


async def ask(task: Task, query: dict, timeout: float) -> dict:
    """Run ``task(query, reply_channel)`` and return the message it sends to ``reply_channel``.

    Raises TimeoutError when no message arrives within ``timeout`` seconds.
    """
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await submit(task, query, channel)
    event = await asyncio.wait_for(layer.receive(channel), timeout)
    return event["message"]


async def wait_idle() -> None:
    """Wait until every in-process task has finished (for tests and shutdown)."""
    while _running:
        await asyncio.gather(*list(_running), return_exceptions=True)
