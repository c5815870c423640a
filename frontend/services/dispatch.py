"""Running analysis tasks: on Celery workers when a broker is set, else in-process on threads.

The embedded default (no broker, ``CELERY_TASK_ALWAYS_EAGER``) runs the very same task code with
``Task.apply`` on small thread pools, so the event loop keeps serving websockets meanwhile: one
pool per Celery queue (``play``, ``analysis``, ``review``), as workers of their own would, so a
bot move never waits behind a whole-game analysis.  The first task a process runs in-process
clears the jobs an earlier process left (:func:`frontend.services.jobs.forget_before`) and
cancels its analyses (:func:`frontend.services.game_analysis.abandon_before`): their threads died
with it.  At exit, the queued tasks are dropped and the running analyses asked to stop after
their current position, keeping what they saved.  Results always come back through the channel layer (see
:mod:`frontend.services.notify`); ``ask`` waits for a task's reply on a channel of its own.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from celery import Task
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

from frontend.services import game_analysis, jobs, outage

log = logging.getLogger(__name__)

STARTED = timezone.now()
_pools: dict[str, ThreadPoolExecutor] = {}
_running: set[asyncio.Future] = set()
_forgotten = False  # whether _forget_once ran
_forget_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None  # the event loop the in-process tasks report to
EXIT_WAIT_SECONDS = 60  # at exit, the longest wait for the running tasks (a position's search)


class _Working:
    """How many in-process tasks the pools' threads are executing now."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0

    def run(self, apply: Callable[..., Any], **kwargs: Any) -> Any:
        """Return ``apply(**kwargs)``, counted while it runs."""
        with self.lock:
            self.count += 1
        try:
            return apply(**kwargs)
        finally:
            with self.lock:
                self.count -= 1


_working = _Working()


def queue_of(task: Task) -> str:
    """Return the Celery queue that ``task`` is routed to (``CELERY_TASK_ROUTES``)."""
    route = settings.CELERY_TASK_ROUTES.get(task.name, {})
    return route.get("queue", settings.CELERY_TASK_DEFAULT_QUEUE)


async def _executor(queue: str) -> ThreadPoolExecutor:
    if not _pools:
        await forget_the_earlier_process()
        threading._register_atexit(_stop_at_exit)  # see _stop_at_exit
    if queue not in _pools:
        _pools[queue] = ThreadPoolExecutor(settings.GOWEB_ANALYSIS_THREADS, thread_name_prefix=queue)
    return _pools[queue]


async def forget_the_earlier_process() -> None:
    """In-process only, once per process (before its first task, or its first board's state):
    forget the jobs of the process before this one and cancel the analyses it left running.
    Callers arriving meanwhile wait until that is done."""
    if settings.CELERY_TASK_ALWAYS_EAGER and not _forgotten:
        await sync_to_async(_forget_once)()


def _forget_once() -> None:
    global _forgotten
    with _forget_lock:
        if _forgotten:
            return
        forgotten = jobs.forget_before(STARTED)
        abandoned = game_analysis.abandon_before(STARTED)
        _forgotten = True
    if forgotten or abandoned:
        log.info("an earlier process left %d jobs and %d analyses", forgotten, abandoned)


def _stop_at_exit() -> None:
    """Drop the queued in-process tasks, ask the running whole-game analyses to stop after their
    current position, and let the running tasks finish, so that the process ends within seconds
    rather than when every analysis is done: the interpreter joins the pools' threads at exit.

    Registered with the hook that ``concurrent.futures`` itself uses, whose calls run newest first,
    so before the joins.  The server's event loop has stopped by then, but the tasks' last messages
    go through it (the in-memory channel layer lives there): it runs again until they are sent.
    """
    for pool in _pools.values():
        pool.shutdown(wait=False, cancel_futures=True)
    if not _working.count:
        return
    try:
        stopped = game_analysis.stop_all()
        if stopped:
            log.info("asked %d running analyses to stop", stopped)
        loop = _loop
        if loop is not None and _running and not loop.is_closed() and not loop.is_running():
            loop.run_until_complete(asyncio.wait_for(wait_idle(), EXIT_WAIT_SECONDS))
    except Exception as e:  # never in the way of the joins that follow (the database may be gone)
        log.warning("stopping the in-process tasks at exit: %r", e)


def _report(future: asyncio.Future) -> None:
    _running.discard(future)
    if not future.cancelled() and future.exception() is not None:
        log.error("in-process task failed", exc_info=future.exception())


async def submit(task: Task, *args: Any) -> None:
    """Start ``task(*args)`` (JSON arguments) without waiting for it to finish."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        global _loop
        _loop = asyncio.get_running_loop()
        executor = await _executor(queue_of(task))
        run = sync_to_async(_working.run, thread_sensitive=False, executor=executor)
        future = asyncio.ensure_future(run(task.apply, args=args))
        _running.add(future)
        future.add_done_callback(_report)
    else:
        await sync_to_async(task.apply_async, thread_sensitive=False)(args=args)


async def submit_job(job: int, task: Task, *args: Any) -> None:
    """Start ``task(*args)``, the task of the job ``job``; if the broker refuses it, withdraw the job
    (so that the next request for it queues a task again) and re-raise the broker's error."""
    try:
        await submit(task, *args)
    except outage.UNAVAILABLE:
        await sync_to_async(jobs.withdraw)(job)
        raise


async def ask(task: Task, query: dict, timeout: float, job: int) -> dict:
    """Run ``task(query, reply_channel, job)`` and return the message it sends to ``reply_channel``.

    Raises TimeoutError when no message arrives within ``timeout`` seconds.
    """
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await submit(task, query, channel, job)
    event = await asyncio.wait_for(layer.receive(channel), timeout)
    return event["message"]


async def wait_idle() -> None:
    """Wait until every in-process task has finished (for tests and shutdown)."""
    while _running:
        await asyncio.gather(*list(_running), return_exceptions=True)
