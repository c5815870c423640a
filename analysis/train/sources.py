"""Where training games come from: SGF sources (files, folders, archives) or packed archives.

``iter_training_games`` yields :class:`analysis.train.games.TrainingGame` from any mix of paths: a
packed archive (a ``.pack.npz`` file written by ``python -m analysis.train.pack``) gives its games
in the order they were packed, which is the order :func:`analysis.sgf.archive.iter_games` read
them in; anything else is read as SGF.  A sampler fed the packed archive of its SGF sources
therefore sees the same games in the same order, and gives the same samples.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from analysis.sgf.archive import ReadStats, existing_paths, iter_games
from analysis.train.games import TrainingGame
from analysis.train.packed import PackedArchive, is_packed


def iter_training_games(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
                        stats: ReadStats | None = None) -> Iterator[TrainingGame]:
    """Yield the games of ``paths`` (one path or many) in order: packed archives' games as packed,
    SGF sources' as :func:`analysis.sgf.archive.iter_games` reads them (bad files skipped and
    counted in ``stats``).

    Raises FileNotFoundError for a missing path, ValueError for a ``.pack.npz`` file that is not
    a packed archive of this format (:meth:`analysis.train.packed.PackedArchive.open`).
    """
    for name in existing_paths(paths):
        if is_packed(name):
            yield from PackedArchive.open(name).games()
        else:
            for record in iter_games(name, stats=stats):
                yield TrainingGame.from_record(record)
