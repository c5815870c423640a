"""``python -m analysis.train.evaluate PATH... [--weights CKPT] [--max-positions N] [--symmetries 1|8]
[--ladder-set [--ladder-games N]] [--json]``: measure a network.

Measures a network on any SGF set (files, directories, zip or tar.gz): top-1,
top-5 and top-10 move prediction, the value head's log loss and calibration,
and, for a back-prediction network, how often it names the previous move.
One position is taken per game, at a random move (fixed seed).  With
``--symmetries 8`` the outputs over the 8 symmetries are summed before ranking
the moves (Cazenave 2017's bagging).  Without ``--weights`` the default
next-move network of ``weights/`` is measured (the default back-prediction one with
``--ladder-set``; :func:`analysis.nets.registry.pick`).  With ``--ladder-set`` a
back-prediction network is measured on the validation games' positions of the ladder set found
in PATHs (Tang & Kaneko's data set, see :mod:`analysis.train.ladder_set`) instead.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np
import torch

from analysis.nets import precision
from analysis.nets.inference import Network
from analysis.nets.registry import default_weights
from analysis.train import ladder_set
from analysis.train.data import fixed_positions
from analysis.train.metrics import Metrics


class StepHits:
    """Top-1 of each of darkforest's heads: head k against the move played k moves after the next."""

    def __init__(self, heads: int) -> None:
        self.hits = [0] * heads
        self.counted = [0] * heads

    def add(self, heads: np.ndarray, examples: list) -> None:
        """Count a batch: ``heads`` (N, K, A) probabilities, ``examples`` with ``move`` and ``later``."""
        for step in range(heads.shape[1]):
            for probs, example in zip(heads[:, step], examples, strict=True):
                target = example.move if step == 0 else (example.later + (-1,) * step)[step - 1]
                if target >= 0:
                    self.counted[step] += 1
                    self.hits[step] += int(probs.argmax()) == target

    def rates(self) -> list[float | None]:
        """Return each head's top-1 (None for a head with nothing to count)."""
        return [round(h / c, 4) if c else None for h, c in zip(self.hits, self.counted, strict=True)]


def evaluate(paths: list[str], weights: str | None, max_positions: int, symmetries: int,
             batch: int = 256, ladder_games: int = 0, dtype: str | None = None) -> dict:
    """Return the metrics of the checkpoint ``weights`` (None: the role's default network) on
    ``paths``: on one position per game, or with ``ladder_games`` on the validation part of the
    ladder set found in that many games of ``paths``.  ``dtype`` (``float32`` or ``bfloat16``) fixes the
    precision; None lets the network choose it on this machine.

    Raises FileNotFoundError or CheckpointError for a bad checkpoint, ValueError for the ladder
    set and a network that does not predict the previous move, or for an unknown dtype.
    """
    weights = weights or default_weights("previous" if ladder_games else "next")
    network = Network.from_checkpoint(weights, max_batch=batch, dtype=dtype)
    config = network.config
    if ladder_games and config.target != "previous":
        raise ValueError("the ladder set measures back-prediction networks (target previous)")
    if ladder_games:
        samples = ladder_set.load_or_build(paths, ladder_games).examples("validation")[:max_positions]
    else:
        samples = fixed_positions(paths, max_positions, seed=2024, target=config.target)
    metrics = Metrics()
    steps = StepHits(config.future_moves) if config.target == "next" else None
    for i in range(0, len(samples), batch):
        chunk = samples[i : i + batch]
        inputs = network.features.extract_batch([s.context() for s in chunk])
        masks = np.stack([s.mask for s in chunk])
        prediction = network.predict_planes(inputs, masks, symmetries)
        with np.errstate(divide="ignore"):
            log_probs = torch.from_numpy(np.log(prediction.policy))
        log_probs = log_probs.masked_fill(~torch.from_numpy(masks), -math.inf)
        metrics.add_policy(log_probs, torch.tensor([s.move for s in chunk]))
        if steps is not None:
            steps.add(prediction.heads, chunk)
        if prediction.value_logit is not None:
            metrics.add_value(torch.from_numpy(prediction.value_logit),
                              torch.tensor([s.value for s in chunk], dtype=torch.float32))
    summary = metrics.summary()
    if steps is not None and config.future_moves > 1:
        summary["step_top1"] = steps.rates()
    summary.update(weights=str(weights), preset=network.info["preset"],
                   target=config.target, symmetries=symmetries, samples_trained=network.info.get("samples"),
                   dtype=precision.describe(network.dtype) if network.dtype else None,
                   data="ladder set validation" if ladder_games else "one position per game")
    return summary


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation from the command line; exit 2 on a bad checkpoint or data path."""
    p = argparse.ArgumentParser(prog="python -m analysis.train.evaluate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+")
    p.add_argument("--weights")
    p.add_argument("--max-positions", type=int, default=5000)
    p.add_argument("--symmetries", type=int, choices=[1, 8], default=1)
    p.add_argument("--ladder-set", action="store_true",
                   help="measure on the validation games of the ladder set found in PATHs")
    p.add_argument("--ladder-games", type=int, default=ladder_set.DEFAULT_GAMES,
                   help="with --ladder-set, the games of PATHs the ladder positions are found in")
    p.add_argument("--dtype", choices=["float32", "bfloat16"],
                   help="the precision (default: the faster on this machine)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        result = evaluate(args.paths, args.weights, args.max_positions, args.symmetries,
                          ladder_games=args.ladder_games if args.ladder_set else 0, dtype=args.dtype)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        plural = "y" if args.symmetries == 1 else "ies"
        print(f"{result['positions']} positions, {args.symmetries} symmetr{plural}: "
              f"top-1 {result['top1']:.2%}  top-5 {result['top5']:.2%}  top-10 {result['top10']:.2%}  "
              f"policy loss {result['policy_loss']:.4f}")
        if "value_log_loss" in result:
            print(f"value log loss {result['value_log_loss']:.4f} on {result['value_positions']} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
