"""A run's stream of training batches, and where it stands, so that a resumed run goes on with the
very batches the run would have had next.

The batches are made in loader processes (workers; none: in the training process, which counts as
one).  Worker ``w`` of a stream seeded ``s`` samples with seed ``1000 s + w``: a
:class:`~analysis.train.data.PositionSampler` over the games (an
:class:`~analysis.train.example_sampler.ExampleSampler` over the ladder set's training part
instead) and, with teacher labels, a :class:`~analysis.train.teacher.TeacherSampler` that gives
``teacher_fraction`` of each batch.

Every batch carries, under ``STATE_KEY``, its worker and the samplers' states just after it
(pickled: bytes cross to the training process and its pin-memory thread as they are, where
thousands of numbers would be walked through one by one, 2.4 ms a batch).  The
loop keeps the state of each worker's last batch it took (:class:`StreamPlace`), and a checkpoint
saves them with the seed and the worker whose batch comes next (a DataLoader takes its workers'
batches in turn).  A run resumed with the same data options (:func:`stream_options`) hands those
states back to its workers (:func:`stream_start`), turned so that its first worker is the one
whose batch was next; with other options its stream starts afresh, and says so.
"""

from __future__ import annotations

import pickle
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from torch.utils.data import DataLoader, IterableDataset

from analysis.features import registry
from analysis.nets.presets import Config
from analysis.train.batch import Batch
from analysis.train.data import Example, PositionSampler
from analysis.train.example_sampler import ExampleSampler
from analysis.train.packed import is_packed
from analysis.train.sources import sources_signature
from analysis.train.teacher import TeacherSampler

if TYPE_CHECKING:
    from analysis.train.loop import TrainConfig

STATE_KEY = "stream"


