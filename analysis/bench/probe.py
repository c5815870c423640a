"""Is a network's value held back by its value head or by its trunk?  ``python -m analysis.bench probe``.

The value head reads the trunk's last features.  The probe freezes the trunk, computes its
features once on a probe set, and fits value heads on those features alone:

- ``network``: the network's own value head as it is (the evaluation's figure, in float32);
- ``refit``: that head trained on from its own weights;
- ``fresh``: a new head of the same design (:class:`~analysis.nets.layers.ValueHead`);
- ``pooled``: KataGo's design (:class:`PooledValueHead`).

The probe set: the teacher's labelled positions (``katago-b6c96``, its win rate as a soft target,
at the recorded komi) and positions of a training month with their game's result.  Each head's
``log_loss`` is measured on the valued positions among the evaluation's 5,000 of the validation
month (one per game, seed 2024: ``python -m analysis.train.evaluate``'s), after its last epoch: no
epoch is chosen by the validation figure.  ``fit`` is its loss on the probe set it was fitted on.
If a head of any design fitted on the trunk's features stays near the network's own figure, the
value is held back by what the trunk represents, and only a trunk trained further (or larger)
moves it.  Computed in float32.
"""

from __future__ import annotations

import argparse
import copy
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from analysis.bench.positions import VALIDATION
from analysis.bench.score import TEACHER, TRAIN_MONTHS
from analysis.features import get_feature_set
from analysis.nets import checkpoint
from analysis.nets.layers import ValueHead
from analysis.nets.registry import default_weights
from analysis.train.data import PositionSampler, fixed_positions
from analysis.train.teacher import TeacherSampler

GAME_MONTH = "2010-03.zip"  # the training month whose games give the probe set's results
EVALUATION_SEED = 2024  # the evaluation's positions (analysis.train.evaluate)
BATCH = 256


