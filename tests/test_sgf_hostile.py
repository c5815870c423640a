"""Hostile SGF input (issue 35): false or non-text ``CA`` codecs, NUL bytes anywhere, and records
too big to review, refused early by :class:`analysis.sgf.SgfLimits` before the costly steps."""

from __future__ import annotations

import re

import pytest

from analysis.sgf import SgfError, SgfLimits, read_sgf, replay
from analysis.sgf import model as sgf_model
from analysis.sgf.encoding import decode_sgf_bytes
from analysis.sgf.read import root_text

GAME = "(;GM[1]FF[4]CA[{ca}]SZ[9]PB[Müller];B[ee];W[cc])"


@pytest.mark.parametrize("codec", ["UTF-16", "cp037", "utf_16_be", "utf-32"])
def test_a_declared_codec_that_decodes_the_game_away_falls_back_to_detection(codec: str) -> None:
    data = GAME.format(ca=codec).encode("utf-8")  # a real game re-encoded, its CA left false
    game = read_sgf(data)
    assert (game.size, game.players[1], len(game.main_line_moves())) == (9, "Müller", 2)
    assert game.encoding == "utf-8"
    assert read_sgf(f"(;GM[1]FF[4]CA[{codec}]SZ[9];B[ee])".encode()).main_line_moves() == [(1, 40)]


@pytest.mark.parametrize("codec", ["rot13", "base64", "zlib_codec", "hex", "uu_codec", "no-such-codec"])
def test_a_non_text_or_unknown_codec_in_ca_is_ignored(codec: str) -> None:
    game = read_sgf(GAME.format(ca=codec).encode("utf-8"))
    assert game.players[1] == "Müller" and game.encoding == "utf-8"


@pytest.mark.parametrize("value", ["\\x00", "\\u0000", "\\ud800"])
def test_a_codec_that_decodes_escapes_into_a_nul_or_a_lone_surrogate_is_not_believed(value: str) -> None:
    data = f"(;GM[1]CA[unicode_escape]SZ[9]C[a{value}b];B[ee])".encode()
    text, codec = decode_sgf_bytes(data)
    assert codec == "utf-8" and "\0" not in text
    assert read_sgf(data).root.comment == f"a{value[1:]}b"  # SGF's own escape: the backslash goes


@pytest.mark.parametrize("data", [
    b"(;GM[1]FF[4]SZ[19]" + b" " * 5000 + b"PB[\x00];B[dd])",
    "(;GM[1]FF[4]SZ[19]" + " " * 5000 + "PB[\x00];B[dd])",
    b"(;GM[1]SZ[9];B[ee]C[" + b"x" * 9000 + b"\x00])",
])
def test_a_nul_anywhere_is_refused_as_binary_data(data: bytes | str) -> None:
    with pytest.raises(SgfError, match="binary data, not an SGF file") as refused:
        read_sgf(data, source="x.sgf")
    assert refused.value.kind == "not_sgf" and "NUL" in str(refused.value)


def test_text_that_is_not_unicode_is_refused_not_crashed() -> None:
    with pytest.raises(SgfError, match="not valid text") as refused:
        read_sgf("(;SZ[9]C[\ud800];B[ee])")
    assert refused.value.kind == "not_sgf"


LIMITS = SgfLimits(nodes=50, values=20, moves=30, passes_in_a_row=4)


def test_a_game_of_more_nodes_than_the_limit_is_refused_as_too_large() -> None:
    data = "(;SZ[19]" + ";C[x]" * 51 + ")"
    with pytest.raises(SgfError, match="more than 50 nodes") as refused:
        read_sgf(data, limits=LIMITS)
    assert refused.value.kind == "too_large"
    assert len(list(read_sgf(data).nodes())) == 52  # no limits: the archive reader reads it all


def test_a_file_of_many_games_is_refused_once_all_of_them_together_pass_the_node_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built, init = [], sgf_model.SgfNode.__init__

    def counted_init(self: sgf_model.SgfNode, *args: object) -> None:
        built.append(1)
        init(self, *args)

    monkeypatch.setattr(sgf_model.SgfNode, "__init__", counted_init)
    with pytest.raises(SgfError, match="too large: the file has more than 50 nodes"):
        read_sgf("(;B[ee])" * 65_000, limits=LIMITS)
    assert len(built) <= 50  # the games after the bound were never built


