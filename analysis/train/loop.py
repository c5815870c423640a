"""The training loop: streaming batches, multi-task loss, plateau halving, validation, checkpoints.

Runs on CUDA when available, otherwise on the CPU, in the dtype that
:mod:`analysis.nets.precision` chooses (``--dtype auto``: measured, or float32 on a CPU
without bf16 instructions), and says which on its first line of output.  Under
``torchrun`` (``WORLD_SIZE`` > 1) it trains with DistributedDataParallel on
the gloo backend (nccl on CUDA); each rank streams its own games and rank 0
validates, logs and saves.
"""

from __future__ import annotations

import csv
import itertools
import math
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, IterableDataset

from analysis.features import get_feature_set
from analysis.nets import checkpoint, precision
from analysis.nets.presets import Config, build, config_from_dict, get_preset
from analysis.train.data import PositionSampler, fixed_positions
from analysis.train.metrics import Metrics
from analysis.train.schedule import PlateauHalving

LOG_FIELDS = ["samples", "wall_seconds", "samples_per_s", "lr", "train_policy", "train_acc", "train_future",
              "train_value", "val_top1", "val_top5", "val_policy_loss", "val_value_log_loss"]


@dataclass
class TrainConfig:
    """Everything a run needs; ``run_dir`` receives checkpoints and the CSV log."""

    preset: str
    data: list[str]
    validation: list[str] = field(default_factory=list)
    run_dir: str = "runs/default"
    resume: str | None = None
    batch_size: int = 128
    lr: float = 0.002
    optimizer: str = "adamw"
    weight_decay: float = 1e-4
    value_weight: float = 0.5
    value_rate: float = 1.0
    restart_lr: float = 0.0
    future_weight: float = 1.0  # darkforest sums the losses of its next-k-move heads
    max_samples: int = 0
    max_minutes: float = 0.0
    validate_every: int = 200_000
    validation_positions: int = 2000
    checkpoint_minutes: float = 10.0
    seed: int = 0
    dtype: str = "auto"  # auto, float32 or bfloat16
    workers: int = 1
    progress: bool = True


class _Stream(IterableDataset):
    """Batches from a PositionSampler, in a DataLoader worker process."""

    def __init__(self, paths: list[str], config: Config, batch_size: int, seed: int,
                 value_rate: float) -> None:
        self.args = (paths, config, batch_size, seed, value_rate)

    def __iter__(self) -> Iterator[dict]:
        paths, config, batch_size, seed, value_rate = self.args
        info = torch.utils.data.get_worker_info()
        worker_seed = seed * 1000 + (info.id if info else 0)
        sampler = PositionSampler(paths, config.feature_set, config.future_moves, seed=worker_seed,
                                  target=config.target, value_rate=value_rate)
        while True:
            b = sampler.batch(batch_size)
            yield {"inputs": torch.from_numpy(b.inputs), "legal": torch.from_numpy(b.legal),
                   "moves": torch.from_numpy(b.moves), "value": torch.from_numpy(b.value)}


