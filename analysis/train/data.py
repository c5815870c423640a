"""Training samples from game records: positions across all phases, with targets.

The sampler follows darkforest: it keeps a pool of games, each started at a
random move, and every sample advances one randomly chosen game by one move,
so a batch mixes openings, middle games and endgames.  A finished game is
replaced by the next one from a shuffle buffer over the stream of records.

Targets of a sample, for the player to move:
- ``moves``: the next ``k`` moves (``-1`` past the end of the game);
- ``value``: 1 if the player to move won, 0 if it lost, 0.5 for a draw, NaN when
  the result is unknown or the game ended on time or by forfeit.  Only a random
  ``value_rate`` of the positions keep it (the rest are NaN): a game's positions
  all share one result, and training the value head on every one of them makes it
  memorise games instead of judging positions (the AlphaGo paper's finding);
- ``previous``: the move that led to the position (``-1`` at the start);
- ``score``: the recorded margin of a counted game, NaN for the others;
- ``ownership`` (with ``record_ownership``): the final owner of every point of a counted game
  whose dead-stone estimate gives the recorded count (:mod:`analysis.train.final_owner`), NaN
  for the others.  Such a game is also shown ``final_shows`` times after its last move, the
  position its count is made on, with no move to predict and each player to move in turn: the
  finished board is where the ownership head proposes dead stones, and a game has one of it
  against some 200 positions before.
- ``pair`` (with ``paired``): a sample is followed in its batch by the position its move led to
  (the other player to move), when the game goes on: the value-consistency loss's pairs.
A sampler for ``target="previous"`` (back prediction, Tang & Kaneko) puts the
previous move in ``moves`` instead, with a mask of the moves that could have
led here: the stones of the player who just moved, and pass.
Every sample is seen under a random one of the 8 symmetries, inputs and targets alike.

A sampler's :meth:`PositionSampler.state` is where it stands (its random state, its place in the
sources, and the games of its shuffle buffer and pool, by ordinal: :mod:`analysis.train.sources`);
a sampler given it (:meth:`PositionSampler.restore`) goes on with the very samples it gave next.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from analysis.features import FeatureContext, get_feature_set
from analysis.features.targets import TARGETS, target_mask
from analysis.go.coords import BLACK
from analysis.go.position import GoError, Position
from analysis.sgf.archive import ReadStats
from analysis.sgf.results import result_margin, result_value
from analysis.train.batch import Batch
from analysis.train.games import TrainingGame
from analysis.train.rng_state import restore_rng, saved_rng
from analysis.train.shuffle import Shuffled
from analysis.train.sources import GameCursor, iter_training_games, training_games_at


@dataclass
class _Game:
    record: TrainingGame
    ordinal: int  # the game's place in the sources (:mod:`analysis.train.sources`)
    moves: list[tuple[int, int]]
    position: Position
    index: int  # the next move to play
    value_black: float
    margin_black: float  # NaN unless the game was counted
    owner_black: np.ndarray | None = None  # (n*n,) float32 final owners, +1 Black; None: unknown
    final_shown: int = 0  # how many times the position after the last move was sampled


@dataclass
class _Sample:
    """One position and its targets, for the player to move (see the module docstring)."""

    position: Position
    moves: list[int]
    value: float
    previous: int
    margin: float
    ownership: np.ndarray | None


@dataclass
class SamplerStats:
    """What the sampler has consumed."""

    games_started: int = 0
    games_unplayable: int = 0
    samples: int = 0
    read: ReadStats = field(default_factory=ReadStats)


class PositionSampler:
    """An endless stream of training samples from SGF paths (directories, zips, tar.gz) or packed
    archives (:mod:`analysis.train.packed`: the same samples as from the SGF sources they were
    packed from, faster)."""

    def __init__(
        self,
        paths: Iterable[str],
        feature_set: str = "golois",
        future_moves: int = 1,
        pool_size: int = 128,
        shuffle_buffer: int = 2000,
        seed: int = 0,
        board_size: int = 19,
        target: str = "next",
        value_rate: float = 1.0,
        record_ownership: bool = False,
        final_shows: int = 1,
        paired: bool = False,
    ) -> None:
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
        if not 0.0 < value_rate <= 1.0:
            raise ValueError(f"value_rate must be in (0, 1], not {value_rate}")
        self.value_rate = value_rate
        if final_shows < 1:
            raise ValueError(f"final_shows must be at least 1, not {final_shows}")
        self.record_ownership = record_ownership
        self.final_shows = final_shows
        self.paired = paired
        self.target = target
        self.paths = [str(p) for p in paths]
        self.feature_set = get_feature_set(feature_set)
        self.k = future_moves
        self.pool_size = pool_size
        self.shuffle_buffer = shuffle_buffer
        self.rng = random.Random(seed)
        self.board_size = board_size
        self.stats = SamplerStats()
        self._cursor = GameCursor(self.paths, self.stats.read)
        self._records = Shuffled(self._sized(self._cursor), shuffle_buffer, self.rng)
        self._pool: list[_Game] = []

    def _sized(self, games: Iterable[tuple[int, TrainingGame]]) -> Iterator[tuple[int, TrainingGame]]:
        """The games of this sampler's board size."""
        return ((ordinal, record) for ordinal, record in games if record.size == self.board_size)

    def _start_game(self, random_start: bool) -> _Game:
        while True:
            ordinal, record = next(self._records)
            self.stats.games_started += 1
            if len(record.moves) < 2:
                continue
            start = self.rng.randrange(len(record.moves)) if random_start else 0
            if (game := self._game_at(record, ordinal, start)) is not None:
                return game
            self.stats.games_unplayable += 1

    def _game_at(self, record: TrainingGame, ordinal: int, index: int) -> _Game | None:
        """Return ``record`` replayed up to its move ``index``, or None if it cannot be."""
        moves = record.moves
        pos = Position.from_stones(record.size, record.komi, False, record.black, record.white, moves[0][0])
        try:
            for color, point in moves[:index]:
                pos.play(point, color)
        except GoError:
            return None
        owner = record.final_owner() if self.record_ownership else None
        return _Game(record, ordinal, moves, pos, index, result_value(record.result, BLACK),
                     result_margin(record.result), owner)

    def state(self) -> dict:
        """Return what the sampler's next samples depend on, to go on from later (:meth:`restore`):
        the random state, the place in the sources, the games in the shuffle buffer and in the
        pool (by ordinal) and how far each pool game is."""
        return {"rng": saved_rng(self.rng), "passes": self._cursor.passes, "position": self._cursor.position,
                "buffer": [ordinal for ordinal, _ in self._records.buffer],
                "pool": [(g.ordinal, g.index, g.final_shown) for g in self._pool]}

    def restore(self, state: dict) -> None:
        """Go on from ``state`` (:meth:`state` of a sampler on the same sources and options): the
        next samples are those that sampler gave next.

        Raises ValueError when the sources do not hold the state's games, or a pool game no
        longer replays.
        """
        games = training_games_at(self.paths, [*state["buffer"], *(slot[0] for slot in state["pool"])])
        restore_rng(self.rng, state["rng"])
        self._cursor = GameCursor(self.paths, self.stats.read, state["passes"], state["position"])
        self._records.restore([(o, games[o]) for o in state["buffer"]], self._sized(self._cursor))
        self._pool = []
        for ordinal, index, shown in state["pool"]:
            game = self._game_at(games[ordinal], ordinal, index)
            if game is None:
                raise ValueError(f"game {ordinal} of {self.paths} does not replay to move {index}")
            game.final_shown = shown
            self._pool.append(game)

    def _fill_pool(self) -> None:
        while len(self._pool) < self.pool_size:
            self._pool.append(self._start_game(random_start=True))

    def _sample(self, game: _Game, color: int, moves: list[int]) -> _Sample:
        """The sample of ``game``'s present position with ``color`` to play and ``moves`` next."""
        pos = game.position
        pos.to_play = color
        value = game.value_black if color == BLACK else 1.0 - game.value_black  # NaN stays NaN
        if self.value_rate < 1.0 and self.rng.random() >= self.value_rate:
            value = math.nan
        sign = 1 if color == BLACK else -1
        owner = None if game.owner_black is None else sign * game.owner_black
        return _Sample(pos.copy(), moves + [-1] * (self.k - len(moves)), value,
                       pos.last_move.point if pos.last_move else -1, sign * game.margin_black, owner)

    def _take(self, slot: int) -> _Sample | None:
        """Advance the game in ``slot`` by one move and return the sample before it (or, once, the
        position after the last move of a game with a final ownership, ``final_shows`` times).

        Returns None when the game is over or unplayable: it is replaced by the next one.
        """
        game = self._pool[slot]
        if game.index >= len(game.moves):
            if game.owner_black is not None and game.final_shown < self.final_shows:
                game.final_shown += 1
                after_last = -game.moves[-1][0]
                return self._sample(game, after_last if game.final_shown % 2 else -after_last, [])
            self._pool[slot] = self._start_game(random_start=False)
            return None
        color, point = game.moves[game.index]
        sample = self._sample(game, color, [p for _, p in game.moves[game.index : game.index + self.k]])
        try:
            game.position.play(point, color)
        except GoError:
            self.stats.games_unplayable += 1
            self._pool[slot] = self._start_game(random_start=False)
            return None
        game.index += 1
        return sample

    def _next_position(self) -> tuple[_Sample, int]:
        """Return the next sample of a random game of the pool, and the game's slot."""
        self._fill_pool()
        while True:
            slot = self.rng.randrange(self.pool_size)
            if (sample := self._take(slot)) is not None:
                return sample, slot

    def _samples(self, size: int) -> tuple[list[_Sample], np.ndarray]:
        """Return ``size`` samples and their pairs (see :class:`Batch`): with ``paired``, a sample
        whose game goes on with the other player's move is followed by the position its move led to."""
        samples: list[_Sample] = []
        pair = np.full(size, -1, dtype=np.int64)
        while len(samples) < size:
            sample, slot = self._next_position()
            samples.append(sample)
            game = self._pool[slot]
            if not self.paired or len(samples) == size or not sample.moves or sample.moves[0] < 0:
                continue
            goes_on = game.index < len(game.moves) and game.moves[game.index][0] == -sample.position.to_play
            if goes_on and (after := self._take(slot)) is not None:
                pair[len(samples) - 1] = len(samples)
                samples.append(after)
        return samples, pair

    def batch(self, size: int) -> Batch:
        """Return the next ``size`` samples, each under a random symmetry."""
        samples, pair = self._samples(size)
        positions = [s.position for s in samples]
        inputs = self.feature_set.extract_batch([FeatureContext(p) for p in positions])
        legal = np.stack([target_mask(p, self.target) for p in positions])
        moves_arr = np.array([s.moves for s in samples], dtype=np.int64)
        prev_arr = np.array([s.previous for s in samples], dtype=np.int64)
        if self.target == "previous":
            moves_arr = prev_arr[:, None].copy()
        ownership = np.full((size, self.board_size ** 2), np.nan, dtype=np.float32)
        for row, s in zip(ownership, samples, strict=True):
            if s.ownership is not None:
                row[:] = s.ownership
        batch = Batch(inputs, legal, moves_arr, np.array([s.value for s in samples], dtype=np.float32),
                      prev_arr, np.array([s.margin for s in samples], dtype=np.float32), ownership, pair)
        batch.apply_symmetries(self.rng)
        self.stats.samples += size
        return batch


