"""SGF reading, the game model, writing, and replay through the rules engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analysis.go.coords import BLACK, WHITE, from_gtp, from_sgf
from analysis.sgf import (
    GameRecord,
    SgfError,
    SgfNode,
    iter_sgf_games,
    read_sgf,
    read_sgf_collection,
    replay,
    write_sgf,
    write_sgf_collection,
)
from analysis.sgf.encoding import decode_sgf_bytes, guess_decoding

DATA = Path(__file__).parent / "data" / "sgf"


def load(name: str) -> GameRecord:
    return read_sgf((DATA / name).read_bytes(), source=name)


def tree_shape(node: SgfNode) -> list:
    """Return the whole tree as nested plain data (iteratively, so long games do not recurse)."""
    out: list = []
    stack = [(node, out)]
    while stack:
        current, target = stack.pop()
        children: list = []
        target.append((dict(current.properties), children))
        stack.extend((child, children) for child in reversed(current.children))
    return out


def pts(text: str, size: int = 19) -> list[int]:
    return [from_sgf(p, size) for p in text.split()]


# --- reading: header, tree, moves ---------------------------------------------------------------


def test_header_values_are_read_from_the_root() -> None:
    game = load("variations.sgf")
    assert game.size == 19
    assert game.komi == 6.5
    assert game.handicap == 0
    assert game.rules == "Japanese"
    assert game.result == "B+R"
    assert game.players == {BLACK: "Black Player", WHITE: "White Player"}
    assert game.ranks == {BLACK: "9p", WHITE: "9p"}
    assert game.date == "2023-04-12"
    assert game.name == "Review with variations"
    assert game.source == "variations.sgf"
    assert game.encoding == "utf-8"


def test_text_values_are_unescaped_and_soft_line_breaks_removed() -> None:
    comment = load("variations.sgf").root.comment
    assert comment == (
        "A made-up review with variations. The text goes on after a soft line break.\n"
        "Escapes: a closing bracket ] and a backslash \\ stay intact."
    )


def test_main_line_follows_the_first_child_of_every_node() -> None:
    game = load("variations.sgf")
    moves = game.main_line_moves()
    assert len(moves) == 22
    assert moves[:3] == [
        (BLACK, from_sgf("pd", 19)),
        (WHITE, from_sgf("dp", 19)),
        (BLACK, from_sgf("pp", 19)),
    ]
    assert moves[-1] == (WHITE, from_sgf("cd", 19))
    *_, last = game.main_line()
    assert last.comment == "White lives in the corner."


def test_every_variation_can_be_walked_as_a_line() -> None:
    game = load("variations.sgf")
    lines = list(game.lines())
    assert [line[-1].comment for line in lines] == [
        "White lives in the corner.",
        None,  # the pressing variation ends on W[ge]
        None,  # the "too slow" variation ends on W[ql]
        None,  # the 3-3 invasion ends on B[os]
        "Variation: approach on the other side.",
    ]
    assert lines[0] == list(game.main_line())
    assert [n.get("W") for n in lines[3] if n.get("W")][:2] == ["dp", "dd"]
    assert len(list(game.nodes())) == len({id(n) for line in lines for n in line})
    invasion_end = lines[3][-1]
    assert invasion_end.path() == lines[3]
    assert invasion_end.get("MA") == "os" and invasion_end.properties["TR"] == ["qq", "qr"]


def test_collection_yields_every_game_with_numbered_sources() -> None:
    games = read_sgf_collection((DATA / "collection.sgf").read_bytes(), source="collection.sgf")
    assert [g.size for g in games] == [9, 13, 19]
    assert [g.players[BLACK] for g in games] == ["Alpha", "Gamma", "Epsilon"]
    assert [g.source for g in games] == ["collection.sgf#1", "collection.sgf#2", "collection.sgf#3"]


def test_read_sgf_refuses_a_collection_of_several_games() -> None:
    with pytest.raises(SgfError, match="holds 3 games") as info:
        read_sgf((DATA / "collection.sgf").read_bytes(), source="collection.sgf")
    assert info.value.kind == "several_games"


def test_missing_sz_means_19_and_missing_km_means_zero() -> None:
    game = read_sgf("(;GM[1]FF[4];B[pd];W[dp])")
    assert game.size == 19
    assert game.komi == 0.0
    assert game.main_line_moves() == [(BLACK, from_sgf("pd", 19)), (WHITE, from_sgf("dp", 19))]


@pytest.mark.parametrize("size", [2, 9, 13, 19, 25])
def test_board_sizes_2_to_25_are_accepted(size: int) -> None:
    corner = "a" + "abcdefghijklmnopqrstuvwxy"[size - 1]
    game = read_sgf(f"(;GM[1]FF[4]SZ[{size}];B[{corner}])")
    assert game.size == size
    assert game.main_line_moves() == [(BLACK, (size - 1) * size)]


# --- passes and FF[1]-FF[3] -------------------------------------------------------------------------


def test_pass_written_as_empty_value_is_a_pass() -> None:
    game = read_sgf("(;FF[4]SZ[19];B[pd];W[];B[])")
    assert game.main_line_moves() == [(BLACK, from_sgf("pd", 19)), (WHITE, 361), (BLACK, 361)]


def test_ff3_file_with_tt_passes_and_long_property_names() -> None:
    game = load("pass_ff3_tt.sgf")
    assert game.root.get("FF") == "3"
    assert game.size == 9 and game.komi == 5.5  # SiZe, KoMi: lower-case letters are ignored
    assert game.players == {BLACK: "Old Black", WHITE: "Old White"}
    assert game.main_line_moves()[-2:] == [(WHITE, 81), (BLACK, 81)]
    assert list(game.main_line())[4].comment == "White passes in FF[3] style."


def test_tt_is_a_board_point_on_boards_larger_than_19() -> None:
    game = read_sgf("(;FF[4]SZ[21];B[tt])")
    assert game.main_line_moves() == [(BLACK, 19 * 21 + 19)]


def test_ff1_file_without_gm_ff_or_sz_is_read() -> None:
    game = read_sgf("(;PB[Early]PW[Player]\n;B[dd];W[pp];B[dp])")
    assert game.root.get("FF") is None
    assert len(game.main_line_moves()) == 3


# --- setup stones -----------------------------------------------------------------------------------


def test_handicap_setup_stones_are_placed_and_white_moves_first() -> None:
    game = load("handicap4.sgf")
    assert game.handicap == 4
    assert set(game.initial_setup().black) == set(pts("dd pd dp pp"))
    assert game.initial_setup().white == ()
    assert game.main_line_moves()[0] == (WHITE, from_sgf("qn", 19))
    start = replay(game, upto=0)
    stones = start.stones()
    assert stones.sum() == 4 and (stones == BLACK).sum() == 4
    assert start.to_play == WHITE
    end = replay(game)
    assert end.stones()[3, 3] == BLACK  # D16 handicap stone still there


def test_compressed_point_list_expands_to_a_rectangle() -> None:
    game = read_sgf("(;FF[4]SZ[9]AB[aa:cc][ee]AW[gg:gi])")
    setup = game.initial_setup()
    assert sorted(setup.black) == sorted([r * 9 + c for r in range(3) for c in range(3)] + [40])
    assert sorted(setup.white) == [6 * 9 + 6, 7 * 9 + 6, 8 * 9 + 6]
    assert game.root.properties["AB"] == ["aa:cc", "ee"]  # kept compressed for writing


def test_setup_in_a_later_node_is_applied_when_replaying() -> None:
    game = read_sgf("(;FF[4]SZ[9];B[ee];AW[cc][cd]AE[ee];B[gg])")
    stones = replay(game).stones()
    assert stones[4, 4] == 0  # removed by AE
    assert stones[2, 2] == WHITE and stones[3, 2] == WHITE
    assert stones[6, 6] == BLACK


# --- encodings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "black", "white", "result", "encoding"),
    [
        ("gb2312_no_ca.sgf", "古力", "常昊", "黑中盘胜", "gb18030"),
        ("euc_kr_no_ca.sgf", "이세돌", "박정환", "흑 불계승", "euc_kr"),
        ("shift_jis_no_ca.sgf", "井山裕太", "張栩", "黒中押し勝ち", "shift_jis"),
    ],
)
def test_non_utf8_file_without_ca_is_decoded_by_guessing(
    name: str, black: str, white: str, result: str, encoding: str
) -> None:
    data = (DATA / name).read_bytes()
    assert b"CA[" not in data
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    game = read_sgf(data, source=name)
    assert game.players == {BLACK: black, WHITE: white}
    assert game.result == result
    assert game.encoding == encoding
    assert len(game.main_line_moves()) >= 5


def test_shift_jis_bytes_that_look_like_backslash_or_bracket_stay_inside_the_value() -> None:
    data = (DATA / "shift_jis_no_ca.sgf").read_bytes()
    assert "表".encode("shift_jis")[1:] == b"\\" and "ゾ".encode("shift_jis")[1:] == b"]"
    game = read_sgf(data)
    assert game.root.comment == "黒の中押し勝ち。ソフトの表示能力とゾーンの構想を試す棋譜です。"
    assert game.root.get("EV") == "十段戦 例示"
    assert list(game.main_line())[-1].comment == "申し分ない。"


def test_ca_property_is_honoured() -> None:
    latin = "(;FF[4]CA[ISO-8859-1]PB[Müller]PW[Jérôme];B[dd])".encode("latin-1")
    game = read_sgf(latin)
    assert game.players == {BLACK: "Müller", WHITE: "Jérôme"}
    assert game.encoding == "iso8859-1"
    gb = "(;FF[4]CA[GB2312]PB[时越]PW[檀啸];B[dd])".encode("gb2312")
    # These GB2312 bytes also happen to be valid UTF-8: only CA tells them apart.
    assert guess_decoding(gb)[1] == "utf-8"
    game = read_sgf(gb)
    assert game.players == {BLACK: "时越", WHITE: "檀啸"}
    assert game.encoding == "gb18030"


def test_wrong_ca_falls_back_to_guessing() -> None:
    data = "(;FF[4]CA[UTF-8]PB[古力];B[dd])".encode("gb2312")
    assert decode_sgf_bytes(data) == ("(;FF[4]CA[UTF-8]PB[古力];B[dd])", "gb18030")


def test_text_input_is_read_without_decoding() -> None:
    game = read_sgf("(;FF[4]CA[GB2312]PB[古力];B[dd])")
    assert game.players[BLACK] == "古力"
    assert game.encoding is None


# --- writing and round trips ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["variations.sgf", "handicap4.sgf", "pass_ff3_tt.sgf", "gb2312_no_ca.sgf", "shift_jis_no_ca.sgf"]
)
def test_round_trip_keeps_tree_properties_and_moves(name: str) -> None:
    game = load(name)
    data = write_sgf(game)
    again = read_sgf(data, source="written.sgf")
    assert again.encoding == "utf-8"
    assert again.root.get("CA") == "UTF-8"
    expected = tree_shape(game.root)
    expected[0][0]["CA"] = ["UTF-8"]
    assert tree_shape(again.root) == expected
    assert again.main_line_moves() == game.main_line_moves()
    assert write_sgf(again) == data


def test_round_trip_keeps_unknown_properties_and_every_variation() -> None:
    game = load("variations.sgf")
    again = read_sgf(write_sgf(game))
    nodes = list(again.nodes())
    assert any(n.get("XA") == "an unknown property" for n in nodes)
    assert any(n.get("GA") == "winrate 0.48" for n in nodes)
    assert again.root.get("AP") == "HandWritten:1.0"
    assert len(list(again.lines())) == 5


def test_new_game_with_moves_variation_and_attached_analysis_round_trips() -> None:
    game = GameRecord.new(9, 7.0, rules="Chinese", black_player="Alice", white_player="Bob")
    first = game.add_move(BLACK, from_sgf("ee", 9))
    game.add_move(WHITE, from_sgf("cc", 9))
    game.add_move(BLACK, 81)  # pass
    alternative = game.add_move(WHITE, from_sgf("gg", 9), parent=first)
    first.set_comment("Tengen. Analysis: black ahead]\\")
    first.set("GA", ["winrate 0.55", "visits 800"])
    alternative.set("GA", "winrate 0.41")

    again = read_sgf(write_sgf(game))
    assert again.players == {BLACK: "Alice", WHITE: "Bob"}
    assert again.rules == "Chinese" and again.komi == 7.0 and again.size == 9
    assert again.main_line_moves() == [(BLACK, 40), (WHITE, 20), (BLACK, 81)]
    node = again.root.children[0]
    assert node.comment == "Tengen. Analysis: black ahead]\\"
    assert node.properties["GA"] == ["winrate 0.55", "visits 800"]
    assert [c.get("W") for c in node.children] == ["cc", "gg"]
    assert node.children[1].get("GA") == "winrate 0.41"


def test_collection_round_trip() -> None:
    games = read_sgf_collection((DATA / "collection.sgf").read_bytes())
    again = read_sgf_collection(write_sgf_collection(games))
    assert [g.main_line_moves() for g in again] == [g.main_line_moves() for g in games]


def test_node_set_rejects_bad_identifiers_and_removes_on_empty() -> None:
    node = SgfNode({"C": "hello"})
    with pytest.raises(ValueError, match="identifier"):
        node.set("ga", "x")
    with pytest.raises(ValueError, match="identifier"):
        node.set("", "x")
    node.set_comment("")
    assert node.comment is None and "C" not in node.properties
    node.set("GA", ["a", "b"])
    node.unset("GA")
    assert node.properties == {}


# --- malformed input --------------------------------------------------------------------------------


def read_fixture_error(name: str) -> SgfError:
    with pytest.raises(SgfError) as info:
        read_sgf((DATA / name).read_bytes(), source=name)
    assert str(info.value).startswith(name)
    assert info.value.source == name
    return info.value


def test_truncated_file_is_reported_as_truncated() -> None:
    error = read_fixture_error("truncated.sgf")
    assert error.kind == "truncated"
    assert "truncated" in str(error)


def test_file_cut_inside_a_value_is_reported_as_truncated() -> None:
    with pytest.raises(SgfError, match=r"cut\.sgf, line 2: file ends inside a property value") as info:
        read_sgf(b"(;GM[1]SZ[19]\n;B[pd];W[dp];C[a comment that never ends", source="cut.sgf")
    assert info.value.kind == "truncated"


def test_stray_closing_parenthesis_is_reported_as_unbalanced() -> None:
    with pytest.raises(SgfError, match=r"x\.sgf, line 2: unbalanced: unexpected '\)'"):
        read_sgf(b"(;GM[1];B[pd];W[dp])\n)", source="x.sgf")


@pytest.mark.parametrize(
    ("name", "message"), [("not_sgf.png", "binary data"), ("not_sgf.txt", "no game tree")]
)
def test_data_that_is_not_sgf_is_rejected(name: str, message: str) -> None:
    error = read_fixture_error(name)
    assert error.kind == "not_sgf"
    assert message in str(error)


def test_out_of_range_coordinate_names_the_property_and_move() -> None:
    error = read_fixture_error("out_of_range.sgf")
    assert str(error) == (
        "out_of_range.sgf, move 3: bad coordinate in B[jj]: SGF point 'jj' is off a 9x9 board"
    )
    assert error.kind == "bad_coordinate"
    assert error.move_number == 3 and error.where == "move 3"


def test_out_of_range_setup_point_names_the_node() -> None:
    with pytest.raises(SgfError, match=r"s\.sgf, node 2: bad coordinate in AW: .*'zz'") as info:
        read_sgf("(;SZ[9];B[ee];AW[zz])", source="s.sgf")
    assert info.value.move_number is None


@pytest.mark.parametrize("sgf", ["(;SZ[9]AB[ab][ba]AW[aa];B[ee])",  # A8 and B9 surround A9
                                 "(;SZ[9];AW[aa];AB[ba][ab];B[ee])"])  # the same, a node later
def test_setup_stones_that_leave_a_string_without_liberties_name_the_node_and_the_point(sgf: str) -> None:
    game = read_sgf(sgf, source="s.sgf")
    airless = r"^s\.sgf, (root node|node \d): setup stones leave the stones at A9 without liberties$"
    with pytest.raises(SgfError, match=airless) as info:
        replay(game, check_setup=True)
    assert info.value.kind == "illegal_setup"
    assert replay(game).color_at(0) == WHITE  # a stored record, checked when it came in, still loads
    captured = replay(read_sgf("(;SZ[9]AB[ab]AW[aa];B[ba])"), check_setup=True)  # a move takes them
    assert captured.color_at(0) == 0


def test_out_of_range_coordinate_in_a_variation_is_found() -> None:
    with pytest.raises(SgfError, match=r"move 2 of a variation: bad coordinate in W\[kk\]"):
        read_sgf("(;SZ[9];B[ee](;W[cc])(;W[kk]))")


def test_illegal_move_onto_an_occupied_point_names_move_coordinate_and_reason() -> None:
    game = load("illegal_occupied.sgf")  # reading does not apply the rules
    with pytest.raises(SgfError) as info:
        replay(game)
    error = info.value
    assert error.kind == "illegal_move"
    assert error.move_number == 6
    message = str(error)
    assert message.startswith("illegal_occupied.sgf, move 6: ")
    assert "W[ee]" in message and "E5" in message and "occupied" in message
    assert replay(game, upto=5).stones()[4, 4] == BLACK  # fine up to the move before


@pytest.mark.parametrize(
    ("sgf", "message"),
    [
        ("(;SZ[19:13])", "not square"),
        ("(;SZ[1])", "between 2 and 25"),
        ("(;SZ[26])", "between 2 and 25"),
        ("(;SZ[nineteen])", "bad SZ value 'nineteen'"),
        ("(;KM[six])", "bad KM value 'six'"),
        ("(;KM[nan])", "bad KM value 'nan'"),
        ("(;HA[-2])", "bad HA value"),
        ("(;SZ[9]HA[81])", "bad HA value '81': more stones than a 9x9 board holds"),
        ("(;HA[" + "9" * 30 + "])", "bad HA value '999999999999': more stones than a 19x19 board"),
        ("(;FF[7])", "unsupported file format"),
    ],
)
def test_bad_root_values_are_rejected_with_the_value(sgf: str, message: str) -> None:
    with pytest.raises(SgfError, match=message) as info:
        read_sgf(sgf, source="bad.sgf")
    assert str(info.value).startswith("bad.sgf, root node: ")
    assert info.value.kind == "bad_property"


def test_game_other_than_go_is_rejected() -> None:
    with pytest.raises(SgfError, match=r"not a Go game \(GM\[3\]\)") as info:
        read_sgf("(;GM[3]FF[4];B[aa])")
    assert info.value.kind == "not_go"


@pytest.mark.parametrize(
    ("sgf", "message"),
    [
        ("(;B[aa];W[bb](;B[cc]);W[dd])", "node after variations"),
        ("(;B[aa]())", "empty game tree"),
        ("(;B[aa][bb])", "move B has 2 values"),
        ("(;B[aa]W[bb])", "both a black and a white move"),
    ],
)
def test_structural_errors_are_rejected(sgf: str, message: str) -> None:
    with pytest.raises(SgfError, match=message):
        read_sgf(sgf)


def test_iter_sgf_games_reports_a_bad_game_and_keeps_the_others() -> None:
    data = "(;SZ[9];B[ee])(;SZ[9];B[zz])(;SZ[9];W[cc])"
    items = list(iter_sgf_games(data, source="three.sgf"))
    assert [type(i).__name__ for i in items] == ["GameRecord", "SgfError", "GameRecord"]
    assert items[1].source == "three.sgf#2"


# --- replay -----------------------------------------------------------------------------------------


def test_replay_plays_the_main_line_with_captures() -> None:
    game = read_sgf("(;FF[4]SZ[9]KM[7];B[ba];W[aa];B[ab])")  # black captures the corner stone
    position = replay(game)
    assert position.stones()[0, 0] == 0
    assert position.to_play == WHITE
    assert isinstance(position.stones(), np.ndarray)


def test_replay_upto_stops_after_that_many_moves() -> None:
    game = load("variations.sgf")
    assert (replay(game, upto=4).stones() != 0).sum() == 4
    assert (replay(game, upto=0).stones() != 0).sum() == 0
    assert (replay(game, upto=1000).stones() != 0).sum() == 22
    with pytest.raises(ValueError, match="upto"):
        replay(game, upto=-1)


def test_new_records_with_setup_beside_or_after_a_move_are_refused_and_stored_ones_still_load() -> None:
    beside = read_sgf("(;SZ[9];AB[cc]B[ee];W[gg])", source="s.sgf")
    with pytest.raises(SgfError, match=r"^s\.sgf, node 1: adds or removes stones \(AB/AW/AE\) beside a move"):
        replay(beside, check_setup=True)
    late = read_sgf("(;SZ[9];B[ee];AB[cc];W[gg])", source="s.sgf")
    assert replay(late).color_at(from_gtp("C7", 9)) == BLACK  # a stored record still loads
    with pytest.raises(SgfError, match=r"^s\.sgf, node 2: adds or removes stones \(AB/AW/AE\) after move 1"):
        replay(late, check_setup=True)


@pytest.mark.parametrize(("komi", "written"),
                         [(7.5, "7.5"), (-3.0, "-3"), (1e-4, "0.0001"), (1e-9, "0"), (0.0, "0")])
def test_a_new_records_komi_is_written_never_with_an_exponent(komi: float, written: str) -> None:
    record = GameRecord.new(9, komi)
    assert record.root.get("KM") == written and read_sgf(write_sgf(record)).komi == float(written)
