"""Features benchmark: extraction time per position against one network forward pass.

Positions come from real games (the Tygem validation month) at random move
numbers.  The network is a 6-block, 64-channel Golois residual net; it is
untrained here, which costs exactly as much time as a trained one.
"""

from __future__ import annotations

import os
import time

import torch

from analysis.bench.positions import sample_positions
from analysis.features import FEATURE_SETS, FeatureContext
from analysis.nets.golois import GoloisConfig, GoloisNet


def time_per_position(fn, items: list, repeats: int = 3) -> float:
    """Return the best mean seconds per item of ``fn`` over ``repeats`` passes."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, (time.perf_counter() - t0) / len(items))
    return best


def ladder_queries_per_second(positions: list) -> tuple[float, int]:
    """Return (queries/s, queries) for captureLadder on every string with two liberties."""
    targets = []
    for pos in positions:
        libs = pos.liberty_counts().ravel()
        seen: set[int] = set()
        for p in (libs == 2).nonzero()[0].tolist():
            if p not in seen:
                seen.update(pos.string(p))
                targets.append((pos, p))
    t0 = time.perf_counter()
    for _ in range(3):
        for pos, p in targets:
            pos.board.ladder_capture(p)
    return 3 * len(targets) / (time.perf_counter() - t0), len(targets)


def forward_time_per_position(batch: int) -> tuple[float, str]:
    """Return (seconds per position of one batched forward pass, dtype used) for golois-b6c64."""
    net = GoloisNet(GoloisConfig(in_planes=39, blocks=6, channels=64)).eval()
    x = torch.randn(batch, 39, 19, 19)
    results = {}
    for dtype in ("float32", "bfloat16"):
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=dtype == "bfloat16"):
            net(x)
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                net(x)
                best = min(best, time.perf_counter() - t0)
        results[dtype] = best / batch
    dtype = min(results, key=results.get)
    return results[dtype], dtype


def run(quick: bool = False) -> dict:
    """Measure every feature set with and without ladders, ladder queries, and the ratio."""
    positions = sample_positions(40 if quick else 300)
    figures: dict = {"positions": len(positions), "board_size": 19}
    us: dict[str, float] = {}
    for name, fs in FEATURE_SETS.items():
        us[name] = time_per_position(lambda p, fs=fs: fs.extract(FeatureContext(p)), positions) * 1e6
        no_ladder = fs.without_ladders()
        if no_ladder.num_planes != fs.num_planes:
            us[no_ladder.name] = time_per_position(
                lambda p, fs=no_ladder: fs.extract(FeatureContext(p)), positions) * 1e6
    figures["us_per_position"] = {k: round(v, 1) for k, v in us.items()}
    contexts = [FeatureContext(p) for p in positions]
    golois = FEATURE_SETS["golois"]
    batched = time_per_position(lambda _: golois.extract_batch(contexts), [None]) / len(contexts)
    figures["golois_batched_us_per_position"] = round(batched * 1e6, 1)
    figures["batched_threads"] = os.cpu_count()
    qps, queries = ladder_queries_per_second(positions)
    figures["ladder_queries_per_s"] = round(qps)
    figures["ladder_queries"] = queries
    for batch in (8, 64):
        forward, dtype = forward_time_per_position(batch)
        figures[f"forward_batch{batch}_us_per_position"] = round(forward * 1e6, 1)
        figures[f"forward_batch{batch}_dtype"] = dtype
        figures[f"golois_extraction_over_forward_batch{batch}"] = round(us["golois"] / (forward * 1e6), 3)
        figures[f"golois_batched_extraction_over_forward_batch{batch}"] = round(batched / forward, 3)
    figures["forward"] = f"golois-b6c64, {torch.get_num_threads()} threads, best of float32 and bfloat16"
    figures["goal"] = "golois extraction at most 0.20 of the forward time per position"
    return figures
