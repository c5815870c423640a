"""Positions from real games, shared by the benchmarks."""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

from sgfmill import sgf

from analysis.go.coords import BLACK, WHITE
from analysis.go.position import Position

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
VALIDATION = SHARED_DATA / "tygem-9d" / "validation" / "2011-12.zip"


def main_line(data: bytes) -> list[tuple[int, int]]:
    """Return one SGF record's main line as (color, flat point) on 19x19; pass is 361.

    Raises ``ValueError`` when the bytes are not a readable SGF game.
    """
    game = sgf.Sgf_game.from_bytes(data)
    moves = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        if colour is not None:
            point = 361 if move is None else (18 - move[0]) * 19 + move[1]
            moves.append((BLACK if colour == "b" else WHITE, point))
    return moves


def main_lines(limit: int, archive: Path = VALIDATION) -> list[list[tuple[int, int]]]:
    """Return up to ``limit`` main lines as lists of (color, flat point) on 19x19; pass is 361."""
    with zipfile.ZipFile(archive) as zf:
        return [main_line(zf.read(name)) for name in zf.namelist()[:limit]]


def sample_positions(count: int, seed: int = 0) -> list[Position]:
    """Return ``count`` positions taken at random move numbers from real games."""
    rng = random.Random(seed)
    out = []
    for moves in main_lines(count):
        pos = Position(19)
        for color, point in moves[: rng.randrange(0, len(moves) + 1)]:
            pos.play(point, color)
        out.append(pos)
    return out
