"""Shuffling an endless stream with a buffer: what leaves is a random item of the last ``size``."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def shuffled(items: Iterable[T], size: int, rng: random.Random) -> Iterator[T]:
    """Yield ``items`` in a random order: a buffer of ``size`` fills first, then each new item takes
    the place of a random one of the buffer, which is yielded (a stream's end leaves the buffer)."""
    buffer: list[T] = []
    for item in items:
        if len(buffer) < size:
            buffer.append(item)
            continue
        i = rng.randrange(len(buffer))
        buffer[i], item = item, buffer[i]
        yield item
