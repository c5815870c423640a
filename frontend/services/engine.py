"""The engine side of the tasks: this process's networks and bots, made on first use.

Networks are chosen by name among the shipped ones (:mod:`analysis.nets.zoo`, from
``GOWEB_WEIGHTS_DIR``); reading the list needs no torch.  Networks (and torch with them) load
only in a process that runs a task: a Celery worker, or the web process in the embedded mode.
A web process that only queues tasks for workers never imports torch.  Torch uses
``GOWEB_TORCH_THREADS`` threads in a process that loads a network.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from types import ModuleType
from typing import TYPE_CHECKING

from django.conf import settings

from analysis.bot.levels import Level, get_level
from analysis.bot.player import Bot
from analysis.nets.zoo import UnknownNetwork, Zoo, ZooEntry, shipped

if TYPE_CHECKING:
    from analysis.nets.inference import Network
    from analysis.review.networks import LockedEvaluator

MAX_BOTS = 64

_bots: OrderedDict[tuple[int, str], tuple[Bot, threading.Lock]] = OrderedDict()
_bots_lock = threading.Lock()


def zoo() -> Zoo:
    """Return the shipped networks (read once per process)."""
    return shipped(settings.GOWEB_WEIGHTS_DIR)


def choose(name: str | None, role: str = "next", size: int | None = None) -> ZooEntry:
    """Return the shipped network called ``name`` of ``role``, or that role's default when ``name``
    is empty; with ``size``, one that reads boards of that size.  Raises UnknownNetwork (listing the
    known ones) for a name that is not shipped or does not read the board, or when no network of
    that role is shipped for it."""
    if name:
        return zoo().entry(name, role, size)
    default = zoo().default(role, size)
    if default is None:
        board = f" for {size}x{size}" if size else ""
        raise UnknownNetwork(f"no {role}-move network{board} is shipped in {settings.GOWEB_WEIGHTS_DIR}")
    return default


@functools.cache
def _loaded() -> ModuleType:
    """Return :mod:`analysis.review.networks`, imported (with torch) on the first call."""
    from analysis.review import networks  # torch loads here: only where a task runs

    networks.limit_threads(settings.GOWEB_TORCH_THREADS)
    return networks


def network(name: str | None = None, role: str = "next", size: int | None = None) -> Network:
    """Return this process's copy of the network ``name`` (default: the role's default), checked
    to read boards of ``size`` if given.

    Raises UnknownNetwork, or FileNotFoundError/CheckpointError for a bad checkpoint.
    """
    return _loaded().network(choose(name, role, size).path)


def evaluator(name: str | None = None) -> LockedEvaluator:
    """Return this process's search evaluator of the next-move network ``name`` (default: the
    default network); a network without a value head searches with the default network's."""
    entry = choose(name)
    if not network(entry.name).has_value:
        entry = choose(None)
    return _loaded().search_evaluator(entry.path)


def level_network(level: Level) -> str | None:
    """Return the network a level plays with (None: the default), checked to be shipped.

    Raises UnknownNetwork when the level's network is not shipped.
    """
    return choose(level.network).name if level.network else None


def bot(game_id: int, level: str) -> tuple[Bot, threading.Lock]:
    """Return this process's bot for a game (it keeps its win rates, to resign, and its search tree)
    and the lock to hold while it thinks.  Search levels share their network's evaluator."""
    key = (game_id, level)
    with _bots_lock:
        if key not in _bots:
            lvl = get_level(level)
            name = level_network(lvl)
            net = network(name) if lvl.kind != "rules" else None
            search = evaluator(name) if lvl.kind == "mcts" else None
            _bots[key] = (Bot(lvl, net, seed=game_id, evaluator=search), threading.Lock())
            while len(_bots) > MAX_BOTS:
                _bots.popitem(last=False)
        _bots.move_to_end(key)
        return _bots[key]
