"""Position and game analysis for the web site and the JSON API (no Django here).

Each position is searched with :mod:`analysis.mcts` to a given number of visits: the root's
win rate, the best move and each move's visits, win rate and principal variation come from
the search; the move probabilities (the top 10 drawn on the board, as Barratt & Pan do) come
from the network's policy.  The evaluator is shared (``analysis.review.networks.search_evaluator``),
so its cache carries over between the positions of a game.  :func:`answer_query` answers a
:class:`~analysis.review.query.PositionQuery`; :func:`game_entry` is one position of a whole-game
analysis, whose positions :func:`game_positions` plays forward one move at a time.

All coordinates in the results are GTP (``Q16``, ``pass``); win rates are probabilities in
[0, 1] for the player named, by default the player to move.  What the analysis of a whole game
says (its mistakes, the analysed SGF) is in :mod:`analysis.review.report`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from analysis.go.coords import BLACK, to_gtp
from analysis.go.position import Position
from analysis.go.ruled import apply_rules
from analysis.mcts import BaggedRoot, Candidate, Evaluator, MoveFilter, Search, SearchConfig, SearchResult
from analysis.mcts.restrict import filtered_legal
from analysis.review.ended import counted_analysis, ended
from analysis.review.ladder_network import flag_disagreements
from analysis.review.policy import SYMMETRIES, move_rank, shown_policy
from analysis.review.query import PositionQuery
from analysis.sgf import GameRecord, replay
from analysis.sgf.read import play_recorded
from analysis.tactics import ladder

if TYPE_CHECKING:
    from analysis.nets.inference import Network

TOP_MOVES = 10
PV_LENGTH = 20


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
        "score_lead": _points(searched.score_lead) if searched is not None else None,
        "pv": [to_gtp(p, size) for p in pv],
    }


def _candidates(searched: Sequence[Candidate], policy: np.ndarray, top: int, size: int) -> list[dict]:
    """Return the candidates' JSON: the ``top`` most visited of the search's moves (``searched``,
    most visited first), then the ``top`` moves of ``policy`` that the search did not visit, best
    prior first, each with its ``order`` in the list."""
    visited = {c.move for c in searched}
    best_priors = [int(p) for p in np.argsort(-policy, kind="stable")[:top] if policy[p] > 0]
    ideas = [p for p in best_priors if p not in visited]
    shown = [(c.move, c) for c in searched[:top]] + [(p, None) for p in ideas]
    return [_move_info(point, rank, float(policy[point]), c, size) for rank, (point, c) in enumerate(shown)]


def black_lead(lead: float | None, to_play: int) -> float | None:
    """Return the score lead of the player ``to_play`` seen from Black (None stays None)."""
    return None if lead is None else lead * to_play


def _points(lead: float | None) -> float | None:
    """Return a score lead rounded to a tenth of a point (None stays None)."""
    return None if lead is None else round(lead, 1)


def _with_bagged_root(evaluator: Evaluator, position: Position) -> Evaluator:
    """Return ``evaluator`` with ``position`` judged over the 8 symmetries when it can do that."""
    bagged = getattr(evaluator, "bagged", None)
    judged = bagged(position) if bagged is not None else None
    return evaluator if judged is None else BaggedRoot(evaluator, position, judged)


def position_analysis(
    position: Position,
    evaluator: Evaluator,
    visits: int,
    top: int = TOP_MOVES,
    include_policy: bool = False,
    include_search: bool = False,
    policy: np.ndarray | None = None,
    filters: Sequence[MoveFilter] = (),
    searching: Callable[[Search], None] | None = None,
    progress: Callable[[dict], None] | None = None,
    every: float = 1.0,
) -> dict:
    """Search ``position`` for ``visits`` visits (at least the root's own) and return its analysis.

    - ``to_play``, ``winrate`` (the search's, for the player to move), ``black_winrate``,
      ``score_lead`` and ``black_score_lead`` (the points the player to move, or Black, leads by;
      None without a score head), ``visits`` (the root's) and ``best`` (the most visited move);
    - ``candidates`` (:func:`_candidates`): the search's ``top`` most visited moves in its order,
      then the policy's ``top`` moves that the search did not visit (the network's ideas), best
      prior first: ``move``, ``order`` (the place in that list: 0 is the search's best),
      ``prior``, ``visits``, ``winrate`` and ``score_lead`` (the search's for the player who plays
      the move, None when it was not visited) and ``pv`` (the search's line from that move);
    - ``moves`` (with ``include_search``): every move the search visited, most visited first,
      with the same fields and ``order`` their rank by visits (KataGo's ``moveInfos``);
    - ``policy`` (with ``include_policy``): the network's ``size*size + 1`` probabilities.

    The candidates come from ``policy`` when given (another network's), else from the evaluator's.
    ``filters`` keep moves out of the search (KataGo's ``avoidMoves`` and ``allowMoves``), and the
    root's filtered moves out of the candidates.  ``searching`` is given the search before it runs
    (whose ``stop`` another thread may call: the analysis is then of the visits made).  With
    ``progress``, the analysis so far (with the policy when ``include_policy``, as the final one)
    is given to it every ``every`` seconds of the search (KataGo's ``reportDuringSearchEvery``), the
    last one before the search ends.
    An evaluator that can (``bagged``) judges the position itself over the board's 8 symmetries:
    the root's priors and value are bagged (:class:`~analysis.mcts.BaggedRoot`).  Raises whatever
    the evaluator raises.
    """
    evaluator = _with_bagged_root(evaluator, position)
    search = Search(position, evaluator, SearchConfig.analysis(), filters=filters)
    if searching is not None:
        searching(search)
    if policy is None:
        policy = evaluator.evaluate([position])[0][0]  # the root's, kept in the evaluator's cache
    ideas = policy
    if filters:
        allowed = filtered_legal(np.ones(policy.size, dtype=bool), filters, position.to_play, 0)
        ideas = np.where(allowed, policy, 0.0)

    shown = shown_policy(policy) if include_policy else None

    def summary(result: SearchResult) -> dict:
        analysis = _summary(result, position, policy, ideas, top, include_search)
        if shown is not None:
            analysis["policy"] = list(shown)  # each report its own list: a reader may keep it
        return analysis

    report = None if progress is None else lambda result: progress(summary(result))
    return summary(_searched(search, visits, report, every))


def _searched(search: Search, visits: int, report: Callable[[SearchResult], None] | None, every: float
              ) -> SearchResult:
    """Run ``search`` for ``visits`` visits (at least the root's own) and return its last result;
    with ``report``, give it the snapshot so far every ``every`` seconds before that."""
    snapshots = search.iterate(max_visits=max(1, visits), every_seconds=every if report is not None else None)
    last = next(snapshots)
    for snapshot in snapshots:
        assert report is not None  # without it the search yields its last result alone
        report(last)
        last = snapshot
    return last


def _summary(result: SearchResult, position: Position, policy: np.ndarray, ideas: np.ndarray, top: int,
             include_search: bool) -> dict:
    """Return the analysis of :func:`position_analysis` (without the policy) from ``result``."""
    size = position.size
    analysis = {
        "to_play": "B" if position.to_play == BLACK else "W",
        "winrate": round(result.winrate, 4),
        "black_winrate": round(black_winrate(result.winrate, position.to_play), 4),
        "score_lead": _points(result.score_lead),
        "black_score_lead": _points(black_lead(result.score_lead, position.to_play)),
        "visits": result.visits,
        "best": to_gtp(result.best, size),
        "candidates": _candidates(result.candidates, ideas, top, size),
    }
    if include_search:
        analysis["moves"] = [
            _move_info(c.move, rank, float(policy[c.move]), c, size)
            for rank, c in enumerate(result.candidates)
        ]
    return analysis


def game_positions(
    record: GameRecord, start: int = 0, rules: str | None = None, *, copies: bool = True
) -> Iterator[tuple[Position, tuple[int, int] | None]]:
    """Yield (position after k moves, the next move played or None) for k = start..number of moves.

    The record is replayed once, up to ``start`` (setup stones as :func:`analysis.sgf.replay`
    applies them, with ``rules`` as it takes them), then played forward one move at a time; each
    position yielded is a copy, the caller's to keep.  With ``copies`` False it is the one position
    being played forward, to be read before the next is asked for: a copy carries the whole history,
    so copying each of a long game's positions costs time that grows as the square of its length.
    Raises SgfError (kind ``illegal_move``) for an illegal move (the site checks records when it
    stores them).
    """
    moves = record.main_line_moves()
    opening = next((k for k, (color, _) in enumerate(moves) if color != BLACK), len(moves))
    position = replay(record, upto=start, rules=rules)
    for k in range(start, len(moves) + 1):
        yield position.copy() if copies else position, (moves[k] if k < len(moves) else None)
        if k < len(moves):
            play_recorded(position, moves[k], record, k + 1)
            if rules is not None and k < opening:
                apply_rules(position, rules, record.komi)  # Black's opening moves may be a handicap


def game_entry(
    position: Position,
    next_move: tuple[int, int] | None,
    move_number: int,
    evaluator: Evaluator,
    visits: int,
    rules: str,
    dead: Sequence[int] | None = None,
) -> dict:
    """Return the stored whole-game analysis entry of one position (see ``docs/protocol.md``):
    :func:`position_analysis` without the policy, plus ``move_number``, and the move ``played``
    next with its policy rank (``played_rank``, 1 = the network's first choice) and prior.  The
    game's last position, when two passes ended it, is counted under ``rules``, with the ``dead``
    stones when given, instead of searched (:func:`analysis.review.ended.counted_analysis`); two
    passes the record plays on from are searched like any position."""
    size = position.size
    if next_move is None and ended(position):
        analysis = counted_analysis(position, rules, dead)
    else:
        analysis = position_analysis(position, evaluator, visits, include_policy=True)
        policy = np.asarray(analysis.pop("policy"))
    entry = {"move_number": move_number, **analysis, "played": None, "played_rank": None}
    if next_move is not None:
        _, point = next_move
        entry["played"] = to_gtp(point, size)
        entry["played_rank"] = move_rank(policy, point)
        entry["played_prior"] = round(float(policy[point]), 5)
    return entry


def _root_policy(analysis: dict, policy: np.ndarray | None, evaluator: Evaluator, position: Position
                 ) -> np.ndarray:
    """Return the policy the candidates of ``analysis`` came from: the one it shows (over the
    symmetries the root was judged on), else ``policy`` (another network's), else the evaluator's."""
    if analysis.get("policy") is not None:
        return np.asarray(analysis["policy"])
    return policy if policy is not None else evaluator.evaluate([position])[0][0]


def backpred_heatmap(network: Network, position: Position) -> list[float]:
    """Return the back-prediction network's probability of each point (n*n, row-major) having
    been the last move."""
    return [round(float(p), 4) for p in network.predict([position]).policy[0, :-1]]


def root_judgement(evaluator: Evaluator, position: Position, ownership: bool) -> dict:
    """Return the search network's own judgement of ``position`` beside the search's:
    ``score_stdev`` (the spread of the final margin, in points) and, with ``ownership``, the
    ``ownership`` of each point (n*n, row-major, -1..1 for the player to move); None where the
    network has no such head, or the evaluator no network.  Both are averaged over the 8
    symmetries, as the search's root is (the very prediction its root had, when the evaluator keeps
    it: ``judgement``), as the play page's estimate is: one orientation leaves a symmetric
    position's map lopsided."""
    judgement = getattr(evaluator, "judgement", None)
    prediction = judgement(position) if judgement is not None else None
    if prediction is None:
        return {"score_stdev": None, **({"ownership": None} if ownership else {})}
    stdev = prediction.score_stdev
    out = {"score_stdev": None if stdev is None else round(float(stdev[0]), 1)}
    if ownership:
        owned = prediction.ownership
        out["ownership"] = None if owned is None else [round(float(v), 3) for v in owned[0]]
    return out


def answer_query(
    query: PositionQuery,
    evaluator: Evaluator,
    policy_net: Network | None = None,
    backpred: Network | None = None,
    searching: Callable[[Search], None] | None = None,
    progress: Callable[[dict], None] | None = None,
    every: float = 1.0,
) -> dict:
    """Return the ``analysis`` message answering ``query`` (see ``docs/protocol.md``):
    :func:`position_analysis` with ``type``, ``move_number`` and ``max_visits`` (the budget
    asked), the ``ladders`` overlay (or None), each string with the network's view of it
    (:func:`analysis.review.ladder_network.flag_disagreements`: the policy the candidates come
    from), the ``backpred`` heatmap (None without a back-prediction network or a move) and the
    ``backpred_network`` asked that made it ("" without one), and the evaluator's :func:`root_judgement`
    (``score_stdev``, and ``ownership`` when the query asks), and the query's ``node`` when it
    names one.  ``policy_net`` gives the
    candidates and policy instead of the evaluator's network (a next-move network without a
    value head, whose win rates come from ``evaluator``).  With ``query.count_ended``, a position
    that two passes ended is counted instead of searched
    (:func:`analysis.review.ended.counted_analysis`, whose ownership is the count's).

    ``searching`` is given the search before it runs, and ``progress`` the analysis so far every
    ``every`` seconds of it (:func:`position_analysis`), with the :func:`root_judgement` the final
    analysis has (the root's ownership among it when asked: the network's, known from the
    search's first evaluation).  Raises
    ValueError for a query whose position cannot be built, and whatever the evaluator raises.
    """
    position = query.position()
    policy = policy_net.predict([position], SYMMETRIES).policy[0] if policy_net is not None else None
    if query.count_ended and ended(position):
        if query.policy and policy is None:
            policy = evaluator.evaluate([position])[0][0]
        analysis = counted_analysis(position, query.rules, query.dead_points(),
                                    policy if query.policy else None, query.ownership)
    else:
        judged: list[dict] = []  # the root's judgement, once asked

        def judgement() -> dict:
            if not judged:
                judged.append(root_judgement(evaluator, position, query.ownership))
            return judged[0]

        reported = None if progress is None else lambda analysis: progress({**analysis, **judgement()})
        analysis = position_analysis(
            position, evaluator, query.visits, include_policy=query.policy, include_search=query.search_moves,
            policy=policy, filters=query.move_filters(), searching=searching, progress=reported, every=every,
        )
        analysis.update(judgement())
    heatmap = None
    if query.backpred and backpred is not None and position.moves:
        heatmap = backpred_heatmap(backpred, position)
    ladders = ladder.overlay(position) if query.ladders else None
    if ladders is not None and ladders["strings"]:
        flag_disagreements(ladders, position, _root_policy(analysis, policy, evaluator, position))
    return {
        "type": "analysis",
        "move_number": query.move_number,
        "max_visits": query.visits,
        **analysis,
        "ladders": ladders,
        "backpred": heatmap,
        "backpred_network": query.backpred_network if heatmap is not None else "",
        **({"node": query.node} if query.node else {}),
    }
