"""Loading a bot with its network (the GTP engine's way to get one)."""

from __future__ import annotations

import os

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.nets.inference import Network
from analysis.nets.registry import Choice


def load_bot(
    level: str,
    weights: str | os.PathLike | None = None,
    network: str | None = None,
    board_size: int | None = None,
    **options: object,
) -> tuple[Bot, Choice | None]:
    """Return a bot at ``level`` and the network it plays with: the checkpoint file ``weights``
    (used as it is: no choice), else the shipped network ``network``, else the level's own or its
    role's default on this process's device (:meth:`~analysis.bot.levels.Level.pick`, which says
    why in the returned choice; None for the rules level or a file).  ``options`` are Bot's fields
    (seed, resign_threshold...).

    Raises KeyError for an unknown level, UnknownNetwork for a network that is not shipped or not
    for ``board_size`` boards, FileNotFoundError or CheckpointError for bad weights, ValueError for
    a search level and a checkpoint file without a value head.
    """
    lvl = get_level(level)
    if lvl.kind == "rules":
        return Bot(lvl, None, **options), None
    choice = None if weights else lvl.pick(board_size, name=network)
    net = Network.from_checkpoint(weights or choice.path, device=None if weights else choice.kind)
    return Bot(lvl, net, **options), choice
