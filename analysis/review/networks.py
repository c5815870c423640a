"""The networks a process of the site loads once and shares between its threads (no Django here).

- :func:`network`: a checkpoint as a :class:`~analysis.nets.inference.Network` (the bot's policy
  levels, the back-prediction heatmap);
- :func:`search_evaluator`: the same network as the tree search's evaluator, with its
  evaluation cache, behind a lock (:class:`LockedEvaluator`).

Each worker process (or the web process, in the embedded mode) loads a checkpoint once per
device; the network runs on the device named (default: CUDA when there is a GPU), in the dtype it
chooses on its first batch.  Which checkpoint a use gets is :func:`analysis.nets.registry.pick`'s
choice; without one, these load the default of the role on the device.
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
from analysis.nets.inference import Network, Prediction
from analysis.nets.registry import pick

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


_cache: dict[tuple[str, str, str | None], object] = {}
_cache_lock = threading.RLock()


def _cached(kind: str, path: Path, device: str | None, factory: Callable[[], T]) -> T:
    """Return the process-wide object ``kind`` for ``path`` on ``device``, made by ``factory`` on
    first use."""
    key = (kind, str(path), device)
    with _cache_lock:
        if key not in _cache:
            _cache[key] = factory()
        return _cache[key]


def network(weights: Path | None = None, device: str | None = None) -> Network:
    """Return the network at ``weights`` (default: the ``next`` role's default network) on
    ``device`` (None: CUDA when there is a GPU), loaded once per process.

    Raises FileNotFoundError or CheckpointError for a missing or bad checkpoint, UnknownNetwork
    when no default is shipped.
    """
    path = Path(weights or pick(None, "next", device=device).path)
    return _cached("network", path, device, lambda: Network.from_checkpoint(path, device=device))


def search_evaluator(weights: Path | None = None, device: str | None = None) -> LockedEvaluator:
    """Return the search evaluator of the network at ``weights`` (default: the ``search`` role's
    default network) on ``device``: the same network as :func:`network`'s.

    Raises FileNotFoundError or CheckpointError, ValueError for a network without a value head,
    UnknownNetwork when no default is shipped.
    """
    path = Path(weights or pick(None, "search", device=device).path)
    return _cached("search", path, device, lambda: LockedEvaluator(NetEvaluator(network(path, device))))


def limit_threads(threads: int) -> None:
    """Let torch use ``threads`` threads in this process."""
    torch.set_num_threads(threads)