class PooledValueHead(nn.Module):
    """KataGo's value head: a 1x1 convolution to ``width`` channels with batch norm and ReLU, their
    mean and maximum over the board, a hidden layer, one logit."""

    def __init__(self, channels: int, width: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, width, 1)
        self.bn = nn.BatchNorm2d(width)
        self.fc1 = nn.Linear(2 * width, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> win logit (N,) for the player to move."""
        planes = torch.relu(self.bn(self.conv(x)))
        pooled = torch.cat([planes.mean(dim=(2, 3)), planes.amax(dim=(2, 3))], dim=1)
        return self.fc2(torch.relu(self.fc1(pooled))).squeeze(1)


@dataclass
class Features:
    """The trunk's features of a set of positions (float16, to keep tens of thousands in memory)
    and each position's value target for the player to move."""

    trunk: torch.Tensor  # (N, C, H, W) float16
    value: torch.Tensor  # (N,) float32 in 0..1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--network``, ``--teacher-positions``, ``--game-positions`` and ``--epochs``."""
    parser.add_argument("--network", help="the checkpoint to probe (default: the search's default network)")
    parser.add_argument("--teacher-positions", type=int, default=40_000, help="teacher-labelled positions")
    parser.add_argument("--game-positions", type=int, default=10_000, help="positions with a game's result")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the probe set for each head")


@torch.inference_mode()
def trunk_features(model: nn.Module, planes: np.ndarray, value: np.ndarray) -> Features:
    """Return the trunk's features of input ``planes`` (N, planes, n, n) with their ``value``
    targets, leaving out the positions whose target is unknown (NaN)."""
    known = ~np.isnan(value)
    planes, value = planes[known], value[known]
    parts = [model.trunk_features(torch.from_numpy(planes[i : i + BATCH])).half()
             for i in range(0, len(planes), BATCH)]
    return Features(torch.cat(parts), torch.from_numpy(value.astype(np.float32)))


def _sampled(sampler: PositionSampler | TeacherSampler, count: int, model: nn.Module) -> Features:
    """The trunk's features of ``count`` samples of ``sampler`` (fewer once the unknown values are
    left out)."""
    parts = []
    for start in range(0, count, BATCH):
        batch = sampler.batch(min(BATCH, count - start))
        parts.append(trunk_features(model, batch.inputs, batch.value))
    return Features(torch.cat([p.trunk for p in parts]), torch.cat([p.value for p in parts]))


def validation_features(model: nn.Module, archive: Path, count: int) -> Features:
    """The trunk's features of the evaluation's ``count`` positions of ``archive`` that have a result."""
    examples = fixed_positions([str(archive)], count, seed=EVALUATION_SEED)
    features = get_feature_set(model.config.feature_set)
    planes = np.concatenate([features.extract_batch([e.context() for e in examples[i : i + BATCH]])
                             for i in range(0, len(examples), BATCH)])
    return trunk_features(model, planes, np.array([e.value for e in examples], dtype=np.float32))


@torch.no_grad()
def log_loss(head: nn.Module, data: Features) -> float:
    """Return ``head``'s mean binary cross entropy (in evaluation mode) against ``data``'s targets."""
    head.eval()
    logits = torch.cat([head(data.trunk[i : i + BATCH].float()) for i in range(0, len(data.value), BATCH)])
    return F.binary_cross_entropy_with_logits(logits, data.value).item()


def fit(head: nn.Module, data: Features, epochs: int, lr: float, seed: int = 0) -> nn.Module:
    """Train ``head`` on ``data`` (AdamW, batches of 256, ``epochs`` shuffled passes); return it."""
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-4)
    head.train()
    for _ in range(epochs):
        order = torch.randperm(len(data.value), generator=generator)
        for i in range(0, len(order), BATCH):
            rows = order[i : i + BATCH]
            loss = F.binary_cross_entropy_with_logits(head(data.trunk[rows].float()), data.value[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return head


def probe(model: nn.Module, train: Features, validation: Features, epochs: int) -> dict:
    """Return each head's ``log_loss`` on ``validation`` and ``fit`` on ``train`` (see the module
    docstring): ``network`` as it is, and ``refit``, ``fresh`` and ``pooled`` after ``epochs``."""
    torch.manual_seed(0)
    channels = model.config.channels
    heads = {
        "network": copy.deepcopy(model.value),
        "refit": fit(copy.deepcopy(model.value), train, epochs, lr=1e-4),
        "fresh": fit(ValueHead(channels), train, epochs, lr=1e-3),
        "pooled": fit(PooledValueHead(channels), train, epochs, lr=1e-3),
    }
    return {name: {"log_loss": round(log_loss(head, validation), 4), "fit": round(log_loss(head, train), 4)}
            for name, head in heads.items()}


def run(quick: bool = False, network: str | None = None, teacher_positions: int = 40_000,
        game_positions: int = 10_000, epochs: int = 4) -> dict:
    """Probe the trunk of the checkpoint ``network`` (default: the ``search`` role's default
    network, :func:`analysis.nets.registry.pick`; see the module docstring); ``quick`` for a
    smoke run.

    Raises FileNotFoundError when the checkpoint, the teacher's labels or the months are missing,
    and ValueError for a network without a value head.
    """
    if quick:
        teacher_positions, game_positions, epochs = 512, 256, 1
    network = network or str(default_weights("search"))
    model, saved = checkpoint.load_model(network)
    if model.value is None:
        raise ValueError(f"{network} has no value head to probe")
    model.eval().float()
    feature_set = model.config.feature_set
    teacher = TeacherSampler(TEACHER, TRAIN_MONTHS, feature_set=feature_set, seed=0, komi_jitter=0.0)
    games = PositionSampler([str(TRAIN_MONTHS / GAME_MONTH)], feature_set, seed=0)
    parts = [_sampled(teacher, teacher_positions, model), _sampled(games, game_positions, model)]
    train = Features(torch.cat([p.trunk for p in parts]), torch.cat([p.value for p in parts]))
    validation = validation_features(model, VALIDATION, 256 if quick else 5000)
    return {"network": network, "samples_trained": saved.get("samples"),
            "probe_positions": {"teacher": len(parts[0].value), "games": len(parts[1].value)},
            "validation_positions": len(validation.value), "epochs": epochs,
            "heads": probe(model, train, validation, epochs),
            "teacher_entropy": round(_entropy(parts[0].value), 4)}


def _entropy(p: torch.Tensor) -> float:
    """The mean entropy of soft targets ``p``: the lowest ``fit`` a head could reach on them."""
    q = p.clamp(1e-6, 1 - 1e-6)
    return float(-(q * q.log() + (1 - q) * (1 - q).log()).mean()) if len(p) else math.nan
