"""The engine side of the tasks: this process's networks and bots, made on first use.

Which network a use gets is :func:`analysis.nets.registry.pick`'s choice, among the shipped
networks of ``GOWEB_WEIGHTS_DIR`` for the device kind ``GOWEB_DEVICE``; this module keeps only
those settings and the lazy import.  Reading the list needs no torch.  Networks (and torch with
them) load only in a process that runs a task: a Celery worker, or the web process in the
embedded mode.  A web process that only queues tasks for workers never imports torch when
``GOWEB_DEVICE`` names the workers' kind.  Torch uses ``GOWEB_TORCH_THREADS`` threads in a
process that loads a network.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from django.conf import settings

from analysis.bot.levels import LEVELS, Level, get_level
from analysis.bot.player import Bot
from analysis.nets import registry
from analysis.nets.zoo import PICK_ROLES, UnknownNetwork, Zoo, shipped

if TYPE_CHECKING:
    from analysis.nets.inference import Network
    from analysis.review.networks import LockedEvaluator

MAX_BOTS = 64

_bots: OrderedDict[tuple[int, str], tuple[Bot, threading.Lock]] = OrderedDict()
_bots_lock = threading.Lock()


def zoo() -> Zoo:
    """Return the shipped networks (read once per process)."""
    return shipped(settings.GOWEB_WEIGHTS_DIR)


def device() -> str | None:
    """Return the device kind the site's networks run on (``GOWEB_DEVICE``), None for ``auto``
    (the process's own: CUDA when its torch sees a GPU)."""
    return None if settings.GOWEB_DEVICE == "auto" else settings.GOWEB_DEVICE


def pick(name: str | None, role: str = "next", size: int | None = None) -> registry.Choice:
    """Return the network for ``role`` on ``size`` boards on the site's device: the shipped one
    called ``name``, or the role's default when ``name`` is empty (:func:`analysis.nets.registry.pick`).

    Raises UnknownNetwork (listing the known ones) for a name that is not shipped or does not
    read the board, or when no network of that role is shipped for it.
    """
    return registry.pick(name, role, size, device(), zoo())


def level_choice(level: Level, size: int | None = None) -> registry.Choice | None:
    """Return the network ``level`` plays with on ``size`` boards (None: the rules level).

    Raises UnknownNetwork when the level's network is not shipped.
    """
    return level.pick(size, device(), zoo())


def choices(size: int = 19) -> dict:
    """Return what the site's networks are on ``size`` boards on its device, as JSON: the device
    kind, the board size, each role's choice (:meth:`~analysis.nets.registry.Choice.to_json`;
    null where none is shipped) and each bot level's (null for the rules level or a level whose
    network is not shipped)."""
    kind, shipped_here = registry.device_kind(device()), zoo()
    return {
        "device": kind,
        "board_size": size,
        "roles": {role: _or_none(functools.partial(registry.pick, None, role, size, kind, shipped_here))
                  for role in PICK_ROLES},
        "levels": {name: _or_none(functools.partial(level.pick, size, kind, shipped_here))
                   for name, level in LEVELS.items()},
    }


def _or_none(choose: Callable[[], registry.Choice | None]) -> dict | None:
    """Return ``choose()``'s choice as JSON, None when there is none or none is shipped."""
    try:
        choice = choose()
    except UnknownNetwork:
        return None
    return choice.to_json() if choice else None


@functools.cache
def _loaded() -> ModuleType:
    """Return :mod:`analysis.review.networks`, imported (with torch) on the first call."""
    from analysis.review import networks  # torch loads here: only where a task runs

    networks.limit_threads(settings.GOWEB_TORCH_THREADS)
    return networks


def network(name: str | None = None, role: str = "next", size: int | None = None) -> Network:
    """Return this process's copy of the network :func:`pick` chooses.

    Raises UnknownNetwork, or FileNotFoundError/CheckpointError for a bad checkpoint.
    """
    return _loaded().network(pick(name, role, size).path, device())


def evaluator(name: str | None = None, role: str = "search", size: int | None = None) -> LockedEvaluator:
    """Return this process's search evaluator of the network :func:`pick` chooses for ``role``
    (``search`` or ``review``; a network without a value head gives way to the role's default).

    Raises as :func:`network`.
    """
    return _loaded().search_evaluator(pick(name, role, size).path, device())


def bot(game_id: int, level: str, size: int | None = None) -> tuple[Bot, threading.Lock]:
    """Return this process's bot for a game on ``size`` boards (it keeps its win rates, to resign,
    and its search tree) and the lock to hold while it thinks.  Search levels share their
    network's evaluator.  Raises UnknownNetwork when the level has no network for the board."""
    key = (game_id, level)
    with _bots_lock:
        if key not in _bots:
            lvl = get_level(level)
            choice = level_choice(lvl, size)
            net = _loaded().network(choice.path, device()) if choice else None
            search = _loaded().search_evaluator(choice.path, device()) if lvl.kind == "mcts" else None
            _bots[key] = (Bot(lvl, net, seed=game_id, evaluator=search), threading.Lock())
            while len(_bots) > MAX_BOTS:
                _bots.popitem(last=False)
        _bots.move_to_end(key)
        return _bots[key]
