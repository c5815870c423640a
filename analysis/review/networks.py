"""The networks a process of the site loads once and shares between its threads (no Django here).

- :func:`network`: a checkpoint as a :class:`~analysis.nets.inference.Network` (the bot's policy
  levels, the back-prediction heatmap);
- :func:`search_evaluator`: the same network as the tree search's evaluator, with its
  evaluation cache, behind a lock (:class:`LockedEvaluator`);
- :func:`optional_network`: a network whose checkpoint may be missing (back prediction).

Each worker process (or the web process, in the embedded mode) loads a checkpoint once; the
network runs on CUDA when there is a GPU, in the dtype it chooses on its first batch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
import torch

from analysis.go.position import Position
from analysis.mcts import Evaluator, NetEvaluator
from analysis.mcts.net_evaluator import Entry
from analysis.nets import checkpoint
from analysis.nets.inference import Network, Prediction

T = TypeVar("T")


class LockedEvaluator:
    """A search evaluator shared by threads: one call at a time reaches the inner evaluator
    (whose cache is not thread-safe); tree walks of several searches still overlap."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.lock = threading.Lock()

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return the inner evaluator's (priors, win probabilities, score leads) for ``positions``."""
        with self.lock:
            return self.inner.evaluate(positions)

    def bagged(self, position: Position) -> Entry | None:
        """Return the inner evaluator's outputs for ``position`` averaged over the 8 symmetries
        (:meth:`~analysis.mcts.NetEvaluator.bagged`), or None if it cannot give them."""
        return self._locked("bagged", position)

    def judgement(self, position: Position) -> Prediction | None:
        """Return the inner evaluator's 8-symmetry prediction of ``position``
        (:meth:`~analysis.mcts.NetEvaluator.judgement`), or None if it cannot give one."""
        return self._locked("judgement", position)

    def _locked(self, method: str, position: Position) -> object:
        """Return the inner evaluator's ``method`` of ``position``, called under the lock (None if
        the evaluator has no such method)."""
        call = getattr(self.inner, method, None)
        if call is None:
            return None
        with self.lock:
            return call(position)


_cache: dict[tuple[str, str], object] = {}
_cache_lock = threading.RLock()


def _cached(kind: str, path: Path, factory: Callable[[], T]) -> T:
    """Return the process-wide object ``kind`` for ``path``, made by ``factory`` on first use."""
    key = (kind, str(path))
    with _cache_lock:
        if key not in _cache:
            _cache[key] = factory()
        return _cache[key]


def network(weights: Path = checkpoint.DEFAULT_WEIGHTS) -> Network:
    """Return the network at ``weights``, loaded once per process.

    Raises FileNotFoundError or CheckpointError for a missing or bad checkpoint.
    """
    return _cached("network", Path(weights), lambda: Network.from_checkpoint(weights))


def search_evaluator(weights: Path = checkpoint.DEFAULT_WEIGHTS) -> LockedEvaluator:
    """Return the search evaluator of the network at ``weights`` (the same one as :func:`network`).

    Raises FileNotFoundError or CheckpointError, or ValueError for a network without a value head.
    """
    return _cached("search", Path(weights), lambda: LockedEvaluator(NetEvaluator(network(weights))))


def optional_network(weights: Path) -> Network | None:
    """Return the network at ``weights``, or None when the file does not exist."""
    return network(weights) if Path(weights).exists() else None


def limit_threads(threads: int) -> None:
    """Let torch use ``threads`` threads in this process."""
    torch.set_num_threads(threads)
