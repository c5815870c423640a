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
buffer, so that a batch mixes positions of many games.  Each pass over the games takes its order
from a seed of its own, so that where the sampler stands (:meth:`TeacherSampler.state`: the random
state, the pass's seed and place, and the buffer's positions by game, label and komi shift) is a
few numbers, from which :meth:`TeacherSampler.restore` goes on with the very samples it gave next.
"""

from __future__ import annotations

import math
import random
import zipfile
from collections import defaultdict
from collections.abc import Iterator
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
from analysis.train.rng_state import restore_rng, saved_rng
from analysis.train.shuffle import Shuffled

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
    origin: tuple[int, int, float]  # the game (index of its key), the label, the komi shift (NaN: none)


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
        self._keys = sorted(self.labels)
        self._pass_seed = 0
        self._order: list[int] = []  # the present pass's games, as indices of ``_keys``
        self._next_game = 0  # the place in ``_order`` of the game being read
        self._taken = 0  # the labelled positions of that game already taken
        self._zip: zipfile.ZipFile | None = None  # the month's archive last read
        self._stream = Shuffled(self._positions(), shuffle_buffer, self.rng)

    def _pass(self, seed: int) -> list[int]:
        """The order of a pass over the labelled games: the months in a random order, and each
        month's games in a random order (so that a month's archive is opened once a pass)."""
        order_rng = random.Random(seed)
        order = list(range(len(self._keys)))
        order_rng.shuffle(order)
        rank = {month: order_rng.random() for month in sorted({month for month, _ in self._keys})}
        return sorted(order, key=lambda k: rank[self._keys[k][0]])

    def _positions(self) -> Iterator[Labelled]:
        """The labelled positions, game by game, in a new random order on every pass."""
        while True:
            if not self._order:
                self._pass_seed = self.rng.getrandbits(64)
                self._order, self._next_game, self._taken = self._pass(self._pass_seed), 0, 0
            while self._next_game < len(self._order):
                k = self._order[self._next_game]
                for i, position, move in self._replay(k, skip=self._taken):
                    self._taken += 1
                    yield self._targets(position, move, k, i)
                self._next_game, self._taken = self._next_game + 1, 0
            self._order = []

    def _read(self, k: int) -> TrainingGame | None:
        """The labelled game ``k`` (an index of ``_keys``), or None if it cannot be read."""
        month, game = self._keys[k]
        if self.packed is not None:
            index = self.packed.index_of(f"{month}:{game}")
            return None if index is None else self.packed.game(index)
        path = self.archives / f"{month}.zip"
        if self._zip is None or self._zip.filename != str(path):
            if self._zip is not None:
                self._zip.close()
            self._zip = zipfile.ZipFile(path)
        return _zipped_game(self._zip, f"{month}:{game}")

    def _replay(self, k: int, skip: int = 0) -> Iterator[tuple[int, Position, int]]:
        """Replay the labelled game ``k`` and yield its labelled positions after the first ``skip``
        as (label, a copy of the position with the mover to play, the move played); none if the
        game cannot be read, and none past a move that cannot be replayed."""
        record = self._read(k)
        if record is None:
            return
        labels = self.labels[self._keys[k]]
        moves = record.moves
        wanted = {int(t): i for i, t in enumerate(labels.turns) if 0 <= t < len(moves)}
        first = moves[0][0] if moves else BLACK
        position = Position.from_stones(record.size, record.komi, False, to_play=first)
        seen = 0
        for turn, (color, point) in enumerate(moves):
            if turn in wanted:
                seen += 1
                if seen > skip:
                    position.to_play = color
                    yield wanted[turn], position.copy(), point
            try:
                position.play(point, color)
            except GoError:
                return

    def _targets(self, position: Position, move: int, k: int, i: int) -> Labelled:
        """Return the sample of label ``i`` of game ``k`` at ``position``, with the komi jittered or not."""
        shift = math.nan
        if self.rng.random() < self.komi_jitter:
            low = max(-self.komi_range, -KOMI_SCALE - position.komi)
            high = min(self.komi_range, KOMI_SCALE - position.komi)
            shift = self.rng.randint(math.ceil(2 * low), math.floor(2 * high)) / 2
        return self._labelled(position, move, k, i, shift)

    def _labelled(self, position: Position, move: int, k: int, i: int, shift: float) -> Labelled:
        """The sample of label ``i`` of game ``k`` at ``position``, its komi moved by ``shift``
        points (NaN: not moved; a moved komi leaves the win rate unknown)."""
        labels = self.labels[self._keys[k]]
        side = 1.0 if position.to_play == BLACK else -1.0
        value = float(labels.winrate[i]) if side > 0 else 1.0 - float(labels.winrate[i])
        lead = float(labels.lead[i])
        if not math.isnan(shift):
            position.komi += shift
            lead -= shift
            value = math.nan
        return Labelled(position, move, value, side * lead, side * labels.ownership[i], (k, i, shift))

    def state(self) -> dict:
        """Return what the sampler's next samples depend on, to go on from later (:meth:`restore`):
        the random state, the pass and the place in it, and the positions in the shuffle buffer."""
        return {"rng": saved_rng(self.rng), "pass_seed": self._pass_seed, "in_pass": bool(self._order),
                "next_game": self._next_game, "taken": self._taken,
                "buffer": [s.origin for s in self._stream.buffer]}

    def restore(self, state: dict) -> None:
        """Go on from ``state`` (:meth:`state` of a sampler on the same labels and options): the
        next samples are those that sampler gave next.  Raises ValueError when a buffered
        position is not in this sampler's labelled games."""
        wanted: dict[int, set[int]] = defaultdict(set)
        for k, i, _ in state["buffer"]:
            wanted[k].add(i)
        found = {(k, i): (position, move) for k, labels in wanted.items()
                 for i, position, move in self._replay(k) if i in labels}
        buffer = []
        for k, i, shift in state["buffer"]:
            if (k, i) not in found:
                raise ValueError(f"label {i} of game {k} is not a position of the labelled games")
            position, move = found[(k, i)]
            buffer.append(self._labelled(position.copy(), move, k, i, shift))
        restore_rng(self.rng, state["rng"])
        self._pass_seed = state["pass_seed"]
        self._order = self._pass(self._pass_seed) if state["in_pass"] else []
        self._next_game, self._taken = state["next_game"], state["taken"]
        self._stream.restore(buffer, self._positions())

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
