"""Training benchmark: optimiser steps/s of the default net, and the data pipeline that must feed them.

A training step is the training loop's own: the multi-task loss of
``analysis.train.losses.losses``, backward and an AdamW step, at batch 128 on
random 19x19 inputs, in each dtype worth timing on this CPU (float32, and bf16 where the
CPU has bf16 instructions; see ``analysis.bench.nn``).  A step costs about
3 x the forward FLOPs (forward, and backward to both the activations and the
weights; a slight overestimate, as the input layer needs no gradient for its
input), reported against the yardsticks of ``analysis.bench.nn``.

The candidates are every next-move preset, trained the same way in the fastest
dtype worth timing (float32 alone on a CPU without bf16 instructions): the
throughput that chose the default architecture (a smaller net sees more
positions in the hours a 2-core machine has).  Each gives its training FLOPs per
sample and its samples/s as a fraction of the default net's in the same run
(barratt-b6c64 was sized to train at no less than half of it).
``--threads N`` sets torch's threads (on a machine shared with a training job,
one thread gives steadier figures).

The data pipeline is one ``PositionSampler`` (what each DataLoader worker runs)
on a month of the Tygem training games: the time to its first batch (filling
the shuffle buffer and the pool of games) and its samples/s afterwards.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import torch

from analysis.bench.nn import (
    BOARD,
    PRESET,
    efficiency,
    forward_flops,
    seconds_per_call,
    timed_dtypes,
    yardsticks,
)
from analysis.bench.positions import SHARED_DATA
from analysis.bench.train_pipeline import preset_figures, random_batch
from analysis.nets import precision
from analysis.nets.presets import PRESETS, Config, build, get_preset
from analysis.train.data import PositionSampler
from analysis.train.loop import TrainConfig
from analysis.train.losses import AllHeads, losses

TRAIN_MONTH = SHARED_DATA / "tygem-9d" / "train" / "2010-01.zip"
BATCH = 128
TRAINING_DEFAULT = "golois-score-b12c64"  # the preset of the shipped default network (weights/MODEL_CARD.md)


def train_samples_per_s(config: Config, dtype: str, min_seconds: float) -> float:
    """Return the samples/s of training steps (loss, backward, AdamW) on a fresh net for ``config``."""
    torch.manual_seed(0)
    model = build(config).train()
    cfg = TrainConfig(preset=PRESET, data=[], batch_size=BATCH)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    batch = random_batch(config, BATCH)
    heads = AllHeads(model)

    def step() -> None:
        loss, _ = losses(heads, batch, cfg, precision.dtype_named(dtype))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return BATCH / seconds_per_call(step, min_seconds)


def candidate_rates(min_seconds: float) -> dict[str, dict]:
    """Return, per next-move preset, its parameters, training MFLOPs per sample, and training samples/s,
    samples per hour and samples/s as a fraction of the default preset's, in the fastest of
    :func:`timed_dtypes`."""
    out = {}
    for name in sorted(PRESETS):
        config = get_preset(name)
        if config.target != "next":
            continue
        rate = max(train_samples_per_s(config, dtype, min_seconds) for dtype in timed_dtypes())
        model = build(config)
        step_flops = 3 * forward_flops(model.eval(), config.in_planes)
        out[name] = {"parameters": sum(p.numel() for p in model.parameters()),
                     "train_mflops_per_sample": round(step_flops / 1e6, 1),
                     "samples_per_s": rate, "samples_per_hour": int(rate * 3600)}
    default = out[PRESET]["samples_per_s"]
    for figures in out.values():
        figures["of_default"] = round(figures["samples_per_s"] / default, 3)
        figures["samples_per_s"] = round(figures["samples_per_s"], 1)
    return out


def sampler_rates(config: Config, batches: int) -> tuple[float, float]:
    """Return (seconds to the first batch, samples/s of the next ``batches`` batches) of a PositionSampler.

    Raises FileNotFoundError when the training month is missing.
    """
    if not TRAIN_MONTH.exists():
        raise FileNotFoundError(TRAIN_MONTH)
    t0 = time.perf_counter()
    sampler = PositionSampler([str(TRAIN_MONTH)], config.feature_set, config.future_moves,
                              target=config.target)
    sampler.batch(BATCH)
    startup = time.perf_counter() - t0
    t1 = time.perf_counter()
    for _ in range(batches):
        sampler.batch(BATCH)
    return startup, batches * BATCH / (time.perf_counter() - t1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--threads`` and the pipeline's options to the bench's command line."""
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own choice)")
    parser.add_argument("--presets", default="",
                        help="comma-separated presets whose whole pipeline is measured (default: the "
                             "training default on a CPU; it and golois-b10c128 on a GPU)")
    parser.add_argument("--pipeline-batch", type=int, default=0,
                        help="samples a step in the pipeline figures (default 256 on a GPU, 128 on a CPU)")
    parser.add_argument("--workers", type=int, default=0,
                        help="loader processes feeding the pipeline's loop (default: the cores less one)")
    parser.add_argument("--pipeline-only", action="store_true", help="measure the pipeline figures alone")
    parser.add_argument("--step-variants", default="",
                        help="comma-separated variants of the step alone to time too: channels_last, "
                             "compile, channels_last+compile, compile_graphs (reduce-overhead: CUDA "
                             "graphs), channels_last+compile_graphs")


