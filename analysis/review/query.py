"""The position query: which position to analyse and what to include, as one typed value.

The web site builds it from a board message (:mod:`frontend.services.board`) or an API request
(:mod:`frontend.services.api`); it crosses the broker as JSON (:meth:`PositionQuery.to_json`) and
the analysis task turns it back with :meth:`PositionQuery.from_json`.  The ko rule, the scoring
and White's handicap bonus follow from the rules (:func:`analysis.go.rules.uses_superko`,
:func:`analysis.go.ruled.apply_rules`), as in every position built from a game and its rules.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields

from analysis.go.coords import BLACK, WHITE, from_gtp, parse_color, to_gtp
from analysis.go.position import IllegalMoveError, Position
from analysis.go.ruled import apply_rules
from analysis.go.rules import uses_superko
from analysis.mcts.restrict import MoveFilter

log = logging.getLogger(__name__)

Stone = tuple[str, str]  # (colour "B"/"W", GTP vertex)
Filter = tuple[str, tuple[str, ...], int, bool]  # (colour, GTP vertices, until depth, allow)


@dataclass(frozen=True)
class PositionQuery:
    """A position (``initial_stones`` then ``moves``, as ``(colour, GTP vertex)`` pairs) and its analysis.

    ``visits`` is the search's budget, already defaulted and capped by whoever built the query.
    ``move_number`` is echoed back (by default the number of moves).  ``ladders`` adds the ladder
    overlay, ``backpred`` the back-prediction heatmap, ``search_moves`` every visited move (KataGo's
    ``moveInfos``), ``policy`` the network's probabilities of every move and ``ownership`` its
    ownership map (KataGo's ``includeOwnership``).  ``network`` and
    ``backpred_network`` name shipped networks (``weights/zoo.json``); empty means the default.
    ``count_ended``: the position is a game's last and, when two passes ended it, it is counted,
    not searched (the review's choice; KataGo's analysis engine, which the API follows, searches
    on), with ``dead`` (GTP vertices) as its dead stones when given (those the players marked),
    else the playouts' estimate.  ``node`` is the asker's name of the position (a review board's
    variation), echoed in the answer.

    ``initial_player`` ("B" or "W"; empty: guessed, :func:`build_position`) is the player to move
    before the first move (KataGo's ``initialPlayer``, an SGF's ``PL``); ``handicap_bonus`` ("0",
    "N" or "N-1"; empty: the rules') is White's bonus for Black's handicap stones (KataGo's
    ``whiteHandicapBonus``); ``filters`` are KataGo's ``avoidMoves`` and ``allowMoves``, each
    ``(colour, GTP vertices, until depth, allow)`` (:class:`analysis.mcts.MoveFilter`).
    """

    size: int
    komi: float
    rules: str
    visits: int
    initial_stones: tuple[Stone, ...] = ()
    moves: tuple[Stone, ...] = ()
    move_number: int = field(default=-1)
    ladders: bool = True
    backpred: bool = False
    search_moves: bool = False
    policy: bool = True
    ownership: bool = False
    network: str = ""
    backpred_network: str = ""
    count_ended: bool = False
    dead: tuple[str, ...] | None = None
    node: str = ""
    initial_player: str = ""
    handicap_bonus: str = ""
    filters: tuple[Filter, ...] = ()

    def __post_init__(self) -> None:
        """Freeze the stone lists as tuples and default ``move_number`` to the number of moves."""
        object.__setattr__(self, "initial_stones", _frozen(self.initial_stones))
        object.__setattr__(self, "moves", _frozen(self.moves))
        if self.dead is not None:
            object.__setattr__(self, "dead", tuple(self.dead))
        object.__setattr__(self, "filters", tuple(
            (color, tuple(vertices), depth, allow) for color, vertices, depth, allow in self.filters))
        if self.move_number < 0:
            object.__setattr__(self, "move_number", len(self.moves))

    @property
    def superko(self) -> bool:
        """Whether the rules forbid every repetition (positional superko) or only simple ko."""
        return uses_superko(self.rules)

    def position(self) -> Position:
        """Return the position after the setup stones and the moves, its komi with White's handicap
        bonus and the scoring of the rules (:func:`analysis.go.ruled.apply_rules`), as KataGo's
        engine counts.

        Raises ValueError (CoordinateError, ...) naming the offending item, as
        ``initialStones[3]`` or ``moves[12] (move 13)``.
        """
        to_play = parse_color(self.initial_player) if self.initial_player else None
        position = build_position(self.size, self.komi, self.superko, self.moves, self.initial_stones,
                                  to_play)
        apply_rules(position, self.rules, self.komi, self.handicap_bonus or None)
        return position

    def move_filters(self) -> list[MoveFilter]:
        """Return ``filters`` as the search takes them; raises ValueError (CoordinateError) for a
        bad colour or vertex."""
        return [
            MoveFilter(parse_color(color), frozenset(from_gtp(v, self.size) for v in vertices), depth, allow)
            for color, vertices, depth, allow in self.filters
        ]

    def dead_points(self) -> list[int] | None:
        """Return ``dead`` as points, or None; raises ValueError (CoordinateError) for a bad vertex."""
        return None if self.dead is None else [from_gtp(v, self.size) for v in self.dead]

    def to_json(self) -> dict:
        """Return the query as plain JSON data (lists for the stones)."""
        data = asdict(self)
        data["initial_stones"] = [list(s) for s in self.initial_stones]
        data["moves"] = [list(m) for m in self.moves]
        data["dead"] = None if self.dead is None else list(self.dead)
        data["filters"] = [[color, list(vertices), depth, allow]
                           for color, vertices, depth, allow in self.filters]
        return data

    @classmethod
    def from_json(cls, data: dict) -> PositionQuery:
        """Return the query saved by :meth:`to_json`, by this version or another.

        Fields this version does not know are left out with a warning in the log, and fields it
        knows but the sender did not are defaulted, so that web processes and workers of two
        versions work together while a deploy rolls through them (the older side analyses without
        the newer options).  Raises TypeError when a field without a default is missing.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            log.warning("position query fields %s are unknown to this version: left out", ", ".join(unknown))
        return cls(**{name: value for name, value in data.items() if name in known})


def build_position(
    size: int,
    komi: float,
    superko: bool,
    moves: Sequence[Sequence[str]] = (),
    initial_stones: Sequence[Sequence[str]] = (),
    to_play: int | None = None,
) -> Position:
    """Return the position after ``initial_stones`` then ``moves``, both as ``[colour, GTP]`` pairs,
    ``to_play`` (BLACK or WHITE) to move before the first move.

    Without ``to_play``, White plays first when only Black has stones and no move follows (a
    handicap), else Black.
    Raises ValueError (CoordinateError, IllegalMoveError...) naming the offending item: a setup
    stone on pass, on a point that already has one, or in a string without liberties too.
    """
    black, white = [], []
    placed: dict[int, str] = {}  # point -> the item that put a stone there
    for i, item in enumerate(initial_stones):
        where = f"initialStones[{i}]"
        color, point = _color_point(item, size, where)
        if point == size * size:
            raise ValueError(f"{where}: a setup stone needs a vertex, not {item[1]!r}")
        if point in placed:
            raise ValueError(f"{where}: {item[1]} already has a stone ({placed[point]})")
        placed[point] = where
        (black if color == BLACK else white).append(point)
    if to_play is None:
        to_play = WHITE if black and not white and not moves else BLACK
    position = Position.from_stones(size, komi, superko, black, white, to_play)
    if (airless := position.breathless_stone()) is not None:
        raise ValueError(f"{placed[airless]}: the stones at {to_gtp(airless, size)} have no liberties")
    for i, item in enumerate(moves):
        color, point = _color_point(item, size, f"moves[{i}]")
        try:
            position.play(point, color)
        except IllegalMoveError as e:
            raise ValueError(f"moves[{i}] (move {i + 1}): {e}") from None
    return position


def _frozen(items: Sequence) -> tuple:
    """Return ``items`` as a tuple, its pairs as tuples (malformed items are left for :meth:`position`)."""
    return tuple(tuple(item) if isinstance(item, list | tuple) else item for item in items)


def _color_point(item: Sequence[str], size: int, where: str) -> tuple[int, int]:
    if not (isinstance(item, list | tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
        raise ValueError(f"{where} must be a [colour, vertex] pair of strings, got {item!r}")
    try:
        return parse_color(item[0]), from_gtp(item[1], size)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
