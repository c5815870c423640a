"""Position: the convenient game-state API over the compiled board core.

A Position holds the board (``analysis.go._board.Board``, incremental strings
with make/undo), the komi, the colour to play and the history of moves.  Hot
loops (search, ladders, features) may use ``position.board`` directly; the rest
of the code uses the methods here, which raise ``IllegalMoveError`` with the
reason a move is illegal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from analysis.go import _board
from analysis.go.coords import BLACK, EMPTY, WHITE, check_size, color_name, to_gtp
from analysis.go.diagram import format_board, parse_board

REASONS = {
    _board.OCCUPIED: "occupied",
    _board.SUICIDE: "suicide",
    _board.KO: "ko",
    _board.SUPERKO: "superko",
}

EXPLANATIONS = {
    "occupied": "the point is already occupied",
    "suicide": "the stone would have no liberties (suicide)",
    "ko": "it retakes a ko immediately",
    "superko": "it repeats an earlier position (superko)",
}


class GoError(Exception):
    """Base class of the engine's errors."""


class IllegalMoveError(GoError, ValueError):
    """A move that the rules forbid; ``reason`` is occupied, suicide, ko or superko."""

    def __init__(self, reason: str, point: int, color: int, size: int) -> None:
        self.reason = reason
        self.point = point
        self.color = color
        self.size = size
        super().__init__(
            f"illegal move: {color_name(color)} {to_gtp(point, size)}: {EXPLANATIONS[reason]}"
        )


@dataclass(frozen=True)
class Move:
    """One played move; ``point == size * size`` is a pass."""

    color: int
    point: int


@dataclass(frozen=True)
class SetupStep:
    """One setup step (handicap or SGF AB/AW/AE): points and their new colours."""

    points: tuple[int, ...]
    colors: tuple[int, ...]
    to_play_before: int


