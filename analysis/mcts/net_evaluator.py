"""NetEvaluator: a policy-and-value network as the search's evaluator, with an LRU cache.

One call extracts the input planes of the positions it has not cached (the board
core releases the GIL, so extraction runs on every core), runs one batched forward
pass (``torch.inference_mode``; CUDA when available, else the CPU under bf16
autocast when that is faster), takes the softmax over the legal moves and pass,
optionally applies Cazenave's ladder adjustment, and caches the result.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from analysis.features import FeatureContext, get_feature_set
from analysis.go.position import Position
from analysis.mcts.cache import LRUCache, position_key
from analysis.mcts.precision import autocast, bf16_is_faster
from analysis.nets.checkpoint import DEFAULT_WEIGHTS, load_model
from analysis.tactics.policy_adjust import adjust_policy

CALIBRATION_BATCH = 8


class NetEvaluator:
    """Evaluates positions with a network that has a value head (GoloisNet or BarrattNet)."""

    def __init__(
        self,
        model: nn.Module,
        ladder_adjust: bool = False,
        cache_size: int = 20_000,
        device: str | None = None,
        bf16: bool | None = None,
    ) -> None:
        """Wrap ``model`` (moved to ``device``, default CUDA if available, and put in eval mode).

        ``bf16`` chooses CPU bf16 autocast; None times both precisions on the first batch.
        Raises ValueError if the model has no value head.
        """
        config = model.config
        if not config.value_head:
            raise ValueError("the search needs a network with a value head")
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = model.eval().to(self.device)
        self.features = get_feature_set(config.feature_set)
        self.ladder_adjust = ladder_adjust
        self.cache = LRUCache(cache_size)
        self.bf16 = bf16

    @classmethod
    def from_checkpoint(cls, path: str | os.PathLike = DEFAULT_WEIGHTS, **options: object) -> NetEvaluator:
        """Return an evaluator of the checkpoint at ``path`` with ``options`` as for the constructor.

        Raises FileNotFoundError, CheckpointError, or ValueError for a net without a value head.
        """
        model, _ = load_model(path)
        return cls(model, **options)

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Return (priors (N, size*size + 1) float32, win probabilities (N,)) for the players to move.

        Cached positions are not recomputed.  Raises ValueError for an empty batch or mixed sizes.
        """
        keys = [position_key(p) for p in positions]
        entries = [self.cache.get(k) for k in keys]
        missing = [i for i, e in enumerate(entries) if e is None]
        if missing:
            policy, value = self.infer([positions[i] for i in missing])
            for j, i in enumerate(missing):
                prior = policy[j]
                if self.ladder_adjust:
                    prior = adjust_policy(prior, positions[i]).astype(np.float32)
                entries[i] = (prior, float(value[j]))
                self.cache.put(keys[i], entries[i])
        return np.stack([e[0] for e in entries]), np.array([e[1] for e in entries])

    @torch.inference_mode()
    def infer(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Return the network's (softmax over legal moves and pass (N, size*size + 1) float32,
        win probabilities (N,) float64), bypassing the cache and the ladder adjustment.

        Raises ValueError for an empty batch or mixed board sizes.
        """
        planes = self.features.extract_batch([FeatureContext(p) for p in positions])
        x = torch.from_numpy(planes).to(self.device)
        legal = torch.from_numpy(np.stack([np.append(p.legal_points(), True) for p in positions]))
        legal = legal.to(self.device)
        if self.bf16 is None:
            self.bf16 = self.device.type == "cpu" and self._bf16_is_faster(x[:1], legal[:1])
        with autocast(self.device, self.bf16):
            logits, value = self.model(x, legal)
        policy = torch.softmax(logits[:, 0].float(), dim=1).cpu().numpy()
        return policy, torch.sigmoid(value.float()).cpu().numpy().astype(np.float64)

    def _bf16_is_faster(self, x: torch.Tensor, legal: torch.Tensor) -> bool:
        """Return True if bf16 autocast is faster on CALIBRATION_BATCH copies of one input."""
        xs = x.expand(CALIBRATION_BATCH, *x.shape[1:]).contiguous()
        ls = legal.expand(CALIBRATION_BATCH, *legal.shape[1:]).contiguous()
        return bf16_is_faster(lambda: self.model(xs, ls))
