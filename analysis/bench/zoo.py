"""Every shipped network side by side (``weights/zoo.json``), measured in one run.

For each network: its validation top-1 and top-10 on the same positions of the validation month
(Tygem 9d 2011-12; the first 2,000 of ``analysis.train.evaluate``'s fixed sample, one symmetry:
the next move for next-move networks, the previous move for back-prediction networks, and each
of darkforest's heads' top-1; with ``--bagged`` also over the 8 symmetries), its parameters, its
inference positions/s at batch 1 and 64 on random 19x19 inputs, and its training samples/s at
batch 128 (the training loop's own step), in each dtype :mod:`analysis.nets.precision` considers
on this machine (float32, and bfloat16 where the hardware has it).  The validation figures are
computed in float32, the same on every machine.  The paper's own headline figure stands beside
each network's.
"""

from __future__ import annotations

import argparse

import torch

from analysis.bench.nn import inference_positions_per_s
from analysis.bench.positions import VALIDATION
from analysis.bench.train import train_samples_per_s
from analysis.nets import precision
from analysis.nets.inference import Network
from analysis.nets.zoo import ZooEntry, shipped
from analysis.train.evaluate import evaluate

POSITIONS = 2000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--positions N``: validation positions per network (default 2,000); ``--bagged``: also with
    the 8 symmetries (Cazenave 2017's bagging)."""
    parser.add_argument("--positions", type=int, default=POSITIONS)
    parser.add_argument("--bagged", action="store_true", help="also measure with the 8 symmetries")


def measure(entry: ZooEntry, positions: int, min_seconds: float, bagged: bool = False) -> dict:
    """Return one network's figures (see the module docstring)."""
    network = Network.from_checkpoint(entry.path)
    model, config = network.model, network.config
    dtypes = [precision.describe(d) for d in precision.candidate_dtypes(network.device)]
    figures = evaluate([str(VALIDATION)], str(entry.path), positions, symmetries=1, dtype="float32")

    def rate(batch: int, dtype: str) -> float:
        return inference_positions_per_s(model, config.in_planes, batch, dtype, min_seconds)

    row = {
        "role": entry.role,
        "preset": network.info.get("preset"),
        "parameters": sum(p.numel() for p in model.parameters()),
        "samples_trained": network.info.get("samples"),
        "validation_positions": figures["positions"],
        "top1": round(figures["top1"], 4),
        "top10": round(figures["top10"], 4),
        "positions_per_s": {
            dtype: {f"batch{b}": round(rate(b, dtype), 1) for b in (1, 64)} for dtype in dtypes
        },
        "train_samples_per_s": {
            dtype: round(train_samples_per_s(config, dtype, min_seconds), 1) for dtype in dtypes
        },
        "paper_figure": entry.paper_figure,
    }
    if "step_top1" in figures:
        row["step_top1"] = figures["step_top1"]
    if bagged:
        eight = evaluate([str(VALIDATION)], str(entry.path), positions, symmetries=8, dtype="float32")
        row["top1_bagged"], row["top10_bagged"] = round(eight["top1"], 4), round(eight["top10"], 4)
    return row


def run(quick: bool = False, positions: int = POSITIONS, bagged: bool = False) -> dict:
    """Return every shipped network's figures, by name."""
    min_seconds = 0.2 if quick else 2.0
    count = min(positions, 100) if quick else positions
    return {
        "threads": torch.get_num_threads(),
        "validation": str(VALIDATION.name),
        "networks": {e.name: measure(e, count, min_seconds, bagged) for e in shipped().entries},
    }
