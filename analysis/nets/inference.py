"""One inference path for every network: device, dtype, input planes, masks, symmetries, batching.

A :class:`Network` wraps a model for positions: it extracts the model's feature set, masks the
first policy head to the moves that can be its answer (legal moves for a next-move net, the
mover's stones for a back-prediction net), runs batches of at most ``max_batch`` on the device in
the dtype and memory layout chosen on its first batch, and can average the 8 board symmetries
(Cazenave 2017's bagging).  The bot, the search, the site, evaluation and benchmarks all call it.
It is safe to share between threads: one forward pass runs at a time.

==========================  =====================================================================
the network is made with    it computes in
==========================  =====================================================================
no dtype, on a CPU          the fastest of every dtype the CPU has (:mod:`analysis.nets.precision`)
                            in each layout, NCHW and NHWC (channels last), timed on the first
                            batch (BENCHMARKS: on a Xeon with AMX, NHWC in bf16 gives the search
                            more visits a second); where NHWC is slower, NCHW wins the timing
no dtype, on a GPU          the GPU's dtype, in NCHW (nothing timed)
a dtype (benchmarks,        that dtype, in the layout given, NCHW by default: the same numbers
evaluation, tests)          every run (float32 in NHWC differs from NCHW in the sixth digit)
==========================  =====================================================================
"""

from __future__ import annotations

import copy
import functools
import logging
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch
from torch import nn

from analysis.features import FeatureContext, get_feature_set, symmetry
from analysis.features.planes import komi_past_plane
from analysis.features.targets import target_mask
from analysis.go.position import Position
from analysis.nets import checkpoint, precision
from analysis.nets.layers import SCORE_BINS, SCORE_SCALE

CALIBRATION_BATCH = 8  # positions timed in each dtype and layout when they are chosen by measurement
MAX_BATCH = 256
LAYOUTS = {"NCHW": torch.contiguous_format, "NHWC": torch.channels_last}  # by name, as reasons show them

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prediction:
    """A batch's outputs, in the positions' own orientation, all for the player to move.

    ``heads`` (N, K, A) float32: each policy head's probabilities over the n*n points and pass
    (pass last); head 0 is zero outside the mask, heads 1.. are darkforest's later moves.
    ``value_logit`` (N,) float32: the win logit.  ``ownership`` (N, n*n) float32 in -1..1: who
    owns each point at the end (+1: the player to move).  ``score_mean`` and ``score_stdev``
    (N,) float32: the final margin expected, in points, and its spread.  Each is None for a
    network without that head.  With symmetries, every output is averaged over them.
    """

    heads: np.ndarray
    value_logit: np.ndarray | None
    ownership: np.ndarray | None = None
    score_mean: np.ndarray | None = None
    score_stdev: np.ndarray | None = None

    @property
    def policy(self) -> np.ndarray:
        """(N, A) float32: the first head's probabilities (the move to predict)."""
        return self.heads[:, 0]

    @property
    def value(self) -> np.ndarray | None:
        """(N,) float64 win probabilities for the player to move, or None without a value head."""
        if self.value_logit is None:
            return None
        return 1.0 / (1.0 + np.exp(-self.value_logit.astype(np.float64)))


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def with_komi_past(prediction: Prediction, past: np.ndarray) -> Prediction:
    """Return ``prediction`` with ``past`` (N,) points of komi for the player to move counted that
    the komi plane cannot show: added to the score, and the win logit moved by the change they
    make to the chance of a margin above zero, were the margin Gaussian with the score's mean and
    spread: ``logit Φ((μ + past)/σ) - logit Φ(μ/σ)`` (the value head judged the komi up to the
    plane's reach; 9 points of komi more for White, 50 in all, was still about even before).
    Where ``past`` is 0, or the network has no score spread, the win logit is the head's."""
    if not past.any():
        return prediction
    value = prediction.value_logit
    if value is not None and prediction.score_stdev is not None:
        mean = prediction.score_mean.astype(np.float64)
        spread = np.maximum(prediction.score_stdev.astype(np.float64), 1.0)
        before, after = (np.clip(_normal_cdf((mean + extra) / spread), 1e-6, 1 - 1e-6)
                         for extra in (0.0, past))
        value = (value + np.log(after / (1 - after)) - np.log(before / (1 - before))).astype(np.float32)
    return replace(prediction, value_logit=value, score_mean=prediction.score_mean + past)


