"""Tang & Kaneko's ladder data set, rebuilt from our own archives with our own ladder search.

The paper trains and validates its back-prediction nets on ELF OpenGo's ladder games (116
games, about 11,000 position-move pairs, split 85/15 by game).  That set is not ours to ship,
so this module finds the same kind of positions in any SGF archive: a position belongs to the
set when the move that led to it (the target of back prediction) is a ladder move, found with
:mod:`analysis.tactics.ladder`:

- ``extend``: the move extended a string of its colour out of atari to exactly two liberties,
  and the opponent, moving first, still captures it in a ladder (the runner's move);
- ``chase``: the move put an opponent string in atari that its owner cannot save by moving
  first, and the reading is a ladder of at least one more step (the chaser's move; a plain
  atari on a stone with nowhere to run is left out).

Games are split by a deterministic hash of their name (the SGF member's file name, so the
same game falls on the same side whichever folder the archive sits in): 15% validate.
Archives are streamed; nothing is copied.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.features.targets import target_mask
from analysis.go.coords import BLACK, WHITE, neighbors
from analysis.go.position import GoError, Position
from analysis.tactics.ladder import DEFAULT_LIMITS, LadderLimits, capture, captured_defender_first
from analysis.train.data import Example
from analysis.train.games import TrainingGame
from analysis.train.sources import iter_training_games

VALIDATION_PERCENT = 15  # the paper's 85/15 split, by game
DEFAULT_GAMES = 4000  # games scanned by default: about the paper's 11,000 positions
SPLITS = ("train", "validation")
CACHE_DIR = Path(__file__).resolve().parents[2] / "runs" / "ladder-set"  # gitignored
CACHE_VERSION = 1


def game_name(game: TrainingGame) -> str:
    """Return the name a game is split by: its SGF member's file name, plus ``#n`` in a collection."""
    return game.game_id.rsplit(":", 1)[-1].rsplit("/", 1)[-1]


def split_of(name: str) -> str:
    """Return ``validation`` for VALIDATION_PERCENT of game names (by a stable hash), else ``train``."""
    bucket = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % 100
    return "validation" if bucket < VALIDATION_PERCENT else "train"


def in_atari_next_to(pos: Position, point: int, color: int) -> bool:
    """Return whether a ``color`` string next to ``point`` has one liberty (checked before a move there)."""
    return any(pos.color_at(q) == color and pos.liberties(q) == 1 for q in neighbors(point, pos.size))


def ladder_move(pos: Position, point: int, rescued: bool,
                limits: LadderLimits = DEFAULT_LIMITS) -> str | None:
    """Return ``extend``, ``chase`` or None for the move just played at ``point`` in ``pos``.

    ``rescued`` says whether, before the move, a string of the mover's colour next to ``point``
    was in atari (see :func:`in_atari_next_to`).  See the module docstring for the two kinds.
    """
    color = pos.color_at(point)
    if rescued and pos.liberties(point) == 2 and capture(pos, point, limits)[0]:
        return "extend"
    for q in neighbors(point, pos.size):
        if pos.color_at(q) == -color and pos.liberties(q) == 1:
            captured, reading = captured_defender_first(pos, q, limits)
            if captured and len(reading) >= 3:
                return "chase"
    return None


@dataclass(frozen=True)
class LadderMove:
    """A ladder move found in a game: the board before it (``stones`` (n, n) int8, +1 black), who
    played it where, the move after it (-1 at the end) and its kind."""

    stones: np.ndarray
    color: int
    point: int
    next_move: int
    kind: str

    def example(self, komi: float = 7.5) -> Example:
        """Return the back-prediction example of the position this move led to: the opponent of its
        player to move, the move itself as the target.  The position's history is this one move."""
        n = self.stones.shape[0]
        flat = self.stones.ravel()
        pos = Position.from_stones(n, komi, False, np.flatnonzero(flat == BLACK).tolist(),
                                   np.flatnonzero(flat == WHITE).tolist(), self.color)
        pos.play(self.point, self.color)
        pos.to_play = -self.color
        return Example(pos, self.point, target_mask(pos, "previous"), self.next_move, self.point, math.nan)


