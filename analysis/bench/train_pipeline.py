"""The training pipeline of one preset, part by part: can the loader feed the device?

For each preset, on the device training would use (CUDA when available):

- ``loader_sgf`` and ``loader_packed``: samples/s of one loader process (the training loop's own
  stream, in this process) reading the SGF month and its labels, or the packed archive
  (``python -m analysis.train.pack``), after its first batch (whose seconds are given apart);
- ``step_alone``: samples/s of training steps (:func:`analysis.train.loop.train_step`) on one
  random batch already on the device: the most the device can do; with ``variants``, the same
  in NHWC memory (``--channels-last``), compiled (``--compile``) and compiled into CUDA graphs
  (``--compile-mode reduce-overhead``), to choose by measurement;
- ``loop``: samples/s of the whole loop, ``workers`` loader processes feeding the steps through
  the training loop's DataLoader (:func:`analysis.train.stream.batch_loader`), from the packed
  archive when there is one; ``loop_of_step`` is its share of ``step_alone`` (the issue's goal on
  a GPU: 0.85 or more);
- ``gpu_busy``: the share of the loop's time the GPU was busy, as the driver reports it
  (``torch.cuda.utilization`` through the NVIDIA management library, else ``nvidia-smi``; None
  where neither answers), sampled every 0.2 s.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import torch

from analysis.bench.nn import BOARD
from analysis.bench.positions import SHARED_DATA
from analysis.features import registry
from analysis.nets import precision
from analysis.nets.presets import Config, build, get_preset
from analysis.train.loop import TrainConfig, train_step, trainer
from analysis.train.packed import PackedArchive
from analysis.train.stream import STATE_KEY, StreamStart, TrainingStream, batch_loader

TRAIN_FOLDER = SHARED_DATA / "tygem-9d" / "train"
LABELS = SHARED_DATA / "katago-b6c96" / "labels.npz"
PACKED = Path(__file__).resolve().parents[2] / "packed" / "train.pack.npz"


def random_batch(config: Config, size: int, device: torch.device | None = None) -> dict:
    """Return a batch of ``size`` random binary 19x19 inputs with random targets for every head
    (legal move, value, final margin, ownership), on ``device`` (default the CPU), as the training
    loop's DataLoader yields it."""
    area = BOARD * BOARD
    batch = {
        "inputs": (torch.rand(size, config.in_planes, BOARD, BOARD) > 0.5).float(),
        "legal": torch.ones(size, area + 1, dtype=torch.bool),
        "moves": torch.randint(0, area + 1, (size, config.future_moves)),
        "value": torch.randint(0, 2, (size,)).float(),
        "score": torch.randn(size) * 20,
        "ownership": torch.rand(size, area) * 2 - 1,
    }
    return {k: v.to(device or "cpu") for k, v in batch.items()}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _trainer(config: Config, cfg: TrainConfig,
             device: torch.device) -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    memory = torch.channels_last if cfg.channels_last else None
    model = build(config).to(device, memory_format=memory).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    return trainer(model, cfg, device, distributed=False), optimizer


GRAPHS = {"compile": True, "compile_mode": "reduce-overhead"}  # the compiled steps replayed as CUDA graphs
VARIANTS = {"plain": {}, "channels_last": {"channels_last": True}, "compile": {"compile": True},
            "channels_last+compile": {"channels_last": True, "compile": True},
            "compile_graphs": GRAPHS, "channels_last+compile_graphs": {"channels_last": True, **GRAPHS}}


def step_variants(config: Config, cfg: TrainConfig, device: torch.device, dtype: torch.dtype,
                  seconds: float, names: list[str]) -> dict[str, float | str]:
    """Return the step alone's samples/s with each of ``names`` (keys of ``VARIANTS``: NHWC
    memory, torch.compile, compiled in ``reduce-overhead`` mode so that each step replays CUDA
    graphs (``compile_graphs``; on a CPU the same as ``compile``), and NHWC with either; the
    compiling and the graphs' capture are in the warm-up, not in the rate), or the error that
    stopped a variant (torch.compile needs a compiler the machine may lack).
    Raises KeyError for an unknown variant."""
    rates: dict[str, float | str] = {}
    for name in names:
        options = VARIANTS[name]
        try:
            rates[name] = round(step_alone(config, replace(cfg, **options), device, dtype, seconds), 1)
        except Exception as exc:  # reported, so that the other figures of the run survive
            rates[name] = f"failed: {type(exc).__name__}: {str(exc)[:200]}"
    return rates


def _rate(steps: Iterator[int], seconds: float, device: torch.device, warmup: int = 3) -> float:
    """Samples/s of the steps ``steps`` takes (each yields its samples), after ``warmup`` steps,
    over at least ``seconds``."""
    for _ in range(warmup):
        next(steps)
    _sync(device)
    samples, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        samples += next(steps)
    _sync(device)
    return samples / (time.perf_counter() - t0)


def step_alone(config: Config, cfg: TrainConfig, device: torch.device, dtype: torch.dtype,
               seconds: float) -> float:
    """Samples/s of training steps on one random batch already on ``device``."""
    net, optimizer = _trainer(config, cfg, device)
    batch = random_batch(config, cfg.batch_size, device)

    def steps() -> Iterator[int]:
        while True:
            train_step(net, optimizer, batch, cfg, dtype)
            yield cfg.batch_size

    return _rate(steps(), seconds, device)


