"""The web site's networks, loaded once per process and shared by its threads (no Django here).

- :func:`policy_net`: the policy/value network as a :class:`~analysis.bot.policy.PolicyNet`
  (the bot's policy levels);
- :func:`search_evaluator`: the same network as the tree search's evaluator, with its
  evaluation cache, behind a lock (:class:`LockedEvaluator`);
- :func:`backpred_net`: the back-prediction network, when its checkpoint exists.

Each worker process (or the web process, in the embedded mode) loads a checkpoint once; the
network runs on CUDA when there is a GPU.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from analysis.bot.policy import PolicyNet
from analysis.features import FeatureContext, get_feature_set
from analysis.go.position import Position
from analysis.mcts import Evaluator, NetEvaluator
from analysis.nets import checkpoint


class LockedEvaluator:
    """A search evaluator shared by threads: one call at a time reaches the inner evaluator
    (whose cache and network are not thread-safe); tree walks of several searches still overlap."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.lock = threading.Lock()

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Return the inner evaluator's (priors, win probabilities) for ``positions``."""
        with self.lock:
            return self.inner.evaluate(positions)


class BackpredNet:
    """A back-prediction network: which move most likely led to this position."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model.eval()
        self.features = get_feature_set(model.config.feature_set)
        self.lock = threading.Lock()

    @torch.inference_mode()
    def heatmap(self, position: Position) -> list[float]:
        """Return the probability of each point (n*n, row-major) having been the last move."""
        inputs = torch.from_numpy(self.features.extract_batch([FeatureContext(position)]))
        mover = -position.to_play
        mask = np.append(position.stones().ravel() == mover, True)
        with self.lock:
            logits, _ = self.model(inputs, torch.from_numpy(mask[None, :]))
        probs = torch.softmax(logits[:, 0].float(), dim=1)[0, :-1].numpy()
        return [round(float(p), 4) for p in probs]


_cache: dict[tuple[str, str], object] = {}
_cache_lock = threading.RLock()


def _cached(kind: str, path: Path, factory: Callable[[], object]) -> object:
    """Return the process-wide object ``kind`` for ``path``, made by ``factory`` on first use."""
    key = (kind, str(path))
    with _cache_lock:
        if key not in _cache:
            _cache[key] = factory()
        return _cache[key]


def policy_net(weights: Path = checkpoint.DEFAULT_WEIGHTS) -> PolicyNet:
    """Return the policy network at ``weights``, loaded once per process.

    Raises FileNotFoundError or CheckpointError for a missing or bad checkpoint.
    """
    return _cached("policy", Path(weights), lambda: PolicyNet(checkpoint.load_model(weights)[0]))


def search_evaluator(weights: Path = checkpoint.DEFAULT_WEIGHTS) -> LockedEvaluator:
    """Return the search evaluator of the network at ``weights`` (the same model as ``policy_net``).

    Raises FileNotFoundError or CheckpointError, or ValueError for a network without a value head.
    """
    return _cached("search", Path(weights), lambda: LockedEvaluator(NetEvaluator(policy_net(weights).model)))


def backpred_net(weights: Path) -> BackpredNet | None:
    """Return the back-prediction network at ``weights``, or None when the file does not exist."""
    if not Path(weights).exists():
        return None
    return _cached("backpred", Path(weights), lambda: BackpredNet(checkpoint.load_model(weights)[0]))
