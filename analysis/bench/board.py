"""Board benchmark: replay real games with full rules, against sgfmill's Board.

Both boards replay the same main lines from the shared Tygem archive.  Ours
checks occupancy, suicide, simple ko and positional superko and keeps
liberty counts and the Zobrist hash up to date; sgfmill's ``Board.play``
checks occupancy and captures only.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sgfmill import boards

from analysis.bench.positions import main_lines
from analysis.go.coords import BLACK
from analysis.go.position import Position

Games = list[list[tuple[int, int]]]


def replay_ours(games: Games) -> int:
    """Replay every game on a superko-checking Position; return the moves played."""
    n = 0
    for moves in games:
        play = Position(19, superko=True).play
        for color, point in moves:
            play(point, color)
        n += len(moves)
    return n


def replay_sgfmill(games: Games) -> int:
    """Replay every game on sgfmill's Board (row 0 at the bottom there); return the moves played."""
    n = 0
    for moves in games:
        play = boards.Board(19).play
        for color, point in moves:
            if point != 361:
                row, col = divmod(point, 19)
                play(18 - row, col, "b" if color == BLACK else "w")
        n += len(moves)
    return n


def best_rate(fn: Callable[[Games], int], games: Games, repeats: int) -> tuple[float, int]:
    """Return (moves per second of the fastest of ``repeats`` runs, moves per run)."""
    best = float("inf")
    moves = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        moves = fn(games)
        best = min(best, time.perf_counter() - t0)
    return moves / best, moves


def run(quick: bool = False) -> dict:
    """Measure both boards on the same replays and return the figures."""
    games = main_lines(50 if quick else 1000)
    ours, moves = best_rate(replay_ours, games, 3)
    theirs, _ = best_rate(replay_sgfmill, games, 3)
    return {
        "games": len(games),
        "moves_per_replay": moves,
        "ours_moves_per_s": round(ours),
        "sgfmill_moves_per_s": round(theirs),
        "ratio": round(ours / theirs, 2),
        "ours_checks": "occupied, suicide, simple ko, positional superko, liberties, zobrist",
    }
