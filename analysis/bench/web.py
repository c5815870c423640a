"""Web benchmark: concurrent whole-game reviews and games against the bot through the whole site,
against the bare engine and the idle site.

The site runs as in production (:mod:`analysis.bench.webstack`, the compose file's layout): daphne,
the Redis channel layer and broker, ``--workers`` Celery worker processes for the analyses (one
torch thread each, at niceness 10) and ``--play-workers`` for the bot's moves (0: the analysis
workers take the bot's moves too).  ``--clients`` scripted reviewers
(:mod:`analysis.bench.webclient`) each paste a real game cut to ``--moves`` moves (from the tygem
validation archive, streamed with ``analysis.sgf.archive``), start its whole-game analysis over the
board websocket and read every ``progress`` message.

The mixed run: ``--players`` scripted players each play ``--player-moves`` random legal moves on
19x19 against the bot at ``--level`` (a second of thought between moves), first on the idle site,
then while the reviewers analyse.  Reported: the bot-move latency (from the player's move to the
bot's reply on the websocket) at p50 and p99 in both, and the ratio of the p99s (goal: at most 1.5).

Reported: positions per second over the run, per-position latency (time between a visitor's
successive ``progress`` messages, the first counted from its ``analyze_game``) at p50 and p99,
messages lost (positions never reported, or games never finished: must be 0) and duplicated,
and the ratio to the raw engine in one process, measured afterwards in the same run: the same
per-position analysis (``analysis.review.analyze.game_entry``, same visits, one torch thread)
on contiguous stretches of the same games, one position at a time, with no web stack at all.
The same measurement in as many bare processes at once as there are workers gives the ratio
that isolates the web stack's own cost (``web_over_raw_parallel``): on a machine shared with
other work, two processes do not make twice the positions of one.
Where the time between the two rates goes (``breakdown``, :mod:`analysis.bench.webtiming`): each
analysis chunk logs the time of its parts, and the analysis workers' time over the run is split
into the search, loading and replaying the game, the database, broadcasting the progress, queueing
the next chunk, fetching the next message and idling with none queued; with the queue wait of a
chunk's message, and the site's ratio to the bare engine as the product of the workers, the
search's share of their time and the search's rate in a worker over the bare engine's.
The search's visits are the site's ``GOWEB_REVIEW_VISITS`` unless ``--visits`` sets them.
The database is ``DATABASE_URL`` when set, else a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np
import torch

from analysis.bench.positions import VALIDATION
from analysis.bench.webclient import SiteSession, receive, send
from analysis.bench.webstack import WebStack
from analysis.bench.webtiming import breakdown, precisions, worker_chunks
from analysis.go.coords import to_gtp
from analysis.go.position import Position
from analysis.nets.precision import describe
from analysis.nets.registry import pick
from analysis.nets.zoo import WEIGHTS_DIR, shipped
from analysis.review import networks
from analysis.review.analyze import game_entry, game_positions
from analysis.sgf import GameRecord, read_sgf
from analysis.sgf.archive import iter_games
from analysis.sgf.write import write_sgf

REDIS_URL = "redis://127.0.0.1:6379/14"
QUIET_SECONDS = 600  # a visitor that hears nothing for this long gives up
RAW_POSITIONS = 160  # positions of the raw engine measurement (at most the games' positions)
THINK_SECONDS = 1.0  # a player's thought between the bot's reply and its next move
PLAYER_BOARD = 19


def weights() -> Path:
    """Return the checkpoint the site searches with on this machine: the ``search`` role's choice
    for 19x19 among the networks of ``GOWEB_WEIGHTS_DIR`` (the site's, default ``weights/``).

    Raises UnknownNetwork when none is shipped there.
    """
    site = shipped(os.environ.get("GOWEB_WEIGHTS_DIR") or WEIGHTS_DIR)
    return pick(None, "search", PLAYER_BOARD, zoo=site).path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the web benchmark's options."""
    parser.add_argument("--clients", type=int, default=8, help="concurrent visitors (default 8)")
    parser.add_argument("--moves", type=int, default=200, help="moves per game (default 200)")
    parser.add_argument("--workers", type=int, default=2, help="analysis worker processes (default 2)")
    parser.add_argument("--play-workers", type=int, default=1, help="bot-move worker processes (default 1)")
    parser.add_argument("--players", type=int, default=2, help="players against the bot (default 2)")
    parser.add_argument("--player-moves", type=int, default=15, help="moves per player and run (default 15)")
    parser.add_argument("--level", default="policy", help="the bot's level (default policy)")
    parser.add_argument("--visits", type=int, default=None, help="search visits per position (the site's)")
    parser.add_argument("--redis", default=REDIS_URL, help=f"Redis URL (default {REDIS_URL})")


def real_games(count: int, moves: int, archive: Path = VALIDATION) -> list[GameRecord]:
    """Return ``count`` even games of the archive with at least ``moves`` moves, cut to ``moves``."""
    games = []
    for record in iter_games(archive, validate=True):
        played = record.main_line_moves()
        setup = record.initial_setup()
        if record.size != 19 or len(played) < moves or setup.black or setup.white:
            continue
        cut = GameRecord.new(19, record.komi)
        for color, point in played[:moves]:
            cut.add_move(color, point)
        games.append(cut)
        if len(games) == count:
            return games
    raise ValueError(f"{archive} has fewer than {count} even games of {moves} moves")


@dataclass
class Visitor:
    """One scripted visitor's record: when it started, and when each position's analysis arrived."""

    positions: int
    started: float = 0.0
    finished: float | None = None
    arrivals: list[tuple[int, float]] = field(default_factory=list)  # (move number, time)
    visits: int | None = None


async def visit(base_url: str, sgf: str, visitor: Visitor) -> None:
    """Upload ``sgf``, run its whole-game analysis over the websocket and record the arrivals."""
    session = SiteSession(base_url)
    game_id = await asyncio.to_thread(session.upload, sgf)
    async with session.board(game_id) as ws:
        await receive(ws)  # the state
        visitor.started = time.perf_counter()
        await send(ws, {"type": "analyze_game"})
        while True:
            message = await asyncio.wait_for(receive(ws), QUIET_SECONDS)
            if message["type"] == "progress":
                visitor.arrivals.append((message["entry"]["move_number"], time.perf_counter()))
                visitor.visits = message["entry"]["visits"]
            elif message["type"] == "analysis_done":
                visitor.finished = time.perf_counter()
                return
            elif message["type"] == "error":
                raise RuntimeError(f"the site answered: {message['message']}")


async def visit_all(
    base_url: str, games: list[GameRecord], visitors: list[Visitor] | None = None
) -> list[Visitor]:
    """Run one visitor per game at once and return their records (a failed one has no finish);
    ``visitors``, when given, holds the records while they fill in."""
    visitors = [] if visitors is None else visitors
    visitors[:] = [Visitor(len(g.main_line_moves()) + 1) for g in games]
    outcomes = await asyncio.gather(
        *(visit(base_url, write_sgf(g).decode(), v) for g, v in zip(games, visitors, strict=True)),
        return_exceptions=True,
    )
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            print(f"a visitor failed: {outcome!r}")
    return visitors


def random_move(state: dict, rng: random.Random) -> str:
    """Return an empty point of the ``state`` message's board as a GTP vertex, or ``pass``."""
    size = state["size"]
    empty = [i for i, c in enumerate(state["board"]) if c == "."]
    return to_gtp(rng.choice(empty), size) if empty else "pass"


async def play(base_url: str, level: str, moves: int, latencies: list[float], rng: random.Random) -> None:
    """Play ``moves`` random legal moves against the bot at ``level``, appending the seconds from
    each move to the bot's reply to ``latencies`` (in a new game whenever one ends)."""
    played = 0
    while played < moves:
        played += await play_game(base_url, level, moves - played, latencies, rng)


async def play_game(base_url: str, level: str, moves: int, latencies: list[float], rng: random.Random) -> int:
    """Start a game against the bot and play up to ``moves`` moves as :func:`play` does; return how
    many were played before the game ended."""
    session = SiteSession(base_url)
    game_id = await asyncio.to_thread(session.new_game, level, PLAYER_BOARD)
    async with session.board(game_id) as ws:
        state = await receive(ws)
        played = 0
        while played < moves and state["phase"] == "playing":
            t0 = time.perf_counter()
            await send(ws, {"type": "play", "move": random_move(state, rng)})
            while True:
                message = await asyncio.wait_for(receive(ws), QUIET_SECONDS)
                if message["type"] == "error":  # an illegal point (suicide, ko): another one
                    t0 = time.perf_counter()
                    await send(ws, {"type": "play", "move": random_move(state, rng)})
                elif message["type"] == "state":
                    state = message
                    if "bot_move" in message or message["phase"] != "playing":
                        break
            if "bot_move" in state:
                latencies.append(time.perf_counter() - t0)
            played += 1
            await asyncio.sleep(THINK_SECONDS)
    return max(played, 1)  # a game over at once still counts as a move, so that play() ends


async def play_all(base_url: str, players: int, moves: int, level: str) -> list[float]:
    """Run ``players`` players at once and return every bot-move latency."""
    latencies: list[float] = []
    await asyncio.gather(*(play(base_url, level, moves, latencies, random.Random(i)) for i in range(players)))
    return latencies


async def mixed(base_url: str, games: list[GameRecord], players: int, moves: int, level: str) -> tuple:
    """Run the reviewers, and the players once every reviewer's analysis has begun; return the
    reviewers' records and the players' bot-move latencies."""
    records: list[Visitor] = []
    reviewers = asyncio.ensure_future(visit_all(base_url, games, records))
    while not reviewers.done() and not (records and all(v.arrivals for v in records)):
        await asyncio.sleep(0.2)
    latencies = await play_all(base_url, players, moves, level)
    still_analysing = sum(v.finished is None for v in records)
    return await reviewers, latencies, still_analysing


def percentile(values: list[float], q: float) -> float | None:
    """Return the ``q`` percentile of ``values`` rounded to the millisecond, None without values."""
    return round(float(np.percentile(values, q)), 3) if values else None


def raw_rate(games: list[GameRecord], visits: int, total: int) -> tuple[float, int, float]:
    """Return (positions/s, positions, positions per CPU second) of the bare engine on ``total``
    positions of ``games``: a contiguous stretch of each game, the stretches spread from the
    opening to the end."""
    torch.set_num_threads(1)
    evaluator = networks.search_evaluator(weights())
    evaluator.evaluate([Position(19)])  # load the net, choose its precision
    per_game = max(1, total // len(games))
    count, seconds, cpu = 0, 0.0, 0.0
    for i, record in enumerate(games):
        positions = list(game_positions(record))
        start = (i * (len(positions) - per_game)) // max(1, len(games) - 1)
        for k in range(start, start + per_game):
            position, next_move = positions[k]
            t0, c0 = time.perf_counter(), time.process_time()
            game_entry(position, next_move, k, evaluator, visits, record.rules or "chinese")
            seconds += time.perf_counter() - t0
            cpu += time.process_time() - c0
            count += 1
    return count / seconds, count, count / cpu


def raw_parallel_rate(games: list[GameRecord], visits: int, total: int, processes: int) -> float:
    """Return the positions/s of ``processes`` bare engine processes at once, as :func:`raw_rate`
    measures them, each on its share of the games and of the ``total`` positions."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        shares = [[write_sgf(g) for g in games[i::processes]] for i in range(processes)]
        rates = pool.map(_raw_rate_of_sgf, shares, [visits] * processes, [total // processes] * processes)
        return sum(rate for rate, _, _ in rates)


def _raw_rate_of_sgf(games: list[bytes], visits: int, total: int) -> tuple[float, int, float]:
    """Return :func:`raw_rate` of games given as SGF (a game tree is too deep to pickle)."""
    return raw_rate([read_sgf(g) for g in games], visits, total)


def latencies(visitors: list[Visitor]) -> list[float]:
    """Return every gap between a visitor's successive arrivals (the first from its start)."""
    gaps = []
    for v in visitors:
        times = [v.started] + [t for _, t in v.arrivals]
        gaps.extend(b - a for a, b in pairwise(times))
    return gaps


@dataclass
class StackRun:
    """What one run through the site gave: the bot-move latencies on the idle site (``idle``) and
    beside the reviewers (``busy``), how many reviewers still analysed when the players finished,
    the reviewers, the run's wall seconds from its start (``began``, a time.time()), and the
    analysis workers' chunk timings and precisions read from their logs."""

    idle: list[float]
    busy: list[float]
    overlapped: int
    visitors: list[Visitor]
    wall: float
    began: float
    chunks: list[dict]
    precisions: dict[str, list[str]]


def run_stack(games: list[GameRecord], env: dict[str, str], redis: str, workers: int, play_workers: int,
              players: int, player_moves: int, level: str) -> StackRun:
    """Start the site (:class:`WebStack`) with ``env``, let the players play on it idle, then the
    reviewers review ``games`` while the players play again; return what that gave."""
    niced = {"GOWEB_WORKER_NICE": "10"}  # as the compose file's analysis workers
    with tempfile.TemporaryDirectory(prefix="goweb-bench-") as directory:
        with WebStack(Path(directory), redis, workers, env, play_workers, niced) as stack:
            idle = asyncio.run(play_all(stack.base_url, players, player_moves, level))
            t0, began = time.perf_counter(), time.time()
            reviewed = mixed(stack.base_url, games, players, player_moves, level)
            visitors, busy, overlapped = asyncio.run(reviewed)
            wall = max((v.finished or time.perf_counter()) for v in visitors) - t0
        logs = sorted(Path(directory).glob("worker*.log"))
        return StackRun(idle, busy, overlapped, visitors, wall, began,
                        worker_chunks(logs), precisions(logs))  # the workers have stopped


def _bot_figures(done: StackRun) -> dict:
    """The players' bot-move latency figures of ``done``, idle and mixed."""
    idle_p99, busy_p99 = percentile(done.idle, 99), percentile(done.busy, 99)
    return {
        "bot_moves_idle": len(done.idle),
        "bot_latency_idle_p50_s": percentile(done.idle, 50),
        "bot_latency_idle_p99_s": idle_p99,
        "bot_moves_mixed": len(done.busy),
        "bot_latency_mixed_p50_s": percentile(done.busy, 50),
        "bot_latency_mixed_p99_s": busy_p99,
        "reviewers_analysing_when_players_finished": done.overlapped,
        "bot_p99_mixed_over_idle": round(busy_p99 / idle_p99, 2) if idle_p99 and busy_p99 else None,
    }


def _review_figures(done: StackRun, games: list[GameRecord], visits: int, workers: int) -> dict:
    """The reviewers' figures of ``done`` (throughput, latency, losses), the bare engine's on the
    same ``games`` at ``visits``, in one process and in ``workers``, and the ratios between them."""
    visitors = done.visitors
    expected = sum(v.positions for v in visitors)
    received = sum(len(v.arrivals) for v in visitors)
    distinct = sum(len({k for k, _ in v.arrivals}) for v in visitors)
    gaps = latencies(visitors)
    web = distinct / done.wall
    raw, raw_positions, raw_per_cpu = raw_rate(games, visits, min(RAW_POSITIONS, expected))
    parallel = raw_parallel_rate(games, visits, min(RAW_POSITIONS, expected), workers)
    where = (breakdown(done.chunks, workers, done.began, done.began + done.wall, distinct, (raw, raw_per_cpu))
             if done.chunks else None)
    return {
        "visits_per_position": visits,
        "positions": expected,
        "wall_seconds": round(done.wall, 1),
        "web_positions_per_s": round(web, 2),
        "latency_p50_s": percentile(gaps, 50),
        "latency_p99_s": percentile(gaps, 99),
        "messages_lost": expected - distinct,
        "games_unfinished": sum(v.finished is None for v in visitors),
        "messages_duplicated": received - distinct,
        "raw_positions": raw_positions,
        "raw_positions_per_s": round(raw, 2),
        "raw_positions_per_cpu_s": round(raw_per_cpu, 2),
        "raw_threads": 1,
        "raw_parallel_positions_per_s": round(parallel, 2),
        "raw_parallel_processes": workers,
        "web_over_raw": round(web / raw, 3),
        "web_over_raw_parallel": round(web / parallel, 3),
        "breakdown": where,
    }


def run(
    quick: bool = False,
    clients: int = 8,
    moves: int = 200,
    workers: int = 2,
    visits: int | None = None,
    redis: str = REDIS_URL,
    play_workers: int = 1,
    players: int = 2,
    player_moves: int = 15,
    level: str = "policy",
) -> dict:
    """Return the web stack's throughput, latency and losses, its ratio to the raw engine, and the
    players' bot-move latency on the idle site and while the reviewers analyse."""
    if quick:
        clients, moves, visits = min(clients, 2), min(moves, 20), visits or 16
        players, player_moves = min(players, 1), min(player_moves, 3)
    games = real_games(clients, moves)
    env = {"GOWEB_TORCH_THREADS": "1", "DJANGO_DEBUG": "0"}
    if visits is not None:
        env["GOWEB_REVIEW_VISITS"] = str(visits)
    done = run_stack(games, env, redis, workers, play_workers, players, player_moves, level)
    visits = visits or next(v.visits for v in done.visitors if v.visits)
    return {
        "net": str(weights()),
        "clients": clients,
        "workers": workers,
        "play_workers": play_workers,
        "players": players,
        "level": level,
        **_bot_figures(done),
        "moves_per_game": moves,
        **_review_figures(done, games, visits, workers),
        "precision_workers": done.precisions,
        "precision_raw": describe(networks.network(weights()).dtype),
        "goal": (
            "web_over_raw at least 0.8 at 8 clients, messages_lost 0; bot_p99_mixed_over_idle at most 1.5"
        ),
    }
