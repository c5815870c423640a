"""``python -m analysis.train.ship_average STATE TARGET --data PATH...``: ship the moving average
of the weights that a training state keeps.

A run with ``--average-decay`` writes its average as ``average.pt`` in its run directory, but the
run directory does not outlive a session on the development machines; the committed training
state (``weights/training/NAME.pt``) keeps the average's parameters under ``average``.  This
rebuilds the averaged net from them, recomputes its batch norms' statistics over the same fixed
training positions the run uses (:mod:`analysis.train.precise_bn`: the averaged parameters
have no statistics of their own) and writes it as a shipped checkpoint (no optimizer), as
:func:`analysis.nets.checkpoint.ship` writes a run's ``average.pt``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from analysis.nets import checkpoint, precision
from analysis.nets.inference import read_score_head
from analysis.train.averaging import WeightAverage
from analysis.train.loop import calibration


def ship_average(state_path: str | os.PathLike, target: str | os.PathLike, data: Sequence[str],
                 score_head: str | None = None) -> dict:
    """Write the moving average kept in the training state at ``state_path`` to ``target`` as a
    shipped checkpoint, its batch-norm statistics recomputed over ``data``'s fixed calibration
    positions (the training data the run used); return what was written (its ``samples`` and
    ``wall_seconds`` are the state's).  ``score_head`` names the score head the shipped file's
    lead is read from (``python -m analysis.bench score`` measures each); None leaves the default.

    Raises FileNotFoundError for a missing state or data path; CheckpointError for a file that is
    not a checkpoint of ours, or whose config, weights or average do not fit its network;
    ValueError for a state without an average, a ``target`` that is the state itself, data
    without a 19x19 game to calibrate on, or a ``score_head`` the network lacks.
    """
    if Path(target).resolve() == Path(state_path).resolve():
        raise ValueError(f"{target}: the target is the training state itself; ship to another file")
    model, state = checkpoint.load_model(state_path)
    head = {"score_head": read_score_head(model.config.score_kinds, score_head)} if score_head else {}
    if "average" not in state:
        raise ValueError(f"{state_path}: no moving average of the weights in this state "
                         "(train with --average-decay)")
    model.to(precision.default_device())  # where the calibration's batches go
    try:
        average = WeightAverage(model, state["average"]["decay"])
        average.load_state_dict(state["average"])
    except (KeyError, ValueError) as exc:
        raise checkpoint.CheckpointError(
            f"{state_path}: its average does not fit its network ({exc})") from exc
    averaged = average.averaged(model)
    calibration(data, model.config).apply(averaged)
    checkpoint.save(target, averaged.cpu(), state["preset"], samples=state.get("samples", 0),
                    wall_seconds=round(state.get("wall_seconds", 0)), **head)
    return checkpoint.load(target)


def main(argv: list[str] | None = None) -> int:
    """Ship the average (see the module's docstring); exit 2 with the reason on a bad state."""
    p = argparse.ArgumentParser(prog="python -m analysis.train.ship_average", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("state", help="a training state saved with its average (weights/training/NAME.pt)")
    p.add_argument("target", help="the shipped file to write (e.g. weights/policy.pt)")
    p.add_argument("--data", nargs="+", required=True, help="the training data the run used")
    p.add_argument("--score-head", choices=["distribution", "gaussian"],
                   help="the score head the shipped file's lead is read from (default: the distribution)")
    args = p.parse_args(argv)
    try:
        shipped = ship_average(args.state, args.target, args.data, args.score_head)
    except (OSError, ValueError, checkpoint.CheckpointError) as exc:
        print(f"ship_average: {exc}", file=sys.stderr)
        return 2
    head = f", its lead read from the {shipped['score_head']} head" if "score_head" in shipped else ""
    print(f"{args.target}: {shipped['preset']}, the average at {shipped['samples']:,} samples{head}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
