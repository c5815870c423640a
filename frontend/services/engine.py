"""The engine side of the tasks: this process's networks and bots, made on first use.

Networks (and torch with them) load only in a process that runs a task: a Celery worker, or the
web process in the embedded mode.  A web process that only queues tasks for workers never
imports torch.  Torch uses ``GOWEB_TORCH_THREADS`` threads in a process that loads a network.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from types import ModuleType
from typing import TYPE_CHECKING

from django.conf import settings

from analysis.bot.levels import get_level
from analysis.bot.player import Bot

if TYPE_CHECKING:
    from analysis.nets.inference import Network
    from analysis.review.networks import LockedEvaluator

MAX_BOTS = 64

_bots: OrderedDict[tuple[int, str], tuple[Bot, threading.Lock]] = OrderedDict()
_bots_lock = threading.Lock()


@functools.cache
def _loaded() -> ModuleType:
    """Return :mod:`analysis.review.networks`, imported (with torch) on the first call."""
    from analysis.review import networks  # torch loads here: only where a task runs

    networks.limit_threads(settings.GOWEB_TORCH_THREADS)
    return networks


def evaluator() -> LockedEvaluator:
    """Return this process's search evaluator (the default network, ``GOWEB_WEIGHTS``)."""
    return _loaded().search_evaluator(settings.GOWEB_WEIGHTS)


def policy_network() -> Network:
    """Return this process's default network."""
    return _loaded().network(settings.GOWEB_WEIGHTS)


def backpred_network() -> Network | None:
    """Return the back-prediction network, or None when ``GOWEB_BACKPRED_WEIGHTS`` does not exist."""
    return _loaded().optional_network(settings.GOWEB_BACKPRED_WEIGHTS)


def bot(game_id: int, level: str) -> tuple[Bot, threading.Lock]:
    """Return this process's bot for a game (it keeps its win rates, to resign, and its search tree)
    and the lock to hold while it thinks.  Search levels share the process's evaluator."""
    key = (game_id, level)
    with _bots_lock:
        if key not in _bots:
            lvl = get_level(level)
            net = policy_network() if lvl.kind != "rules" else None
            search = evaluator() if lvl.kind == "mcts" else None
            _bots[key] = (Bot(lvl, net, seed=game_id, evaluator=search), threading.Lock())
            while len(_bots) > MAX_BOTS:
                _bots.popitem(last=False)
        _bots.move_to_end(key)
        return _bots[key]