def test_a_property_of_more_values_than_the_limit_is_refused_before_its_points_are_expanded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_expansion(*args: object) -> None:
        raise AssertionError("the points were expanded before the refusal")

    monkeypatch.setattr(sgf_model, "expand_points", no_expansion)
    too_many = "root node: too large: property AB has more than 20 values"
    with pytest.raises(SgfError, match=too_many) as refused:
        read_sgf("(;SZ[19]AB" + "[aa:ss]" * 70_000 + ")", limits=LIMITS)
    assert refused.value.kind == "too_large"
    with pytest.raises(SgfError, match="node 1: too large: property XX has more than 20 values"):
        read_sgf("(;SZ[19];XX" + "[a]" * 21 + ")", limits=LIMITS)


def test_a_line_of_more_moves_than_the_limit_is_refused_variations_included() -> None:
    moves = "".join(f";{'BW'[k % 2]}[{'abcdefghijklmnopqrs'[k % 19]}{'abcdefghijklmnopqrs'[k // 19]}]"
                    for k in range(31))
    with pytest.raises(SgfError, match="more than 30 moves") as refused:
        read_sgf(f"(;SZ[19]{moves})", limits=LIMITS)
    assert refused.value.kind == "too_large"
    with pytest.raises(SgfError, match="more than 30 moves"):
        read_sgf(f"(;SZ[19];B[aa](;W[bb])({moves[6:]}))", limits=LIMITS)
    assert len(read_sgf(f"(;SZ[19]{moves[6:]})", limits=LIMITS).main_line_moves()) == 30


def test_more_passes_in_a_row_than_the_limit_are_refused() -> None:
    with pytest.raises(SgfError, match=r"move 6: too large: more than 4 passes in a row") as refused:
        read_sgf("(;SZ[9];B[ee]" + ";W[];B[]" * 3 + ")", limits=LIMITS)
    assert refused.value.kind == "too_large" and refused.value.move_number == 6
    game = read_sgf("(;SZ[9];B[ee]" + ";W[];B[]" * 2 + ";W[aa];B[];W[];B[tt];W[])", limits=LIMITS)
    assert len(replay(game).moves) == 10


def test_the_issues_record_of_63000_pass_pairs_is_refused_by_the_node_limit() -> None:
    data = b"(;GM[1]FF[4]SZ[25]" + b";B[];W[]" * 63_000 + b")"
    with pytest.raises(SgfError, match="more than 10000 nodes"):
        read_sgf(data, limits=SgfLimits(nodes=10_000, values=1_000, moves=1_000, passes_in_a_row=4))


def test_a_property_repeated_in_its_node_counts_all_its_values_against_the_limit() -> None:
    with pytest.raises(SgfError, match="node 1: too large: property C has more than 20 values"):
        read_sgf("(;SZ[9];C" + "[x]C" * 20 + "[x])", limits=LIMITS)  # 21 values in 21 repeats
    node = read_sgf("(;SZ[9];C" + "[x]C" * 19 + "[x])", limits=LIMITS).root.children[0]
    assert len(node.properties["C"]) == 20


def test_point_lists_spanning_more_points_than_the_limit_are_refused_before_they_are_expanded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_expansion(*args: object) -> None:
        raise AssertionError("the points were expanded before the refusal")

    spans = SgfLimits(values=1000, points=1000)
    # each rectangle's corners in four orders: 4 distinct 7-byte values of 361 points each
    corners = "[aa:ss][ss:aa][as:sa][sa:as]"
    with monkeypatch.context() as patch:
        patch.setattr(sgf_model, "expand_points", no_expansion)
        with pytest.raises(SgfError, match="node 1: too large: its setup stones and territory marks span "
                                           "more than 1000 points") as refused:
            read_sgf(f"(;SZ[19];AB{corners})", limits=spans)  # 1,444 in one node
        assert refused.value.kind == "too_large"
        with pytest.raises(SgfError, match="span more than 1000 points"):
            read_sgf(f"(;SZ[19];B[aa];W[bb]TB{corners})", limits=spans)  # territory marks count too
    game = read_sgf("(;SZ[19]AE[aa:ss]AB[dd][pp]" + ";AW[ab:ac]" * 300 + ")", limits=spans)  # 361 + 2 + 600
    assert replay(game).stones()[1, 0] != 0
    with pytest.raises(SgfError, match="span more than 1000 points"):
        read_sgf("(;SZ[19]AE[aa:ss]AB[dd][pp]" + ";AW[ab:ac]" * 320 + ")", limits=spans)  # 1003


# --- files as people save them (the upload audit, item 3) ------------------------------------------

