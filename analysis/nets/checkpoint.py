"""Checkpoints: the model config travels inside every file, so a checkpoint is self-describing.

A checkpoint is a dict saved with ``torch.save``: ``format``, ``preset``,
``config`` (the architecture), ``model`` (weights) and, for training runs,
``optimizer``, ``schedule``, ``samples``, ``wall_seconds``, ``rng`` and
``metrics``.  Only plain data and tensors are stored, so loading uses
``weights_only=True``.  A shipped network (:func:`ship`) keeps only the weights and the counters,
its floating-point weights optionally stored in float16; loading copies them into the float32
model, so every checkpoint loads the same way.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from torch import nn

from analysis.nets.presets import build, config_from_dict

FORMAT = 1


class CheckpointError(ValueError):
    """A file that is not one of our checkpoints, or from an unknown format."""


def save(path: str | os.PathLike, model: nn.Module, preset: str, **extra: object) -> None:
    """Write ``model`` (unwrapped from DDP if needed) with its config and ``extra`` fields, atomically."""
    net = model.module if hasattr(model, "module") else model
    data = {"format": FORMAT, "preset": preset, "config": net.config.to_dict(), "model": net.state_dict()}
    data.update(extra)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


SHIPPED_FIELDS = ("samples", "wall_seconds", "metrics")


def ship(source: str | os.PathLike, target: str | os.PathLike, half: bool = False) -> dict:
    """Write the checkpoint at ``source`` to ``target`` without its training state (optimizer,
    schedule, RNG), its floating-point weights in float16 when ``half``; return what was written.

    Raises FileNotFoundError or CheckpointError as :func:`load` does.
    """
    data = load(source)
    weights = {k: v.half() if half and v.is_floating_point() else v for k, v in data["model"].items()}
    shipped = {"format": FORMAT, "preset": data["preset"], "config": data["config"], "model": weights,
               **{k: data[k] for k in SHIPPED_FIELDS if k in data}}
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(target.suffix + ".tmp")
    torch.save(shipped, tmp)
    tmp.replace(target)
    return shipped


def load(path: str | os.PathLike) -> dict:
    """Return the checkpoint dict at ``path``.

    Raises FileNotFoundError, or CheckpointError for a file that is not a checkpoint of ours.
    """
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise CheckpointError(f"{path}: not a checkpoint ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or "config" not in data:
        raise CheckpointError(f"{path}: not a checkpoint of format {FORMAT}")
    return data


def load_model(path: str | os.PathLike) -> tuple[nn.Module, dict]:
    """Return (model in eval mode, checkpoint dict) for the checkpoint at ``path``.

    Every architecture of :mod:`analysis.nets.presets` loads.  Raises FileNotFoundError, or
    CheckpointError for a file that is not a checkpoint or whose config or weights do not fit.
    """
    data = load(path)
    try:
        model = build(config_from_dict(data["config"]))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: bad config ({exc})") from exc
    try:
        model.load_state_dict(data["model"])
    except RuntimeError as exc:  # missing, unexpected or misshapen weights
        raise CheckpointError(f"{path}: weights that do not fit its config ({exc})") from exc
    model.eval()
    return model, data