@dataclass
class Example:
    """One fixed position with its target: the next move, or the previous one for back prediction."""

    position: Position
    move: int  # the target
    mask: np.ndarray  # (n*n + 1,) bool: the moves that can be the target
    next_move: int
    previous: int  # -1 at the start of a game
    value: float  # for the player to move; NaN if unknown
    later: tuple[int, ...] = ()  # the moves played after the next one (darkforest's steps 2, 3...)

    def context(self) -> FeatureContext:
        """The feature context of the position, without the players' ranks, as in training.

        Every training game is 9d against 9d, so darkforest's rank planes could teach the nets
        nothing: they are left at "rank unknown" (zero) in training, validation and on the site.
        """
        return FeatureContext(self.position)


LATER_MOVES = 2  # moves after the next one kept with each fixed example (darkforest predicts 3)


def fixed_positions(
    paths: Iterable[str], count: int, seed: int = 0, board_size: int = 19, target: str = "next"
) -> list[Example]:
    """Return up to ``count`` examples, one per game at a random move, from SGF sources or packed
    archives (the same examples from either).

    Deterministic for a given seed: the validation and evaluation sets.  Games whose
    chosen move is unplayable, and (for ``target="previous"``) positions with no
    previous move, are passed over.
    """
    rng = random.Random(seed)
    out: list[Example] = []
    for record in iter_training_games(paths):
        if len(out) >= count:
            break
        moves = record.moves
        if record.size != board_size or not moves:
            continue
        pos = Position.from_stones(record.size, record.komi, False, record.black, record.white, moves[0][0])
        upto = rng.randrange(len(moves))
        try:
            for color, point in moves[:upto]:
                pos.play(point, color)
        except GoError:
            continue
        color, point = moves[upto]
        if not pos.is_legal(point, color):
            continue  # an unplayable record: its next move cannot be a target
        pos.to_play = color
        previous = pos.last_move.point if pos.last_move else -1
        if target == "previous" and previous < 0:
            continue
        later = tuple(p for _, p in moves[upto + 1 : upto + 1 + LATER_MOVES])
        out.append(Example(pos, point if target == "next" else previous, target_mask(pos, target), point,
                           previous, result_value(record.result, color), later))
    return out
