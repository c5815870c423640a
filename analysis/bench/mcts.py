"""MCTS benchmark: search visits/s on 19x19 positions from real games against the raw network rate.

The net is the default one (the default next-move network of this machine's device, else an
untrained golois-b6c64, which costs exactly as much time), or the shipped one named by
``--network`` (to compare two nets' visits/s on one device: what a timed search gives each).
For each position, in turn: the raw rate (input planes of a batch of real positions plus one
forward pass, at the search's batch size), measured half before and half after
a search of a fixed number of visits from that position, then the same search
with the default evaluation cache.  The machine is shared, so the median of
the per-position ratios is given too.  The cache is off for the ratio, so that it measures the search's own
overhead (tree walks, copies, legality, softmax, backups); the cached search
shows what transpositions save.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence

import numpy as np
import torch

from analysis.bench.nn import default_net, shipped_net
from analysis.bench.positions import sample_positions
from analysis.go.position import Position
from analysis.mcts import Evaluator, NetEvaluator, Search, SearchConfig
from analysis.nets import precision
from analysis.nets.inference import LAYOUTS, Network
from analysis.nets.registry import pick
from analysis.nets.zoo import UnknownNetwork

BATCH = 16


class CountingEvaluator:
    """A NetEvaluator that counts its calls and positions (for the mean batch size)."""

    def __init__(self, inner: NetEvaluator) -> None:
        self.inner = inner
        self.calls = 0
        self.positions = 0

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Return the inner evaluator's result, counting the call."""
        self.calls += 1
        self.positions += len(positions)
        return self.inner.evaluate(positions)


def add_arguments(parser) -> None:
    """``--network NAME``: a shipped network that can search (default: this device's default);
    ``--compare-layouts``: the search in each memory layout too (:func:`layout_rates`)."""
    parser.add_argument("--network", default=None,
                        help="a shipped next-move network with a value head (default: this device's default)")
    parser.add_argument("--compare-layouts", action="store_true",
                        help="also search in NCHW and in NHWC, in the dtype chosen, the two taking turns "
                             "position by position: visits/s of each and their median ratio")


def searching_net(name: str | None) -> tuple[torch.nn.Module, str]:
    """Return (the net in eval mode, a description of its weights): the shipped network ``name``
    for the search role, or :func:`default_net` when ``name`` is None.

    Raises UnknownNetwork (a ValueError) for a name that is not a shipped next-move network with a
    value head: a search needs one, and a bench must not measure another net in its place.
    """
    if name is None:
        return default_net()
    choice = pick(name, "search")
    if choice.asked is not None:
        raise UnknownNetwork(f"{name} cannot search: {choice.reason}")
    return shipped_net(choice.path)


def raw_seconds(evaluator: NetEvaluator, positions: list[Position], batch: int, calls: int) -> float:
    """Return the seconds of ``calls`` uncached batches of ``batch`` real positions (planes + forward)."""
    t0 = time.perf_counter()
    for i in range(calls):
        evaluator.infer([positions[(i * batch + j) % len(positions)] for j in range(batch)])
    return time.perf_counter() - t0


def search_seconds(evaluator: Evaluator, position: Position, visits: int, batch: int) -> float:
    """Return the seconds of a fresh ``visits``-visit search (the root evaluation included)."""
    search = Search(position, evaluator, SearchConfig.analysis(batch_size=batch))
    t0 = time.perf_counter()
    search.run(max_visits=visits)
    return time.perf_counter() - t0


def layout_rates(model: torch.nn.Module, dtype: torch.dtype, positions: list[Position], visits: int) -> dict:
    """Return the search's visits/s with ``model`` in each layout (LAYOUTS) in ``dtype``, the
    layouts taking turns position by position (each a fresh ``visits``-visit search, cache off),
    and the median per-position ratio of NHWC's rate to NCHW's: what the choice of the layout is
    worth to a timed search, measured so that drift on a shared machine falls on both alike."""
    evaluators = {name: NetEvaluator(Network(copy.deepcopy(model), dtype=dtype, layout=name), cache_size=0)
                  for name in LAYOUTS}
    for evaluator in evaluators.values():
        evaluator.infer(positions[:BATCH])  # warm-up
    seconds = {name: [] for name in LAYOUTS}
    for pos in positions:
        for name, evaluator in evaluators.items():
            seconds[name].append(search_seconds(evaluator, pos, visits, BATCH))
    ratios = np.array(seconds["NCHW"]) / np.array(seconds["NHWC"])
    return {**{f"{name}_visits_per_s": round(len(positions) * visits / sum(times), 1)
               for name, times in seconds.items()},
            "NHWC_over_NCHW_median_per_position": round(float(np.median(ratios)), 3)}


def run(quick: bool = False, network: str | None = None, compare_layouts: bool = False) -> dict:
    """Return visits/s of the search, raw positions/s of the net (``network`` by name, else the
    default) at the same batch size, and their ratio; with ``compare_layouts``, the search in
    each layout too (:func:`layout_rates`).  Raises as :func:`searching_net`."""
    count, visits = (3, 48) if quick else (12, 192)
    model, weights = searching_net(network)
    positions = sample_positions(count)
    net = Network(model)
    uncached = NetEvaluator(net, cache_size=0)
    uncached.infer(positions[:BATCH])  # warm-up, and the choice of the dtype
    counting = CountingEvaluator(uncached)
    cached = NetEvaluator(net)
    calls = visits // BATCH // 2
    raw_time = search_time = cached_time = 0.0
    ratios = []
    for pos in positions:
        raw = raw_seconds(uncached, positions, BATCH, calls)
        searched = search_seconds(counting, pos, visits, BATCH)
        raw += raw_seconds(uncached, positions, BATCH, calls)  # around the search, against drift
        cached_time += search_seconds(cached, pos, visits, BATCH)
        ratios.append((visits / searched) / (2 * calls * BATCH / raw))
        raw_time += raw
        search_time += searched
    raw_rate = count * 2 * calls * BATCH / raw_time
    search_rate = count * visits / search_time
    hits = cached.cache.hits
    return {
        "net": weights,
        "device": net.device.type,
        "threads": torch.get_num_threads(),
        "precision": precision.describe(net.dtype),
        "layout": net.layout,
        "precision_reason": net.dtype_reason,
        "board_size": 19,
        "positions": count,
        "visits_per_search": visits,
        "batch_size": BATCH,
        "raw_positions_per_s": round(raw_rate, 1),
        "search_visits_per_s": round(search_rate, 1),
        "mean_batch": round(counting.positions / counting.calls, 2),
        "search_over_raw": round(search_rate / raw_rate, 3),
        "search_over_raw_median_per_position": round(float(np.median(ratios)), 3),
        "cached_search_visits_per_s": round(count * visits / cached_time, 1),
        "cache_hit_rate": round(hits / (hits + cached.cache.misses), 3),
        "goal": "search visits/s at least 0.70 of the raw batched network positions/s (cache off)",
        **({"layouts": layout_rates(model, net.dtype, positions, visits)} if compare_layouts else {}),
    }
