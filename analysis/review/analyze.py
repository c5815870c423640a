"""Position and game analysis for the web site and the JSON API (no Django here).

Each position is searched with :mod:`analysis.mcts` to a given number of visits: the root's
win rate, the best move and each move's visits, win rate and principal variation come from
the search; the move probabilities (the top 10 drawn on the board, as Barratt & Pan do) come
from the network's policy.  The evaluator is shared (``analysis.review.networks.search_evaluator``),
so its cache carries over between the positions of a game.

All coordinates in the results are GTP (``Q16``, ``pass``); win rates are probabilities in
[0, 1] for the player named, by default the player to move.  What the analysis of a whole game
says (its mistakes, the analysed SGF) is in :mod:`analysis.review.report`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from analysis.go.coords import BLACK, WHITE, from_gtp, parse_color, to_gtp
from analysis.go.position import IllegalMoveError, Position
from analysis.mcts import Candidate, Evaluator, Search, SearchConfig
from analysis.sgf import GameRecord

TOP_MOVES = 10
PV_LENGTH = 20


def build_position(
    size: int,
    komi: float,
    moves: Sequence[Sequence[str]] = (),
    initial_stones: Sequence[Sequence[str]] = (),
    superko: bool = False,
) -> Position:
    """Return the position after ``initial_stones`` then ``moves``, both as ``[colour, GTP]`` pairs.

    Raises ValueError (CoordinateError, IllegalMoveError...) naming the offending item.
    """
    position = Position(size, komi, superko)
    black, white = [], []
    for i, item in enumerate(initial_stones):
        color, point = _color_point(item, size, f"initialStones[{i}]")
        (black if color == BLACK else white).append(point)
    if black or white:
        position.setup(black=black, white=white)
        position.steps.clear()
        if not moves:
            position.to_play = WHITE if black and not white else BLACK
    for i, item in enumerate(moves):
        color, point = _color_point(item, size, f"moves[{i}]")
        try:
            position.play(point, color)
        except IllegalMoveError as e:
            raise ValueError(f"moves[{i}] (move {i + 1}): {e}") from None
    return position


def _color_point(item: Sequence[str], size: int, where: str) -> tuple[int, int]:
    if not (isinstance(item, list | tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
        raise ValueError(f"{where} must be a [colour, vertex] pair of strings, got {item!r}")
    try:
        return parse_color(item[0]), from_gtp(item[1], size)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def black_winrate(winrate: float, to_play: int) -> float:
    """Return the win rate of the player ``to_play`` seen from black."""
    return winrate if to_play == BLACK else 1.0 - winrate


def _move_info(point: int, order: int, prior: float, searched: Candidate | None, size: int) -> dict:
    """Return one move's JSON: its prior, and the search's visits, win rate and PV (if visited)."""
    pv = searched.pv[:PV_LENGTH] if searched is not None else (point,)
    return {
        "move": to_gtp(point, size),
        "order": order,
        "prior": round(prior, 5),
        "visits": searched.visits if searched is not None else 0,
        "winrate": round(searched.winrate, 4) if searched is not None else None,
        "pv": [to_gtp(p, size) for p in pv],
    }


def analyze_position(
    position: Position,
    evaluator: Evaluator,
    visits: int,
    top: int = TOP_MOVES,
    include_policy: bool = False,
    include_search: bool = False,
) -> dict:
    """Search ``position`` for ``visits`` visits (at least the root's own) and return its analysis.

    - ``to_play``, ``winrate`` (the search's, for the player to move), ``black_winrate``,
      ``visits`` (the root's) and ``best`` (the most visited move);
    - ``candidates``: the policy's ``top`` moves, best prior first: ``move``, ``order`` (0 = the
      highest prior), ``prior``, ``visits``, ``winrate`` (the search's for the player who plays
      the move, None when it was not visited) and ``pv`` (the search's line from that move);
    - ``moves`` (with ``include_search``): every move the search visited, most visited first,
      with the same fields and ``order`` their rank by visits (KataGo's ``moveInfos``);
    - ``policy`` (with ``include_policy``): the network's ``size*size + 1`` probabilities.

    Raises whatever the evaluator raises.
    """
    size = position.size
    result = Search(position, evaluator, SearchConfig.analysis()).run(max_visits=max(1, visits))
    policy = evaluator.evaluate([position])[0][0]  # the root's, from the evaluator's cache
    searched = {c.move: c for c in result.candidates}
    order = [int(p) for p in np.argsort(-policy, kind="stable")[:top] if policy[p] > 0]
    analysis = {
        "to_play": "B" if position.to_play == BLACK else "W",
        "winrate": round(result.winrate, 4),
        "black_winrate": round(black_winrate(result.winrate, position.to_play), 4),
        "visits": result.visits,
        "best": to_gtp(result.best, size),
        "candidates": [
            _move_info(point, rank, float(policy[point]), searched.get(point), size)
            for rank, point in enumerate(order)
        ],
    }
    if include_search:
        analysis["moves"] = [
            _move_info(c.move, rank, float(policy[c.move]), c, size)
            for rank, c in enumerate(result.candidates)
        ]
    if include_policy:
        analysis["policy"] = [round(float(p), 5) for p in policy]
    return analysis


def move_rank(policy: np.ndarray, point: int) -> int:
    """Return the 1-based rank of ``point`` in ``policy`` (ties share the better rank)."""
    return int((policy > policy[point]).sum()) + 1


def game_positions(record: GameRecord, start: int = 0) -> Iterator[tuple[Position, tuple[int, int] | None]]:
    """Yield (position after k moves, the next move played or None) for k = start..number of moves.

    Setup stones are applied as :func:`analysis.sgf.replay` does.  Raises SgfError for an
    illegal move (the record is checked when it is stored, so this should not happen).
    """
    from analysis.sgf import replay

    moves = record.main_line_moves()
    position = replay(record, upto=start)
    for k in range(start, len(moves) + 1):
        yield position, (moves[k] if k < len(moves) else None)
        if k < len(moves):
            position = replay(record, upto=k + 1)


def analyze_game_position(
    position: Position, next_move: tuple[int, int] | None, move_number: int, evaluator: Evaluator, visits: int
) -> dict:
    """Return the stored whole-game analysis entry of one position (see ``docs/protocol.md``):
    :func:`analyze_position` without the policy, plus ``move_number``, and the move ``played``
    next with its policy rank (``played_rank``, 1 = the network's first choice) and prior."""
    size = position.size
    analysis = analyze_position(position, evaluator, visits, include_policy=True)
    policy = np.asarray(analysis.pop("policy"))
    entry = {"move_number": move_number, **analysis, "played": None, "played_rank": None}
    if next_move is not None:
        _, point = next_move
        entry["played"] = to_gtp(point, size)
        entry["played_rank"] = move_rank(policy, point)
        entry["played_prior"] = round(float(policy[point]), 5)
    return entry