@dataclass
class StreamStart:
    """Where a stream starts: its ``seed``, its number of ``workers`` (at least one), the worker
    whose batch comes ``first``, and each worker's samplers' ``states`` (None: from its seed)."""

    seed: int
    workers: int
    first: int = 0
    states: list[dict | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.states:
            self.states = [None] * self.workers

    @classmethod
    def fresh(cls, seed: int, workers: int) -> StreamStart:
        """The start of a new stream of ``seed`` in ``workers`` loader processes (0: none)."""
        return cls(seed, max(1, workers))


class TrainingStream(IterableDataset):
    """Batches of ``cfg.batch_size`` samples for a net of ``config`` from ``start`` (see the module
    docstring); ``ladder``: the ladder set's training examples, sampled instead of ``cfg.data``."""

    def __init__(self, cfg: TrainConfig, config: Config, start: StreamStart,
                 ladder: list[Example] | None = None) -> None:
        self.cfg, self.config, self.start, self.ladder = cfg, config, start, ladder

    def _samplers(self, seed: int) -> dict[str, PositionSampler | ExampleSampler | TeacherSampler]:
        """The samplers of the worker of ``seed``, by name: ``general``, and ``teacher`` with labels."""
        cfg, config = self.cfg, self.config
        if self.ladder is not None:
            general = ExampleSampler(self.ladder, config.feature_set, seed=seed)
        else:
            general = PositionSampler(cfg.data, config.feature_set, config.future_moves, seed=seed,
                                      target=config.target, value_rate=cfg.value_rate,
                                      record_ownership=config.ownership_head, final_shows=cfg.final_shows,
                                      paired=cfg.consistency_weight > 0 and config.value_head)
        samplers: dict = {"general": general}
        if cfg.teacher:
            samplers["teacher"] = TeacherSampler(cfg.teacher, cfg.teacher_archives or cfg.data[0],
                                                 config.feature_set, seed=seed)
        return samplers

    def __iter__(self) -> Iterator[dict]:
        info = torch.utils.data.get_worker_info()
        if info is not None:  # one of several loader processes: one core each
            registry.use_threads(1)
        if (info.num_workers if info else 1) != self.start.workers:
            raise ValueError(f"a stream of {self.start.workers} workers read by "
                             f"{info.num_workers if info else 1}")
        worker = ((info.id if info else 0) + self.start.first) % self.start.workers
        samplers = self._samplers(self.start.seed * 1000 + worker)
        if (state := self.start.states[worker]) is not None:
            for name, sampler in samplers.items():
                sampler.restore(state[name])
        size = self.cfg.batch_size
        taught = max(1, round(self.cfg.teacher_fraction * size)) if "teacher" in samplers else 0
        while True:
            parts = [samplers["general"].batch(size - taught)] if taught < size else []
            if taught:
                parts.append(samplers["teacher"].batch(taught))
            batch = Batch.concatenate(parts).tensors()
            states = {name: sampler.state() for name, sampler in samplers.items()}
            batch[STATE_KEY] = {"worker": worker, "state": pickle.dumps(states, pickle.HIGHEST_PROTOCOL)}
            yield batch


def _leave_sigterm_to_the_run(_worker: int) -> None:
    """A loader process ignores SIGTERM: ``timeout`` or a batch system that signals the run's whole
    process group must not kill the workers the run still reads from as it validates and saves
    (:mod:`analysis.train.stopping`); the DataLoader ends them when the run is done."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def batch_loader(stream: TrainingStream, device: torch.device) -> DataLoader:
    """Return the DataLoader of ``stream``'s batches: made in its workers' processes (one worker: in
    this one when the run asked for none), four ahead each, and for a GPU copied into pinned
    memory, so that the copy to the device runs beside the computation
    (:func:`analysis.train.losses.losses` copies without blocking)."""
    workers = stream.cfg.workers
    return DataLoader(stream, batch_size=None, num_workers=workers, prefetch_factor=4 if workers else None,
                      pin_memory=device.type == "cuda",
                      worker_init_fn=_leave_sigterm_to_the_run if workers else None)


def stream_options(cfg: TrainConfig) -> dict:
    """Return the options of ``cfg`` that the batches of its stream depend on, its sources' files
    by name and size among them (a resumed run whose options differ cannot go on with its stream).
    Raises FileNotFoundError for a missing source."""
    teacher = [] if not cfg.teacher else [cfg.teacher] if is_packed(cfg.teacher) else [
        cfg.teacher, cfg.teacher_archives or cfg.data[0]]
    return {"data": sources_signature(cfg.data), "teacher": sources_signature(teacher),
            "teacher_fraction": cfg.teacher_fraction, "batch_size": cfg.batch_size,
            "value_rate": cfg.value_rate, "final_shows": cfg.final_shows,
            "paired": cfg.consistency_weight > 0, "ladder_set": cfg.ladder_set,
            "ladder_games": cfg.ladder_games, "workers": max(1, cfg.workers)}


class StreamPlace:
    """Where a stream stands: each worker's state after its last batch the loop took."""

    def __init__(self, start: StreamStart, options: dict) -> None:
        self.start, self.options = start, options
        self.states = list(start.states)
        self.taken = 0

    def took(self, batch: dict) -> None:
        """Record that the loop took ``batch`` (its ``STATE_KEY`` entry is removed; the state stays
        pickled until a checkpoint needs it)."""
        tag = batch.pop(STATE_KEY)
        self.states[tag["worker"]] = tag["state"]
        self.taken += 1

    def saved(self) -> dict:
        """Return the place as a checkpoint keeps it (:func:`stream_start` reads it back)."""
        start = self.start
        states = [pickle.loads(s) if isinstance(s, bytes) else s for s in self.states]
        return {"options": self.options, "seed": start.seed, "workers": start.workers,
                "next": (start.first + self.taken) % start.workers, "states": states}


def stream_start(cfg: TrainConfig, options: dict, saved: list[dict] | None, rank: int, world: int,
                 samples: int) -> tuple[StreamStart, str | None]:
    """Return where the stream of rank ``rank`` (of ``world``) of a run of ``cfg`` starts, and why it
    starts afresh in a resumed run (None when it goes on, or the run is new): from the run's
    ``saved`` places (one per rank, :meth:`StreamPlace.saved`) when they were saved with the same
    ``options`` (:func:`stream_options` of ``cfg``), else from a
    seed of ``cfg.seed``, the rank and the ``samples`` seen."""
    fresh = StreamStart.fresh(cfg.seed + 7919 * rank + samples, cfg.workers)
    if saved is None:
        return fresh, None if not samples else "the resumed state has no stream to go on with"
    if len(saved) != world:
        return fresh, f"the state's stream was read by {len(saved)} processes, this run has {world}"
    place = saved[rank]
    changed = sorted(k for k, v in options.items() if place["options"].get(k) != v)
    if changed:
        return fresh, f"the run's data options changed ({', '.join(changed)})"
    return StreamStart(place["seed"], place["workers"], place["next"], list(place["states"])), None
