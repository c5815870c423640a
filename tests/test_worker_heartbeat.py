"""The worker's heartbeat: a thread that beats while the worker's own thread computes, and the check
the compose file's health check runs."""

from __future__ import annotations

import os
import time
from pathlib import Path

from frontend.heartbeat import MISSED_BEATS, Heartbeat, problem


def test_the_heartbeat_beats_while_the_workers_thread_computes_in_python(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    # an interval long enough that the virtual machine's own stalls (0.3 to 1 s were seen: the
    # whole process stops, then reads the clock before the beat it missed) do not pass for a
    # worker that stopped beating
    heartbeat = Heartbeat(path, interval=0.5).start()
    beats, t0 = set(), time.monotonic()
    while time.monotonic() - t0 < 3.0:  # holds the GIL as a search in pure Python does
        sum(i * i for i in range(20_000))
        beats.add(path.stat().st_mtime_ns)
        assert problem(path, 0.5) is None
    heartbeat.stop()
    assert len(beats) >= 4  # about 6 intervals went by
    assert not path.exists()


def test_the_check_names_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    assert "is not set" in problem(None, 10)
    assert "no heartbeat at" in problem(path, 10)
    path.touch()
    assert problem(path, 10) is None
    old = time.time() - MISSED_BEATS * 10 - 5
    os.utime(path, (old, old))
    assert "is 65 s old (more than 6 x 10 s)" in problem(path, 10)
