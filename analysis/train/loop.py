"""The training loop: streaming batches, multi-task loss, plateau halving, validation, checkpoints.

Runs on CUDA when available, otherwise on the CPU, in the dtype that
:mod:`analysis.nets.precision` chooses (``--dtype auto``: measured, or float32 on a CPU
without bf16 instructions), and says which on its first line of output.  Under
``torchrun`` (``WORLD_SIZE`` > 1) it trains with DistributedDataParallel
(:func:`ddp_backend`: nccl where every local rank has a GPU of its own, gloo otherwise, or the
one ``--ddp-backend`` names); each rank streams its own games and rank 0
validates, logs and saves.  ``last.pt`` is the latest state; ``best.pt`` the weights of the best
validation top-1 so far (the early stopping Tang & Kaneko's overfitting nets need); with
``average_decay``, ``average.pt`` the latest moving average of the weights
(:mod:`analysis.train.averaging`), validated beside them.  With
``ladder_set`` the run trains on the ladder set found in its data
(:mod:`analysis.train.ladder_set`) and validates on that set's validation games.

A resumed run goes on exactly where ``last.pt`` left off: with the weights, optimizer, schedule (and
the steps it had not yet seen, :class:`_Steps`), average, random state and data stream
(:mod:`analysis.train.stream`) of the run, so that a run stopped and resumed ends with the weights
of a run that never stopped.
"""

from __future__ import annotations

import csv
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from analysis.features import get_feature_set
from analysis.nets import checkpoint, precision
from analysis.nets.presets import Config, build, config_from_dict, get_preset
from analysis.train import ladder_set as ladders
from analysis.train import precise_bn
from analysis.train.averaging import WeightAverage
from analysis.train.data import Example, fixed_positions
from analysis.train.losses import AllHeads, losses, parts_as_floats
from analysis.train.metrics import Metrics
from analysis.train.precise_bn import Calibration
from analysis.train.schedule import PlateauHalving
from analysis.train.stopping import stop_on_sigterm
from analysis.train.stream import StreamPlace, TrainingStream, batch_loader, stream_options, stream_start
from analysis.train.warmstart import describe_start, transplant

LOG_FIELDS = ["samples", "wall_seconds", "samples_per_s", "lr", "train_policy", "train_acc", "train_future",
              "train_value", "val_top1", "val_top5", "val_policy_loss", "val_value_log_loss",
              "train_ownership", "train_score_nll", "train_score_bins", "train_consistency",
              "avg_top1", "avg_policy_loss", "avg_value_log_loss"]


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
    consistency_weight: float = 0.0  # > 0: game samples come in pairs whose values must agree
    consistency_centered: bool = False  # the pairs' mean gap (the mover's edge) is not penalised
    restart_lr: float = 0.0
    warmup_samples: int = 0  # the rate ramps up linearly over a run's first samples (kept by its schedule)
    average_decay: float = 0.0  # > 0: keep a moving average of the weights (average.pt)
    future_weight: float = 1.0  # darkforest sums the losses of its next-k-move heads
    max_samples: int = 0
    max_minutes: float = 0.0
    validate_every: int = 200_000
    validation_positions: int = 2000
    checkpoint_minutes: float = 10.0
    ownership_weight: float = 1.0
    score_weight: float = 0.1
    teacher: str | None = None  # KataGo's labels (labels.npz): targets for every head
    teacher_archives: str | None = None  # the folder of the labelled months' zips (default: data[0])
    teacher_fraction: float = 0.5  # of each batch, from the teacher's positions
    final_shows: int = 1  # times a counted game's finished board is shown (nets with ownership)
    init_from: str | None = None  # a checkpoint whose matching weights start a new run
    seed: int = 0
    dtype: str = "auto"  # auto, float32 or bfloat16
    device: str = "auto"  # auto (CUDA when available), cpu, cuda or cuda:N
    channels_last: bool = False  # the weights and activations in NHWC (faster convolutions on some GPUs)
    compile: bool = False  # torch.compile the network (a minute of compiling first; measure it)
    compile_mode: str = "default"  # with compile, the torch.compile mode (COMPILE_MODES; see trainer)
    ddp_backend: str = "auto"  # under torchrun: auto, nccl or gloo (see ddp_backend)
    workers: int = 1
    ladder_set: bool = False  # train and validate on the ladder set of ``data`` (Tang & Kaneko)
    ladder_games: int = ladders.DEFAULT_GAMES  # games of ``data`` the ladder set is found in
    progress: bool = True


COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
GRAPH_MODES = ("reduce-overhead", "max-autotune")  # the modes that capture CUDA graphs (on CUDA only)


def captures_graphs(cfg: TrainConfig) -> bool:
    """Whether ``cfg``'s network is compiled in a mode that replays its steps as CUDA graphs (where
    it runs on CUDA; elsewhere torch.compile leaves the graphs out)."""
    return cfg.compile and cfg.compile_mode in GRAPH_MODES


def trainer(model: torch.nn.Module, cfg: TrainConfig, device: torch.device,
            distributed: bool) -> torch.nn.Module:
    """Return what the loop calls on a batch: ``model`` returning all its heads (:class:`AllHeads`),
    under DistributedDataParallel when ``distributed``, compiled with ``cfg.compile`` in
    ``cfg.compile_mode`` (``reduce-overhead``: the forward and backward passes captured as CUDA
    graphs and replayed, one launch each instead of one per kernel; see :func:`train_step`).

    Raises ValueError for a compile mode not in ``COMPILE_MODES``.
    """
    if cfg.compile_mode not in COMPILE_MODES:
        raise ValueError(f"unknown compile mode {cfg.compile_mode!r}; use one of {', '.join(COMPILE_MODES)}")
    net: torch.nn.Module = AllHeads(model)
    if distributed:
        net = DistributedDataParallel(net, device_ids=[device.index] if device.type == "cuda" else None)
    return torch.compile(net, mode=cfg.compile_mode) if cfg.compile else net


def train_step(net: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: dict, cfg: TrainConfig,
               dtype: torch.dtype) -> dict:
    """Take one optimizer step on ``batch`` (the multi-task loss of ``net``, an :class:`AllHeads`,
    in ``dtype``); return the loss's parts, which stay valid after later steps.

    Where the steps are CUDA graphs (:func:`captures_graphs`), the step begins with
    ``torch.compiler.cudagraph_mark_step_begin()``: the graphs' outputs of the step before may then
    be overwritten.  The only graph outputs are the heads of ``net`` and the gradients: the parts
    are computed from the heads outside the compiled network, into tensors of their own, and the
    gradients of the step before are dropped unread (set to None before the backward pass).
    """
    if captures_graphs(cfg):
        torch.compiler.cudagraph_mark_step_begin()
    loss, parts = losses(net, batch, cfg, dtype)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return parts


def planes(samples: list[Example], config: Config) -> torch.Tensor:
    """Return the input planes (N, planes, n, n) of fixed ``samples`` for a net of ``config``."""
    return torch.from_numpy(get_feature_set(config.feature_set).extract_batch([s.context() for s in samples]))


def calibration(data: str | Sequence[str], config: Config) -> Calibration:
    """Return the fixed training positions of ``data`` that a run recomputes its batch norms'
    statistics over (:mod:`analysis.train.precise_bn`), for a net of ``config``.

    Raises FileNotFoundError for a missing path, ValueError when ``data`` has no game to take a
    position from.
    """
    positions = fixed_positions(data, precise_bn.POSITIONS, seed=precise_bn.SEED, target=config.target)
    if not positions:
        raise ValueError(f"no 19x19 position to recompute the batch norms over in {data}")
    return Calibration(planes(positions, config))


class Validator:
    """A fixed set of validation positions, with features computed once."""

    def __init__(self, samples: list[Example], config: Config) -> None:
        self.inputs = planes(samples, config)
        self.legal = torch.from_numpy(np.stack([s.mask for s in samples]))
        self.moves = torch.tensor([s.move for s in samples])
        self.value = torch.tensor([s.value for s in samples], dtype=torch.float32)

    @torch.inference_mode()
    def run(self, model: torch.nn.Module, dtype: torch.dtype, batch: int = 256) -> dict:
        """Return the metrics of ``model`` on the set."""
        model.eval()
        metrics = Metrics()
        dev = precision.device_of(model)
        for i in range(0, len(self.moves), batch):
            with precision.autocast(dev, dtype):
                policy, value = model(self.inputs[i : i + batch].to(dev), self.legal[i : i + batch].to(dev))
            metrics.add_policy(policy[:, 0].float().cpu(), self.moves[i : i + batch])
            if value is not None:
                metrics.add_value(value.float().cpu(), self.value[i : i + batch])
        model.train()
        return metrics.summary()


