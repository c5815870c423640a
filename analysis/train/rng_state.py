"""A ``random.Random``'s state as a checkpoint keeps it: plain lists, which survive ``torch.save`` and
a ``weights_only`` load (tuples come back as lists there)."""

from __future__ import annotations

import random


def saved_rng(rng: random.Random) -> list:
    """Return the state of ``rng`` as ``[version, [internal state...], gauss_next]``."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def restore_rng(rng: random.Random, saved: list | tuple) -> None:
    """Put ``rng`` in the state :func:`saved_rng` gave.  Raises ValueError or TypeError for a state
    that ``random.Random.setstate`` refuses."""
    version, internal, gauss = saved
    rng.setstate((version, tuple(internal), gauss))
