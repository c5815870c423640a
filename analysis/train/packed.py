"""Packed game archives: many games' main lines as a few arrays in one ``.pack.npz`` file.

Training reads a packed archive instead of SGF text: no zip member to inflate, no SGF to parse and
no final ownership to estimate per game (the pack stores it).  The file is an ``.npz`` (a zip of
``.npy`` arrays, LZMA-compressed; ``numpy.load`` reads it) holding:

==================  ==============  ===============================================================
array               shape, dtype    meaning
==================  ==============  ===============================================================
``format``          (1,) int32      ``FORMAT``
``size``            (G,) uint8      board size of each game
``komi``            (G,) float32    komi
``rules``           (G,) int8       index into ``rule_names`` (-1: none recorded)
``rule_names``      (R,) str        the ``RU`` values seen
``result``          (G,) str        ``RE`` as recorded ('' when missing)
``game_id``         (G,) str        ``<archive stem>:<member>`` (:func:`analysis.train.games.game_id`)
``move_offsets``    (G+1,) int64    game ``i``'s moves are ``points[move_offsets[i]:move_offsets[i+1]]``
``points``          (M,) uint16     flat point of each move (pass is ``size*size``)
``white``           (M,) bool       the move is White's
``setup_offsets``   (G+1,) int64    the same for the setup stones
``setup_points``    (S,) uint16     a setup stone's point
``setup_white``     (S,) bool       the setup stone is White's
``owner_offsets``   (G+1,) int64    a game's final owners (an empty slice: none, see below)
``owners``          (O,) int8       +1 Black, -1 White, 0 neither
==================  ==============  ===============================================================

The final owners are :func:`analysis.train.final_owner.final_ownership`'s, stored for the counted
games whose dead-stone estimate gives the recorded count.  With KataGo's labels packed beside the
games (``python -m analysis.train.pack --teacher``), the file also holds ``teacher_game`` (T,)
int32 (the labelled game's index), ``teacher_turn`` (T,) int16, ``teacher_winrate`` and
``teacher_lead`` (T,) float16 as in ``labels.npz``, and ``teacher_ownership`` (T, n*n) uint8: the
ownership rounded to ``teacher_levels`` evenly spaced values over -1..1 (level ``k`` is
``2k/(levels-1) - 1``), the only lossy part of a pack.
"""

from __future__ import annotations

import functools
import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from analysis.train.games import TrainingGame

FORMAT = 1
PACKED_SUFFIX = ".pack.npz"
GAME_ARRAYS = ("size", "komi", "rules", "rule_names", "result", "game_id", "move_offsets", "points",
               "white", "setup_offsets", "setup_points", "setup_white", "owner_offsets", "owners")
TEACHER_ARRAYS = ("teacher_game", "teacher_turn", "teacher_winrate", "teacher_lead",
                  "teacher_ownership", "teacher_levels")


@dataclass(frozen=True)
class Labels:
    """The teacher's labels of one game: the positions (after ``turn`` moves) and their judgements,
    from Black's side: win rate, score lead, ownership (n*n, in -1..1)."""

    turns: np.ndarray
    winrate: np.ndarray
    lead: np.ndarray
    ownership: np.ndarray


def is_packed(path: str | os.PathLike[str]) -> bool:
    """Return whether ``path`` names a packed archive (by its ``.pack.npz`` suffix)."""
    return os.fspath(path).endswith(PACKED_SUFFIX)


