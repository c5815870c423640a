"""Where training games come from: SGF sources (files, folders, archives) or packed archives.

``iter_training_games`` yields :class:`analysis.train.games.TrainingGame` from any mix of paths: a
packed archive (a ``.pack.npz`` file written by ``python -m analysis.train.pack``) gives its games
in the order they were packed, which is the order :func:`analysis.sgf.archive.iter_games` read
them in; anything else is read as SGF.  A sampler fed the packed archive of its SGF sources
therefore sees the same games in the same order, and gives the same samples.

A game's *ordinal* is its place in that order (0-based, over all the paths).  A sampler that saves
its state names games by ordinal: :class:`GameCursor` goes on from an ordinal, and
:func:`training_games_at` reads games back by ordinal (directly in a packed archive; an SGF source
is read up to the last one asked for).
"""

from __future__ import annotations

import collections
import hashlib
import os
from collections.abc import Iterable, Iterator

from analysis.sgf.archive import ReadStats, existing_paths, iter_games
from analysis.train.games import TrainingGame
from analysis.train.packed import PackedArchive, is_packed

Paths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]


def iter_training_games(paths: Paths, stats: ReadStats | None = None,
                        start: int = 0) -> Iterator[TrainingGame]:
    """Yield the games of ``paths`` (one path or many) in order, from the ``start``-th on: packed
    archives' games as packed, SGF sources' as :func:`analysis.sgf.archive.iter_games` reads them
    (bad files skipped and counted in ``stats``, those before ``start`` as well).

    Raises FileNotFoundError for a missing path, ValueError for a ``.pack.npz`` file that is not
    a packed archive of this format (:meth:`analysis.train.packed.PackedArchive.open`).
    """
    skip = start
    for name in existing_paths(paths):
        if is_packed(name):
            archive = PackedArchive.open(name)
            yield from archive.games(min(skip, len(archive)))
            skip = max(0, skip - len(archive))
            continue
        for record in iter_games(name, stats=stats):
            if skip:
                skip -= 1
                continue
            yield TrainingGame.from_record(record)


def training_games_at(paths: Paths, ordinals: Iterable[int]) -> dict[int, TrainingGame]:
    """Return the games of ``paths`` at ``ordinals``, by ordinal.

    Raises FileNotFoundError for a missing path, ValueError when an ordinal is past the last game
    (the sources are not those the ordinals were taken from).
    """
    wanted = collections.deque(sorted(set(ordinals)))
    found: dict[int, TrainingGame] = {}
    offset = 0
    for name in existing_paths(paths):
        if not wanted or wanted[0] < 0:
            break
        if is_packed(name):
            archive = PackedArchive.open(name)
            while wanted and wanted[0] < offset + len(archive):
                ordinal = wanted.popleft()
                found[ordinal] = archive.game(ordinal - offset)
            offset += len(archive)
            continue
        for record in iter_games(name):
            if not wanted:
                break
            if wanted[0] == offset:
                found[wanted.popleft()] = TrainingGame.from_record(record)
            offset += 1
    if wanted:
        raise ValueError(f"no game {wanted[0]} in {paths} (it has {offset}): not the sources of this state")
    return found


def sources_signature(paths: Paths) -> str:
    """Return what tells the files of ``paths`` apart cheaply: the SHA-256 of each file's name
    (relative to the path it is in) and size, in order.  A state that names games by ordinal is
    only good for sources of the same signature.  Raises FileNotFoundError for a missing path."""
    digest = hashlib.sha256()
    for name in existing_paths(paths):
        files = [name] if os.path.isfile(name) else sorted(
            os.path.join(folder, f) for folder, _, found in os.walk(name) for f in found)
        for path in files:
            digest.update(f"{name}\0{os.path.relpath(path, name)}\0{os.path.getsize(path)}\n".encode())
    return digest.hexdigest()


class GameCursor:
    """The games of ``paths`` as ``(ordinal, game)``, pass after pass without end, from a place that
    can be saved (:attr:`passes` done, and the ordinal of the next game, :attr:`position`) and gone
    on from.

    Iterating raises ValueError when the sources hold no game.
    """

    def __init__(self, paths: Paths, stats: ReadStats | None = None, passes: int = 0,
                 position: int = 0) -> None:
        self.paths, self.stats = paths, stats
        self.passes, self.position = passes, position

    def __iter__(self) -> Iterator[tuple[int, TrainingGame]]:
        while True:
            start = self.position
            for ordinal, game in enumerate(iter_training_games(self.paths, self.stats, start), start):
                self.position = ordinal + 1
                yield ordinal, game
            if self.position == 0:
                raise ValueError(f"no SGF games found in {self.paths}")
            self.passes, self.position = self.passes + 1, 0
