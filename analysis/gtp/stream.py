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
MAX_LINE = 2**20  # bytes: a longer line is answered with an error, its rest not kept


class TooLong(bytes):
    """The first :data:`MAX_LINE` bytes of a line that was longer (its id and command name are in
    them), which the engine refuses rather than runs cut."""


def read_lines(fd: int) -> Iterator[bytes]:
    """Yield the lines (with their ends) of the file descriptor ``fd`` until its end; a line over
    :data:`MAX_LINE` bytes as a :class:`TooLong` of its start.

    Reads with ``os.read``, not through ``sys.stdin``'s buffer, so that a daemon thread
    blocked here holds no lock the interpreter needs at exit.  Each byte is looked at once,
    and at most :data:`MAX_LINE` bytes of a line are held.
    """
    pending: list[bytes] = []
    held = 0  # bytes in pending
    cut = False  # whether the line being read is over MAX_LINE: its rest is dropped
    while chunk := os.read(fd, CHUNK):
        *ends, rest = chunk.split(b"\n")
        for end in ends:
            yield _line(b"".join([*pending, end]), cut, b"\n")
            pending, held, cut = [], 0, False
        if not cut:
            pending.append(rest)
            held += len(rest)
            if held > MAX_LINE:
                pending, held, cut = [b"".join(pending)[:MAX_LINE]], MAX_LINE, True
    if held:
        yield _line(b"".join(pending), cut, b"")


def _line(text: bytes, cut: bool, end: bytes) -> bytes:
    """Return a line read whole (with its ``end``), or the :class:`TooLong` start of a cut one."""
    return TooLong(text[:MAX_LINE]) if cut or len(text) > MAX_LINE else text + end


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
