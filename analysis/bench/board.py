"""Board benchmark: replay real games with full rules, against sgfmill's Board.

Both boards replay the same main lines from the shared Tygem archive.  Ours
checks occupancy, suicide, simple ko and positional superko and keeps
liberty counts and the Zobrist hash up to date; sgfmill's ``Board.play``
checks occupancy and captures only.
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

from sgfmill import boards, sgf

from analysis.go.coords import BLACK, WHITE
from analysis.go.position import Position

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
DATA = SHARED_DATA / "tygem-9d" / "validation" / "2011-12.zip"


def load_games(limit: int) -> list[list[tuple[int, int, int]]]:
    """Return up to ``limit`` main lines as lists of (color, row, col); row -1 is a pass."""
    games = []
    with zipfile.ZipFile(DATA) as archive:
        for name in archive.namelist():
            if len(games) >= limit:
                break
            game = sgf.Sgf_game.from_bytes(archive.read(name))
            moves = []
            for node in game.get_main_sequence()[1:]:
                colour, move = node.get_move()
                if colour is None:
                    continue
                row, col = (18 - move[0], move[1]) if move else (-1, -1)
                moves.append((BLACK if colour == "b" else WHITE, row, col))
            games.append(moves)
    return games


def replay_ours(games: list[list[tuple[int, int, int]]]) -> int:
    """Replay every game on a superko-checking Position; return the moves played."""
    n = 0
    for moves in games:
        pos = Position(19, superko=True)
        play = pos.play
        for color, row, col in moves:
            play(361 if row < 0 else row * 19 + col, color)
        n += len(moves)
    return n


def replay_sgfmill(games: list[list[tuple[int, int, int]]]) -> int:
    """Replay every game on sgfmill's Board; return the moves played."""
    n = 0
    for moves in games:
        board = boards.Board(19)
        play = board.play
        for color, row, col in moves:
            if row >= 0:
                play(18 - row, col, "b" if color == BLACK else "w")
        n += len(moves)
    return n


def best_rate(fn, games: list, repeats: int) -> tuple[float, int]:
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
    games = load_games(50 if quick else 1000)
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
