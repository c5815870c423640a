"""Ladder reading (Cazenave 2016, algorithms 1 and 2) on hand-built positions.

Diagrams: X black, O white, . empty; row 1 is the bottom line, column A the left.
"""

from __future__ import annotations

import json

from analysis.go.coords import BLACK, WHITE, from_gtp, to_gtp
from analysis.go.position import Position
from analysis.tactics.ladder import (
    LadderLimits,
    capture,
    captured_defender_first,
    overlay,
    point_maps,
    string_ladder,
)

PLAIN = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    . . X X . . . . .
    . . . . . . . . .
"""


def at(pos: Position, vertex: str) -> int:
    return from_gtp(vertex, pos.size)


def gtp(pos: Position, points: list[int]) -> list[str]:
    return [to_gtp(p, pos.size) for p in points]


def test_plain_ladder_runs_diagonally_to_the_edge_and_captures() -> None:
    pos = Position.from_diagram(PLAIN)
    report = string_ladder(pos, at(pos, "C3"))
    assert report is not None
    assert report.status == "capturable"  # black to move captures; white to move extends at C4
    assert gtp(pos, report.pv[:6]) == ["C4", "D3", "E3", "D4", "D5", "E4"]
    assert gtp(pos, report.pv[-2:]) == ["J6", "J5"]  # the last atari and the capture, on the edge
    assert len(report.pv) == 23
    assert to_gtp(report.saving_move, 9) == "C4"
    # Replaying the reading really captures the white string, grown to 12 stones.
    for i, move in enumerate(report.pv):
        captured = pos.play(move, BLACK if i % 2 == 0 else WHITE)
    assert captured == 12


def test_a_breaker_stone_in_the_path_makes_the_ladder_fail() -> None:
    pos = Position.from_diagram(PLAIN)
    pos.setup(white=[at(pos, "G7")])
    assert string_ladder(pos, at(pos, "C3")) is None
    assert capture(pos, at(pos, "C3")) == (False, [])
    # A black stone there instead is a ladder maker: still captured, and sooner.
    pos.undo()
    pos.setup(black=[at(pos, "G7")])
    captured, pv = capture(pos, at(pos, "C3"))
    assert captured and len(pv) < 23


def test_breakers_are_listed_for_the_overlay_and_each_one_really_breaks() -> None:
    pos = Position.from_diagram(PLAIN)
    report = string_ladder(pos, at(pos, "C3"), find_breakers=True)
    assert at(pos, "G7") in report.breakers
    assert at(pos, "C4") not in report.breakers  # a liberty is a saving move, not a breaker
    for p in report.breakers:
        pos.board.play(p, WHITE)
        assert capture(pos, at(pos, "C3"))[0] is False, to_gtp(p, 9)
        pos.board.undo()


def test_fleeing_side_captures_an_ataring_stone_and_escapes() -> None:
    pos = Position.from_diagram(PLAIN)
    pos.setup(white=[at(pos, "E2"), at(pos, "F3")])
    assert string_ladder(pos, at(pos, "C3")) is None
    for v in ("C4", "D3", "E3"):  # black tries anyway: E3 ataris, but E3 itself has one liberty
        pos.play(at(pos, v))
    assert pos.liberties(at(pos, "C3")) == 1
    captured, pv = captured_defender_first(pos, at(pos, "C3"))
    assert not captured
    assert gtp(pos, pv) == ["E4"]  # the saving move captures the ataring stone
    assert pos.play(at(pos, "E4"), WHITE) == 1


def test_ladder_near_the_corner_is_captured_in_three_moves() -> None:
    pos = Position.from_diagram("""
        . . . . . . . . .
        . . . . . . X O .
        . . . . . . . X .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    report = string_ladder(pos, at(pos, "H8"))
    assert report.status == "capturable"
    assert gtp(pos, report.pv) == ["H9", "J8", "J7"]


# From a real game (Tygem validation month, game 487931747 after move 115).
NET = """
    . . X O . . . . . . . . . . . . . . .
    . X . X O . . . X O O . . . . O O O .
    . X X O . . . O X X X X . O O X O . O
    . X O O . . O . O O X . X X O X X O .
    X O O O . . . . O X X . . . X . . X .
    . X X O X . . X O O . . . . . X X . .
    . . . X . . . . O . . . . . . . . . .
    . . X . . . . . . . . . . . . . . . .
    . . O X X . . . . . . . . . . . . X .
    . . O O . . . . . . . . . . X X X O .
    . . . . . . . . . . . . . X . O O O .
    . . . . . . . . . . . . O X O . . . .
    . . . . . . . . . . . X X O O . . . .
    . . O . . . . . . . . . . X X O O . .
    . . X O . . . O . X . . . . . X O . .
    . . . . . . . . . . . . . . X X X X .
    . . . O . . . O . X X O . . O O O X .
    . . . . . . . . O X . . . . . O X X .
    . . . . . . . . . . . . . . . . . . .
"""


