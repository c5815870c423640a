"""Training samples labelled by a stronger engine: KataGo's judgement of positions of the training
months (``../shared/data/katago-b6c96/labels.npz``, described in ``../shared/data/README.md``).

Each labelled position gives every head a target, for the player to move: the next move played
(policy), the teacher's win rate (value, a soft target), its score lead (score heads) and its
expected final owner of every point (ownership head).  The labels are Black's; they are turned
to the mover's side here.

Komi is an input of the nets with score heads, and every record has komi 6.5.  So that the nets
learn what komi does, a ``komi_jitter`` fraction of the samples is shown another komi, drawn
uniformly in half-point steps from the record's komi plus or minus ``komi_range`` points, within
the komi plane's range (``KOMI_SCALE`` points either way, where the plane saturates); the
score target moves by the same amount (a point more komi is a point more for White), the
ownership stays, and the win-rate target is left out (unknown), since the teacher's win rate
under another komi is not known.

The sampler reads the labelled games from their zip archives, or the labels and their games from a
packed archive (``python -m analysis.train.pack --teacher``: the same samples, but for the
ownership's rounding), replays each game once, and keeps its labelled positions in a shuffle
buffer, so that a batch mixes positions of many games.
"""

from __future__ import annotations

import math
import random
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analysis.features import FeatureContext, get_feature_set
from analysis.features.planes import KOMI_SCALE
from analysis.features.targets import target_mask
from analysis.go.coords import BLACK
from analysis.go.position import GoError, Position
from analysis.sgf import SgfError, read_sgf
from analysis.train.batch import Batch
from analysis.train.games import TrainingGame
from analysis.train.packed import Labels, PackedArchive, is_packed
from analysis.train.shuffle import shuffled

OWNERSHIP_SCALE = 127.0


def load_labels(path: str | Path) -> dict[tuple[str, str], Labels]:
    """Return the labels of ``path`` by (month, game member name).

    Raises FileNotFoundError, or KeyError for a file without the documented arrays.
    """
    data = np.load(path)
    rows: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, key in enumerate(zip(data["month"].tolist(), data["game"].tolist(), strict=True)):
        rows[key].append(i)
    turn, win, lead = data["turn"], data["winrate_black"], data["score_lead_black"]
    own = data["ownership_black"]
    return {
        key: Labels(turn[idx], win[idx].astype(np.float32), lead[idx].astype(np.float32),
                    own[idx].astype(np.float32) / OWNERSHIP_SCALE)
        for key, idx in ((k, np.array(v)) for k, v in rows.items())
    }


@dataclass
class Labelled:
    """One labelled position and its targets for the player to move (NaN: unknown)."""

    position: Position
    move: int
    value: float
    score: float
    ownership: np.ndarray