def loader_rate(cfg: TrainConfig, config: Config, seconds: float) -> tuple[float, float]:
    """Return (seconds to the first batch, samples/s after it) of one loader process's stream, on
    one core as in a DataLoader worker."""
    registry.use_threads(1)
    t0 = time.perf_counter()
    stream = iter(TrainingStream(cfg, config, StreamStart.fresh(1, 0)))
    next(stream)
    startup = time.perf_counter() - t0

    def batches() -> Iterator[int]:
        while True:
            yield len(next(stream)["moves"])

    try:
        return startup, _rate(batches(), seconds, torch.device("cpu"), warmup=0)
    finally:
        registry.use_threads(None)


def gpu_utilization(device: torch.device) -> int | None:
    """Return the percentage of the last sample period the GPU ``device`` was busy, as the driver
    says: through NVML (``torch.cuda.utilization``), else through ``nvidia-smi``; None when neither
    answers."""
    try:
        return int(torch.cuda.utilization(device))
    except Exception:  # no NVIDIA management library for Python: ask the driver's own tool
        pass
    try:
        done = subprocess.run(["nvidia-smi", "-i", str(device.index or 0), "--query-gpu=utilization.gpu",
                               "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=5)
        return int(done.stdout.split()[0]) if done.returncode == 0 and done.stdout.strip() else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


class _Busy:
    """The GPU's busy share, sampled in a thread every 0.2 s while the block runs (None when the
    driver does not say: :func:`gpu_utilization`)."""

    def __init__(self, device: torch.device) -> None:
        self.device, self.samples, self._stop = device, [], threading.Event()

    def __enter__(self) -> _Busy:
        if self.device.type == "cuda":
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            busy = gpu_utilization(self.device)
            if busy is None:
                return
            self.samples.append(busy)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    @property
    def share(self) -> float | None:
        return round(sum(self.samples) / len(self.samples) / 100, 3) if self.samples else None


def whole_loop(config: Config, cfg: TrainConfig, device: torch.device, dtype: torch.dtype,
               seconds: float) -> tuple[float, float | None]:
    """Return (samples/s, the GPU's busy share) of the loop fed by ``cfg.workers`` loader processes."""
    net, optimizer = _trainer(config, cfg, device)
    loader = iter(batch_loader(TrainingStream(cfg, config, StreamStart.fresh(2, cfg.workers)), device))

    def steps() -> Iterator[int]:
        while True:
            batch = next(loader)
            batch.pop(STATE_KEY)
            train_step(net, optimizer, batch, cfg, dtype)
            yield len(batch["moves"])

    stepping = steps()
    for _ in range(3 + 2 * max(cfg.workers, 1)):  # every worker past its first batch
        next(stepping)
    with _Busy(device) as busy:
        rate = _rate(stepping, seconds, device, warmup=0)
    return rate, busy.share


def preset_figures(preset: str, batch: int, workers: int, seconds: float, packed: Path = PACKED,
                   variants: tuple[str, ...] = (), month: Path = TRAIN_FOLDER / "2010-01.zip") -> dict:
    """Return the figures of the module docstring for ``preset`` at ``batch`` samples a step.

    The SGF loader reads ``month`` (the first training month) with KataGo's labels of it; the
    packed one and the loop read ``packed`` when it exists (the loop reads the SGF month
    otherwise).  Where the month is not on this machine (a lent GPU machine has the pack alone),
    ``loader_sgf`` is None and the rest reads the pack (with its teacher labels where it holds
    them and the preset has the heads to learn them).  Raises FileNotFoundError when neither is
    there, KeyError for an unknown variant.
    """
    if not month.exists() and not packed.exists():
        raise FileNotFoundError(month)
    config = get_preset(preset)
    device = precision.default_device()
    dtype = precision.candidate_dtypes(device)[-1]
    taught = config.value_head and config.ownership_head
    base = TrainConfig(preset=preset, data=[str(month)], batch_size=batch, teacher_archives=str(TRAIN_FOLDER),
                       workers=workers)
    figures: dict = {"device": str(device), "dtype": precision.describe(dtype), "batch": batch,
                     "workers": workers, "loader_sgf": None}
    fed = base
    if month.exists():
        fed = replace(base, teacher=str(LABELS) if taught and LABELS.exists() else None)
        startup, rate = loader_rate(fed, config, seconds)
        figures["loader_sgf"] = {"samples_per_s": round(rate, 1), "seconds_to_first_batch": round(startup, 2)}
    if packed.exists():
        labelled = taught and PackedArchive.open(packed).has_teacher  # read once: the loaders read it next
        fed = replace(base, data=[str(packed)], teacher=str(packed) if labelled else None)
        startup, rate = loader_rate(fed, config, seconds)
        figures["loader_packed"] = {"samples_per_s": round(rate, 1),
                                    "seconds_to_first_batch": round(startup, 2)}
    alone = step_alone(config, fed, device, dtype, seconds)
    if variants:
        figures["step_alone_variants"] = step_variants(config, fed, device, dtype, seconds, list(variants))
    loop, busy = whole_loop(config, fed, device, dtype, 2 * seconds)
    figures.update(step_alone=round(alone, 1), loop=round(loop, 1), loop_of_step=round(loop / alone, 3),
                   loop_reads="packed" if fed.data == [str(packed)] else "sgf", gpu_busy=busy)
    return figures
