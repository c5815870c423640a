"""A GTP client: drive another engine (GNU Go, or our own) over a pipe."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence

GNUGO = "/usr/games/gnugo"


class GtpError(RuntimeError):
    """The engine answered ``? message``, or died."""


class GtpClient:
    """A GTP v2 engine in a subprocess; use as a context manager."""

    def __init__(self, argv: Sequence[str], own_session: bool = False) -> None:
        """Start ``argv``; raises OSError if it cannot be started.

        With ``own_session`` the engine runs in a session of its own, so that a signal to our
        process group (Ctrl-C, ``timeout``) does not reach it: only :meth:`close` stops it.
        """
        self.argv = list(argv)
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            start_new_session=own_session,
        )

    def send(self, command: str) -> str:
        """Send one command and return the reply text without ``= ``.

        Raises GtpError with the engine's message on ``?``, or if the engine exited.
        """
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError as exc:
            raise GtpError(f"{self.argv[0]} has exited") from exc
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise GtpError(f"{self.argv[0]} closed its output after {command!r}")
            line = line.rstrip("\r\n")
            if line == "" and lines:
                break
            if line or lines:
                lines.append(line)
        reply = "\n".join(lines)
        status, body = reply[0], reply[1:].lstrip(" ")
        if status == "?":
            raise GtpError(body)
        return body

    def close(self) -> None:
        """Send ``quit`` if the engine is alive and wait for it to exit."""
        if self.proc.poll() is None:
            with contextlib.suppress(GtpError):
                self.send("quit")
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> GtpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def gnugo(*extra: str, level: int = 0) -> GtpClient:
    """Return a GtpClient running GNU Go in GTP mode at ``level`` with ``extra`` options."""
    return GtpClient([GNUGO, "--mode", "gtp", "--level", str(level), *extra])
