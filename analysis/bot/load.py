"""Loading a bot with its network from a checkpoint (the GTP engine's way to get one)."""

from __future__ import annotations

import os

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.nets.checkpoint import DEFAULT_WEIGHTS
from analysis.nets.inference import Network


def load_bot(level: str, weights: str | os.PathLike | None = None, **options: object) -> Bot:
    """Return a bot at ``level`` with the network from ``weights`` (default weights if None);
    ``options`` are Bot's fields (seed, resign_threshold...).

    Raises KeyError for an unknown level, FileNotFoundError or CheckpointError for bad
    weights, ValueError for a search level and a network without a value head.
    """
    lvl = get_level(level)
    net = Network.from_checkpoint(weights or DEFAULT_WEIGHTS) if lvl.kind != "rules" else None
    return Bot(lvl, net, **options)