def outputs(model: nn.Module, x: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """Return every head of ``model`` by name: its ``forward_all``, or for a network with only a
    policy and a value, ``policy`` and ``value`` (when it has one) from its ``forward``."""
    if hasattr(model, "forward_all"):
        return model.forward_all(x, mask)
    policy, value = model(x, mask)
    return {"policy": policy} if value is None else {"policy": policy, "value": value}


def score_moments(out: dict[str, torch.Tensor], kind: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (mean, stdev) (N,) of the final margin in points from the ``kind`` score head's outputs
    (``distribution``: the moments of the softmax over the margins; ``gaussian``: its two outputs),
    plus ``score_offset`` (the komi) for a network that has one."""
    offset = out.get("score_offset", 0.0)
    if kind == "distribution":
        probs = torch.softmax(out["score_logits"].float(), dim=-1)
        margins = torch.arange(-SCORE_BINS, SCORE_BINS + 1, device=probs.device, dtype=probs.dtype)
        mean = probs @ margins
        return mean + offset, (probs @ margins.square() - mean.square()).clamp(min=0).sqrt()
    mean, log_std = out["score_gaussian"].float().unbind(1)
    return SCORE_SCALE * mean + offset, SCORE_SCALE * torch.exp(log_std)


def read_score_head(kinds: Sequence[str], asked: str | None = None) -> str:
    """Return the score head a network with score heads ``kinds`` reads its lead from: ``asked``
    (the caller's, or the one its shipped file names), else the distribution when it has one,
    else its only head; "" for a network without a score head.

    Raises ValueError when ``asked`` is not one of ``kinds``.
    """
    if asked:
        if asked not in kinds:
            raise ValueError(f"no {asked!r} score head in this network; its heads: "
                             f"{', '.join(kinds) or 'none'}")
        return asked
    return next((k for k in ("distribution", "gaussian") if k in kinds), "")


class Network:
    """A model ready for inference on positions (see the module docstring)."""

    def __init__(
        self,
        model: nn.Module,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        max_batch: int = MAX_BATCH,
        info: dict | None = None,
        score_kind: str | None = None,
        layout: str | None = None,
    ) -> None:
        """Wrap ``model`` (moved to ``device``, default CUDA when available, and put in eval mode).

        ``dtype`` (``float32``, ``bfloat16`` or a torch dtype) fixes the precision, in the
        ``layout`` given (``NCHW``, the default, or ``NHWC``); without a dtype, both are chosen on
        the first batch (the module docstring), the layout among ``layout`` alone where one is
        given.  ``info`` is the checkpoint's description (preset, samples...).  ``score_kind``
        picks the score head the score lead comes from (``distribution`` or ``gaussian``); by
        default the one the shipped file names (``info["score_head"]``, see
        :func:`read_score_head`), else the distribution when the network has one.  Raises
        ValueError for an unknown dtype or layout, or a score head the network lacks.
        """
        if layout is not None and layout not in LAYOUTS:
            raise ValueError(f"unknown layout {layout!r}; known: {', '.join(LAYOUTS)}")
        self.device = torch.device(device) if device is not None else precision.default_device()
        self.model = model.eval().to(self.device)
        self.config = model.config
        self.features = get_feature_set(self.config.feature_set)
        self.dtype = precision.dtype_named(dtype) if isinstance(dtype, str) else dtype
        self.dtype_reason = "given" if dtype is not None else ""
        self.layouts = (layout,) if layout else tuple(LAYOUTS)  # those to choose from
        self.layout = (layout or "NCHW") if dtype is not None else ""  # a key of LAYOUTS once chosen
        if self.layout:
            self.model.to(memory_format=LAYOUTS[self.layout])
        self.max_batch = max_batch
        self.info = info or {}
        self.score_kind = read_score_head(self.config.score_kinds, score_kind or self.info.get("score_head"))
        self._lock = threading.Lock()

    @classmethod
    def from_checkpoint(cls, path: str | os.PathLike, **options: object) -> Network:
        """Return the network saved at ``path``, with ``options`` as for the constructor.

        Raises FileNotFoundError or CheckpointError.
        """
        model, data = checkpoint.load_model(path)
        info = {k: v for k, v in data.items() if k not in ("model", "optimizer", "rng", "schedule")}
        return cls(model, info={**info, "path": str(path)}, **options)

    @property
    def has_value(self) -> bool:
        """Whether the model has a value head."""
        return bool(self.config.value_head)

    def settled_ownership(self, position: Position) -> np.ndarray | None:
        """Return the network's ownership of a finished board as a (size, size) array from Black's
        side (+1 Black, -1 White), or None for a network without an ownership head.

        Who owns a finished board's points does not depend on who would move next, so the head
        judges the board with each player to move, and the two views are averaged: that takes
        away the head's lean towards the mover (on the scoring bench's counted games it gives the
        recorded count more often than the mover's view alone).
        """
        other = position.copy()
        other.to_play = -position.to_play
        owned = self.predict([position, other]).ownership
        if owned is None:
            return None
        black = (owned[0] * position.to_play + owned[1] * other.to_play) / 2
        return black.reshape(position.size, position.size)

    def masks(self, positions: Sequence[Position]) -> np.ndarray:
        """Return the (N, n*n + 1) bool masks of the moves that can be the first head's answer."""
        return np.stack([target_mask(p, self.config.target) for p in positions])

    def predict(self, positions: Sequence[Position], symmetries: int = 1) -> Prediction:
        """Return the prediction for ``positions`` (one board size), averaged over ``symmetries`` (1 or 8).

        A network with exact komi gets its score from the komi plane, which saturates at 15 points:
        here the komi past that is added too, so that any komi counts exactly, and the win logit
        moves by what those points are worth by the score's spread (:func:`with_komi_past`).

        Raises ValueError for an empty batch, mixed board sizes or a bad symmetry count.
        """
        if not positions:
            raise ValueError("no positions to evaluate")
        planes = self.features.extract_batch([FeatureContext(p) for p in positions])
        prediction = self.predict_planes(planes, self.masks(positions), symmetries)
        if self.config.exact_komi and prediction.score_mean is not None:
            past = np.array([komi_past_plane(p) for p in positions], dtype=np.float32)
            prediction = with_komi_past(prediction, past)
        return prediction

    def predict_planes(self, planes: np.ndarray, masks: np.ndarray, symmetries: int = 1) -> Prediction:
        """Return the prediction for input ``planes`` (N, planes, n, n) with ``masks`` (N, n*n + 1) bool.

        Raises ValueError for a bad symmetry count.
        """
        if symmetries not in (1, 8):
            raise ValueError(f"symmetries must be 1 or 8, not {symmetries}")
        parts = [self._bagged(planes[i : i + self.max_batch], masks[i : i + self.max_batch], symmetries)
                 for i in range(0, len(planes), self.max_batch)]
        joined = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        return Prediction(joined.pop("heads"), joined.pop("value", None), **joined)

    def _bagged(self, planes: np.ndarray, masks: np.ndarray, symmetries: int) -> dict[str, np.ndarray]:
        """Return the outputs of one batch averaged over the first ``symmetries``, by name."""
        n = planes.shape[-1]
        area = n * n
        total: dict[str, np.ndarray] = {}
        for k in range(symmetries):
            table = symmetry.point_table(n, k)
            moved = masks.copy()
            moved[:, table[:area]] = masks[:, :area]
            out = self._forward(np.ascontiguousarray(symmetry.apply(planes, k)), moved)
            out["heads"] = out["heads"][:, :, table]  # [..., table[q]] is original point q's
            if "ownership" in out:
                out["ownership"] = out["ownership"][:, table[:area]]
            for name, array in out.items():
                total[name] = total[name] + array if name in total else array
        return {name: array / symmetries for name, array in total.items()}

    @torch.inference_mode()
    def _forward(self, planes: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        """Return the outputs of one batch by name: ``heads`` (softmaxes (N, K, A)), and as the
        network has them ``value`` (logits), ``ownership``, ``score_mean`` and ``score_stdev``."""
        x = torch.from_numpy(planes).to(self.device)
        mask = torch.from_numpy(masks).to(self.device)
        with self._lock:
            if self.dtype is None:
                self._choose_compute(x, mask)
            with precision.autocast(self.device, self.dtype):
                out = outputs(self.model, x.contiguous(memory_format=LAYOUTS[self.layout]), mask)
        result = {"heads": torch.softmax(out["policy"].float(), dim=-1)}
        if "value" in out:
            result["value"] = out["value"].float()
        if "ownership" in out:
            result["ownership"] = out["ownership"].float()
        if self.score_kind:
            result["score_mean"], result["score_stdev"] = score_moments(out, self.score_kind)
        return {name: tensor.cpu().numpy() for name, tensor in result.items()}

    def _choose_compute(self, x: torch.Tensor, mask: torch.Tensor) -> None:
        """Choose the dtype and the layout (the module docstring): on a CPU, time forward passes on
        CALIBRATION_BATCH copies of the first input in each pair, and put the model in the fastest
        pair's layout."""
        if self.device.type != "cpu":
            self.dtype, self.dtype_reason = precision.choose_dtype(self.device)
            self.layout = self.layouts[0]
        else:
            times = precision.fastest(self._calibration_runs(x, mask))
            self.dtype, self.layout = min(times, key=times.get)
            timed = ", ".join(f"{precision.describe(dtype)} {layout} {1000 * seconds:.1f} ms"
                              for (dtype, layout), seconds in times.items())
            self.dtype_reason = f"timed on this machine: {timed}"
        self.model.to(memory_format=LAYOUTS[self.layout])
        log.info("%s network: %s %s on %s (%s)", self.config.feature_set, precision.describe(self.dtype),
                 self.layout, self.device.type, self.dtype_reason)

    def _calibration_runs(self, x: torch.Tensor, mask: torch.Tensor) -> dict[tuple, Callable[[], object]]:
        """Return a forward pass on CALIBRATION_BATCH copies of the first input for each pair of a
        dtype the CPU has and a layout to choose from, by (dtype, layout name); each layout's on a
        copy of the model in it."""
        xs = x[:1].expand(CALIBRATION_BATCH, *x.shape[1:])
        ms = mask[:1].expand(CALIBRATION_BATCH, *mask.shape[1:]).contiguous()
        passes = {}
        for name in self.layouts:
            memory = LAYOUTS[name]
            model = copy.deepcopy(self.model).to(memory_format=memory)
            passes[name] = functools.partial(model, xs.contiguous(memory_format=memory), ms)
        return {(dtype, name): precision.under(self.device, dtype, passes[name])
                for dtype in precision.candidate_dtypes(self.device) for name in self.layouts}
