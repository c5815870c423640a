"""Which run of the Celery broker a task was queued under.

Redis gives each start of its server an id of its own (``run_id``).  A Redis without persistence
forgets its queues when it restarts, so a job whose task was queued under another run may have
lost it: :func:`frontend.services.jobs.request` queues such a job's task again.
"""

from __future__ import annotations

from functools import cache

import redis
from django.conf import settings

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


@cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def current_run() -> str:
    """Return the id of the broker's current run: Redis's ``run_id``, new at each start of its server;
    ``""`` without a broker (the tasks run in-process) or with a broker other than Redis.

    Raises redis.RedisError when the broker cannot be reached.
    """
    url = settings.CELERY_BROKER_URL
    if settings.CELERY_TASK_ALWAYS_EAGER or not url or not url.startswith(REDIS_SCHEMES):
        return ""
    return str(_client(url).info("server")["run_id"])