class PackedArchive:
    """A packed archive held in memory (see the module docstring)."""

    def __init__(self, arrays: dict[str, np.ndarray], path: str = "<memory>") -> None:
        """Wrap ``arrays`` as the module docstring lists them.

        Raises ValueError when one is missing or the format is not ``FORMAT``.
        """
        missing = [name for name in ("format", *GAME_ARRAYS) if name not in arrays]
        if missing:
            raise ValueError(f"{path}: not a packed archive (no {', '.join(missing)})")
        if int(arrays["format"][0]) != FORMAT:
            raise ValueError(f"{path}: packed archive format {int(arrays['format'][0])}, not {FORMAT}")
        self.path = path
        self.arrays = arrays
        self._ids: dict[str, int] | None = None

    @staticmethod
    @functools.lru_cache(maxsize=4)
    def open(path: str | os.PathLike[str]) -> PackedArchive:
        """Return the archive at ``path``, read once per process and kept.

        Raises FileNotFoundError, or ValueError for a file that is not a packed archive.
        """
        name = os.fspath(path)
        try:
            with np.load(name, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        except FileNotFoundError:
            raise
        except (OSError, ValueError) as exc:
            raise ValueError(f"{name}: not a packed archive ({exc})") from exc
        return PackedArchive(arrays, name)

    def __len__(self) -> int:
        return len(self.arrays["size"])

    def game(self, i: int) -> TrainingGame:
        """Return game ``i`` (0-based, in packed order).  Raises IndexError past the end."""
        a = self.arrays
        if not 0 <= i < len(self):
            raise IndexError(f"game {i} of a packed archive of {len(self)}")
        lo, hi = a["move_offsets"][i], a["move_offsets"][i + 1]
        colours = np.where(a["white"][lo:hi], -1, 1)
        moves = list(zip(colours.tolist(), a["points"][lo:hi].tolist(), strict=True))
        slo, shi = a["setup_offsets"][i], a["setup_offsets"][i + 1]
        points, white = a["setup_points"][slo:shi], a["setup_white"][slo:shi]
        olo, ohi = a["owner_offsets"][i], a["owner_offsets"][i + 1]
        owner = a["owners"][olo:ohi].astype(np.float32) if ohi > olo else None
        rule = int(a["rules"][i])
        return TrainingGame(
            size=int(a["size"][i]), komi=float(a["komi"][i]),
            rules=str(a["rule_names"][rule]) if rule >= 0 else None,
            result=str(a["result"][i]) or None, moves=moves,
            black=tuple(points[~white].tolist()), white=tuple(points[white].tolist()),
            game_id=str(a["game_id"][i]), packed=True, packed_owner=owner)

    def games(self, start: int = 0) -> Iterator[TrainingGame]:
        """Yield every game from the ``start``-th on, in packed order."""
        for i in range(start, len(self)):
            yield self.game(i)

    def index_of(self, game_id: str) -> int | None:
        """Return the index of the game called ``game_id``, or None."""
        if self._ids is None:
            self._ids = {name: i for i, name in enumerate(self.arrays["game_id"].tolist())}
        return self._ids.get(game_id)

    @property
    def has_teacher(self) -> bool:
        """Whether the archive holds teacher labels."""
        return "teacher_game" in self.arrays

    def teacher_labels(self) -> dict[tuple[str, str], Labels]:
        """Return the teacher's labels by (archive stem, member name), as
        :func:`analysis.train.teacher.load_labels` gives them from ``labels.npz`` (the ownership
        at the pack's resolution).  Raises ValueError for an archive without labels."""
        if not self.has_teacher:
            raise ValueError(f"{self.path}: no teacher labels packed (pack with --teacher)")
        a = self.arrays
        steps = int(a["teacher_levels"][0]) - 1
        rows: dict[int, list[int]] = defaultdict(list)
        for row, game in enumerate(a["teacher_game"].tolist()):
            rows[game].append(row)
        labels = {}
        for game, idx in rows.items():
            month, _, member = str(a["game_id"][game]).partition(":")
            own = a["teacher_ownership"][idx].astype(np.float32) * (2.0 / steps) - 1.0
            labels[(month, member)] = Labels(a["teacher_turn"][idx],
                                             a["teacher_winrate"][idx].astype(np.float32),
                                             a["teacher_lead"][idx].astype(np.float32), own)
        return labels
