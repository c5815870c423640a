"""Shuffling an endless stream with a buffer: what leaves is a random item of the last ``size``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Shuffled(Generic[T]):
    """The items of ``source`` in a random order: a buffer of ``size`` fills first, then each new item
    takes the place of a random one of the buffer, which is the next item out (the source's end
    leaves the buffer behind).

    ``buffer`` and ``source`` are open, so that a sampler can save what the buffer holds and put it
    back, with its source where it was (:meth:`restore`).
    """

    def __init__(self, source: Iterator[T], size: int, rng: random.Random) -> None:
        self.source, self.size, self.rng = source, size, rng
        self.buffer: list[T] = []

    def __iter__(self) -> Shuffled[T]:
        return self

    def __next__(self) -> T:
        """Return the next item.  Raises StopIteration when the source ends."""
        while len(self.buffer) < self.size:
            self.buffer.append(next(self.source))
        item = next(self.source)
        i = self.rng.randrange(len(self.buffer))
        self.buffer[i], item = item, self.buffer[i]
        return item

    def restore(self, buffer: list[T], source: Iterator[T]) -> None:
        """Go on from a saved ``buffer`` (in its order) and ``source`` where it was then."""
        self.buffer, self.source = list(buffer), source
