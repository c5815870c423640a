"""Choosing bf16 autocast or float32 for CPU inference by timing both on a real batch."""

from __future__ import annotations

import time
from collections.abc import Callable

import torch


def autocast(device: torch.device, bf16: bool) -> torch.autocast:
    """Return the autocast context for ``device``: bf16 when ``bf16`` (CPU), float16 on CUDA."""
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.float16)
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16)


def bf16_is_faster(forward: Callable[[], object], repeats: int = 2) -> bool:
    """Return True if ``forward`` (one batched forward pass) runs faster under CPU bf16 autocast.

    Each precision is warmed up once, then timed ``repeats`` times; the best times are compared.
    """
    best = {}
    for bf16 in (False, True):
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            forward()
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                forward()
                times.append(time.perf_counter() - t0)
        best[bf16] = min(times)
    return best[True] < best[False]
