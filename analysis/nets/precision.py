"""Which floating-point type a network computes in on this machine: chosen by measurement or by
the CPU's features, never by assumption.

============  ===================================================================================
device        dtype
============  ===================================================================================
CUDA          bfloat16 autocast when the GPU supports it, else float32
CPU, no bf16  float32: without AVX512-BF16 or AMX, bf16 is emulated and runs 10-20x slower
instructions  (an AVX2 EPYC measured 14.6 positions/s in bf16 against 305 in float32)
CPU with bf16 the faster of the two on the caller's own forward pass (or training step), timed
instructions  once; bfloat16 when nothing is given to time
============  ===================================================================================

Inference and training both choose here, and both say what they chose.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path

import torch

CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
ROUNDS = 5  # timed calls of each dtype when choosing between them


def flags_have_bf16(cpuinfo: str) -> bool:
    """Return whether the ``flags`` line of ``/proc/cpuinfo`` text names AVX512-BF16 or AMX-BF16."""
    lines = (line for line in cpuinfo.splitlines() if line.startswith("flags"))
    flags = next((line.split(":", 1)[1].split() for line in lines), [])
    return any(flag in flags for flag in CPU_BF16_FLAGS)


@functools.cache
def cpu_has_bf16() -> bool:
    """Return whether this CPU has native bf16 arithmetic, read once from /proc/cpuinfo.

    False where the flags cannot be read (no /proc: bf16 is then never assumed).
    """
    try:
        return flags_have_bf16(Path("/proc/cpuinfo").read_text())
    except OSError:
        return False


def dtype_named(name: str) -> torch.dtype:
    """Return the torch dtype called ``name`` (``float32`` or ``bfloat16``); raises ValueError otherwise."""
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join(DTYPES)}") from None


def candidate_dtypes(device: torch.device) -> tuple[torch.dtype, ...]:
    """Return the dtypes worth considering on ``device``: float32, and bfloat16 where the hardware has it."""
    if device.type == "cuda":
        return (torch.bfloat16,) if torch.cuda.is_bf16_supported() else (torch.float32,)
    return (torch.float32, torch.bfloat16) if cpu_has_bf16() else (torch.float32,)


def is_native(dtype: torch.dtype, device: torch.device) -> bool:
    """Return whether ``device`` computes in ``dtype`` natively: float32 everywhere, bfloat16 on a
    GPU that supports it and on a CPU with bf16 instructions (elsewhere it is emulated, many times
    slower)."""
    return dtype == torch.float32 or dtype in candidate_dtypes(device)


def autocast(device: torch.device, dtype: torch.dtype) -> contextlib.AbstractContextManager:
    """Return the context that runs a model on ``device`` in ``dtype`` (autocast; nothing for float32)."""
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=dtype)


def fastest(runs: Mapping[Hashable, Callable[[], object]], rounds: int = ROUNDS) -> dict[Hashable, float]:
    """Return the best time in seconds of each of ``runs`` (ways of doing the same work, by name)
    over ``rounds`` calls each, after one warm-up call each.  The runs take turns call by call, so
    that a spell of contention (another process on the core, as when workers start together) slows
    them alike instead of deciding for whichever was being timed meanwhile: it would have to last
    ``rounds`` turns to do that."""
    for run in runs.values():
        run()
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def under(device: torch.device, dtype: torch.dtype, work: Callable[[], object]) -> Callable[[], object]:
    """Return a call of ``work`` under ``dtype``'s autocast on ``device`` (:func:`autocast`)."""

    def run() -> object:
        with autocast(device, dtype):
            return work()

    return run


def best_seconds(
    dtypes: tuple[torch.dtype, ...], device: torch.device, work: Callable[[], object], rounds: int = ROUNDS
) -> dict[torch.dtype, float]:
    """Return the best time of ``work`` in each of ``dtypes`` over ``rounds`` calls each, the dtypes
    taking turns (:func:`fastest`)."""
    return fastest({dtype: under(device, dtype, work) for dtype in dtypes}, rounds)


def choose_dtype(device: torch.device, work: Callable[[], object] | None = None) -> tuple[torch.dtype, str]:
    """Return (the dtype to compute in on ``device``, why).

    Where more than one dtype is worth considering, ``work`` (a forward pass or a training
    step on a real batch) is timed in each (:func:`best_seconds`) and the fastest wins; without
    ``work`` the hardware's bf16 is taken.
    """
    options = candidate_dtypes(device)
    if len(options) == 1:
        reason = {
            "cuda": "the GPU's choice",
            "cpu": f"the CPU has no bf16 instructions ({' or '.join(CPU_BF16_FLAGS)})",
        }[device.type]
        return options[0], reason
    if work is None:
        return torch.bfloat16, "the CPU has bf16 instructions (not timed)"
    times = best_seconds(options, device, work)
    best = min(times, key=times.get)
    timed = ", ".join(f"{str(d).removeprefix('torch.')} {1000 * t:.1f} ms" for d, t in times.items())
    return best, f"timed on this machine: {timed}"


def describe(dtype: torch.dtype) -> str:
    """Return ``float32`` or ``bfloat16``."""
    return str(dtype).removeprefix("torch.")


def default_device() -> torch.device:
    """Return CUDA when a GPU is available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def device_named(name: str) -> torch.device:
    """Return the device called ``name``: ``auto`` (:func:`default_device`), ``cpu``, ``cuda`` or
    ``cuda:N``.  Raises ValueError for another name, or for CUDA on a machine without it."""
    if name == "auto":
        return default_device()
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"unknown device {name!r}; use auto, cpu or cuda") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {name!r}; use auto, cpu or cuda")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: this machine has no CUDA GPU")
    return device


def device_of(model: torch.nn.Module) -> torch.device:
    """Return the device ``model``'s parameters are on (the CPU for a model without any)."""
    first = next(model.parameters(), None)
    return first.device if first is not None else torch.device("cpu")
