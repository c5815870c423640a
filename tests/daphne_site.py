"""A daphne process serving the site for a test, as the compose file's web service starts it."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analysis.bench.webstack import daphne_command, free_port

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def served(env: dict[str, str], log: Path) -> Iterator[str]:
    """Serve the site with ``env`` on a free local port (its output in ``log``) and yield its URL
    once ``/healthz`` answers; stop it after."""
    port = free_port()
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, *daphne_command("127.0.0.1", port)[1:]], cwd=ROOT, env=env,
                                  stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(url + "/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=20)