def training_dtype(model: torch.nn.Module, batch: dict, cfg: TrainConfig,
                   saved: dict | None = None) -> torch.dtype:
    """Return the dtype to train in: ``cfg.dtype``; for ``auto``, the one a resumed state (``saved``,
    a checkpoint dict) trained in on this kind of device, so that a run resumes exactly, unless
    this device cannot compute in it natively (a bf16 state from a CPU with AVX512-BF16 resumed on
    one without: emulated bf16 steps run 10-20 times slower); else the one
    :func:`analysis.nets.precision.choose_dtype` picks by timing forward and backward passes on
    ``batch`` (a timing that may go either way on a busy machine).  Prints the choice and the
    reason on stderr (the training log), with a warning where ``--dtype`` forces an emulated
    dtype.  Raises ValueError for an unknown dtype name.
    """
    dev = precision.device_of(model)
    same_kind = bool(saved and saved.get("dtype") and saved.get("device_type") == dev.type)
    kept = precision.dtype_named(saved["dtype"]) if same_kind else None  # the state's, on this kind
    if cfg.dtype != "auto":
        dtype, reason = precision.dtype_named(cfg.dtype), "--dtype"
        if not precision.is_native(dtype, dev):
            reason += (f" (warning: this {dev.type} has no native {precision.describe(dtype)}: each step"
                       " runs many times slower than in float32; --dtype auto chooses by measurement)")
    elif kept is not None and precision.is_native(kept, dev):
        dtype, reason = kept, "the resumed state's own"
    else:
        def step() -> None:  # choose_dtype runs it under each dtype's autocast
            loss, _ = losses(model, batch, cfg)
            loss.backward()
            model.zero_grad(set_to_none=True)

        dtype, reason = precision.choose_dtype(dev, step)
        if kept is not None:  # not native here (else kept above)
            reason += f"; the resumed state's {precision.describe(kept)} would be emulated here"
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
    if cfg.warmup_samples:
        schedule.warmup_samples = cfg.warmup_samples
    return schedule, state.get("samples", 0), state.get("wall_seconds", 0.0)


def _rank() -> int:
    return dist.get_rank() if dist.is_initialized() else 0


