"""Where the web benchmark's worker time goes: the whole-game analysis chunks' own timings
(:func:`analysis.review.timing.read_chunks`, from the analysis workers' logs) laid over the run.

Each analysis worker's share of the run (the run's wall time, one per worker) is split into the
parts of its chunks (the search; loading the game, replaying it, the database, broadcasting
``progress``, queueing the next chunk; the rest of the task), the time between chunks while a
message waited for it (the worker fetching its next message), and the time it idled with no
message queued (before the first, after the last, or while the other workers held every game's
next chunk).  The site's rate over the bare engine's is then the product of three factors:
the number of workers, the search's share of their time, and the search's rate inside a worker
over the bare engine's (below 1 when the workers got less of the CPU than the bare engine did).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from analysis.review.timing import CPU_SUFFIX, read_chunks

# the groups reported, each the sum of the chunk parts named
GROUPS = {
    "search": ("search",),
    "load": ("load",),
    "replay": ("replay",),
    "database": ("claim", "cancel_check", "save"),
    "broadcast": ("broadcast", "announce"),
    "enqueue": ("enqueue",),
}


def worker_chunks(logs: Iterable[Path]) -> list[dict]:
    """Return the chunk timings logged in the files ``logs``."""
    chunks: list[dict] = []
    for log in logs:
        with log.open(errors="replace") as lines:
            chunks.extend(read_chunks(lines))
    return chunks


PRECISION = re.compile(r"network: (\S+ on \S+ \(.*\))\s*$")  # analysis.nets.inference's choice


def precisions(logs: Iterable[Path]) -> dict[str, list[str]]:
    """Return the precision each log's process chose for its networks (``bfloat16 on cpu (timed
    on this machine: ...)``), by log file name; a log that chose none is left out."""
    chosen = {}
    for log in logs:
        with log.open(errors="replace") as lines:
            found = [m.group(1) for line in lines if (m := PRECISION.search(line))]
        if found:
            chosen[log.name] = found
    return chosen


def gaps(chunks: list[dict], start: float, end: float) -> tuple[float, float]:
    """Return (seconds between chunks while a message waited, seconds idle with none queued),
    summed over the workers (one per ``pid``), over the run from ``start`` to ``end``.

    Before each chunk, the worker's wait since its previous chunk ended (or since ``start``) is
    idle until the chunk's message was queued, and fetching after (the queue hands out the oldest
    message first, so nothing waited before it); after its last chunk, a worker idles until ``end``.
    """
    by_worker: dict[int, list[dict]] = defaultdict(list)
    for chunk in chunks:
        by_worker[chunk["pid"]].append(chunk)
    fetching = idle = 0.0
    for own in by_worker.values():
        free_since = start
        for chunk in sorted(own, key=lambda c: c["began"]):
            queued = chunk["queued"] if chunk["queued"] is not None else free_since
            waiting_from = min(max(free_since, queued), chunk["began"])
            idle += waiting_from - free_since
            fetching += chunk["began"] - waiting_from
            free_since = chunk["ended"]
        idle += max(0.0, end - free_since)
    return fetching, idle


def breakdown(
    chunks: list[dict], workers: int, start: float, end: float, positions: int, raw: tuple[float, float]
) -> dict:
    """Return where the ``workers`` analysis workers' time went over the run from ``start`` to
    ``end`` (``time.time()``) in which they analysed ``positions`` positions, from their ``chunks``,
    beside the bare engine's ``raw`` positions per second and per CPU second:

    - ``seconds``: worker seconds in all (``workers`` times the run), then in each group of chunk
      parts (:data:`GROUPS`), ``other_in_task`` (the rest of the tasks' time), ``between_chunks``
      (a message waited: the worker fetching it) and ``idle`` (no message queued);
    - ``shares``: each of those over the worker seconds;
    - ``queue_wait_p50_s``, ``queue_wait_p99_s``: from a chunk's message queued to its start;
    - ``factors``: ``workers`` times ``search_share`` times ``search_over_raw`` (the search's
      positions per second in a worker over the bare engine's) gives the site's rate over the
      bare engine's (``product``); ``search_over_raw`` is itself ``search_cpu_over_wall`` (the
      share of a core the searches got) times ``search_per_cpu_s_over_raw`` (the positions per
      CPU second of the searches over the bare engine's: below 1 when a worker computes slower).

    Raises ValueError when there are no chunks.
    """
    if not chunks:
        raise ValueError("no chunk timings: the workers' logs hold none")
    seconds, parts = worker_seconds(chunks, workers, start, end)
    waits = [c["began"] - c["queued"] for c in chunks if c["queued"] is not None]
    return {
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
        "shares": {k: round(v / seconds["workers"], 3) for k, v in seconds.items() if k != "workers"},
        "chunks": len(chunks),
        "queue_wait_p50_s": round(float(np.percentile(waits, 50)), 2) if waits else None,
        "queue_wait_p99_s": round(float(np.percentile(waits, 99)), 2) if waits else None,
        "factors": factors(workers, seconds, parts["search" + CPU_SUFFIX], positions, raw),
    }


def worker_seconds(
    chunks: list[dict], workers: int, start: float, end: float
) -> tuple[dict[str, float], dict[str, float]]:
    """Return (the workers' seconds over the run by :func:`breakdown`'s groups, the seconds of each
    chunk part summed over the ``chunks``)."""
    parts: dict[str, float] = defaultdict(float)
    for chunk in chunks:
        for name, value in chunk["parts"].items():
            parts[name] += value
    seconds = {"workers": workers * (end - start)}
    for group, names in GROUPS.items():
        seconds[group] = sum(parts[name] for name in names)
    timed = sum(v for name, v in parts.items() if not name.endswith(CPU_SUFFIX))
    seconds["other_in_task"] = sum(c["ended"] - c["began"] for c in chunks) - timed
    seconds["between_chunks"], seconds["idle"] = gaps(chunks, start, end)
    return seconds, parts


def factors(
    workers: int, seconds: dict[str, float], search_cpu: float, positions: int, raw: tuple[float, float]
) -> dict:
    """Return :func:`breakdown`'s ``factors`` from the workers' ``seconds`` and the searches' CPU
    seconds ``search_cpu``, beside the bare engine's ``raw`` positions per second and per CPU second."""
    raw_rate, raw_per_cpu = raw
    search = seconds["search"]
    rate = positions / search if search else 0.0
    share = search / seconds["workers"]
    return {
        "workers": workers,
        "search_share": round(share, 3),
        "search_positions_per_s_per_worker": round(rate, 3),
        "search_over_raw": round(rate / raw_rate, 3),
        "search_cpu_over_wall": round(search_cpu / search, 3) if search else None,
        "search_per_cpu_s_over_raw": round(positions / search_cpu / raw_per_cpu, 3) if search_cpu else None,
        "product": round(workers * share * rate / raw_rate, 3),
    }
