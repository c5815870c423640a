"""Loading a bot with its network from a checkpoint (the GTP engine's way to get one)."""

from __future__ import annotations

import os

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.nets.checkpoint import DEFAULT_WEIGHTS
from analysis.nets.inference import Network
from analysis.nets.zoo import shipped


def load_bot(level: str, weights: str | os.PathLike | None = None, **options: object) -> Bot:
    """Return a bot at ``level`` with the network from ``weights``; without ``weights``, the
    level's own shipped network (``weights/zoo.json``) or the default weights.
    ``options`` are Bot's fields (seed, resign_threshold...).

    Raises KeyError for an unknown level, UnknownNetwork when the level's network is not
    shipped, FileNotFoundError or CheckpointError for bad weights, ValueError for a search level
    and a network without a value head.
    """
    lvl = get_level(level)
    if lvl.kind == "rules":
        return Bot(lvl, None, **options)
    path = weights or (shipped().entry(lvl.network, "next").path if lvl.network else DEFAULT_WEIGHTS)
    return Bot(lvl, Network.from_checkpoint(path), **options)
