"""Where a piece of work's time goes: seconds per named part, summed over the part's runs, and the
log line that carries one whole-game analysis chunk's timing.

A chunk (``frontend.services.game_analysis``, ``frontend.tasks.analyze_game``) times its parts
with a :class:`PartTimes` and logs them as :func:`chunk_line`; the web benchmark reads them back
from the workers' logs with :func:`read_chunks` (``analysis.bench.webtiming``).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

CPU_SUFFIX = "_cpu"  # the key of a part's CPU seconds: its name and this
CHUNK_LOG = "analyze_game chunk "  # what starts a chunk's timing in a log line


class PartTimes:
    """Wall-clock seconds spent in each named part, and, for the parts timed with ``cpu``, the
    CPU seconds the process used meanwhile (less than the wall clock when it waited for a core,
    or for I/O)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def part(self, name: str, cpu: bool = False) -> Iterator[None]:
        """Add the time the ``with`` block takes to part ``name`` (and its CPU time to
        ``name + "_cpu"`` with ``cpu``), even when the block raises."""
        wall, used = time.perf_counter(), time.process_time() if cpu else 0.0
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - wall
            if cpu:
                self.seconds[name + CPU_SUFFIX] += time.process_time() - used

    def as_json(self) -> dict[str, float]:
        """Return the seconds of each part, to the tenth of a millisecond."""
        return {name: round(seconds, 4) for name, seconds in self.seconds.items()}


def chunk_line(record: dict) -> str:
    """Return the log message of one chunk's timing ``record`` (JSON after :data:`CHUNK_LOG`)."""
    return CHUNK_LOG + json.dumps(record)


def read_chunks(lines: Iterable[str]) -> list[dict]:
    """Return the chunk timings logged in ``lines`` (any log line holding a :func:`chunk_line`),
    in their order; other lines are skipped.  Raises ValueError for a marked line whose JSON is
    cut or malformed."""
    chunks = []
    for line in lines:
        at = line.find(CHUNK_LOG)
        if at >= 0:
            chunks.append(json.loads(line[at + len(CHUNK_LOG):]))
    return chunks
