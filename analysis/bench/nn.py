"""Network benchmark: inference positions/s of the default net against what the machine can do.

The net is the default next-move one of this machine's device (:mod:`analysis.nets.registry`)
when one is shipped, else an
untrained golois-b6c64 (which costs exactly as much time).  It runs on 19x19
inputs at batch 1, 8 and 64, in float32 and, where the CPU has bf16 instructions
(:func:`analysis.nets.precision.cpu_has_bf16`), under bf16 autocast: elsewhere bf16 is
emulated at a few GFLOP/s and is not timed.  Its achieved
GFLOP/s count 2 x the multiply-adds of its convolutions and linear layers
(batch norm, ReLU and softmax are not counted).

The yardsticks, in each dtype timed: a 2048^3 matrix product, and a dense 3x3
convolution of 256 channels on 19x19 boards.  The two differ: on AMD CPUs
MKL's float32 matrix product may run well below oneDNN's convolutions, so each
figure is given as a fraction of the matrix product and of the better of the two.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from analysis.nets import checkpoint, precision
from analysis.nets.barratt import CrossConv2d
from analysis.nets.presets import build, get_preset
from analysis.nets.registry import default_weights
from analysis.nets.zoo import UnknownNetwork

PRESET = "golois-b6c64"
BOARD = 19
NO_BF16 = "not timed: the CPU has no bf16 instructions, so bf16 would be emulated"


def timed_dtypes() -> tuple[str, ...]:
    """Return the dtypes worth timing on this CPU: float32, and bfloat16 where the hardware has it."""
    return tuple(precision.describe(d) for d in precision.candidate_dtypes(torch.device("cpu")))


def seconds_per_call(fn: Callable[[], object], min_seconds: float, repeats: int = 3) -> float:
    """Return the best, over ``repeats`` rounds of at least ``min_seconds``, mean seconds per call of ``fn``.

    One call before the rounds warms caches and kernel selection up.
    """
    fn()
    best = math.inf
    for _ in range(repeats):
        calls = 0
        t0 = time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= min_seconds:
                break
        best = min(best, elapsed / calls)
    return best


def matmul_gflops(dtype: str, size: int = 2048, min_seconds: float = 0.5) -> float:
    """Return the GFLOP/s of a size x size by size x size matrix product in ``dtype`` (float32, bfloat16)."""
    a = torch.randn(size, size, dtype=getattr(torch, dtype))
    b = torch.randn(size, size, dtype=getattr(torch, dtype))
    return 2 * size**3 / seconds_per_call(lambda: a @ b, min_seconds) / 1e9


def conv_gflops(dtype: str, batch: int = 64, channels: int = 256, min_seconds: float = 0.5) -> float:
    """Return the GFLOP/s of a same-padded 3x3 convolution of ``channels`` planes on 19x19, in ``dtype``."""
    x = torch.randn(batch, channels, BOARD, BOARD, dtype=getattr(torch, dtype))
    w = torch.randn(channels, channels, 3, 3, dtype=getattr(torch, dtype))
    with torch.inference_mode():
        seconds = seconds_per_call(lambda: F.conv2d(x, w, padding=1), min_seconds)
    return 2 * batch * BOARD * BOARD * channels * channels * 9 / seconds / 1e9


def yardsticks(quick: bool) -> dict[str, dict[str, float]]:
    """Return {dtype: {"matmul_2048": GFLOP/s, "conv3x3_c256": GFLOP/s}} for each of :func:`timed_dtypes`."""
    seconds, batch = (0.05, 16) if quick else (0.5, 64)
    return {dtype: {"matmul_2048": round(matmul_gflops(dtype, min_seconds=seconds), 1),
                    "conv3x3_c256": round(conv_gflops(dtype, batch, min_seconds=seconds), 1)}
            for dtype in timed_dtypes()}


def efficiency(gflops: float, yardstick: dict[str, float]) -> dict[str, float]:
    """Return the achieved ``gflops`` and its fractions of the matrix product and of the better yardstick."""
    return {"gflops": round(gflops, 1), "fraction_of_matmul": round(gflops / yardstick["matmul_2048"], 3),
            "fraction_of_best": round(gflops / max(yardstick.values()), 3)}


def forward_flops(model: nn.Module, in_planes: int, size: int = BOARD) -> int:
    """Return the FLOPs (2 x multiply-adds) of one position through the convolutions and linear layers.

    Cross convolutions count the multiply-adds of their two band matrix products (see
    :mod:`analysis.nets.barratt`): what they compute, zeros of the sheared board included.
    """
    macs = 0

    def count(module: nn.Module, _inputs: tuple, output: torch.Tensor) -> None:
        nonlocal macs
        if isinstance(module, CrossConv2d):
            macs += module.multiply_adds(*output.shape[-2:])
        elif isinstance(module, nn.Conv2d):
            macs += output.numel() * module.in_channels // module.groups * math.prod(module.kernel_size)
        else:
            macs += output.numel() * module.in_features

    layers = nn.Conv2d | nn.Linear | CrossConv2d
    hooks = [m.register_forward_hook(count) for m in model.modules() if isinstance(m, layers)]
    try:
        with torch.inference_mode():
            model(torch.zeros(1, in_planes, size, size))
    finally:
        for hook in hooks:
            hook.remove()
    return 2 * macs


def default_net() -> tuple[nn.Module, str]:
    """Return (the default net in eval mode, a description of its weights).

    Loads the default next-move network of this machine's device when one is shipped (raising
    CheckpointError if it is not a checkpoint), else builds an untrained golois-b6c64.
    """
    try:
        path = default_weights()
    except UnknownNetwork:
        return build(get_preset(PRESET)).eval(), f"{PRESET}, untrained"
    return shipped_net(path)


def shipped_net(path: Path) -> tuple[nn.Module, str]:
    """Return (the net saved at ``path``, a shipped file of ``weights/``, in eval mode, a description
    of its weights).  Raises FileNotFoundError or CheckpointError."""
    model, data = checkpoint.load_model(path)
    return model.eval(), f"{data['preset']} from weights/{path.name}"


def inference_positions_per_s(model: nn.Module, in_planes: int, batch: int, dtype: str,
                              min_seconds: float) -> float:
    """Return the positions/s of batched 19x19 forward passes with a legality mask, in ``dtype``."""
    x = (torch.rand(batch, in_planes, BOARD, BOARD) > 0.5).float()
    legal = torch.ones(batch, BOARD * BOARD + 1, dtype=torch.bool)
    with torch.inference_mode(), precision.autocast(torch.device("cpu"), precision.dtype_named(dtype)):
        return batch / seconds_per_call(lambda: model(x, legal), min_seconds)


def run(quick: bool = False) -> dict:
    """Return the figures: the yardsticks, the net's FLOPs per position, and its inference rate and
    efficiency at each batch size and dtype.
    """
    min_seconds = 0.05 if quick else 0.5
    model, weights = default_net()
    in_planes = model.config.in_planes
    flops = forward_flops(model, in_planes)
    yardstick = yardsticks(quick)
    figures: dict = {
        "net": weights,
        "threads": torch.get_num_threads(),
        "board_size": BOARD,
        "yardstick_gflops": yardstick,
        "forward_mflops_per_position": round(flops / 1e6, 1),
    }
    inference: dict = {}
    for batch in (1, 8, 64):
        rates = {d: inference_positions_per_s(model, in_planes, batch, d, min_seconds) for d in yardstick}
        row: dict = {d: {"positions_per_s": round(rate, 1), **efficiency(rate * flops / 1e9, yardstick[d])}
                     for d, rate in rates.items()}
        row["faster"] = max(rates, key=rates.get)
        if "bfloat16" in rates:
            row["bf16_speedup"] = round(rates["bfloat16"] / rates["float32"], 2)
        else:
            row["bfloat16"] = NO_BF16
        inference[f"batch{batch}"] = row
    figures["inference"] = inference
    figures["notes"] = ("FLOPs = 2 x multiply-adds of convolutions and linear layers; fractions are of the "
                        "yardsticks in the same dtype")
    return figures
