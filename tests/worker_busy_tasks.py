"""A task that keeps a test's Celery worker busy without burning a core: loaded only into the workers
that tests start (``celery worker --include tests.worker_busy_tasks``), never into the site's."""

from __future__ import annotations

import time
from pathlib import Path

from goweb.celery import app


@app.task(name="tests.busy")
def busy(seconds: float, started: str) -> float:
    """Touch the file ``started``, then hold the worker for ``seconds``; return the seconds held."""
    Path(started).touch()
    t0 = time.monotonic()
    time.sleep(seconds)
    return time.monotonic() - t0
