"""One engine of a match: a GTP subprocess with a per-command time limit, restarts and move timing.

Every command runs in a daemon thread that the caller waits for at most the
time limit; an engine that does not answer in time is killed, so the harness
never blocks on a silent engine.  After a failure the engine is marked broken
and :meth:`MatchEngine.start` replaces the process before the next game.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import sys
import threading
import time

from analysis.gtp.client import GtpClient, GtpError

PYTHON_WORDS = ("python", "python3")
QUIT_SECONDS = 5.0


class EngineTimeout(GtpError):
    """The engine did not answer in time; it has been killed."""


def resolve_command(command: str) -> list[str]:
    """Return the argv of an engine command line, split like a shell would.

    A first word ``python`` (or ``python3``) becomes :data:`sys.executable`, so
    that ``python -m analysis.gtp`` runs in the harness's own interpreter.
    Raises ValueError for an empty command or unbalanced quotes.
    """
    argv = shlex.split(command)
    if not argv:
        raise ValueError("empty engine command")
    if argv[0] in PYTHON_WORDS:
        argv[0] = sys.executable
    return argv


class MatchEngine:
    """A named engine (``"A"`` or ``"B"``) given by its command line; use as a context manager.

    ``move_seconds`` and ``moves`` add up the time of every answered genmove; ``version`` is what
    the running process says it is (its ``name`` and ``version`` replies, as "GNU Go 3.8").
    """

    def __init__(self, name: str, command: str, timeout: float = 60.0) -> None:
        """Remember the engine; nothing is started yet.  Raises ValueError for a bad command line."""
        self.name = name
        self.command = command
        self.argv = resolve_command(command)
        self.timeout = timeout
        self.client: GtpClient | None = None
        self.broken = False
        self.move_seconds = 0.0
        self.moves = 0
        self.version = ""
        self._done: threading.Event | None = None  # of the last command, set once its reply is in

    def start(self) -> None:
        """Make sure a usable process runs: start it, or replace a broken or exited one.

        Raises OSError if the command cannot be started.
        """
        if self.client is not None and not self.broken and self.client.proc.poll() is None:
            return
        self.close()
        # a signal to the harness's group must not end a game under it: an engine killed by it
        # would forfeit the game before the harness had seen the signal and stopped recording
        self.client = GtpClient(self.argv, own_session=True)
        self.broken = False
        self.version = self._ask_version()

    def _ask_version(self) -> str:
        """Return the engine's ``name`` and ``version`` replies joined by a space, "" when it
        cannot say (an engine that fails them fails its game on the next command)."""
        try:
            return " ".join(filter(None, (self.send(command).strip() for command in ("name", "version"))))
        except GtpError:
            return ""

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one GTP command and return the reply text.

        Waits at most ``timeout`` seconds (default: the engine's time limit).
        Raises EngineTimeout (after killing the engine) when no reply comes in
        time, and GtpError for a ``?`` reply, a dead or unstarted engine or an
        unreadable reply.
        """
        if self.client is None:
            raise GtpError(f"engine {self.name} is not running")
        return self._call(self.client, command, self.timeout if timeout is None else timeout)

    def _call(self, client: GtpClient, command: str, limit: float) -> str:
        """Send ``command`` from a worker thread, waiting at most ``limit`` seconds; raises as send()."""
        outcome: list[str | GtpError] = []
        done = self._done = threading.Event()

        def run() -> None:
            try:
                outcome.append(client.send(command))
            except GtpError as e:
                outcome.append(e)
            except (OSError, ValueError, IndexError) as e:  # closed pipe, bad bytes, empty reply
                outcome.append(GtpError(f"unreadable reply to {command!r}: {e}"))
            finally:
                done.set()

        threading.Thread(target=run, name=f"gtp-{self.name}", daemon=True).start()
        if not done.wait(limit):
            self._kill(client)
            raise EngineTimeout(f"no answer to {command!r} within {limit:g} s")
        reply = outcome[0]
        if isinstance(reply, GtpError):
            raise reply
        return reply

    def genmove(self, color: str) -> str:
        """Return the engine's move for ``color`` (``b`` or ``w``), lower-cased, timing it.

        Raises what :meth:`send` raises.
        """
        started = time.perf_counter()
        reply = self.send(f"genmove {color}").strip().lower()
        self.move_seconds += time.perf_counter() - started
        self.moves += 1
        return reply

    def discard(self) -> None:
        """Mark the process unusable (after it failed a game): the next :meth:`start` replaces it."""
        self.broken = True

    def _kill(self, client: GtpClient) -> None:
        """Kill the engine's process, wait for it briefly and mark the engine broken."""
        self.broken = True
        with contextlib.suppress(OSError):
            client.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            client.proc.wait(timeout=QUIT_SECONDS)

    def close(self) -> None:
        """Stop the process, if any: ``quit`` when it is alive and idle, then kill it if it lingers.

        An engine still busy with a command (after an interrupt) is killed at once.
        Never raises for a misbehaving engine.
        """
        client, self.client = self.client, None
        if client is None:
            return
        if self._busy():
            self._kill(client)
        elif client.proc.poll() is None:
            with contextlib.suppress(GtpError):
                self._call(client, "quit", QUIT_SECONDS)
        try:
            client.proc.wait(timeout=QUIT_SECONDS)
        except subprocess.TimeoutExpired:
            self._kill(client)
        self._close_pipes(client)

    def _busy(self) -> bool:
        """Return True while a worker thread still waits for the reply to the last command."""
        return self._done is not None and not self._done.is_set()

    def _close_pipes(self, client: GtpClient) -> None:
        """Close our ends of the pipes once no worker thread can still be reading them."""
        if self._done is not None:
            self._done.wait(QUIT_SECONDS)  # the worker ends once the dead process's output is closed
            if not self._done.is_set():
                return
            self._done = None
        for pipe in (client.proc.stdin, client.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def __enter__(self) -> MatchEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