def _step_loss(logits: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
    """Mean cross entropy of (N, A) ``logits`` against (N,) ``moves``, over the known ones (-1: none).

    Returns 0 when no move is known (every game of the batch ended before this step).
    """
    known = (moves >= 0).sum().clamp(min=1)
    return F.cross_entropy(logits, moves, ignore_index=-1, reduction="sum") / known


def losses(
    model: torch.nn.Module, batch: dict, cfg: TrainConfig, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, dict]:
    """Return (total loss, parts) of a batch: next move, future moves, value; computed in ``dtype``."""
    dev = precision.default_device()
    with precision.autocast(dev, dtype):
        policy, value = model(batch["inputs"].to(dev), batch["legal"].to(dev))
    policy = policy.float()
    moves = batch["moves"].to(dev)
    total = F.cross_entropy(policy[:, 0], moves[:, 0], ignore_index=-1)
    known = moves[:, 0] >= 0
    hits = (policy[:, 0].argmax(1) == moves[:, 0])[known]
    parts = {"policy": total.item(), "acc": hits.float().mean().item() if known.any() else 0.0}
    if policy.shape[1] > 1:
        future = sum(_step_loss(policy[:, k], moves[:, k]) for k in range(1, policy.shape[1]))
        total = total + cfg.future_weight * future
        parts["future"] = future.item()
    if value is not None:
        target = batch["value"].to(dev)
        known = ~torch.isnan(target)
        if known.any():
            v = F.binary_cross_entropy_with_logits(value.float()[known], target[known])
            total = total + cfg.value_weight * v
            parts["value"] = v.item()
    return total, parts


class Validator:
    """A fixed set of validation positions, with features computed once."""

    def __init__(self, paths: list[str], count: int, config: Config) -> None:
        fs = get_feature_set(config.feature_set)
        samples = fixed_positions(paths, count, seed=12345, target=config.target)
        self.inputs = torch.from_numpy(fs.extract_batch([s.context() for s in samples]))
        self.legal = torch.from_numpy(np.stack([s.mask for s in samples]))
        self.moves = torch.tensor([s.move for s in samples])
        self.value = torch.tensor([s.value for s in samples], dtype=torch.float32)

    @torch.inference_mode()
    def run(self, model: torch.nn.Module, dtype: torch.dtype, batch: int = 256) -> dict:
        """Return the metrics of ``model`` on the set."""
        model.eval()
        metrics = Metrics()
        dev = precision.default_device()
        for i in range(0, len(self.moves), batch):
            with precision.autocast(dev, dtype):
                policy, value = model(self.inputs[i : i + batch].to(dev), self.legal[i : i + batch].to(dev))
            metrics.add_policy(policy[:, 0].float().cpu(), self.moves[i : i + batch])
            if value is not None:
                metrics.add_value(value.float().cpu(), self.value[i : i + batch])
        model.train()
        return metrics.summary()


def training_dtype(model: torch.nn.Module, batch: dict, cfg: TrainConfig) -> torch.dtype:
    """Return the dtype to train in: ``cfg.dtype``, or for ``auto`` the one
    :func:`analysis.nets.precision.choose_dtype` picks by timing forward and backward passes on
    ``batch``.  Prints the choice and the reason on stderr (the training log).
    Raises ValueError for an unknown dtype name.
    """
    dev = precision.default_device()
    if cfg.dtype != "auto":
        dtype, reason = precision.dtype_named(cfg.dtype), "--dtype"
    else:
        def step() -> None:  # choose_dtype runs it under each dtype's autocast
            loss, _ = losses(model, batch, cfg)
            loss.backward()
            model.zero_grad(set_to_none=True)

        dtype, reason = precision.choose_dtype(dev, step)
    print(f"training in {precision.describe(dtype)} on {dev.type}: {reason}", file=sys.stderr, flush=True)
    return dtype


def restore(
    state: dict, model: torch.nn.Module, optimizer: torch.optim.Optimizer, cfg: TrainConfig
) -> tuple[PlateauHalving, int, float]:
    """Load a checkpoint's weights, and its optimizer, schedule and counters when it has them (a
    training run's ``last.pt``); return (schedule, samples seen, wall seconds).

    A weights-only checkpoint (a shipped network) continues with a fresh optimizer and schedule at
    ``cfg.lr``, counting from its recorded samples if any.  ``cfg.restart_lr`` restarts the schedule.
    """
    model.load_state_dict(state["model"])
    schedule = PlateauHalving(rate=cfg.lr)
    if "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
        schedule = PlateauHalving.from_state(state["schedule"])
        torch.set_rng_state(state["rng"]["torch"])
    if cfg.restart_lr:
        schedule.restart(cfg.restart_lr)
    return schedule, state.get("samples", 0), state.get("wall_seconds", 0.0)


def _rank() -> int:
    return dist.get_rank() if dist.is_initialized() else 0


def train(cfg: TrainConfig) -> dict:
    """Train until ``max_samples`` or ``max_minutes`` (0: no limit); return the last validation metrics."""
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    rank = _rank()
    torch.manual_seed(cfg.seed + rank)
    random.seed(cfg.seed + rank)

    state = checkpoint.load(cfg.resume) if cfg.resume else None
    preset = state["preset"] if state else cfg.preset
    config = config_from_dict(state["config"]) if state else get_preset(cfg.preset)
    model = build(config).to(precision.default_device())
    opt_cls = torch.optim.AdamW if cfg.optimizer == "adamw" else torch.optim.SGD
    opt_args = {"lr": cfg.lr, "weight_decay": cfg.weight_decay}
    if cfg.optimizer == "sgd":
        opt_args["momentum"] = 0.9
    optimizer = opt_cls(model.parameters(), **opt_args)
    schedule, samples, wall = PlateauHalving(rate=cfg.lr), 0, 0.0
    if state:
        schedule, samples, wall = restore(state, model, optimizer, cfg)
    net = DistributedDataParallel(model) if distributed else model

    world = dist.get_world_size() if distributed else 1
    stream = _Stream(cfg.data, config, cfg.batch_size, seed=cfg.seed + 7919 * rank + samples,
                     value_rate=cfg.value_rate)
    loader = DataLoader(stream, batch_size=None, num_workers=cfg.workers,
                        prefetch_factor=4 if cfg.workers else None)
    batches = iter(loader)
    first = next(batches)
    dtype = training_dtype(net, first, cfg)
    run_dir = Path(cfg.run_dir)
    validator = Validator(cfg.validation, cfg.validation_positions, config) if cfg.validation and rank == 0 \
        else None
    log_path = run_dir / "log.csv"
    if rank == 0:
        run_dir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    last_ckpt = last_print = started
    next_validation = (samples // cfg.validate_every + 1) * cfg.validate_every
    window: list[dict] = []
    metrics: dict = state.get("metrics", {}) if state else {}

    def save_checkpoint() -> None:
        checkpoint.save(run_dir / "last.pt", net, preset, optimizer=optimizer.state_dict(),
                        schedule=schedule.state_dict(), samples=samples,
                        wall_seconds=wall + time.time() - started, rng={"torch": torch.get_rng_state()},
                        metrics=metrics)

    def log_row(row: dict) -> None:
        new = not log_path.exists()
        with log_path.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=LOG_FIELDS, restval="", extrasaction="ignore")
            if new:
                writer.writeheader()
            writer.writerow(row)

    net.train()
    for batch in itertools.chain([first], batches):
        for group in optimizer.param_groups:
            group["lr"] = schedule.rate
        loss, parts = losses(net, batch, cfg, dtype)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        samples += len(batch["moves"]) * world
        schedule.observe(parts["policy"], len(batch["moves"]) * world)
        window.append(parts)
        now = time.time()
        if rank == 0 and cfg.progress and now - last_print > 10:
            mean = {k: float(np.mean([w[k] for w in window if k in w])) for k in window[-1]}
            rate = sum(1 for _ in window) * cfg.batch_size * world / (now - last_print)
            print(f"\rsamples {samples:,}  {rate:.0f}/s  loss {mean['policy']:.3f}  acc {mean['acc']:.3f}  "
                  f"lr {schedule.rate:.2g}", end="", file=sys.stderr, flush=True)
            log_row({"samples": samples, "wall_seconds": round(wall + now - started),
                     "samples_per_s": round(rate), "lr": schedule.rate,
                     **{f"train_{k}": round(v, 4) for k, v in mean.items()}})
            window.clear()
            last_print = now
        if rank == 0 and validator and samples >= next_validation:
            metrics = validator.run(model, dtype)
            next_validation += cfg.validate_every
            print(f"\nvalidation at {samples:,}: top1 {metrics['top1']:.4f} top5 {metrics['top5']:.4f} "
                  f"loss {metrics['policy_loss']:.4f}", file=sys.stderr, flush=True)
            log_row({"samples": samples, "wall_seconds": round(wall + now - started), "lr": schedule.rate,
                     "val_top1": round(metrics["top1"], 4), "val_top5": round(metrics["top5"], 4),
                     "val_policy_loss": round(metrics["policy_loss"], 4),
                     "val_value_log_loss": round(metrics.get("value_log_loss", math.nan), 4)})
        if rank == 0 and now - last_ckpt > cfg.checkpoint_minutes * 60:
            save_checkpoint()
            last_ckpt = now
        if (cfg.max_samples and samples >= cfg.max_samples) or (
                cfg.max_minutes and now - started >= cfg.max_minutes * 60):
            break
    if rank == 0:
        if validator:
            metrics = validator.run(model, dtype)
        save_checkpoint()
    if distributed:
        dist.barrier()
    return metrics
