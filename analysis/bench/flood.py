"""Flood benchmark: how long another visitor waits for its board while one client address floods
the site's websockets with the messages that cost the server most.

The site runs as in production (:mod:`analysis.bench.webstack`: daphne, the Redis channel layer;
no workers, since the messages sent need none), behind a trusted proxy whose ``X-Forwarded-For``
names each client's address.  A record at the upload limits is uploaded (:func:`limit_record`:
about 9,900 nodes, 60 kB).  ``--flooders`` sockets from one address send ``tree`` and ``state`` on
its board, each the next as soon as the last is answered and :data:`PAUSE` more (so that the
flood's own client leaves the server the machine's cores; each ``tree`` reply is about 0.8 MB),
while a visitor from another address asks ``state`` ``--asks`` times, one at a time.  Reported,
with the address's message budget (``GOWEB_WS_MESSAGE_RATE``) as configured and switched off: the
visitor's ``state`` round trip at p50 and p99 with no flood and under it, and the flood's messages
sent, answered and refused unread.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from analysis.bench.webclient import SiteSession, receive, send
from analysis.bench.webstack import WebStack

REDIS_URL = "redis://127.0.0.1:6379/14"
FLOODER, VISITOR = "203.0.113.7", "198.51.100.8"
ROWS = 8  # each colour's stones stay in its own rows: no capture, no suicide, every line legal
PAUSE = 0.02  # seconds a flooding socket waits after each reply: 50 messages a second each, at most


def limit_record(trunk: int = 300, branches: int = 160, length: int = 60, seed: int = 1) -> str:
    """Return a legal 19x19 record of one main line of ``trunk`` moves and ``branches`` variations
    of ``length`` moves from the start (9,901 nodes by default, under the upload limit of 10,000).
    Black plays only on the first ``ROWS`` rows and White on the last, in a random order."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrs"

    def line(moves: int) -> str:
        black = [c + r for r in letters[:ROWS] for c in letters]
        white = [c + r for r in letters[-ROWS:] for c in letters]
        rng.shuffle(black)
        rng.shuffle(white)
        return "".join(f";B[{black[k // 2]}]" if k % 2 == 0 else f";W[{white[k // 2]}]" for k in range(moves))

    variations = "".join(f"({line(length)})" for _ in range(branches))
    return f"(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]({line(trunk)}){variations})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--flooders", type=int, default=16, help="flooding sockets, one address (default 16)")
    parser.add_argument("--asks", type=int, default=20, help="the visitor's state requests (default 20)")
    parser.add_argument("--redis", default=REDIS_URL, help=f"Redis URL (default {REDIS_URL})")


async def _round_trips(visitor: object, asks: int) -> list[float]:
    """Return the seconds of ``asks`` successive ``state`` round trips on ``visitor``'s socket."""
    times = []
    for _ in range(asks):
        started = time.perf_counter()
        await send(visitor, {"type": "state"})
        while (await receive(visitor))["type"] != "state":
            pass
        times.append(time.perf_counter() - started)
        await asyncio.sleep(0.1)
    return times


async def _flood(session: SiteSession, game: int, flooders: int, asks: int) -> dict:
    """Measure the visitor idle, then under the flood of ``flooders`` sockets; return the figures."""
    counts = {"sent": 0, "answered": 0, "refused": 0}
    stop = asyncio.Event()

    async def flood(ws: object) -> None:
        while not stop.is_set():
            for kind in ("tree", "state"):
                await send(ws, {"type": kind})
                counts["sent"] += 1
                reply = await receive(ws)
                refused = reply["type"] == "error" and reply["message"].startswith("too many messages")
                counts["refused" if refused else "answered"] += 1
                await asyncio.sleep(PAUSE)

    async with contextlib.AsyncExitStack() as opened:
        visitor = await opened.enter_async_context(session.board(game, VISITOR))
        await receive(visitor)  # the state sent on opening
        idle = await _round_trips(visitor, asks)
        sockets = [await opened.enter_async_context(session.board(game, FLOODER)) for _ in range(flooders)]
        tasks = [asyncio.create_task(flood(ws)) for ws in sockets]
        await asyncio.sleep(1.0)
        flooded = await _round_trips(visitor, asks)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"idle": idle, "flooded": flooded, **counts}


def _quantiles(seconds: list[float]) -> dict:
    return {"p50_ms": round(1000 * float(np.percentile(seconds, 50)), 1),
            "p99_ms": round(1000 * float(np.percentile(seconds, 99)), 1)}


def run_mode(record: str, env: dict[str, str], redis: str, flooders: int, asks: int) -> dict:
    """Run one stack with ``env`` and return the visitor's round trips and the flood's counts."""
    site_env = {"GOWEB_TRUSTED_PROXIES": "1", **env}
    with tempfile.TemporaryDirectory() as directory, WebStack(Path(directory), redis, 0, site_env) as stack:
        session = SiteSession(stack.base_url)
        game = session.upload(record)
        measured = asyncio.run(_flood(session, game, flooders, asks))
    return {"visitor_idle": _quantiles(measured["idle"]), "visitor_flooded": _quantiles(measured["flooded"]),
            "flood_sent": measured["sent"], "flood_answered": measured["answered"],
            "flood_refused_unread": measured["refused"]}


def run(quick: bool = False, flooders: int = 16, asks: int = 20, redis: str = REDIS_URL) -> dict:
    """Return the figures with the message budget as configured and switched off."""
    if quick:
        flooders, asks = min(flooders, 4), min(asks, 5)
    record = limit_record()
    return {
        "flooders": flooders,
        "record_bytes": len(record),
        "with_budget": run_mode(record, {}, redis, flooders, asks),
        "without_budget": run_mode(record, {"GOWEB_WS_MESSAGE_RATE": "0"}, redis, flooders, asks),
    }
