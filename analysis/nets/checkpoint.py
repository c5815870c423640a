"""Checkpoints: the model config travels inside every file, so a checkpoint is self-describing.

A checkpoint is a dict saved with ``torch.save``: ``format``, ``preset``,
``config`` (the architecture), ``model`` (weights) and, for training runs,
``optimizer``, ``schedule``, ``samples``, ``wall_seconds``, ``rng`` and
``metrics``; a shipped network may name the score head its lead is read from (``score_head``,
see :func:`analysis.nets.inference.read_score_head`).  Only plain data and tensors are stored, so loading uses
``weights_only=True``.  A shipped network (:func:`ship`) keeps only the weights and the counters,
its floating-point weights optionally stored in float16; loading copies them into the float32
model, so every checkpoint loads the same way.

A checkpoint larger than ``MAX_FILE_BYTES`` (16 MiB: what one file may weigh to travel back from a
GPU machine, and what a repository keeps comfortably) is split: its optimizer and its average each
go to files of their own beside it, the weights and the rest to another, and any of these larger
than the limit is cut into parts of at most that size.  The checkpoint's own path then holds an
index naming each part with its size and SHA-256; :func:`load` puts them back together, and a save
removes the parts of the checkpoint it replaces.  Everything stays in float32 (a state resumes
exactly only from the very numbers it saved).
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import torch
from torch import nn

from analysis.nets.presets import build, config_from_dict

FORMAT = 1


class CheckpointError(ValueError):
    """A file that is not one of our checkpoints, or from an unknown format."""


MAX_FILE_BYTES = 16 * 2**20
SPLIT_FIELDS = ("optimizer", "average")  # the fields a split checkpoint keeps in files of their own


def save(path: str | os.PathLike, model: nn.Module, preset: str, **extra: object) -> None:
    """Write ``model`` (unwrapped from DDP if needed) with its config and ``extra`` fields, atomically,
    split as the module docstring says when it is larger than ``MAX_FILE_BYTES``."""
    net = model.module if hasattr(model, "module") else model
    data = {"format": FORMAT, "preset": preset, "config": net.config.to_dict(), "model": net.state_dict()}
    data.update(extra)
    write(path, data)


def _serialized(data: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(data, buffer)
    return buffer.getvalue()


def _write_atomically(path: Path, blob: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)


def _parts_of(path: Path) -> set[Path]:
    """The part files a split checkpoint at ``path`` may have beside it."""
    return set(path.parent.glob(f"{path.name}.*.part"))


def write(path: str | os.PathLike, data: dict, max_bytes: int | None = None) -> list[Path]:
    """Write the checkpoint dict ``data`` at ``path`` (atomically: the index or the whole file last),
    split into files of at most ``max_bytes`` (default ``MAX_FILE_BYTES``) when it is larger;
    remove the parts of the checkpoint it replaces.  Return the files written."""
    max_bytes = max_bytes or MAX_FILE_BYTES
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    old_parts = _parts_of(path)
    whole = _serialized(data)
    if len(whole) <= max_bytes:
        _write_atomically(path, whole)
        written = [path]
    else:
        components = {"weights": {k: v for k, v in data.items() if k not in SPLIT_FIELDS}}
        components.update({k: data[k] for k in SPLIT_FIELDS if k in data})
        index = []
        for name, value in components.items():
            blob = _serialized(value)
            digest = hashlib.sha256(blob).hexdigest()
            for k, start in enumerate(range(0, len(blob), max_bytes)):
                piece = blob[start : start + max_bytes]
                part = path.with_name(f"{path.name}.{name}-{digest[:12]}-{k}.part")
                _write_atomically(part, piece)
                index.append({"field": name, "file": part.name, "bytes": len(piece),
                              "sha256": hashlib.sha256(piece).hexdigest()})
        _write_atomically(path, _serialized({"format": FORMAT, "split": index}))
        written = [path] + [path.with_name(entry["file"]) for entry in index]
    for stale in old_parts - set(written):
        stale.unlink(missing_ok=True)
    return written


def _joined(path: Path, index: list[dict]) -> dict:
    """Return the checkpoint dict a split checkpoint's ``index`` (at ``path``) describes.

    Raises CheckpointError for a missing part, or one whose size or digest is not the index's.
    """
    blobs: dict[str, list[bytes]] = {}
    for entry in index:
        part = path.with_name(entry["file"])
        try:
            piece = part.read_bytes()
        except FileNotFoundError:
            raise CheckpointError(f"{path}: its part {part.name} is missing") from None
        if len(piece) != entry["bytes"] or hashlib.sha256(piece).hexdigest() != entry["sha256"]:
            raise CheckpointError(f"{path}: its part {part.name} is not the one it was saved with")
        blobs.setdefault(entry["field"], []).append(piece)
    fields = {name: torch.load(io.BytesIO(b"".join(pieces)), map_location="cpu", weights_only=True)
              for name, pieces in blobs.items()}
    data = fields.pop("weights", {})
    data.update(fields)
    return data


SHIPPED_FIELDS = ("samples", "wall_seconds", "metrics", "score_head")


def ship(source: str | os.PathLike, target: str | os.PathLike, half: bool = False) -> dict:
    """Write the checkpoint at ``source`` to ``target`` without its training state (optimizer,
    schedule, RNG), its floating-point weights in float16 when ``half``; return what was written.

    Raises FileNotFoundError or CheckpointError as :func:`load` does.
    """
    data = load(source)
    weights = {k: v.half() if half and v.is_floating_point() else v for k, v in data["model"].items()}
    shipped = {"format": FORMAT, "preset": data["preset"], "config": data["config"], "model": weights,
               **{k: data[k] for k in SHIPPED_FIELDS if k in data}}
    write(target, shipped)
    return shipped


def load(path: str | os.PathLike) -> dict:
    """Return the checkpoint dict at ``path``.

    Raises FileNotFoundError, or CheckpointError for a file that is not a checkpoint of ours (or
    a split one whose parts are missing or changed).
    """
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise CheckpointError(f"{path}: not a checkpoint ({exc})") from exc
    if isinstance(data, dict) and data.get("format") == FORMAT and "split" in data:
        data = _joined(Path(path), data["split"])
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