ZOE = "(;GM[1]FF[4]{ca}SZ[9]PB[Zoë]PW[李昌镐]KM[6.5];B[ee];W[cc])"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_unicode_file_with_its_byte_order_mark_is_read_not_refused_as_binary(codec: str) -> None:
    """Windows Notepad's "Unicode" is UTF-16 LE with a BOM: it was "binary data (byte 4 is a NUL)"."""
    text = ZOE.format(ca="CA[UTF-16]")
    data = text.encode(codec)
    if codec.endswith(("-le", "-be")):
        data = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[codec] + data
    game = read_sgf(data, source="notepad.sgf")
    assert game.players == {1: "Zoë", -1: "李昌镐"} and game.main_line_moves() == [(1, 40), (-1, 20)]
    assert game.encoding.startswith(("utf-16", "utf-32"))
    assert decode_sgf_bytes(data)[0] == text


def test_a_file_that_starts_with_a_utf16_mark_but_is_not_utf16_says_so() -> None:
    data = b"\xff\xfe" + "(;SZ[9];B[ee])".encode("utf-16-le") + b"x"  # an odd number of bytes
    message = "x.sgf: not valid UTF-16 text, though it starts with UTF-16's byte order mark"
    with pytest.raises(SgfError, match=re.escape(message)) as refused:
        read_sgf(data, source="x.sgf")
    assert refused.value.kind == "not_sgf"


@pytest.mark.parametrize("label", ["ISO-8859-1", "latin1", "Windows-1252", "iso-8859-15"])
def test_utf8_bytes_labelled_latin1_are_read_as_utf8_not_garbled(label: str) -> None:
    """PB[Zoë] was stored as "ZoÃ«": UTF-8 bytes under the CA that many programs write regardless."""
    game = read_sgf(ZOE.format(ca=f"CA[{label}]").encode("utf-8"))
    assert game.players == {1: "Zoë", -1: "李昌镐"} and game.encoding == "utf-8"


def test_real_latin1_and_ascii_under_a_latin1_label_keep_their_label() -> None:
    latin = "(;GM[1]CA[ISO-8859-1]PB[Zoë]PW[Jérôme Müller]C[±5 «»];B[ee])".encode("latin-1")
    game = read_sgf(latin)
    assert game.players == {1: "Zoë", -1: "Jérôme Müller"} and game.root.comment == "±5 «»"
    assert game.encoding == "iso8859-1"
    assert read_sgf(b"(;GM[1]CA[ISO-8859-1]PB[Zoe];B[ee])").encoding == "iso8859-1"  # ASCII: no doubt


def test_utf8_bytes_labelled_gb2312_still_follow_the_label() -> None:
    """Only a single-byte label gives way: GB2312 bytes are often valid UTF-8 too."""
    gb = "(;FF[4]CA[GB2312]PB[时越]PW[檀啸];B[dd])".encode("gb2312")
    assert read_sgf(gb).players == {1: "时越", -1: "檀啸"}


@pytest.mark.parametrize(("km", "shown"), [
    ("1e308", "1e+308"), ("-1E5", "-100000"), ("1e400", "1e400"), ("9" * 400, "999999999999..."),
])
def test_a_komi_too_large_for_any_game_is_out_of_range_not_not_a_number(km: str, shown: str) -> None:
    """KM[1e308] said "not a number" where KM[200] says "out of range" on the upload form."""
    with pytest.raises(SgfError, match=f"x.sgf, root node: komi {re.escape(shown)} is out of range: at most "
                                       "150 either way") as refused:
        read_sgf(f"(;GM[1]SZ[9]KM[{km}];B[ee])", source="x.sgf")
    assert refused.value.kind == "bad_property"
    with pytest.raises(SgfError, match="bad KM value 'seven': not a number"):
        read_sgf("(;GM[1]SZ[9]KM[seven];B[ee])")


def test_root_text_reads_the_root_nodes_simple_text_only() -> None:
    sgf = "(;GM[1]FF[4]DT[2024-03-01]EV[Kisei\\] final,\n game 3]GN[]C[x];B[ee]EV[not the root])"
    assert root_text(sgf, ["DT", "EV", "GN", "PB"]) == {"DT": "2024-03-01", "EV": "Kisei] final, game 3"}
    assert root_text("not sgf", ["DT"]) == {} and root_text("(;GM[1]EV[Zoë's cup])", ["EV"]) == {
        "EV": "Zoë's cup"}
