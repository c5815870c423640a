"""The whole web site as subprocesses: daphne and Celery workers sharing Redis and a database.

Used by the web benchmark and the integration tests.  The processes run the commands of
``docker-compose.yml`` (:func:`migrate_command`, :func:`daphne_command`, :func:`worker_command`; a
test checks that the two agree).  Each stack has its own Celery queues (``GOWEB_QUEUE_PREFIX``),
so stacks sharing a Redis server never take each other's tasks; the database is ``DATABASE_URL``
when the environment passed in sets it, else a SQLite file in the stack's directory.  Process
output goes to ``*.log`` files there.
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
from collections.abc import Sequence
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60
QUEUES = ("play", "analysis", "review")  # the kinds of work: goweb.envconfig.queue_names
ANALYSIS_QUEUES = ("analysis", "review")


def migrate_command() -> list[str]:
    """Return the command that migrates the database (compose's one-shot ``migrate`` service)."""
    return ["python", "manage.py", "migrate", "--noinput"]


def daphne_command(host: str, port: int) -> list[str]:
    """Return the web server's command: daphne (``goweb.webserver``: its websockets refuse an
    oversized message with a close frame) serving ``goweb.asgi``.

    Without ``--proxy-headers``, which would believe the first ``X-Forwarded-For`` entry (the
    client's own): the site reads the entry its trusted proxy added (``GOWEB_TRUSTED_PROXIES``).
    """
    return ["python", "-m", "goweb.webserver", "-b", host, "-p", str(port), "goweb.asgi:application"]


def worker_command(queues: Sequence[str]) -> list[str]:
    """Return a Celery worker's command: one process (``--pool=solo``) taking tasks from ``queues``."""
    return ["celery", "-A", "goweb", "worker", "--pool=solo", "-Q", ",".join(queues), "--loglevel=info"]


def free_port() -> int:
    """Return a TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebStack:
    """daphne on a free port plus Celery workers (``--pool=solo``, one process each).

    Use as a context manager: entering migrates the database and starts the server, ``workers``
    workers and ``play_workers`` workers of the bot's own; leaving stops every process still
    running.  Without workers of the bot's own, the ``workers`` take every queue (one pool for all
    the work); with them, as in ``docker-compose.yml``, the bot's workers take the ``play`` queue
    and the others the analyses, with ``analysis_env`` (for example their niceness).
    """

    def __init__(
        self,
        directory: Path,
        redis_url: str,
        workers: int = 1,
        env: dict[str, str] | None = None,
        play_workers: int = 0,
        analysis_env: dict[str, str] | None = None,
    ) -> None:
        """Prepare a stack writing its files in ``directory``; ``env`` adds or overrides variables."""
        self.directory = Path(directory)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.prefix = f"goweb-{uuid.uuid4().hex[:12]}-"
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "GOWEB_QUEUE_PREFIX": self.prefix,
            "GOWEB_SQLITE_PATH": str(self.directory / "site.sqlite3"),
            **(env or {}),
        }
        self.env.pop("CELERY_RESULT_BACKEND", None)
        self.initial_workers = workers
        self.play_workers = play_workers
        self.analysis_env = analysis_env or {}
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

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = (self.directory / f"{name}.log").open("w")
        self._logs.append(log)
        environment = {**self.env, **(env or {})}
        return subprocess.Popen(argv, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)

    def start(self) -> None:
        """Migrate the database, start daphne and wait for ``/healthz``, then start the workers."""
        self.directory.mkdir(parents=True, exist_ok=True)
        migrate = [sys.executable, *migrate_command()[1:], "-v0"]
        subprocess.run(migrate, cwd=ROOT, env=self.env, check=True)
        self.server = self._spawn("daphne", [sys.executable, *daphne_command("127.0.0.1", self.port)[1:]])
        self._wait_for_server()
        for _ in range(self.play_workers):
            self.start_worker(("play",))
        for _ in range(self.initial_workers):
            self.start_worker(ANALYSIS_QUEUES if self.play_workers else QUEUES, self.analysis_env)

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

    def start_worker(
        self, queues: Sequence[str] = QUEUES, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        """Start one more worker process on the stack's ``queues`` (with ``env`` added) and return
        it once it is ready (its network loaded); raises RuntimeError if it exits or is not ready
        within a minute."""
        name = f"worker{len(self.workers)}"
        command = worker_command([self.prefix + queue for queue in queues])
        worker = [
            sys.executable, "-m", *command, "-n", f"{name}-{self.port}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
        ]  # fmt: skip
        process = self._spawn(name, worker, env)
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