class TeacherSampler:
    """An endless stream of labelled training samples (see the module docstring)."""

    def __init__(
        self,
        labels: str | Path,
        archives: str | Path,
        feature_set: str = "golois-komi",
        seed: int = 0,
        komi_jitter: float = 0.5,
        komi_range: float = 10.0,
        shuffle_buffer: int = 4096,
    ) -> None:
        """Sample the games of ``labels`` read from ``archives`` (the folder of the months' zips),
        or, when ``labels`` is a packed archive with its teacher labels, from that archive
        (``archives`` is then not read).

        Raises FileNotFoundError for a missing labels file or archive folder, ValueError for a
        packed archive without teacher labels.
        """
        self.packed = PackedArchive.open(labels) if is_packed(labels) else None
        self.labels = self.packed.teacher_labels() if self.packed else load_labels(labels)
        self.archives = Path(archives)
        if self.packed is None and not self.archives.is_dir():
            raise FileNotFoundError(f"no archive folder {self.archives}")
        self.feature_set = get_feature_set(feature_set)
        self.rng = random.Random(seed)
        self.komi_jitter = komi_jitter
        self.komi_range = komi_range
        self.shuffle_buffer = shuffle_buffer
        self._stream = shuffled(self._games(), shuffle_buffer, self.rng)

    def _games(self) -> Iterator[tuple[str, str]]:
        """The labelled games, in a new random order on every pass."""
        keys = sorted(self.labels)
        while True:
            self.rng.shuffle(keys)
            by_month: dict[str, list[str]] = defaultdict(list)
            for month, game in keys:
                by_month[month].append(game)
            for month in sorted(by_month, key=lambda _: self.rng.random()):
                if self.packed is not None:
                    yield from self._month(month, by_month[month], self._packed_game)
                    continue
                with zipfile.ZipFile(self.archives / f"{month}.zip") as archive:
                    yield from self._month(month, by_month[month], lambda key: _zipped_game(archive, key))

    def _month(self, month: str, games: list[str],
               read: Callable[[str], TrainingGame | None]) -> Iterator[Labelled]:
        """The labelled positions of ``games`` of ``month``, each read by ``read`` from its id."""
        for game in games:
            record = read(f"{month}:{game}")
            if record is not None:
                yield from self._labelled(record, self.labels[(month, game)])

    def _packed_game(self, key: str) -> TrainingGame | None:
        index = self.packed.index_of(key)
        return None if index is None else self.packed.game(index)

    def _labelled(self, record: TrainingGame, labels: Labels) -> Iterator[Labelled]:
        """Replay one game and yield its labelled positions (none if it cannot be replayed)."""
        moves = record.moves
        wanted = {int(t): i for i, t in enumerate(labels.turns) if 0 <= t < len(moves)}
        first = moves[0][0] if moves else BLACK
        position = Position.from_stones(record.size, record.komi, False, to_play=first)
        for k, (color, point) in enumerate(moves):
            if k in wanted:
                position.to_play = color
                yield self._targets(position.copy(), point, labels, wanted[k])
            try:
                position.play(point, color)
            except GoError:
                return

    def _targets(self, position: Position, move: int, labels: Labels, i: int) -> Labelled:
        """Return the sample of label ``i`` at ``position``, with the komi jittered or not."""
        side = 1.0 if position.to_play == BLACK else -1.0
        value = float(labels.winrate[i]) if side > 0 else 1.0 - float(labels.winrate[i])
        lead = float(labels.lead[i])
        if self.rng.random() < self.komi_jitter:
            low = max(-self.komi_range, -KOMI_SCALE - position.komi)
            high = min(self.komi_range, KOMI_SCALE - position.komi)
            shift = self.rng.randint(math.ceil(2 * low), math.floor(2 * high)) / 2
            position.komi += shift
            lead -= shift
            value = math.nan
        return Labelled(position, move, value, side * lead, side * labels.ownership[i])

    def batch(self, size: int) -> Batch:
        """Return the next ``size`` samples, each under a random symmetry (the previous move is
        not a target here: -1)."""
        samples = [next(self._stream) for _ in range(size)]
        batch = Batch(
            inputs=self.feature_set.extract_batch([FeatureContext(s.position) for s in samples]),
            legal=np.stack([target_mask(s.position, "next") for s in samples]),
            moves=np.array([[s.move] for s in samples], dtype=np.int64),
            value=np.array([s.value for s in samples], dtype=np.float32),
            previous=np.full(size, -1, dtype=np.int64),
            score=np.array([s.score for s in samples], dtype=np.float32),
            ownership=np.stack([s.ownership for s in samples]).astype(np.float32),
        )
        batch.apply_symmetries(self.rng)
        return batch


def _zipped_game(archive: zipfile.ZipFile, key: str) -> TrainingGame | None:
    """The game ``<month>:<member>`` of the month's open ``archive``, or None if it cannot be read."""
    member = key.partition(":")[2]
    try:
        return TrainingGame.from_record(read_sgf(archive.read(member), source=f"{archive.filename}:{member}"))
    except (KeyError, SgfError):
        return None