def game_ladder_moves(game: TrainingGame, limits: LadderLimits = DEFAULT_LIMITS) -> list[LadderMove]:
    """Return the ladder moves of ``game``'s main line, in order; a game stops at its first
    unplayable move."""
    moves = game.moves
    if not moves:
        return []
    pos = Position.from_stones(game.size, game.komi, False, game.black, game.white, moves[0][0])
    out = []
    for i, (color, point) in enumerate(moves):
        on_board = point != pos.pass_point
        rescued = on_board and in_atari_next_to(pos, point, color)
        before = pos.stones().astype(np.int8)
        try:
            pos.play(point, color)
        except GoError:
            break
        kind = ladder_move(pos, point, rescued, limits) if on_board else None
        if kind is not None:
            next_move = moves[i + 1][1] if i + 1 < len(moves) else -1
            out.append(LadderMove(before, color, point, next_move, kind))
    return out


@dataclass
class LadderSet:
    """The ladder moves of the games scanned, by split, with the games scanned per split."""

    moves: dict[str, list[LadderMove]] = field(default_factory=lambda: {s: [] for s in SPLITS})
    games: Counter = field(default_factory=Counter)

    def examples(self, split: str) -> list[Example]:
        """Return the back-prediction examples of ``split`` (``train`` or ``validation``).

        Raises ValueError for another split.
        """
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
        return [m.example() for m in self.moves[split]]

    def describe(self) -> str:
        """Return a one-line summary: positions and games per split, positions per kind."""
        kinds = Counter(m.kind for part in self.moves.values() for m in part)
        train, validation = (len(self.moves[s]) for s in SPLITS)
        return (f"ladder set: {train} training positions from {self.games['train']} games, "
                f"{validation} validation positions from {self.games['validation']} games "
                f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})")

    def save(self, path: Path) -> None:
        """Write the set to ``path`` (an .npz file), atomically."""
        rows = [(split, m) for split in SPLITS for m in self.moves[split]]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        stones = np.stack([m.stones for _, m in rows]) if rows else np.zeros((0, 0, 0), np.int8)
        np.savez_compressed(
            tmp, stones=stones, color=np.array([m.color for _, m in rows]),
            point=np.array([m.point for _, m in rows]), next_move=np.array([m.next_move for _, m in rows]),
            kind=np.array([m.kind for _, m in rows]), split=np.array([s for s, _ in rows]),
            games=np.array([self.games[s] for s in SPLITS]))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> LadderSet:
        """Return the set saved at ``path``; raises OSError or ValueError for a missing or bad file."""
        with np.load(path) as data:
            arrays = {name: data[name] for name in data.files}
        found = cls(games=Counter(dict(zip(SPLITS, arrays["games"].tolist(), strict=True))))
        columns = ("split", "stones", "color", "point", "next_move", "kind")
        rows = zip(*(arrays[c] if c == "stones" else arrays[c].tolist() for c in columns), strict=True)
        for split, stones, color, point, next_move, kind in rows:
            found.moves[split].append(LadderMove(stones.copy(), color, point, next_move, kind))
        return found


def build(paths: Iterable[str], max_games: int = DEFAULT_GAMES, board_size: int = 19,
          limits: LadderLimits = DEFAULT_LIMITS) -> LadderSet:
    """Return the ladder set of the first ``max_games`` games of size ``board_size`` in ``paths``.

    Deterministic: the archives (SGF or packed: the same set) are read in order.  Raises
    FileNotFoundError for a missing path.
    """
    found = LadderSet()
    games = (g for g in iter_training_games(list(paths)) if g.size == board_size)
    for record in itertools.islice(games, max_games):
        split = split_of(game_name(record))
        found.games[split] += 1
        found.moves[split].extend(game_ladder_moves(record, limits))
    return found


def _cache_key(paths: list[str], max_games: int, limits: LadderLimits) -> str:
    """A digest of what a build depends on: the sources (name, size, time), the game count, the limits."""
    files = sorted(str(p) for p in paths)
    stamps = [(os.path.abspath(p), os.path.getsize(p), os.path.getmtime(p)) for p in files]
    text = repr((CACHE_VERSION, stamps, max_games, limits))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def load_or_build(paths: Iterable[str], max_games: int = DEFAULT_GAMES, cache: bool = True,
                  limits: LadderLimits = DEFAULT_LIMITS) -> LadderSet:
    """Return the ladder set of ``paths`` (see :func:`build`), from CACHE_DIR when it was built
    before with the same sources and settings; with ``cache`` a new build is saved there.

    Raises FileNotFoundError for a missing path.
    """
    paths = [str(p) for p in paths]
    if not cache:
        return build(paths, max_games, limits=limits)
    cached = CACHE_DIR / f"{_cache_key(paths, max_games, limits)}.npz"
    if cached.exists():
        return LadderSet.load(cached)
    found = build(paths, max_games, limits=limits)
    found.save(cached)
    return found
