"""Positions from real games, shared by the benchmarks."""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

from analysis.go.position import Position
from analysis.sgf import read_sgf

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
VALIDATION = SHARED_DATA / "tygem-9d" / "validation" / "2011-12.zip"


def main_lines(limit: int, archive: Path = VALIDATION) -> list[list[tuple[int, int]]]:
    """Return up to ``limit`` main lines as lists of (color, flat point) on 19x19; pass is 361."""
    with zipfile.ZipFile(archive) as zf:
        return [read_sgf(zf.read(name), source=name).main_line_moves() for name in zf.namelist()[:limit]]


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