def test_a_ladder_that_is_really_a_net_is_not_read_as_a_ladder() -> None:
    pos = Position.from_diagram(NET, to_play=BLACK)
    n8 = at(pos, "N8")
    assert pos.liberties(n8) == 2
    # Neither atari works: white N8 is not capturable in a ladder.
    assert capture(pos, n8) == (False, [])
    assert string_ladder(pos, n8) is None
    # The net M9 (GNU Go's `attack N8` answers `1 M9` here, its `ladder_attack` 0)
    # is no atari, yet afterwards white cannot get out whoever moves first.
    pos.play(at(pos, "M9"))
    assert pos.liberties(n8) == 2
    report = string_ladder(pos, n8)
    assert report.status == "lost"
    assert report.saving_move is None


def test_string_in_atari_that_can_run_escapes_and_one_that_cannot_is_captured() -> None:
    pos = Position.from_diagram("""
        . . . . .
        . . . . .
        . X O . .
        . . X . .
        . . . . .
    """)
    pos.play(at(pos, "C4"), BLACK)  # atari; white runs to D3 and has three liberties
    report = string_ladder(pos, at(pos, "C3"))
    assert report.status == "escapes"
    assert to_gtp(report.saving_move, 5) == "D3"
    pos.setup(black=[at(pos, "E3"), at(pos, "D2")])
    report = string_ladder(pos, at(pos, "C3"))
    assert report.status == "captured"
    assert to_gtp(report.capture_move, 5) == "D3"


# Cazenave 2016, figure 2 ("an unseen ladder"): Golois, playing black, misses a
# ladder that captures five black stones and lets white live.  The figure itself
# is not in the text we have, and its printed sequence cannot be an atari-by-atari
# ladder move for move (B8 is never a liberty of the string C9 ataris), so this is
# a reconstruction of what it shows: white to play starts a seven-move ladder in
# the corner, the fleeing side even captures an ataring stone on the way, and
# white ends by capturing five black stones.
FIGURE_2 = """
    X O . . . . . . .
    X . . . . . . . .
    . . O . . . . . .
    . . O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_cazenave_figure_2_unseen_ladder_captures_five_black_stones() -> None:
    pos = Position.from_diagram(FIGURE_2, to_play=WHITE)
    report = string_ladder(pos, at(pos, "A9"))
    assert report.status == "capturable"
    assert gtp(pos, report.pv) == ["A7", "B8", "B7", "C9", "C8", "B9", "D9"]
    captured = [pos.play(m) for m in report.pv]
    assert captured == [0, 0, 0, 1, 0, 0, 5]


def test_limits_are_configurable_and_a_tiny_node_budget_reads_as_not_captured() -> None:
    pos = Position.from_diagram(PLAIN)
    assert capture(pos, at(pos, "C3"), LadderLimits(max_depth=100, max_nodes=1000))[0]
    assert not capture(pos, at(pos, "C3"), LadderLimits(max_depth=100, max_nodes=10))[0]
    assert not capture(pos, at(pos, "C3"), LadderLimits(max_depth=10, max_nodes=1000))[0]
    captured, _, nodes, budget_hit = pos.board.ladder_capture(at(pos, "C3"), max_nodes=10)
    assert (captured, nodes > 10, budget_hit) == (False, True, True)


def test_search_leaves_the_board_unchanged() -> None:
    pos = Position.from_diagram(PLAIN)
    before = (pos.hash, pos.board.depth, pos.stones().tobytes())
    string_ladder(pos, at(pos, "C3"), find_breakers=True)
    point_maps(pos, BLACK)
    assert (pos.hash, pos.board.depth, pos.stones().tobytes()) == before


def test_point_maps_mark_laddered_stones_and_ladder_starting_moves() -> None:
    pos = Position.from_diagram(PLAIN)
    black = point_maps(pos, BLACK)
    assert black.threatens[5, 2]  # C4 (row 5, col 2) starts the working ladder on C3
    assert not black.threatens[6, 3]  # D3 ataris too, but white runs out through C4
    white = point_maps(pos, WHITE)
    assert not white.captured_if_played[5, 2]  # white C4 gets three liberties
    assert white.breaks[2, 6]  # G7 breaks the ladder on white's C3
    assert not black.breaks.any()


def test_overlay_is_json_with_status_reading_and_breakers() -> None:
    pos = Position.from_diagram(PLAIN)
    data = json.loads(json.dumps(overlay(pos)))
    assert data["size"] == 9
    [string] = data["strings"]
    assert string["color"] == "white" and string["stones"] == ["C3"]
    assert string["status"] == "capturable"
    assert string["capture_move"] == "C4" and string["saving_move"] == "C4"
    assert string["pv"][:3] == ["C4", "D3", "E3"]
    assert "G7" in string["breakers"]
    assert {"point": "G7", "color": "white", "strings": [0]} in data["breakers"]
