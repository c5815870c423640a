"""The whole web site as subprocesses: daphne and Celery workers sharing Redis and a database.

Used by the web benchmark and the integration tests.  Each stack has its own Celery queue
(``GOWEB_TASK_QUEUE``), so stacks sharing a Redis server never take each other's tasks; the
database is ``DATABASE_URL`` when the environment passed in sets it, else a SQLite file in the
stack's directory.  Process output goes to ``*.log`` files there.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60


def free_port() -> int:
    """Return a TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebStack:
    """daphne on a free port plus Celery workers (``--pool=solo``, one process each).

    Use as a context manager: entering migrates the database and starts the server and
    ``workers`` workers; leaving stops every process still running.
    """

    def __init__(
        self, directory: Path, redis_url: str, workers: int = 1, env: dict[str, str] | None = None
    ) -> None:
        """Prepare a stack writing its files in ``directory``; ``env`` adds or overrides variables."""
        self.directory = Path(directory)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "GOWEB_TASK_QUEUE": f"goweb-{uuid.uuid4().hex[:12]}",
            "GOWEB_SQLITE_PATH": str(self.directory / "site.sqlite3"),
            **(env or {}),
        }
        self.env.pop("CELERY_RESULT_BACKEND", None)
        self.initial_workers = workers
        self.server: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self._logs: list[IO[str]] = []

    def __enter__(self) -> WebStack:
        """Migrate, start the server and the workers; raises RuntimeError if the server does not answer."""
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = (self.directory / f"{name}.log").open("w")
        self._logs.append(log)
        return subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)

    def start(self) -> None:
        """Migrate the database, start daphne and wait for ``/healthz``, then start the workers."""
        self.directory.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True
        )
        daphne = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
        self.server = self._spawn("daphne", [*daphne, "goweb.asgi:application"])
        self._wait_for_server()
        for _ in range(self.initial_workers):
            self.start_worker()

    def _wait_for_server(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.server is not None and self.server.poll() is not None:
                raise RuntimeError(f"daphne exited; see {self.directory / 'daphne.log'}")
            try:
                urllib.request.urlopen(self.base_url + "/healthz", timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"daphne did not answer within {START_SECONDS} s")

    def start_worker(self) -> subprocess.Popen:
        """Start one more worker process on the stack's queue and return it once it is ready
        (its network loaded); raises RuntimeError if it exits or is not ready within a minute."""
        name = f"worker{len(self.workers)}"
        worker = [
            sys.executable, "-m", "celery", "-A", "goweb", "worker", "--pool=solo",
            "-Q", self.env["GOWEB_TASK_QUEUE"], "-n", f"{name}-{self.port}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "info",
        ]  # fmt: skip
        process = self._spawn(name, worker)
        self.workers.append(process)
        log = self.directory / f"{name}.log"
        deadline = time.monotonic() + START_SECONDS
        while " ready." not in log.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker {name} did not start; see {log}")
            time.sleep(0.1)
        return process

    def kill_worker(self, index: int) -> None:
        """Kill worker ``index`` at once (SIGKILL: no clean shutdown, no acknowledgement)."""
        process = self.workers[index]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the workers and the server (SIGTERM, then SIGKILL after 20 s) and close the logs."""
        for process in [*self.workers, self.server]:
            if process is not None and process.poll() is None:
                process.terminate()
        for process in [*self.workers, self.server]:
            if process is None:
                continue
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in self._logs:
            log.close()
        self._logs.clear()