class Position:
    """A game in progress: board, komi, colour to play and history."""

    def __init__(self, size: int = 19, komi: float = 7.5, superko: bool = False) -> None:
        """Create an empty board; raises CoordinateError for an unsupported size."""
        self.size = check_size(size)
        self.komi = float(komi)
        self.scoring = "area"  # how the search counts a game it ends: area or territory
        self.board = _board.Board(size, superko)
        self.to_play = BLACK
        self.steps: list[Move | SetupStep] = []

    # -- state -----------------------------------------------------------
    @property
    def superko(self) -> bool:
        """Whether positional superko is enforced."""
        return self.board.superko

    @superko.setter
    def superko(self, value: bool) -> None:
        self.board.superko = value

    @property
    def pass_point(self) -> int:
        """The flat index that means pass."""
        return self.size * self.size

    @property
    def moves(self) -> list[Move]:
        """The moves played so far, in order, without setup steps."""
        return [s for s in self.steps if isinstance(s, Move)]

    @property
    def last_move(self) -> Move | None:
        """The most recent move, or None when no move has been played since setup."""
        for step in reversed(self.steps):
            if isinstance(step, Move):
                return step
        return None

    @property
    def hash(self) -> int:
        """64-bit Zobrist hash of the stones (positional)."""
        return self.board.hash

    @property
    def ko_point(self) -> int | None:
        """The point that simple ko forbids to the player to move, or None."""
        ko = self.board.ko
        return ko if ko >= 0 and self.board.ko_color == self.to_play else None

    def consecutive_passes(self) -> int:
        """Return how many passes end the move history."""
        n = 0
        for step in reversed(self.steps):
            if not isinstance(step, Move) or step.point != self.pass_point:
                break
            n += 1
        return n

    def color_at(self, point: int) -> int:
        """Return BLACK, WHITE or EMPTY at ``point``; raises ValueError if off the board."""
        return self.board.get(point)

    def liberties(self, point: int) -> int:
        """Return the liberty count of the string at ``point`` (0 if empty)."""
        return self.board.liberties(point)

    def string(self, point: int) -> list[int]:
        """Return the stones of the string at ``point`` (empty list if empty)."""
        return self.board.string_points(point)

    def liberty_points(self, point: int) -> list[int]:
        """Return the liberties of the string at ``point``."""
        return self.board.liberty_points(point)

    def stones(self) -> np.ndarray:
        """Return the colours as an int8 array of shape (size, size), row 0 at the top."""
        return np.frombuffer(self.board.stones(), dtype=np.int8).reshape(self.size, self.size).copy()

    def liberty_counts(self) -> np.ndarray:
        """Return each point's string liberty count (0 if empty) as int8 (size, size)."""
        raw = self.board.liberty_counts()
        return np.frombuffer(raw, dtype=np.int8).reshape(self.size, self.size).copy()

    def breathless_stone(self) -> int | None:
        """Return a stone of a string without liberties (setup stones can leave one; moves never
        do), the first from the top left, or None when every string has a liberty."""
        airless = np.flatnonzero((self.stones() != 0).ravel() & (self.liberty_counts() == 0).ravel())
        return int(airless[0]) if airless.size else None

    def prisoners(self, color: int) -> int:
        """Return the number of stones ``color`` has captured."""
        return self.board.prisoners(color)

    def is_eye(self, point: int, color: int) -> bool:
        """Return True if ``point`` is an empty real eye of ``color``."""
        return self.board.is_eye(point, color)

    def stone_points(self, color: int) -> list[int]:
        """Return the flat indices of ``color``'s stones, in increasing order."""
        return np.flatnonzero(self.stones().ravel() == color).tolist()

    # -- moves -----------------------------------------------------------
    def illegal_reason(self, point: int, color: int | None = None) -> str | None:
        """Return why ``color`` may not play ``point`` (occupied, suicide, ko, superko), or None."""
        code = self.board.legal(point, self.to_play if color is None else color)
        return REASONS[code] if code else None

    def is_legal(self, point: int, color: int | None = None) -> bool:
        """Return True if ``color`` (default: the player to move) may play ``point``."""
        return self.board.legal(point, self.to_play if color is None else color) == 0

    def legal_points(self, color: int | None = None) -> np.ndarray:
        """Return a bool array of shape (size*size,) marking the legal board points (pass excluded)."""
        raw = self.board.legal_map(self.to_play if color is None else color)
        return np.frombuffer(raw, dtype=np.bool_).copy()

    def play(self, point: int, color: int | None = None) -> int:
        """Play ``point`` (``size*size`` passes) and return the number of stones captured.

        ``color`` defaults to the player to move; afterwards the other colour is to move.
        Raises IllegalMoveError (the board is unchanged) or ValueError for an off-board point.
        """
        color = self.to_play if color is None else color
        code = self.board.play(point, color)
        if code < 0:
            raise IllegalMoveError(REASONS[code], point, color, self.size)
        self.steps.append(Move(color, point))
        self.to_play = -color
        return code

    def pass_move(self, color: int | None = None) -> None:
        """Pass for ``color`` (default: the player to move)."""
        self.play(self.pass_point, color)

    def setup(
        self,
        black: Iterable[int] = (),
        white: Iterable[int] = (),
        empty: Iterable[int] = (),
        to_play: int | None = None,
    ) -> None:
        """Place setup stones (SGF AB/AW/AE, handicap) as one undoable step.

        Raises ValueError for an off-board point.
        """
        points: list[int] = []
        colors: list[int] = []
        for pts, color in ((empty, EMPTY), (black, BLACK), (white, WHITE)):
            for p in pts:
                points.append(p)
                colors.append(color)
        self.board.setup(points, colors)
        self.steps.append(SetupStep(tuple(points), tuple(colors), self.to_play))
        if to_play is not None:
            self.to_play = to_play

    def undo(self) -> Move | SetupStep:
        """Take back the last move or setup step and return it; raises GoError if there is none."""
        if not self.steps:
            raise GoError("nothing to undo")
        self.board.undo()
        step = self.steps.pop()
        self.to_play = step.color if isinstance(step, Move) else step.to_play_before
        return step

    def copy(self) -> Position:
        """Return an independent copy with the same history."""
        other = Position.__new__(Position)
        other.size = self.size
        other.komi = self.komi
        other.scoring = self.scoring
        other.board = self.board.copy()
        other.to_play = self.to_play
        other.steps = list(self.steps)
        return other

    @classmethod
    def from_stones(
        cls,
        size: int,
        komi: float = 7.5,
        superko: bool = False,
        black: Iterable[int] = (),
        white: Iterable[int] = (),
        to_play: int = BLACK,
    ) -> Position:
        """Return a starting position with ``black`` and ``white`` stones (flat indices) on the board.

        The stones are the start of the game, not an undoable step: ``steps`` is empty.
        Raises CoordinateError for an unsupported size, ValueError for an off-board point.
        """
        pos = cls(size, komi, superko)
        black, white = list(black), list(white)
        if black or white:
            pos.board.setup(black + white, [BLACK] * len(black) + [WHITE] * len(white))
        pos.to_play = to_play
        return pos

    @classmethod
    def from_diagram(
        cls, text: str, komi: float = 7.5, to_play: int = BLACK, superko: bool = False
    ) -> Position:
        """Return a position set up from an ASCII diagram (see analysis.go.diagram).

        Raises ValueError for a malformed diagram.
        """
        stones = parse_board(text)
        flat = stones.ravel()
        return cls.from_stones(
            stones.shape[0], komi, superko, np.flatnonzero(flat == BLACK).tolist(),
            np.flatnonzero(flat == WHITE).tolist(), to_play,
        )

    def __str__(self) -> str:
        return format_board(self.stones(), coordinates=True)
