"""KataGo's avoidMoves and allowMoves in the search (analysis.mcts.restrict): which nodes a filter
restricts, and that a restricted search still finds the best move it may play.

Diagrams: X black, O white, . empty; row 1 is the bottom line, column A the left.
"""

from __future__ import annotations

import numpy as np

from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.position import Position
from analysis.mcts import MoveFilter, Search, SearchConfig
from analysis.mcts.restrict import filtered_legal
from tests.test_mcts import FORCED, AreaEvaluator, HashEvaluator, walk


def points(*vertices: str, size: int = 7) -> frozenset[int]:
    return frozenset(from_gtp(v, size) for v in vertices)


def test_a_filter_applies_to_its_player_above_its_depth_and_leaves_pass_when_nothing_else() -> None:
    legal = np.ones(10, dtype=bool)  # a 3x3 board and pass
    avoid = MoveFilter(BLACK, frozenset({0, 1}), until_depth=2)
    assert filtered_legal(legal, [avoid], WHITE, 0) is legal
    assert filtered_legal(legal, [avoid], BLACK, 2) is legal
    assert filtered_legal(legal, [avoid], BLACK, 1).tolist() == [False, False] + [True] * 8
    allow = MoveFilter(BLACK, frozenset({4}), until_depth=1, allow=True)
    assert np.flatnonzero(filtered_legal(legal, [allow], BLACK, 0)).tolist() == [4]
    nothing = [allow, MoveFilter(BLACK, frozenset({4}), until_depth=1)]
    assert np.flatnonzero(filtered_legal(legal, nothing, BLACK, 0)).tolist() == [9]
    assert legal.all()  # the caller's mask is left as it was


def test_an_avoided_winning_move_is_never_searched_and_the_search_picks_the_best_of_the_rest() -> None:
    pos = Position.from_diagram(FORCED, komi=20.5)
    free = Search(pos, AreaEvaluator(), SearchConfig(batch_size=8)).run(max_visits=100)
    assert free.best == from_gtp("D5", 7)
    avoid = MoveFilter(BLACK, points("D5"), until_depth=1)
    search = Search(pos, AreaEvaluator(), SearchConfig(batch_size=8), filters=[avoid])
    result = search.run(max_visits=100)
    assert from_gtp("D5", 7) not in search.root.moves
    assert result.best == from_gtp("D3", 7) and result.visits == 100  # the other atari
    # deeper down Black may play D5 again: the filter held at the root only
    assert any(parent.to_play == BLACK and parent.moves[idx] == from_gtp("D5", 7)
               for parent, idx, _ in walk(search.root) if parent is not search.root)


def test_allowed_moves_are_the_only_ones_searched_for_their_player_down_to_the_depth() -> None:
    pos = Position(9, komi=7.5)
    allowed = points("E5", "C3", "G7", size=9)
    search = Search(pos, HashEvaluator(), SearchConfig(batch_size=8),
                    filters=[MoveFilter(BLACK, allowed, until_depth=3, allow=True)])
    search.run(max_visits=400)
    assert set(search.root.moves) == set(allowed)
    seen_black_at_depth_2 = 0
    black_moves_deep: set[int] = set()
    frontier = [(search.root, 0)]  # Black's moves at depths 0 and 2 are allowed ones, at 4 any
    while frontier:
        node, depth = frontier.pop()
        if node.moves and node.to_play == BLACK:
            if depth < 3:
                assert set(node.moves) <= set(allowed)
                seen_black_at_depth_2 += depth == 2
            else:
                black_moves_deep |= set(node.moves)
        frontier.extend((child, depth + 1) for child in node.children.values())
    assert seen_black_at_depth_2 > 0 and not black_moves_deep <= set(allowed)
