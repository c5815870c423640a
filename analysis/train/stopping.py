"""Stopping a training run cleanly: ``kill -TERM PID`` ends the run at the next batch, after which it
validates and saves ``last.pt`` as at any other end (instead of losing the work since the last
periodic checkpoint)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class StopRequest:
    """Whether a SIGTERM has asked the run to stop."""

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True


@contextmanager
def stop_on_sigterm() -> Iterator[StopRequest]:
    """Yield a StopRequest that SIGTERM sets while the block runs (the previous handler comes back
    after it).  Outside the main thread, where Python cannot take signals, nothing sets it."""
    stop = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGTERM, stop._handle)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, previous)
