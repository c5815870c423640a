"""The Celery worker's heartbeat, and the health check that reads it.

A solo worker runs its task in its only thread: while a long analysis runs it answers no broadcast,
so ``celery inspect ping`` fails on a worker that is busy, not stuck.  Instead a thread of the worker
touches ``GOWEB_WORKER_HEARTBEAT_FILE`` every ``GOWEB_WORKER_HEARTBEAT_INTERVAL`` seconds from the
moment the worker is ready (``frontend.tasks`` starts it) until it shuts down, busy or not; the file
is removed when it stops.  ``python -m frontend.heartbeat`` (the compose file's worker health check)
exits 0 while the file is younger than ``MISSED_BEATS`` intervals, else 1 with the reason.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

MISSED_BEATS = 6  # beats a worker may miss (a busy machine) before the check calls it unhealthy


class Heartbeat:
    """A daemon thread touching ``path`` now and every ``interval`` seconds until :meth:`stop`."""

    def __init__(self, path: Path, interval: float) -> None:
        self.path = Path(path)
        self.interval = interval
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="goweb-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        """Touch the file, start beating and return self."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch()
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stopped.wait(self.interval):
            self.path.touch()

    def stop(self) -> None:
        """Stop beating and remove the file."""
        self._stopped.set()
        self._thread.join()
        self.path.unlink(missing_ok=True)


def problem(path: Path | None, interval: float, now: float | None = None) -> str | None:
    """Return why the worker beating into ``path`` every ``interval`` seconds is not healthy (no
    file configured, no heartbeat, or a stale one), or None when it is."""
    if path is None:
        return "GOWEB_WORKER_HEARTBEAT_FILE is not set: this worker keeps no heartbeat"
    try:
        age = (time.time() if now is None else now) - Path(path).stat().st_mtime
    except FileNotFoundError:
        return f"no heartbeat at {path}: the worker is not running, or not ready yet"
    if age > MISSED_BEATS * interval:
        return f"the last heartbeat at {path} is {age:.0f} s old (more than {MISSED_BEATS} x {interval:g} s)"
    return None


def main() -> int:
    """Check the heartbeat of this container's worker (the settings name its file); return the exit
    status: 0 healthy, 1 not, with the reason on stderr."""
    from django.conf import settings  # the settings alone: no app is loaded for the check

    path = settings.GOWEB_WORKER_HEARTBEAT_FILE
    found = problem(Path(path) if path else None, settings.GOWEB_WORKER_HEARTBEAT_INTERVAL)
    if found:
        print(found, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goweb.settings")
    sys.exit(main())
