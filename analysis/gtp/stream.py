"""Input for a GTP loop that can stream: lines read ahead by a thread, and news of their arrival.

Streaming commands (``lz-analyze``, ``kata-analyze``) run until the next command
arrives, so the loop must learn of a line while it is busy: a daemon thread reads
the lines into a queue and calls the current watcher, if any, on each arrival
(and at the end of input).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator

CHUNK = 65536


def read_lines(fd: int) -> Iterator[bytes]:
    """Yield the lines (with their ends) of the file descriptor ``fd`` until its end.

    Reads with ``os.read``, not through ``sys.stdin``'s buffer, so that a daemon thread
    blocked here holds no lock the interpreter needs at exit.
    """
    pending = b""
    while chunk := os.read(fd, CHUNK):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line + b"\n"
    if pending:
        yield pending


class InputQueue:
    """The lines of ``lines``, read ahead by a daemon thread; ``get`` returns None at the end."""

    def __init__(self, lines: Iterable[bytes]) -> None:
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._lock = threading.Lock()
        self._watcher: Callable[[], None] | None = None
        threading.Thread(target=self._read, args=(lines,), daemon=True, name="gtp-input").start()

    def get(self) -> bytes | None:
        """Return the next line, waiting for it; None once the input has ended."""
        return self._queue.get()

    @contextlib.contextmanager
    def watching(self, callback: Callable[[], None]) -> Iterator[None]:
        """Call ``callback`` when a line arrives or the input ends while the block runs, and at once
        if a line is already waiting.  It runs under a lock (in the reader thread), so it must be quick
        and must not call back here; it is never called once the block has ended."""
        with self._lock:
            self._watcher = callback
            if not self._queue.empty():
                callback()
        try:
            yield
        finally:
            with self._lock:
                self._watcher = None

    def _read(self, lines: Iterable[bytes]) -> None:
        try:
            for line in lines:
                self._put(line)
        finally:
            self._put(None)

    def _put(self, item: bytes | None) -> None:
        with self._lock:
            self._queue.put(item)
            if self._watcher is not None:
                self._watcher()
