"""The feature registry: named groups of input planes, each plane documented.

A ``Feature`` is a small function of a ``FeatureContext`` that writes its
planes into a float32 array of shape (planes, size, size), together with one
name and one description per plane and the range its values take.  Feature sets are lists
of feature names; their plane counts are computed from the registry, never
written down by hand.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from analysis.features.context import FeatureContext

FeatureFn = Callable[[FeatureContext, np.ndarray], None]


@dataclass(frozen=True)
class Plane:
    """One input plane: what the visualizer shows by name."""

    name: str
    description: str
    low: float
    high: float


@dataclass(frozen=True)
class Feature:
    """A named group of planes computed together."""

    name: str
    planes: tuple[Plane, ...]
    fn: FeatureFn
    uses_ladders: bool = False

    @property
    def count(self) -> int:
        """The number of planes this feature produces."""
        return len(self.planes)

    def compute(self, ctx: FeatureContext) -> np.ndarray:
        """Return this feature's float32 planes (count, size, size) for ``ctx``."""
        out = np.empty((self.count, ctx.size, ctx.size), dtype=np.float32)
        self.fn(ctx, out)
        return out


REGISTRY: dict[str, Feature] = {}


def feature(
    name: str,
    planes: Sequence[tuple[str, str]],
    value_range: tuple[float, float] = (0.0, 1.0),
    uses_ladders: bool = False,
) -> Callable[[FeatureFn], FeatureFn]:
    """Register ``fn`` as feature ``name`` with (plane name, description) pairs.

    Raises ValueError if the name is already registered.
    """

    def register(fn: FeatureFn) -> FeatureFn:
        if name in REGISTRY:
            raise ValueError(f"feature {name!r} is registered twice")
        low, high = value_range
        REGISTRY[name] = Feature(name, tuple(Plane(n, d, low, high) for n, d in planes), fn, uses_ladders)
        return fn

    return register


@dataclass(frozen=True)
class FeatureSet:
    """An ordered list of features: the input of one network family."""

    name: str
    features: tuple[str, ...]
    description: str

    @property
    def planes(self) -> list[Plane]:
        """Every plane, in input order."""
        return [p for f in self.features for p in REGISTRY[f].planes]

    @property
    def num_planes(self) -> int:
        """The number of input planes."""
        return sum(REGISTRY[f].count for f in self.features)

    def plane_index(self, feature: str) -> int:
        """Return the input index of ``feature``'s first plane.

        Raises KeyError if the set has no such feature.
        """
        if feature not in self.features:
            raise KeyError(f"feature set {self.name!r} has no feature {feature!r}")
        return sum(REGISTRY[f].count for f in self.features[: self.features.index(feature)])

    def without_ladders(self) -> FeatureSet:
        """Return this set minus its ladder features (for benchmarks and ablations)."""
        kept = tuple(f for f in self.features if not REGISTRY[f].uses_ladders)
        return FeatureSet(f"{self.name}-noladder", kept, self.description + " (without ladder planes)")

    def extract_batch(self, contexts: Sequence[FeatureContext]) -> np.ndarray:
        """Return the inputs of many positions of one size, shape (N, num_planes, size, size).

        Positions are extracted on a pool of one thread per core; the board core
        releases the GIL, so a batch runs on every core.  The contexts that share
        one Position are extracted one after another on one thread: the board core
        reads ladders by playing on the position's own board, and two threads doing
        so at once crashed the process (a search batch can hold a position twice).
        Raises ValueError for mixed board sizes.
        """
        if not contexts:
            raise ValueError("extract_batch needs at least one position")
        size = contexts[0].size
        if any(c.size != size for c in contexts):
            raise ValueError("extract_batch needs positions of one board size")
        out = np.empty((len(contexts), self.num_planes, size, size), dtype=np.float32)

        pool = _pool(os.getpid())
        workers = pool._max_workers
        sharing: dict[int, list[int]] = {}  # id of a Position -> the indices of its contexts
        for i, ctx in enumerate(contexts):
            sharing.setdefault(id(ctx.position), []).append(i)
        jobs = list(sharing.values())

        def chunk(k: int) -> None:
            for job in jobs[k::workers]:
                for i in job:
                    self.extract_into(contexts[i], out[i])

        list(pool.map(chunk, range(workers)))
        return out

    def extract(self, ctx: FeatureContext) -> np.ndarray:
        """Return the float32 input array of shape (num_planes, size, size) for ``ctx``."""
        out = np.empty((self.num_planes, ctx.size, ctx.size), dtype=np.float32)
        self.extract_into(ctx, out)
        return out

    def extract_into(self, ctx: FeatureContext, out: np.ndarray) -> None:
        """Write the input of ``ctx`` into ``out`` (num_planes, size, size), float32, C-contiguous."""
        i = 0
        for name in self.features:
            f = REGISTRY[name]
            f.fn(ctx, out[i : i + f.count])
            i += f.count


_threads: int | None = None  # threads of the extraction pool; None: one per core


def use_threads(count: int | None) -> None:
    """Extract batches on ``count`` threads from now on in this process (None: one per core).

    A DataLoader worker takes one: the workers already keep every core busy, and a pool of one
    thread per core in each of them would only fight over the cores.
    """
    global _threads
    _threads = count


def _pool(pid: int) -> ThreadPoolExecutor:
    """The extraction thread pool of this process (``pid``), of ``use_threads``' size."""
    return _pool_of(pid, _threads or os.cpu_count() or 1)


@lru_cache(maxsize=2)
def _pool_of(pid: int, threads: int) -> ThreadPoolExecutor:
    """The extraction thread pool of process ``pid`` with ``threads`` threads.

    Keyed by process id, so a forked child (a DataLoader worker) makes its own
    instead of waiting forever on threads that do not exist in it.
    """
    return ThreadPoolExecutor(max_workers=threads, thread_name_prefix="features")