class CsvLog:
    """The run's ``log.csv``: a row per progress report or validation (an old log keeps its columns)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, row: dict) -> None:
        """Append ``row`` (fields the log has no column for are left out)."""
        fields = LOG_FIELDS
        if self.path.exists():
            with self.path.open(newline="") as f:
                fields = next(csv.reader(f), LOG_FIELDS)
        new = not self.path.exists()
        with self.path.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields, restval="", extrasaction="ignore")
            if new:
                writer.writeheader()
            writer.writerow(row)


@dataclass
class _Run:
    """What a run starts from: the model and its preset, the optimizer and schedule, the counters."""

    model: torch.nn.Module
    config: Config
    preset: str
    optimizer: torch.optim.Optimizer
    schedule: PlateauHalving
    samples: int = 0
    wall: float = 0.0
    metrics: dict = field(default_factory=dict)
    average: WeightAverage | None = None
    state: dict | None = None  # what training needs to know of the checkpoint resumed from (its dtype)
    stream: list[dict] | None = None  # where the resumed run's stream stood, by rank
    steps: list | None = None  # the resumed run's steps not yet passed to its schedule


def _start(cfg: TrainConfig, device: torch.device) -> _Run:
    """Build the model on ``device`` and its optimizer: resumed from ``cfg.resume``, or new (from
    ``cfg.init_from``'s fitting weights when given)."""
    state = checkpoint.load(cfg.resume) if cfg.resume else None
    preset = state["preset"] if state else cfg.preset
    config = config_from_dict(state["config"]) if state else get_preset(cfg.preset)
    model = build(config).to(device, memory_format=torch.channels_last if cfg.channels_last else None)
    opt_cls = torch.optim.AdamW if cfg.optimizer == "adamw" else torch.optim.SGD
    opt_args = {"lr": cfg.lr, "weight_decay": cfg.weight_decay}
    if cfg.optimizer == "sgd":
        opt_args["momentum"] = 0.9
    optimizer = opt_cls(model.parameters(), **opt_args)
    schedule = PlateauHalving(rate=cfg.lr, warmup_samples=cfg.warmup_samples)
    run = _Run(model, config, preset, optimizer, schedule)
    if state:
        run.schedule, run.samples, run.wall = restore(state, model, optimizer, cfg)
        run.metrics = state.get("metrics", {})
        run.state = {k: state.get(k) for k in ("dtype", "device_type")}
        run.stream, run.steps = state.get("stream"), state.get("pending_steps")
    elif cfg.init_from:
        report = transplant(model, checkpoint.load(cfg.init_from)["model"])
        print(describe_start(cfg.init_from, report), file=sys.stderr, flush=True)
    if cfg.average_decay and _rank() == 0:  # the process that validates and saves keeps it
        run.average = WeightAverage(model, cfg.average_decay)
        if state and "average" in state:
            run.average.load_state_dict(state["average"])
    return run


def _mean_known(values: list[float]) -> float:
    """The mean of the values that are not NaN (NaN if none is)."""
    known = [v for v in values if not math.isnan(v)]
    return sum(known) / len(known) if known else math.nan


class _Progress:
    """Every 10 seconds of training: the mean of the steps' loss parts on stderr and in the log."""

    def __init__(self, log: CsvLog, samples_per_step: int, show: bool) -> None:
        self.log, self.samples_per_step, self.show = log, samples_per_step, show
        self.window: list[dict] = []
        self.last = time.time()

    def add(self, parts: dict, samples: int, rate: float, wall: float) -> None:
        """Record one step's loss ``parts``; report when 10 seconds have passed since the last report."""
        if not self.show:
            return
        self.window.append(parts)
        now = time.time()
        if now - self.last <= 10:
            return
        mean = {k: _mean_known([w[k] for w in self.window if k in w]) for k in self.window[-1]}
        speed = len(self.window) * self.samples_per_step / (now - self.last)
        print(f"\rsamples {samples:,}  {speed:.0f}/s  loss {mean['policy']:.3f}  "
              f"acc {mean['acc']:.3f}  lr {rate:.2g}", end="", file=sys.stderr, flush=True)
        self.log.write({"samples": samples, "wall_seconds": round(wall), "samples_per_s": round(speed),
                        "lr": rate, **{f"train_{k}": round(v, 4) for k, v in mean.items()}})
        self.window.clear()
        self.last = now


class _Steps:
    """The steps' loss parts, read from the device in bulk: every ``schedule.step_samples`` samples
    they go to the schedule and the progress report, so that the loop never waits for the device
    after a step (the rate a halving sets takes effect that many samples later).  The parts not
    yet passed on are saved with a checkpoint (:meth:`state`), so that a resumed run passes them on
    when the run would have, and sets the same rates at the same samples."""

    def __init__(self, schedule: PlateauHalving, progress: _Progress, wall: Callable[[], float],
                 saved: list | None = None) -> None:
        self.schedule, self.progress, self.wall = schedule, progress, wall
        self.read: list[tuple[dict, int, int]] = [tuple(step) for step in saved or []]  # parts as floats
        self.pending: list[tuple[dict, int, int]] = []  # (parts, samples of the step, samples after it)
        self.samples = sum(count for _, count, _ in self.read)

    def add(self, parts: dict, count: int, seen: int) -> None:
        """Record a step's ``parts`` over ``count`` samples (``seen`` in all after it)."""
        self.pending.append((parts, count, seen))
        self.samples += count
        if self.samples >= self.schedule.step_samples:
            self.flush()

    def _read(self) -> list[tuple[dict, int, int]]:
        """The recorded steps, their parts read from the device as floats."""
        floats = parts_as_floats([p for p, _, _ in self.pending])
        self.read += [(f, count, seen) for f, (_, count, seen) in zip(floats, self.pending, strict=True)]
        self.pending = []
        return self.read

    def flush(self) -> None:
        """Pass the recorded steps' parts, as floats, to the schedule and the progress report."""
        for floats, count, seen in self._read():
            self.schedule.observe(floats["policy"], count)
            self.progress.add(floats, seen, self.schedule.rate_at(seen), self.wall())
        self.read, self.samples = [], 0

    def state(self) -> list[tuple[dict, int, int]]:
        """Return the steps not yet passed on, their parts as floats (for a checkpoint)."""
        return list(self._read())


class _Validation:
    """Validation every ``every`` samples; keeps ``best.pt``, the weights of the best top-1."""

    def __init__(self, validator: Validator, every: int, samples: int, best: float, log: CsvLog,
                 run_dir: Path, preset: str, calibration: Calibration) -> None:
        self.validator, self.every, self.best, self.log = validator, every, best, log
        self.calibration = calibration
        self.run_dir, self.preset = run_dir, preset
        self.next = (samples // every + 1) * every
        self.last: tuple[int, dict] | None = None  # the samples and metrics of the last validation

    def due(self, samples: int) -> bool:
        """Whether ``samples`` has reached the next validation."""
        return samples >= self.next

    def run(self, model: torch.nn.Module, dtype: torch.dtype, samples: int, wall: float, rate: float,
            average: WeightAverage | None = None) -> dict:
        """Validate ``model`` (its batch-norm statistics recomputed first, see
        :mod:`analysis.train.precise_bn`), and its ``average`` when kept, save it as ``best.pt`` if
        its top-1 is the best yet, report and log the metrics, and return the model's (once per
        sample count: a run that ends where a validation fell is not validated twice)."""
        if self.last is not None and self.last[0] == samples:
            return self.last[1]
        self.calibration.apply(model)
        metrics = self.validator.run(model, dtype)
        self.last = (samples, metrics)
        if average is not None:
            self._run_average(average.averaged(model), dtype, samples, wall)
        self.next = (samples // self.every + 1) * self.every
        if metrics["top1"] > self.best:
            self.best = metrics["top1"]
            checkpoint.save(self.run_dir / "best.pt", model, self.preset, samples=samples,
                            wall_seconds=round(wall), metrics=metrics)
        print(f"\nvalidation at {samples:,}: top1 {metrics['top1']:.4f} top5 {metrics['top5']:.4f} "
              f"loss {metrics['policy_loss']:.4f}", file=sys.stderr, flush=True)
        self.log.write({"samples": samples, "wall_seconds": round(wall), "lr": rate,
                        "val_top1": round(metrics["top1"], 4), "val_top5": round(metrics["top5"], 4),
                        "val_policy_loss": round(metrics["policy_loss"], 4),
                        "val_value_log_loss": round(metrics.get("value_log_loss", math.nan), 4)})
        return metrics

    def _run_average(self, averaged: torch.nn.Module, dtype: torch.dtype, samples: int, wall: float) -> None:
        """Validate the moving average of the weights (``averaged``, its batch-norm statistics
        recomputed first), and report and log its metrics."""
        self.calibration.apply(averaged)
        metrics = self.validator.run(averaged, dtype)
        print(f"average at {samples:,}: top1 {metrics['top1']:.4f} loss {metrics['policy_loss']:.4f} "
              f"value {metrics.get('value_log_loss', math.nan):.4f}", file=sys.stderr, flush=True)
        self.log.write({"samples": samples, "wall_seconds": round(wall),
                        "avg_top1": round(metrics["top1"], 4),
                        "avg_policy_loss": round(metrics["policy_loss"], 4),
                        "avg_value_log_loss": round(metrics.get("value_log_loss", math.nan), 4)})


def _validator(cfg: TrainConfig, config: Config, ladder: ladders.LadderSet | None) -> Validator | None:
    """The fixed validation positions: the ladder set's validation part, or ``cfg.validation``'s."""
    if ladder is not None:
        return Validator(ladder.examples("validation")[: cfg.validation_positions], config)
    if cfg.validation:
        return Validator(fixed_positions(cfg.validation, cfg.validation_positions, seed=12345,
                                         target=config.target), config)
    return None


DDP_BACKENDS = ("auto", "nccl", "gloo")


def ddp_backend(name: str, device: torch.device, local_ranks: int) -> str:
    """Return the process group backend of a run on ``device`` with ``local_ranks`` processes on
    this machine: ``name`` itself, or for ``auto`` nccl when the run is on CUDA and every local
    rank has a GPU of its own (nccl refuses two ranks on one GPU), gloo otherwise.

    Raises ValueError for an unknown name, or for nccl off CUDA.
    """
    if name not in DDP_BACKENDS:
        raise ValueError(f"unknown DDP backend {name!r}; use one of {', '.join(DDP_BACKENDS)}")
    on_gpus = device.type == "cuda" and torch.cuda.device_count() >= local_ranks
    if name == "nccl" and device.type != "cuda":
        raise ValueError("the nccl backend needs the run on CUDA (--device cuda)")
    if name == "auto":
        return "nccl" if on_gpus else "gloo"
    return name


def rank_device(name: str, distributed: bool) -> torch.device:
    """Return the device this process trains on: the one ``name`` gives (:func:`precision.device_named`),
    and under torchrun on CUDA the local rank's own GPU (ranks share GPUs round robin when there are
    fewer GPUs than ranks).  Raises ValueError as ``device_named`` does."""
    device = precision.device_named(name)
    if not distributed or device.type != "cuda" or device.index is not None:
        return device
    local = int(os.environ.get("LOCAL_RANK", "0"))
    index = local % torch.cuda.device_count()
    torch.cuda.set_device(index)
    return torch.device("cuda", index)


def train(cfg: TrainConfig) -> dict:
    """Train until ``max_samples`` or ``max_minutes`` (0: no limit; counted from this call, the
    setup included, so that a burst on a borrowed GPU keeps to its budget) or a SIGTERM
    (:mod:`analysis.train.stopping`); return the last validation metrics.

    Raises ValueError for a device or DDP backend this machine cannot give, or an unknown
    compile mode.
    """
    began = time.time()
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    device = rank_device(cfg.device, distributed)
    if distributed and not dist.is_initialized():
        local_ranks = int(os.environ.get("LOCAL_WORLD_SIZE", os.environ["WORLD_SIZE"]))
        dist.init_process_group(ddp_backend(cfg.ddp_backend, device, local_ranks))
    torch.manual_seed(cfg.seed + _rank())
    random.seed(cfg.seed + _rank())
    return _Loop(cfg, _start(cfg, device), device, distributed, began).train()


class _Clock:
    """A run's wall seconds: those of the runs it resumed (``before``), and this one's since setup."""

    def __init__(self, before: float) -> None:
        self.before, self.started = before, time.time()

    def __call__(self) -> float:
        return self.before + time.time() - self.started


class _Loop:
    """One run from its first batch to its last save: the stream, the steps, the validations, the
    checkpoints and the decision to stop, on this rank (rank 0 validates, logs and saves).  It drops
    its batches when its steps end, so that the loader's processes end then, even where something
    still holds the loop (a traceback, a reference cycle)."""

    def __init__(self, cfg: TrainConfig, run: _Run, device: torch.device, distributed: bool,
                 began: float) -> None:
        self.cfg, self.run, self.device, self.distributed, self.began = cfg, run, device, distributed, began
        self.rank = _rank()
        self.samples, self.metrics = run.samples, run.metrics
        self.net = trainer(run.model, cfg, device, distributed)
        self.ranks = _Ranks(distributed)
        ladder = ladders.load_or_build(cfg.data, cfg.ladder_games) if cfg.ladder_set else None
        if ladder is not None and self.rank == 0:
            print(ladder.describe(), file=sys.stderr, flush=True)
        self.place, self.batches = self._stream(ladder)
        self.first = next(self.batches)
        self.place.took(self.first)
        self.dtype = training_dtype(self.net, self.first, cfg, run.state)
        self.run_dir = Path(cfg.run_dir)
        log = CsvLog(self.run_dir / "log.csv")
        validator = _validator(cfg, run.config, ladder) if self.rank == 0 else None
        self.calibrated = None if self.rank else calibration(cfg.data, run.config)
        self.validation = None if validator is None else _Validation(
            validator, cfg.validate_every, self.samples, self.metrics.get("top1", -1.0), log, self.run_dir,
            run.preset, self.calibrated)
        if self.rank == 0:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        progress = _Progress(log, cfg.batch_size * self.ranks.world, self.rank == 0 and cfg.progress)
        self.wall = _Clock(run.wall)
        self.last_checkpoint = time.time()
        self.steps = _Steps(run.schedule, progress, self.wall, run.steps)

    def _stream(self, ladder: ladders.LadderSet | None) -> tuple[StreamPlace, Iterator[dict]]:
        """Return where this rank's stream stands and its batches on the device: resumed where the
        run's state left it, or afresh (and why, on stderr)."""
        options = stream_options(self.cfg)
        start, afresh = stream_start(self.cfg, options, self.run.stream, self.rank, self.ranks.world,
                                     self.samples)
        if afresh and self.rank == 0:
            print(f"the data stream starts afresh: {afresh}", file=sys.stderr, flush=True)
        stream = TrainingStream(self.cfg, self.run.config, start,
                                ladder=ladder.examples("train") if ladder else None)
        return StreamPlace(start, options), iter(batch_loader(stream, self.device))

    def train(self) -> dict:
        """Step until the run ends (see :func:`train`), validate and save; return the last metrics."""
        self.net.train()
        try:
            with stop_on_sigterm() as stop:
                batch = self.first
                while True:
                    self._step(batch)
                    if self._ended(stop.requested):
                        break
                    batch = next(self.batches)
                    self.place.took(batch)
        finally:
            del self.batches  # the only reference: the loader's processes end here, whatever holds the loop
        if self.validation is not None:
            self.metrics = self._validate()
        self._save()
        if self.distributed:
            dist.barrier()
        return self.metrics

    def _step(self, batch: dict) -> None:
        """Take one step on ``batch`` at the schedule's rate, update the average and the counters,
        and validate when one is due."""
        run, count = self.run, len(batch["moves"]) * self.ranks.world
        for group in run.optimizer.param_groups:
            group["lr"] = run.schedule.rate_at(self.samples + count)
        parts = train_step(self.net, run.optimizer, batch, self.cfg, self.dtype)
        if run.average is not None:
            run.average.update(run.model)
        self.samples += count
        self.steps.add(parts, count, self.samples)
        if self.validation is not None and self.validation.due(self.samples):
            self.metrics = self._validate()

    def _ended(self, requested: bool) -> bool:
        """Return whether the run ends here (a SIGTERM ``requested``, or a limit reached, on any
        rank); when it goes on, save a checkpoint if one is due."""
        cfg, now = self.cfg, time.time()
        ended, due = self.ranks.agree(
            requested or bool(cfg.max_samples and self.samples >= cfg.max_samples)
            or bool(cfg.max_minutes and now - self.began >= cfg.max_minutes * 60),
            self.rank == 0 and now - self.last_checkpoint > cfg.checkpoint_minutes * 60)
        if due and not ended:
            self._save()
            self.last_checkpoint = now
        return ended

    def _validate(self) -> dict:
        """Validate the model (and its average) at this rank's samples; return the model's metrics."""
        return self.validation.run(self.run.model, self.dtype, self.samples, self.wall(),
                                   self.run.schedule.rate_at(self.samples), self.run.average)

    def _save(self) -> None:
        """Save ``last.pt`` (every rank's stream place gathered into it) and, with an average,
        ``average.pt``, the batch norms' statistics recomputed for each; only rank 0 writes."""
        streams = self.ranks.gather(self.place.saved())
        if self.rank:
            return
        run, model = self.run, self.run.model
        self.calibrated.apply(model)  # the saved running statistics are the weights' own
        extra = {} if run.average is None else {"average": run.average.state_dict()}
        checkpoint.save(self.run_dir / "last.pt", model, run.preset, optimizer=run.optimizer.state_dict(),
                        schedule=run.schedule.state_dict(), pending_steps=self.steps.state(), stream=streams,
                        samples=self.samples, wall_seconds=self.wall(), rng={"torch": torch.get_rng_state()},
                        metrics=self.metrics, dtype=precision.describe(self.dtype),
                        device_type=self.device.type, **extra)
        if run.average is not None:
            averaged = run.average.averaged(model)
            self.calibrated.apply(averaged)
            checkpoint.save(self.run_dir / "average.pt", averaged, run.preset, samples=self.samples,
                            wall_seconds=round(self.wall()), average_decay=run.average.decay)


class _Ranks:
    """The processes of a run under torchrun, as the loop needs them: their stop and checkpoint
    decisions made one (a rank that stopped alone would leave the others waiting in their next
    all-reduce), and what each holds gathered, over a gloo group of their own (no wait on a GPU).
    Without torchrun, one rank."""

    def __init__(self, distributed: bool) -> None:
        self.group = dist.new_group(backend="gloo") if distributed else None
        self.world = dist.get_world_size() if distributed else 1

    def agree(self, *flags: bool) -> list[bool]:
        """Return each of ``flags``, true where it is true on any rank."""
        if self.group is None:
            return list(flags)
        votes = torch.tensor(flags, dtype=torch.int32)
        dist.all_reduce(votes, op=dist.ReduceOp.MAX, group=self.group)
        return [bool(v) for v in votes.tolist()]

    def gather(self, held: object) -> list:
        """Return what every rank holds (``held`` here), by rank."""
        if self.group is None:
            return [held]
        out: list = [None] * self.world
        dist.all_gather_object(out, held, group=self.group)
        return out
