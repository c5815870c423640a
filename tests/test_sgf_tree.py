"""The board's game tree (analysis.sgf.tree): lines, variations made, deleted and promoted, SGF round
trips with variations, and the replay of every branch."""

from __future__ import annotations

import time

import pytest

from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.sgf import SgfError, read_sgf, write_sgf
from analysis.sgf.tree import (
    TreeError,
    anchor,
    delete,
    extend,
    find,
    is_main_line,
    keep_the_end,
    line_of,
    move_children,
    position_after,
    promote,
    walk,
)

# Main line B E5, W C3, B G3; a variation W G7 at move 2 (with B C7 after it), and a comment-only
# node between B E5 and W C3.
RECORD = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee](;C[hm];W[cg];B[gg])(;W[gc];B[cc]))"


def moves(*vertices: str) -> list[tuple[int, int]]:
    """The line of ``vertices`` played in turn from Black."""
    return [(BLACK if i % 2 == 0 else WHITE, from_gtp(v, 9)) for i, v in enumerate(vertices)]


def vertices(record, nodes) -> list[str]:
    from analysis.go.coords import to_gtp

    return [to_gtp(node.move(9)[1], 9) for node in nodes]


def test_move_children_look_through_nodes_without_a_move() -> None:
    record = read_sgf(RECORD)
    e5 = move_children(anchor(record))[0]
    assert vertices(record, move_children(e5)) == ["C3", "G7"]


def test_a_run_of_thousands_of_nodes_without_a_move_is_looked_through_without_recursion() -> None:
    # 7.5 kB, within every upload limit: the recursion it took before raised RecursionError
    record = read_sgf("(;GM[1]SZ[9];B[ee]" + ";C[x]" * 3000 + ";W[cc](;B[dd])(;C[y];B[gg]))")
    e5 = move_children(anchor(record))[0]
    c7 = move_children(e5)
    assert vertices(record, c7) == ["C7"]
    assert vertices(record, move_children(c7[0])) == ["D6", "G3"]
    assert [placed.node for placed in walk(record)[1]][-1] is find(record, moves("E5", "C7", "G3"))


def test_a_line_names_its_node_and_a_node_gives_back_its_line() -> None:
    record = read_sgf(RECORD)
    node = find(record, moves("E5", "G7", "C7"))
    assert line_of(record, node) == moves("E5", "G7", "C7")
    assert find(record, []) is anchor(record)
    with pytest.raises(TreeError, match="no move 2 white D4"):
        find(record, moves("E5", "D4"))


def test_the_records_own_variations_survive_an_sgf_round_trip() -> None:
    record = read_sgf(write_sgf(read_sgf(RECORD)))
    lines = [line_of(record, placed.node) for placed in walk(record)[1] if not move_children(placed.node)]
    assert lines == [moves("E5", "C3", "G3"), moves("E5", "G7", "C7")]
    assert find(record, moves("E5")).children[0].comment == "hm"


def test_a_variation_made_is_written_as_an_sgf_variation_and_read_back() -> None:
    record = read_sgf(RECORD)
    node = extend(record, find(record, moves("E5", "C3")), moves("E5", "C3", "D4", "F4")[2:])
    assert line_of(record, node) == moves("E5", "C3", "D4", "F4")
    again = read_sgf(write_sgf(record))
    c3 = find(again, moves("E5", "C3"))
    assert vertices(again, move_children(c3)) == ["G3", "D4"]  # the main line first, the new one after
    assert is_main_line(find(again, moves("E5", "C3", "G3")))
    assert not is_main_line(find(again, moves("E5", "C3", "D4", "F4")))
    assert is_main_line(find(again, moves("E5", "C3", "G3")), below=c3)  # walked from C3 down only
    assert not is_main_line(find(again, moves("E5", "C3", "D4")), below=c3)
    assert b"(;B[gg])(;B[df];W[ff])" in write_sgf(record)


def test_extend_follows_the_moves_the_tree_holds_instead_of_adding_them_twice() -> None:
    record = read_sgf(RECORD)
    before = write_sgf(record)
    node = extend(record, anchor(record), moves("E5", "G7"))
    assert node is find(record, moves("E5", "G7"))
    assert write_sgf(record) == before


def test_promote_makes_the_line_the_main_line_and_keeps_the_old_one_as_a_variation() -> None:
    record = read_sgf(RECORD)
    promote(find(record, moves("E5", "G7", "C7")))
    assert record.main_line_moves() == moves("E5", "G7", "C7")
    again = read_sgf(write_sgf(record))
    assert again.main_line_moves() == moves("E5", "G7", "C7")
    assert vertices(again, move_children(find(again, moves("E5")))) == ["G7", "C3"]


