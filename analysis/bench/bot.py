"""Bot benchmark: the ``mcts-2s`` level along a real 19x19 game, with 1 and 2 torch threads.

The net is the default one (see nn.py).  Two bots, one per thread count, each
keeping its tree along the game, search every position of the game's first
moves for the player to move, taking turns move by move so that both see the
same load; the game goes on with the recorded moves.  Reported per thread
count: wall seconds per move (mean and worst, against the level's 2 s) and
search visits per second.  The GTP engine's ``--threads`` default follows the
faster count on this machine.
"""

from __future__ import annotations

import time

import torch

from analysis.bench.nn import default_net
from analysis.bench.positions import main_lines
from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.go.position import Position
from analysis.mcts import SearchResult
from analysis.nets.inference import Network

LEVEL = "mcts-2s"
THREADS = (1, 2)


def run(quick: bool = False) -> dict:
    """Return seconds per move and visits/s of the ``mcts-2s`` bot for each torch thread count."""
    moves = main_lines(1)[0][: 3 if quick else 30]
    model, weights = default_net()
    bots = {t: Bot(get_level(LEVEL), Network(model), resign_threshold=0) for t in THREADS}
    seconds: dict[int, list[float]] = {t: [] for t in THREADS}
    visits = dict.fromkeys(THREADS, 0)
    searched = dict.fromkeys(THREADS, 0.0)
    pos = Position(19)
    before = torch.get_num_threads()
    try:
        for color, point in moves:
            for t, bot in bots.items():
                torch.set_num_threads(t)
                last: list[SearchResult] = []
                t0 = time.perf_counter()
                bot.choose(pos, callback=last.append)
                seconds[t].append(time.perf_counter() - t0)
                visits[t] += last[-1].new_visits
                searched[t] += last[-1].seconds
            pos.play(point, color)
    finally:
        torch.set_num_threads(before)
    return {
        "net": weights,
        "level": LEVEL,
        "moves": len(moves),
        **{
            f"threads_{t}": {
                "mean_seconds_per_move": round(sum(seconds[t]) / len(moves), 3),
                "max_seconds_per_move": round(max(seconds[t]), 3),
                "visits_per_s": round(visits[t] / searched[t], 1),
                "mean_visits_per_move": round(visits[t] / len(moves), 1),
            }
            for t in THREADS
        },
    }
