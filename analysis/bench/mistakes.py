"""The mistakes a whole-game review finds in real games, by win rate and by points, at each
threshold the review page might default to.

Games of the validation month (Tygem 9d 2011-12: every ``STRIDE``-th file of the zip with at
least ``MIN_MOVES`` moves) are analysed as the site does (:func:`analysis.review.analyze.game_entry`
with the default network at ``--visits`` a position, then
:func:`analysis.review.report.ranked_mistakes`).  For each game: its moves, the seconds it took,
its biggest win-rate drop and most points lost, and how many moves lost at least each threshold
(:data:`WINRATE_THRESHOLDS`, :data:`POINT_THRESHOLDS`); and over the games, how many have no
mistake at each threshold (a default that lists none in a real game is too high).
"""

from __future__ import annotations

import argparse
import time
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from analysis.bench.positions import VALIDATION
from analysis.review import networks
from analysis.review.analyze import game_entry, game_positions
from analysis.review.report import ranked_mistakes
from analysis.sgf import GameRecord, read_sgf

STRIDE = 997
MIN_MOVES = 120
WINRATE_THRESHOLDS = (0.10, 0.05)
POINT_THRESHOLDS = (5.0, 3.0)
RULES = "korean"  # the records' own


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--games N`` (default 6) and ``--visits N`` a position (default 200, the site's normal depth)."""
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--visits", type=int, default=200)


def sample_games(count: int, archive: Path = VALIDATION) -> Iterator[tuple[str, GameRecord]]:
    """Yield up to ``count`` (name, record) of ``archive``: every STRIDE-th file by name with at
    least MIN_MOVES moves."""
    with zipfile.ZipFile(archive) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith(".sgf"))
        found = 0
        for name in names[::STRIDE]:
            record = read_sgf(zf.read(name), source=name)
            if found < count and len(record.main_line_moves()) >= MIN_MOVES:
                found += 1
                yield name, record


def game_figures(mistakes: dict[str, list[dict]]) -> dict:
    """Return one game's figures from its ranked mistakes (``mistakes``/``point_mistakes`` of
    :func:`~analysis.review.report.ranked_mistakes`, worst first)."""
    drops = [m["loss"] for m in mistakes["mistakes"]]
    points = [m["points_lost"] for m in mistakes["point_mistakes"]]
    return {
        "biggest_winrate_drop": round(drops[0], 4) if drops else 0.0,
        "most_points_lost": points[0] if points else 0.0,
        "over_winrate": {f"{100 * t:g}%": sum(d >= t for d in drops) for t in WINRATE_THRESHOLDS},
        "over_points": {f"{t:g}": sum(p >= t for p in points) for t in POINT_THRESHOLDS},
    }


def none_found(games: Sequence[dict]) -> dict:
    """Return how many of ``games`` (:func:`game_figures`) have no mistake at each threshold."""
    return {
        "winrate": {k: sum(g["over_winrate"][k] == 0 for g in games) for k in games[0]["over_winrate"]},
        "points": {k: sum(g["over_points"][k] == 0 for g in games) for k in games[0]["over_points"]},
    } if games else {}


def run(quick: bool = False, games: int = 6, visits: int = 200) -> dict:
    """Return each sampled game's figures and the count of games without mistakes at each threshold."""
    networks.limit_threads(1)
    evaluator = networks.search_evaluator()
    count, visits = (1, 8) if quick else (games, visits)
    rows = {}
    for name, record in sample_games(count):
        started = time.time()
        results = [game_entry(position, move, k, evaluator, visits, RULES)
                   for k, (position, move) in enumerate(game_positions(record, rules=RULES))]
        rows[name] = {"moves": len(results) - 1, "seconds": round(time.time() - started, 1),
                      **game_figures(ranked_mistakes(results))}
    return {"visits": visits, "games": rows, "games_without_mistakes": none_found(list(rows.values()))}