def pipeline(presets: list[str], batch: int, workers: int, seconds: float,
             variants: tuple[str, ...] = ()) -> dict:
    """Return :func:`analysis.bench.train_pipeline.preset_figures` of each preset.  Raises
    FileNotFoundError when the training month is missing, KeyError for an unknown variant."""
    return {name: preset_figures(name, batch, workers, seconds, variants=variants) for name in presets}


def run(quick: bool = False, threads: int = 0, presets: str = "", pipeline_batch: int = 0, workers: int = 0,
        pipeline_only: bool = False, step_variants: str = "") -> dict:
    """Return the figures: the yardsticks, the training rate and efficiency in each dtype, every candidate
    preset's training rate, and the sampler's start-up time and rate; on ``threads`` torch threads
    when it is positive; then the whole pipeline of ``presets`` (:func:`pipeline`).  With
    ``pipeline_only``, the pipeline figures alone.  Raises FileNotFoundError when the training
    month is missing.
    """
    gpu = torch.cuda.is_available()
    names = [n for n in presets.split(",") if n] or (
        [TRAINING_DEFAULT, "golois-b10c128"] if gpu else [TRAINING_DEFAULT])
    figures_of_pipeline = pipeline(names, pipeline_batch or (256 if gpu else 128),
                                   workers or max(1, (os.cpu_count() or 2) - 1), 2.0 if quick else 10.0,
                                   tuple(v for v in step_variants.split(",") if v))
    if pipeline_only:
        return {"pipeline": figures_of_pipeline}
    if threads > 0:
        torch.set_num_threads(threads)
    min_seconds = 1.0 if quick else 5.0
    config = get_preset(PRESET)
    step_flops = 3 * forward_flops(build(config).eval(), config.in_planes)
    yardstick = yardsticks(quick)
    figures: dict = {
        "net": f"{PRESET}, untrained",
        "threads": torch.get_num_threads(),
        "board_size": BOARD,
        "batch": BATCH,
        "yardstick_gflops": yardstick,
        "train_mflops_per_sample": round(step_flops / 1e6, 1),
    }
    rates = {dtype: train_samples_per_s(config, dtype, min_seconds) for dtype in yardstick}
    training: dict = {d: {"samples_per_s": round(r, 1), **efficiency(r * step_flops / 1e9, yardstick[d])}
                      for d, r in rates.items()}
    training["faster"] = max(rates, key=rates.get)
    figures["training"] = training
    figures["candidates"] = candidate_rates(1.0 if quick else 3.0)
    startup, data_rate = sampler_rates(config, batches=2 if quick else 10)
    figures["sampler"] = {
        "data": str(TRAIN_MONTH.relative_to(SHARED_DATA.parents[1])),
        "seconds_to_first_batch": round(startup, 2),
        "samples_per_s": round(data_rate, 1),
        "workers_to_feed_training": math.ceil(max(rates.values()) / data_rate),
    }
    figures["pipeline"] = figures_of_pipeline
    figures["notes"] = ("training FLOPs = 3 x forward (2 x multiply-adds of convolutions and linear layers); "
                        "fractions are of the yardsticks in the same dtype; "
                        "workers_to_feed_training assumes one sampler per DataLoader worker and free cores")
    return figures