def test_moves_past_the_end_of_the_game_make_a_variation_and_leave_its_main_line_as_it_was() -> None:
    record = read_sgf(RECORD)
    line = moves("E5", "C3", "G3", "C7", "G7")  # the game's three moves, then two more
    keep_the_end(record, anchor(record), line)
    node = extend(record, anchor(record), line)
    assert record.main_line_moves() == moves("E5", "C3", "G3")
    assert line_of(record, node) == line and not is_main_line(node)
    again = read_sgf(write_sgf(record))  # the game's end is a node without a move: it is written
    assert again.main_line_moves() == moves("E5", "C3", "G3")
    assert line_of(again, find(again, line)) == line
    keep_the_end(record, anchor(record), moves("E5", "C3", "G3", "D4"))  # the end is closed once
    assert write_sgf(record).count(b"(;)") == 1


def test_deleting_the_last_line_past_the_end_gives_back_the_record_as_it_was() -> None:
    record = read_sgf(RECORD)
    before = write_sgf(record)
    line = moves("E5", "C3", "G3", "C7")
    keep_the_end(record, anchor(record), line)
    delete(record, extend(record, anchor(record), line))
    assert write_sgf(record) == before


def test_promoting_a_line_past_the_end_drops_the_old_end() -> None:
    record = read_sgf(RECORD)
    line = moves("E5", "C3", "G3", "C7")
    keep_the_end(record, anchor(record), line)
    promote(extend(record, anchor(record), line))
    assert record.main_line_moves() == line
    assert b"(;)" not in write_sgf(record) and b";)" not in write_sgf(record)


def test_deleting_after_long_runs_of_nodes_without_a_move_costs_their_length_not_its_square() -> None:
    # 3,000 comment nodes before the first move and 3,000 in the variation: the anchor was found
    # again at each node climbed, 4.4 s; now a few milliseconds
    record = read_sgf("(;GM[1]SZ[9]" + ";C[a]" * 3000 + ";B[ee](;W[cc];B[gg])(;W[cg]" + ";C[a]" * 3000
                      + ";B[gc]))")
    started = time.process_time()
    parent = delete(record, find(record, moves("E5", "C3", "G7")))
    assert time.process_time() - started < 0.5
    assert parent is find(record, moves("E5", "C3"))


def test_delete_removes_a_branch_and_what_follows_it() -> None:
    record = read_sgf(RECORD)
    parent = delete(record, find(record, moves("E5", "G7")))
    assert parent is find(record, moves("E5"))
    assert vertices(record, move_children(parent)) == ["C3"]
    assert b"gc" not in write_sgf(record) and b"cc" not in write_sgf(record)
    with pytest.raises(TreeError):
        delete(record, anchor(record))


def test_walk_replays_every_branch_and_leaves_out_an_illegal_one() -> None:
    # The variation W E5 plays on Black's stone: it and the move after it are left out.
    record = read_sgf("(;GM[1]FF[4]SZ[9];B[ee](;W[cc])(;W[ee];B[dd])(;W[gg];AB[aa]B[dd]))")
    start, placed = walk(record)
    assert start.to_play == BLACK
    reached = [(line_of(record, p.node), len(p.position.moves)) for p in placed]
    assert reached == [(moves("E5"), 1), (moves("E5", "C7"), 2), (moves("E5", "G3"), 2)]


def test_position_after_plays_a_line_the_tree_does_not_hold_and_names_an_illegal_move() -> None:
    record = read_sgf(RECORD)
    position = position_after(record, moves("E5", "D5", "D4"), rules="chinese")
    assert len(position.moves) == 3 and position.to_play == WHITE
    with pytest.raises(SgfError, match="move 2"):
        position_after(record, moves("E5", "E5"))


def test_a_handicap_records_tree_starts_after_its_setup_stones() -> None:
    record = read_sgf("(;GM[1]FF[4]SZ[9]HA[2]AB[cc][gg];W[ee](;B[dd])(;B[ff]))")
    assert anchor(record) is record.root
    start, placed = walk(record, rules="chinese")
    assert start.to_play == WHITE and start.color_at(from_gtp("C7", 9)) == BLACK
    assert [len(p.position.moves) for p in placed] == [1, 2, 2]


def test_a_copied_record_writes_the_same_sgf_and_changing_either_leaves_the_other_alone() -> None:
    record = read_sgf(RECORD, source="game 7")
    twin = record.copy()
    assert write_sgf(twin) == write_sgf(record)
    assert (twin.size, twin.source, twin.komi) == (9, "game 7", 7.5)
    extend(twin, find(twin, []), moves("D5", "E5"))
    find(twin, moves("E5")).set_comment("only in the copy")
    twin.root.set("KM", "0.5")
    assert write_sgf(record) == write_sgf(read_sgf(RECORD))
    assert sum(1 for _ in twin.root.walk()) == sum(1 for _ in record.root.walk()) + 2
    assert b"only in the copy" in write_sgf(twin) and twin.komi == 0.5
    assert all(child.parent is node for node in twin.root.walk() for child in node.children)
    assert twin.root.parent is None
    assert not {id(n) for n in twin.root.walk()} & {id(n) for n in record.root.walk()}
