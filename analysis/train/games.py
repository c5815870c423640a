"""Games as training reads them, from SGF sources or from packed archives alike.

A :class:`TrainingGame` holds what a sampler replays: the board size, komi, rules, the recorded
result, the setup stones and the main line's moves, and the game's id.  An SGF record gives one
(:meth:`TrainingGame.from_record`), and so does a game of a packed archive
(:mod:`analysis.train.packed`); :mod:`analysis.train.sources` reads either.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analysis.sgf import GameRecord
from analysis.train.final_owner import final_ownership


@dataclass
class TrainingGame:
    """One game's main line and what its targets come from.

    ``moves`` are ``(colour, flat point)`` pairs (pass is ``size*size``); ``black`` and ``white``
    the setup stones before the first move.  ``game_id`` names the game: ``<archive stem>:<member>``
    for a game of an archive (``2010-01:330593677.sgf``), else the file's name.
    """

    size: int
    komi: float
    rules: str | None
    result: str | None
    moves: list[tuple[int, int]]
    black: tuple[int, ...]
    white: tuple[int, ...]
    game_id: str
    packed: bool = False  # read from a packed archive, which stores the final owners
    packed_owner: np.ndarray | None = None  # a packed game's final owners (n*n float32), if any

    @classmethod
    def from_record(cls, record: GameRecord) -> TrainingGame:
        """Return the game of an SGF record.  Raises SgfError for a bad move or setup point."""
        setup = record.initial_setup()
        return cls(record.size, record.komi, record.rules, record.result, record.main_line_moves(),
                   setup.black, setup.white, game_id(record.source))

    def final_owner(self) -> np.ndarray | None:
        """Return the final owner of every point (n*n float32, +1 Black) of a counted game whose
        dead-stone estimate gives the recorded count, else None
        (:func:`analysis.train.final_owner.final_ownership`; a packed archive stores it)."""
        return self.packed_owner if self.packed else final_ownership(self)


def game_id(source: str) -> str:
    """Return the id of the game read from ``source`` (``<archive path>:<member>`` or a file path)."""
    path, sep, member = source.rpartition(":")
    if sep and path and not path.endswith(os.sep):
        stem = Path(path).name
        for suffix in (".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar"):
            stem = stem.removesuffix(suffix)
        return f"{stem}:{member}"
    return Path(source).name
