"""Self-atari benchmark: how often the bot's self-atari rule (:mod:`analysis.bot.self_atari`)
acts on the default network's policy, and whether it ever forbids a strong player's move.

On the model card's validation positions (one per game of the validation month at a random move,
seed 2024, as :mod:`analysis.train.evaluate` takes them), the policy levels' choice is taken as
they take it, with own eyes left out, before and after the rule.  Reported: the positions where
the rule finds a bad self-atari among the moves with a prior, the points it forbids, how many of
those were the move the 9-dan player chose, how often the network's first choice changes, its
top-1 accuracy before and after, and the rule's time a position.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from analysis.bench.positions import VALIDATION
from analysis.bot.self_atari import bad_self_ataris
from analysis.train.data import Example, fixed_positions

BATCH = 64


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--positions N`` (default 5000, the model card's)."""
    parser.add_argument("--positions", type=int, default=5000, help="validation positions (default 5000)")


def run(quick: bool = False, positions: int = 5000) -> dict:
    """Return the rule's figures on ``positions`` validation positions (200 with ``quick``)."""
    from analysis.review.networks import network

    samples = fixed_positions([str(VALIDATION)], 200 if quick else positions, seed=2024)
    return measure(samples, network())


def measure(samples: Sequence[Example], net: object) -> dict:
    """Return the rule's figures on ``samples`` with ``net``'s policy (its ``predict``)."""
    counts = dict.fromkeys(("with_bad_self_atari", "points_forbidden", "played_forbidden", "choice_changed",
                            "top1_before", "top1_after"), 0)
    seconds = 0.0
    for i in range(0, len(samples), BATCH):
        chunk = samples[i : i + BATCH]
        for sample, prior in zip(chunk, net.predict([s.position for s in chunk]).policy, strict=True):
            position, candidates = sample.position, np.array(prior, dtype=np.float64)
            for point in np.flatnonzero(candidates[:-1]).tolist():
                if position.is_eye(point, position.to_play):
                    candidates[point] = 0.0
            before = int(candidates.argmax())
            started = time.perf_counter()
            bad = bad_self_ataris(position, np.flatnonzero(candidates[:-1]).tolist())
            seconds += time.perf_counter() - started
            candidates[bad] = 0.0
            after = int(candidates.argmax())
            counts["with_bad_self_atari"] += bool(bad)
            counts["points_forbidden"] += len(bad)
            counts["played_forbidden"] += sample.move in bad
            counts["choice_changed"] += before != after
            counts["top1_before"] += before == sample.move
            counts["top1_after"] += after == sample.move
    n = len(samples)
    return {
        "positions": n,
        **{k: v for k, v in counts.items() if not k.startswith("top1")},
        "top1_before": round(counts["top1_before"] / n, 4) if n else None,
        "top1_after": round(counts["top1_after"] / n, 4) if n else None,
        "rule_us_per_position": round(1e6 * seconds / n, 1) if n else None,
    }
