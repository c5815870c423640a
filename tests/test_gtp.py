"""The GTP engine in-process: line parsing, every command's happy path and its error path."""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.bot.player import Decision
from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.position import Position
from analysis.gtp import __main__ as gtp_main
from analysis.gtp.client import GtpClient, GtpError
from analysis.gtp.clock import LAG_SECONDS, control_seconds
from analysis.gtp.engine import GtpEngine, format_reply, parse_line
from analysis.gtp.stream import MAX_LINE, TooLong, read_lines
from analysis.match import run as match_run
from analysis.play.clock import MAX_MAIN, MAX_PERIODS, MIN_SECONDS, TimeControl
from analysis.version import version as program_version

ROOT = Path(__file__).resolve().parent.parent


def ask(engine: GtpEngine, line: str) -> tuple[bool, str]:
    """Return (success, text) of the engine's reply to one command line."""
    reply = engine.respond(line)
    assert reply is not None and reply.endswith("\n\n"), reply
    match = re.fullmatch(r"([=?])(\d*) (.*)\n\n", reply, re.DOTALL)
    assert match, reply
    return match.group(1) == "=", match.group(3)


def ok(engine: GtpEngine, line: str) -> str:
    success, text = ask(engine, line)
    assert success, f"{line!r} failed: {text}"
    return text


def err(engine: GtpEngine, line: str) -> str:
    success, text = ask(engine, line)
    assert not success, f"{line!r} succeeded: {text}"
    return text


KO = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. X O . . . . . .
X O . O . . . . .
. X O . . . . . .
"""

TRIPLE_KO = """
. X O . . . X O .
X O . O . X . X O
. X O . . . X O .
. . . . . . . . .
. X O . . . . . .
X O . O . . . . .
. X O . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


@pytest.fixture
def engine() -> GtpEngine:
    return GtpEngine(size=9)


# -- protocol -------------------------------------------------------------


def test_parse_line_strips_comments_control_characters_and_tabs() -> None:
    request = parse_line("12\tplay\x01 black  E5 # a comment\r\n")
    assert request is not None
    assert (request.id, request.name, request.args) == ("12", "play", ["black", "E5"])
    assert parse_line("   \n") is None
    assert parse_line("# only a comment\n") is None


def test_reply_format_echoes_the_id() -> None:
    assert format_reply("7", "2") == "=7 2\n\n"
    assert format_reply(None, "") == "= \n\n"
    assert format_reply("3", "unknown command", ok=False) == "?3 unknown command\n\n"


def test_ids_are_echoed_on_success_and_failure(engine: GtpEngine) -> None:
    assert engine.respond("12 name") == "=12 goweb\n\n"
    assert engine.respond("13 frobnicate") == "?13 unknown command\n\n"


def test_empty_and_comment_lines_get_no_reply(engine: GtpEngine) -> None:
    assert engine.respond("\n") is None
    assert engine.respond("  # nothing here\n") is None
    assert engine.respond("\x00\x07\r\n") is None


def test_unknown_and_garbage_commands_fail_and_the_engine_goes_on(engine: GtpEngine) -> None:
    for line in ("frobnicate", "\x00gar\x07bage", "PLAY black E5", "42", "é ü", ")(*&^%"):
        assert err(engine, line) == "unknown command"
    assert ok(engine, "protocol_version") == "2"


def test_a_crashing_command_becomes_an_error_reply(engine: GtpEngine) -> None:
    def crash(engine: GtpEngine, args: list[str]) -> str:
        raise ZeroDivisionError("boom")

    engine.commands = {**engine.commands, "crash": crash}
    assert err(engine, "crash") == "internal error: ZeroDivisionError: boom"
    assert ok(engine, "name") == "goweb"


def test_admin_commands(engine: GtpEngine) -> None:
    assert ok(engine, "protocol_version") == "2"
    assert ok(engine, "name") == "goweb"
    assert ok(engine, "version")
    assert ok(engine, "known_command play") == "true"
    assert ok(engine, "known_command frobnicate") == "false"
    assert err(engine, "known_command") == "syntax error"
    names = ok(engine, "list_commands").split("\n")
    for command in (
        "protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
        "clear_board", "komi", "play", "genmove", "undo", "fixed_handicap", "place_free_handicap",
        "set_free_handicap", "final_score", "final_status_list", "showboard", "time_settings",
        "time_left", "loadsgf", "printsgf", "list_stones", "is_legal", "countlib", "captures",
    ):  # fmt: skip
        assert command in names
    assert names == sorted(names)


def test_quit_replies_then_stops_serving(engine: GtpEngine) -> None:
    out = io.StringIO()
    engine.serve([b"1 name\n", b"2 quit\n", b"3 name\n"], out)
    assert out.getvalue() == "=1 goweb\n\n=2 \n\n"


def test_serve_survives_undecodable_bytes_and_stops_at_end_of_input(engine: GtpEngine) -> None:
    out = io.StringIO()
    engine.serve([b"\xff\xfe garbage\n", b"\n", b"protocol_version\n"], out)
    assert out.getvalue() == "? unknown command\n\n= 2\n\n"


def test_a_line_over_a_mib_is_refused_with_its_id_and_the_lines_after_it_are_read_whole(
    tmp_path: Path
) -> None:
    long = b"7 play black D4 " + b"x" * (3 * MAX_LINE)
    path = tmp_path / "input"
    path.write_bytes(long + b"\n8 name\n" + b"#" * (2 * MAX_LINE) + b"\nlast")
    with path.open("rb") as f:
        lines = list(read_lines(f.fileno()))
    assert [type(line) for line in lines] == [TooLong, bytes, TooLong, bytes]
    assert lines[0] == long[:MAX_LINE] and lines[1:2] == [b"8 name\n"] and lines[3] == b"last"
    out = io.StringIO()
    GtpEngine().serve(lines, out)
    assert out.getvalue() == "?7 line too long: over 1 MiB\n\n=8 goweb\n\n? unknown command\n\n"


def test_a_line_without_an_end_is_read_in_time_that_grows_with_its_length(tmp_path: Path) -> None:
    path = tmp_path / "input"
    path.write_bytes(b"y" * (24 * MAX_LINE))  # 64 KiB reads each joined to all before: 6 s, now 0.03
    started = time.perf_counter()
    with path.open("rb") as f:
        lines = list(read_lines(f.fileno()))
    assert time.perf_counter() - started < 2
    assert lines == [b"y" * MAX_LINE] and isinstance(lines[0], TooLong)


def run_engine(commands: bytes, *options: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m analysis.gtp`` on ``commands`` until it exits; return the finished process."""
    argv = [sys.executable, "-m", "analysis.gtp", *options]
    return subprocess.run(argv, input=commands, capture_output=True, timeout=30, cwd=ROOT, check=False)


def test_engine_process_speaks_gtp_on_stdin_and_stdout() -> None:
    commands = (
        b"7 name\n"
        b"garbage ### more\n"
        b"\n# a comment line\n"
        b"\xff\xfe\n"
        b"8\tplay black E5\r\n"
        b"list_stones black\n"
        b"9 final_score\n"
        b"quit\n"
        b"name\n"
    )
    done = run_engine(commands, "--size", "9", "--rules", "japanese", "--komi", "0.5")
    assert done.returncode == 0
    assert done.stdout.decode() == (
        "=7 goweb\n\n"
        "? unknown command\n\n"
        "? unknown command\n\n"
        "=8 \n\n"
        "= E5\n\n"
        "=9 B+79.5\n\n"  # territory: 80 points against komi 0.5
        "= \n\n"
    )


def test_engine_process_exits_at_end_of_input() -> None:
    done = run_engine(b"name")
    assert done.returncode == 0
    assert done.stdout == b"= goweb\n\n"


def test_version_names_the_network_the_bot_plays_with_and_its_weights_fingerprint() -> None:
    def version(*options: str) -> str:
        return run_engine(b"version\n", *options).stdout.decode()

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12]

    ours = program_version()  # pyproject.toml's, as the KataGo JSON engine and the site's records say
    assert ours == "0.1.0" and version("--level", "rules") == f"= {ours}\n\n"
    policy = ROOT / "weights" / "policy.pt"
    assert version("--level", "policy", "--network", "golois-score") == (
        f"= {ours} (golois-score policy.pt sha256:{digest(policy)})\n\n")
    as_file = version("--level", "policy", "--weights", str(policy))
    assert as_file == f"= {ours} (policy.pt sha256:{digest(policy)})\n\n"
    assert GtpEngine(network="x a.pt sha256:0123").respond("version") == f"= {ours} (x a.pt sha256:0123)\n\n"


def test_engine_process_options_are_checked() -> None:
    assert run_engine(b"", "--rules", "ing").returncode == 2
    assert run_engine(b"", "--size", "30").returncode == 2
    board = run_engine(b"showboard\n", "--size", "5", "--seed", "3").stdout.decode()
    assert board.startswith("= \n   A B C D E\n 5 . . . . . 5\n 4 . + . + . 4\n")


def test_engine_process_replies_one_at_a_time_as_commands_arrive() -> None:
    """Replies are flushed at once: a controller can wait for each before sending the next."""
    argv = [sys.executable, "-m", "analysis.gtp", "--size", "9"]
    with GtpClient(argv) as client:
        for _ in range(3):
            assert client.send("protocol_version") == "2"
        with pytest.raises(GtpError, match="illegal move: occupied"):
            client.send("play black E5")
            client.send("play white E5")
        assert client.send("list_stones black") == "E5"


# -- board setup ----------------------------------------------------------


def test_boardsize_resizes_and_clears(engine: GtpEngine) -> None:
    ok(engine, "play black E5")
    ok(engine, "boardsize 13")
    assert engine.position.size == 13
    assert ok(engine, "list_stones black") == ""
    assert ok(engine, "boardsize 25") == ""
    assert ok(engine, "boardsize 19 19") == "" and engine.position.size == 19  # Lizzie's square form


@pytest.mark.parametrize("size", ["1", "26", "0", "-9", "9 7", "19 13"])
def test_boardsize_rejects_unacceptable_sizes(engine: GtpEngine, size: str) -> None:
    assert err(engine, f"boardsize {size}").startswith("unacceptable size")
    assert engine.position.size == 9


@pytest.mark.parametrize("line", ["boardsize", "boardsize nine", "boardsize 9.5"])
def test_boardsize_syntax_errors(engine: GtpEngine, line: str) -> None:
    assert err(engine, line) == "syntax error"


def test_clear_board_clears_stones_history_and_captures(engine: GtpEngine) -> None:
    for move in ("b A1", "w A2", "b E5", "w B1"):
        ok(engine, f"play {move}")
    assert ok(engine, "captures white") == "1"
    ok(engine, "clear_board")
    assert ok(engine, "list_stones white") == ""
    assert ok(engine, "captures white") == "0"
    assert err(engine, "undo") == "cannot undo"


def test_komi_sets_the_komi(engine: GtpEngine) -> None:
    ok(engine, "komi -3.5")
    assert engine.komi == engine.position.komi == -3.5
    ok(engine, "clear_board")
    assert engine.position.komi == -3.5


@pytest.mark.parametrize("line", ["komi", "komi six", "komi nan", "komi inf"])
def test_komi_syntax_errors(engine: GtpEngine, line: str) -> None:
    assert err(engine, line) == "syntax error"


def test_a_komi_beyond_150_points_is_refused_and_the_komi_stays(engine: GtpEngine) -> None:
    ok(engine, "komi 150")
    ok(engine, "komi -150")
    for line in ("komi 150.5", "komi -151", "komi 1e308"):  # 1e308 once reached the network as inf
        assert err(engine, line) == "unacceptable komi: at most 150 either way"
    assert engine.komi == engine.position.komi == -150


@pytest.mark.parametrize("value", ["151", "-1e308", "nan", "seven"])
def test_the_komi_options_of_the_engine_and_the_match_refuse_what_the_komi_command_refuses(
        value: str, capsys: pytest.CaptureFixture[str]) -> None:
    for parse in (gtp_main.parse_args, match_run.parse_args):
        required = [] if parse is gtp_main.parse_args else ["--black", "b", "--white", "w"]
        with pytest.raises(SystemExit) as exit_info:
            parse([*required, "--komi", value])
        assert exit_info.value.code == 2
        assert "argument --komi: " in capsys.readouterr().err
    assert gtp_main.parse_args(["--komi", "-150"]).komi == -150


def test_rules_choose_ko_rule_komi_and_scoring() -> None:
    chinese, japanese = GtpEngine(), GtpEngine(rules="japanese")
    assert chinese.superko and chinese.komi == 7.5
    assert not japanese.superko and japanese.komi == 6.5
    with pytest.raises(ValueError, match="unknown rules"):
        GtpEngine(rules="ing")


# -- play, genmove, undo ---------------------------------------------------


def test_play_places_stones_of_either_colour_in_any_order(engine: GtpEngine) -> None:
    ok(engine, "play black E5")
    ok(engine, "play B d4")
    ok(engine, "play white pass")
    ok(engine, "play WHITE J9")
    assert ok(engine, "list_stones black") == "E5 D4"
    assert ok(engine, "list_stones white") == "J9"


@pytest.mark.parametrize("line", ["play", "play black", "play blue E5", "play black I5", "play black J10"])
def test_play_rejects_bad_colours_and_vertices_like_gnugo(engine: GtpEngine, line: str) -> None:
    assert err(engine, line) == "invalid color or coordinate"


def test_play_illegal_moves_name_the_reason(engine: GtpEngine) -> None:
    ok(engine, "play black E5")
    assert err(engine, "play white E5") == "illegal move: occupied"
    for move in ("b A2", "b B1"):
        ok(engine, f"play {move}")
    assert err(engine, "play white A1") == "illegal move: suicide"


def test_play_forbids_retaking_a_ko(engine: GtpEngine) -> None:
    engine.position = Position.from_diagram(KO, superko=True)
    ok(engine, "play black C2")
    assert ok(engine, "captures black") == "1"
    assert err(engine, "play white B2") == "illegal move: ko"


def test_chinese_rules_forbid_superko_yet_play_takes_a_repetition_as_katago_does() -> None:
    """A triple ko: after six captures the position repeats."""
    moves = ["b C8", "w G8", "b C4", "w B8", "b H8", "w B4"]
    chinese, japanese = GtpEngine(size=9), GtpEngine(size=9, rules="japanese")
    for engine in (chinese, japanese):
        engine.position = Position.from_diagram(TRIPLE_KO, superko=engine.superko)
    for move in moves[:5]:
        ok(chinese, f"play {move}")
        ok(japanese, f"play {move}")
    assert ok(chinese, f"is_legal {moves[5]}") == "0" and ok(japanese, f"is_legal {moves[5]}") == "1"
    # a GUI replaying its record goes out of step when a move is refused: play takes the repetition,
    # as KataGo does, and the rules still hold for the engine's own moves
    ok(chinese, f"play {moves[5]}")
    ok(japanese, f"play {moves[5]}")
    assert chinese.position.superko
    assert chinese.position.stones().tolist() == japanese.position.stones().tolist()


def test_genmove_plays_a_legal_move_on_the_board(engine: GtpEngine) -> None:
    vertex = ok(engine, "genmove black")
    point = from_gtp(vertex, 9)
    assert engine.position.color_at(point) == BLACK
    assert engine.position.to_play == WHITE
    assert ok(engine, "genmove w") != vertex


def test_genmove_rejects_a_bad_colour(engine: GtpEngine) -> None:
    assert err(engine, "genmove") == "invalid color"
    assert err(engine, "genmove purple") == "invalid color"


def test_genmove_passes_when_only_eyes_are_left() -> None:
    engine = GtpEngine(size=5)
    engine.position = engine.position.from_diagram(
        """
        . X . X .
        X X X X X
        X X X X X
        X X X X X
        X X X X X
        """
    )
    assert ok(engine, "genmove black") == "pass"


def test_undo_takes_back_moves_but_not_handicap(engine: GtpEngine) -> None:
    assert err(engine, "undo") == "cannot undo"
    ok(engine, "fixed_handicap 2")
    ok(engine, "play white E5")
    ok(engine, "undo")
    assert ok(engine, "list_stones white") == ""
    assert err(engine, "undo") == "cannot undo"
    assert ok(engine, "list_stones black") == "G7 C3"


def test_undo_restores_captured_stones(engine: GtpEngine) -> None:
    for move in ("b A1", "w A2", "b E5", "w B1"):
        ok(engine, f"play {move}")
    ok(engine, "undo")
    assert ok(engine, "list_stones black") == "E5 A1"
    assert ok(engine, "captures white") == "0"


# -- handicap -------------------------------------------------------------


def test_fixed_handicap_places_black_stones_and_white_plays(engine: GtpEngine) -> None:
    assert ok(engine, "fixed_handicap 5") == "G7 C3 C7 G3 E5"
    assert engine.position.to_play == WHITE
    assert engine.handicap == 5


@pytest.mark.parametrize("count", ["0", "1", "10", "-2"])
def test_fixed_handicap_rejects_invalid_counts(engine: GtpEngine, count: str) -> None:
    assert err(engine, f"fixed_handicap {count}") == "invalid handicap"


def test_fixed_handicap_needs_an_empty_board_and_a_number(engine: GtpEngine) -> None:
    assert err(engine, "fixed_handicap two") == "syntax error"
    ok(engine, "play black E5")
    assert err(engine, "fixed_handicap 2") == "board not empty"


def test_fixed_handicap_is_limited_on_small_boards() -> None:
    engine = GtpEngine(size=7)
    assert err(engine, "fixed_handicap 5") == "invalid handicap"
    engine = GtpEngine(size=5)
    assert err(engine, "fixed_handicap 2") == "invalid handicap"


def test_place_free_handicap_places_distinct_stones(engine: GtpEngine) -> None:
    vertices = ok(engine, "place_free_handicap 12").split()
    assert len(set(vertices)) == 12
    assert set(ok(engine, "list_stones black").split()) == set(vertices)
    assert engine.position.to_play == WHITE


def test_place_free_handicap_errors(engine: GtpEngine) -> None:
    assert err(engine, "place_free_handicap") == "syntax error"
    assert err(engine, "place_free_handicap 1") == "invalid handicap"
    assert err(engine, "place_free_handicap 81") == "invalid handicap"
    ok(engine, "play white E5")
    assert err(engine, "place_free_handicap 2") == "board not empty"


def test_set_free_handicap_places_the_given_stones(engine: GtpEngine) -> None:
    assert ok(engine, "set_free_handicap A1 J9 e5") == ""
    assert ok(engine, "list_stones black") == "J9 E5 A1"
    assert engine.handicap == 3
    assert engine.position.to_play == WHITE


@pytest.mark.parametrize(
    "vertices", ["", "A1", "A1 A1", "A1 a1", "A1 pass", "A1 Z9", "A1 I5", "A1 K10", "A1 hello"]
)
def test_set_free_handicap_rejects_bad_vertex_lists_and_places_nothing(
    engine: GtpEngine, vertices: str
) -> None:
    assert err(engine, f"set_free_handicap {vertices}") == "bad vertex list"
    assert ok(engine, "list_stones black") == ""


def test_set_free_handicap_rejects_a_full_board_and_a_non_empty_board() -> None:
    engine = GtpEngine(size=2)
    assert err(engine, "set_free_handicap A1 A2 B1 B2") == "bad vertex list"
    assert ok(engine, "set_free_handicap A1 A2 B1") == ""
    assert err(engine, "set_free_handicap A1 B2") == "board not empty"


# -- scoring ----------------------------------------------------------------

SEKI_AND_DEAD = """
. X O . O X . X .
X X O O O X X X X
O O O X X X . X O
. O X . X O O O .
O O X X X O . O O
X X X O O O O X .
. X O O . O X X X
X X X O O O O X .
. X . X . O . X X
"""


def test_final_score_counts_area_under_chinese_rules(engine: GtpEngine) -> None:
    ok(engine, "komi 7.5")
    assert ok(engine, "final_score") == "W+7.5"
    ok(engine, "play black E5")
    assert ok(engine, "final_score") == "B+73.5"


def test_final_score_counts_territory_and_prisoners_under_japanese_rules() -> None:
    """Black captures A1: 79 points of territory and a prisoner, against 81 points of area."""
    japanese, chinese = GtpEngine(rules="japanese", size=9, komi=0), GtpEngine(size=9, komi=0)
    for engine in (japanese, chinese):
        for move in ("b B1", "w A1", "b A2"):
            ok(engine, f"play {move}")
    assert ok(japanese, "final_score") == "B+80"
    assert ok(chinese, "final_score") == "B+81"


def test_final_status_list_lists_one_string_per_line(engine: GtpEngine) -> None:
    for move in ("b E5", "b E4", "b C3", "w pass"):
        ok(engine, f"play {move}")
    assert ok(engine, "final_status_list alive") == "E5 E4\nC3"
    assert ok(engine, "final_status_list dead") == ""
    assert ok(engine, "final_status_list seki") == ""


def test_final_status_list_finds_dead_stones() -> None:
    engine = GtpEngine(size=7)
    engine.position = Position.from_diagram(
        """
        . . X . O . .
        . . X . O . .
        X X X . O O O
        . . . . . . .
        O O O O O O O
        . . . . X . .
        . . . . . . .
        """
    )
    assert ok(engine, "final_status_list dead") == "E2"
    assert "E2" not in ok(engine, "final_status_list alive")


@pytest.mark.parametrize("line", ["final_status_list", "final_status_list zombie"])
def test_final_status_list_rejects_unknown_statuses(engine: GtpEngine, line: str) -> None:
    assert err(engine, line) == "syntax error"


# -- showboard, clocks --------------------------------------------------------


def test_showboard_draws_the_board_and_the_captures(engine: GtpEngine) -> None:
    for move in ("b A1", "w A2", "b E5", "w B1"):
        ok(engine, f"play {move}")
    board = ok(engine, "showboard")
    lines = board.split("\n")
    assert lines[0] == ""  # the board starts on its own line, as GNU Go's does
    assert lines[1].split() == list("ABCDEFGHJ")
    assert lines[2] == " 9 . . . . . . . . . 9"
    assert lines[4] == " 7 . . + . . . + . . 7"
    assert lines[6] == " 5 . . . . X . . . . 5"
    assert lines[9] == " 2 O . . . . . . . . 2     WHITE (O) has captured 1 stones"
    assert lines[10] == " 1 . O . . . . . . . 1     BLACK (X) has captured 0 stones"
    assert lines[11] == lines[1]


def test_time_settings_is_canadian_overtime_and_time_left_is_recorded(engine: GtpEngine) -> None:
    ok(engine, "time_settings 300 30 5")
    ok(engine, "time_left white 120 0")
    assert engine.time_control == TimeControl("canadian", 300, 30, 5)
    assert engine.time_left == {WHITE: (120, 0)}
    ok(engine, "time_settings 0 60 0")  # byo-yomi time without stones: no limit, as GTP says
    assert engine.time_control is None
    ok(engine, "time_settings 0 0 0")
    assert engine.time_control is None
    ok(engine, "time_settings 0 0 5")  # neither main nor byo-yomi time: nothing to count
    assert engine.time_control is None
    ok(engine, "time_settings 0 10 400")  # a period cut to the site's 30 moves keeps a second
    assert engine.time_control == TimeControl("canadian", 0, 1, 30)
    ok(engine, "time_settings 600 0 0")
    assert engine.time_control == TimeControl("byoyomi", 600)  # absolute
    ok(engine, "time_settings 0 900 50")  # a block past the site's 30 moves: its time cut alike
    assert engine.time_control == TimeControl("canadian", 0, 900 * 30 // 50, 30)


def test_a_move_takes_its_share_of_the_clock() -> None:
    assert control_seconds(None, None, 19, 0) is None
    lizzie = TimeControl("canadian", 0, 10, 1)  # 10 s a move
    assert control_seconds(lizzie, None, 19, 0) == pytest.approx(10 - LAG_SECONDS)
    # in Canadian overtime: 30 s left for 5 moves
    assert control_seconds(TimeControl("canadian", 600, 30, 5), (30, 5), 19, 100) == pytest.approx(5.5)
    # main time first, then a block's time over its moves
    assert control_seconds(TimeControl("canadian", 600, 30, 5), None, 19, 0) == pytest.approx(
        600 / 144 + 30 / 5 - LAG_SECONDS)
    # absolute time: spread over twice the moves expected, each one's lag kept back
    assert control_seconds(TimeControl("byoyomi", 1440), None, 19, 0) == pytest.approx(
        (1440 - 288 * LAG_SECONDS) / 288)
    # nearly out of time: the least
    assert control_seconds(TimeControl("byoyomi", 600), (1, 0), 19, 200) == 0.1
    # a time_left with no settings: a Canadian period, or absolute time by the same rule as declared
    assert control_seconds(None, (20, 4), 19, 0) == pytest.approx(5 - LAG_SECONDS)
    assert control_seconds(None, (300, 0), 19, 0) == control_seconds(TimeControl("byoyomi", 300), None, 19, 0)
    assert control_seconds(None, (0, 0), 19, 0) == MIN_SECONDS


def test_time_left_is_taken_within_the_clocks_limits_and_the_next_move_is_played(engine: GtpEngine) -> None:
    ok(engine, "time_settings 300 30 5")
    ok(engine, f"time_left black {'9' * 38} {'9' * 20}")  # an OverflowError at genmove before
    assert engine.time_left == {BLACK: (MAX_MAIN, MAX_PERIODS)}
    ok(engine, "time_left white -5 -1")
    assert engine.time_left[WHITE] == (0, 0)
    ok(engine, "time_left white 12.34 0")  # LizzieYzy's fraction of a second
    assert engine.time_left[WHITE] == (12, 0)
    assert err(engine, "time_left white nan 0") == "syntax error"
    assert engine.position.color_at(from_gtp(ok(engine, "genmove black"), 9)) == BLACK


def test_kgs_time_settings_names_the_system_and_byoyomis_time_left_the_periods(engine: GtpEngine) -> None:
    ok(engine, "kgs-time_settings byoyomi 600 30 5")
    assert engine.time_control == TimeControl("byoyomi", 600, 30, 5)
    assert control_seconds(engine.time_control, None, 19, 0) == pytest.approx(600 / 144 + 30 - LAG_SECONDS)
    # In byo-yomi, 20 s left of the present period and 3 periods: what is left of the period.
    assert control_seconds(engine.time_control, (20, 3), 19, 200) == pytest.approx(20 - LAG_SECONDS)
    ok(engine, "kgs-time_settings absolute 300")
    assert engine.time_control == TimeControl("byoyomi", 300)
    ok(engine, "kgs-time_settings canadian 300 30 5")
    assert engine.time_control == TimeControl("canadian", 300, 30, 5)
    ok(engine, "kgs-time_settings none")
    assert engine.time_control is None
    ok(engine, "kgs-time_settings byoyomi 14400 900 50")  # longer than the site allows: taken at its limits
    assert engine.time_control == TimeControl("byoyomi", 3 * 3600, 900, 30)
    assert err(engine, "kgs-time_settings byoyomi 0 0 5").startswith("byo-yomi needs")
    assert err(engine, "kgs-time_settings canadian 0 0 5").startswith("Canadian byo-yomi needs")
    assert err(engine, "kgs-time_settings absolute -5") == "syntax error"
    assert "kgs-time_settings" in ok(engine, "list_commands").split("\n")


def test_a_new_game_or_new_settings_forget_the_time_left(engine: GtpEngine) -> None:
    ok(engine, "time_left black 3 0")
    ok(engine, "clear_board")
    assert engine.time_left == {}
    ok(engine, "time_left black 3 0")
    ok(engine, "kgs-time_settings none")
    assert engine.time_left == {}


def test_genmove_gives_the_bot_its_share_of_the_kgs_clock(engine: GtpEngine, monkeypatch) -> None:
    asked: list[float | None] = []

    def choose(position: Position, seconds: float | None = None, *rest: object) -> Decision:
        asked.append(seconds)
        return Decision(position.pass_point)

    monkeypatch.setattr(engine.bot, "choose", choose)
    ok(engine, "kgs-time_settings byoyomi 0 10 2")
    ok(engine, "time_left black 7 2")  # 7 s left of a period, 2 periods
    assert ok(engine, "genmove b") == "pass"
    assert asked == [pytest.approx(7 - LAG_SECONDS)]


@pytest.mark.parametrize(
    "line", ["time_settings", "time_settings 1 2", "time_settings a b c", "time_left", "time_left red 1 2",
             "time_left black ten 0", "kgs-time_settings", "kgs-time_settings blitz 1",
             "kgs-time_settings byoyomi 1 2", "kgs-time_settings absolute x", "time_settings 10 -1 5"]
)  # fmt: skip
def test_time_commands_reject_bad_arguments(engine: GtpEngine, line: str) -> None:
    assert err(engine, line) == "syntax error"


# -- GNU Go extensions, in-process ------------------------------------------


def test_board_queries(engine: GtpEngine) -> None:
    for move in ("b A1", "w A2", "b E5", "w B1", "b D5"):
        ok(engine, f"play {move}")
    assert ok(engine, "list_stones black") == "D5 E5"
    assert ok(engine, "list_stones w") == "A2 B1"
    assert ok(engine, "is_legal black A1") == "0"
    assert ok(engine, "is_legal white A1") == "1"
    assert ok(engine, "is_legal white E5") == "0"
    assert ok(engine, "is_legal white pass") == "1"
    assert ok(engine, "countlib E5") == "6"
    assert ok(engine, "countlib a2") == "3"
    assert ok(engine, "captures white") == "1"
    assert ok(engine, "captures black") == "0"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("list_stones", "invalid color"),
        ("list_stones red", "invalid color"),
        ("is_legal", "invalid color or coordinate"),
        ("is_legal black", "invalid color or coordinate"),
        ("is_legal black Z1", "invalid color or coordinate"),
        ("countlib", "invalid coordinate"),
        ("countlib pass", "invalid coordinate"),
        ("countlib E5", "vertex must not be empty"),
        ("captures", "invalid color"),
        ("captures 1", "invalid color"),
        ("loadsgf", "missing filename"),
    ],
)
def test_board_query_errors(engine: GtpEngine, line: str, message: str) -> None:
    assert err(engine, line) == message


def test_printsgf_writes_a_file_and_reports_unwritable_ones(engine: GtpEngine, tmp_path: Path) -> None:
    ok(engine, "play black E5")
    target = tmp_path / "game.sgf"
    assert ok(engine, f"printsgf {target}") == ""
    assert b";B[ee]" in target.read_bytes()
    missing = tmp_path / "no" / "such" / "dir.sgf"
    assert err(engine, f"printsgf {missing}") == f"cannot open or write '{missing}'"


def test_loadsgf_without_komi_uses_gnugos_defaults(engine: GtpEngine, tmp_path: Path) -> None:
    plain, handicap = tmp_path / "plain.sgf", tmp_path / "handicap.sgf"
    plain.write_text("(;GM[1]SZ[9];B[ee])")
    handicap.write_text("(;GM[1]SZ[9]HA[2]AB[cc][gg])")
    assert ok(engine, f"loadsgf {plain}") == "white"
    assert engine.komi == engine.position.komi == 5.5
    assert ok(engine, f"loadsgf {handicap}") == "white"
    assert engine.komi == 0.5
    assert engine.handicap == 2


def test_loadsgf_stops_before_an_illegal_move(engine: GtpEngine, tmp_path: Path) -> None:
    path = tmp_path / "occupied.sgf"
    path.write_text("(;GM[1]SZ[9];B[ee];W[dd];B[dd];W[cc])")
    assert ok(engine, f"loadsgf {path}") == "black"
    assert ok(engine, "list_stones white") == "D6"


def test_loadsgf_with_a_move_number_of_thousands_of_digits_loads_every_move(engine: GtpEngine,
                                                                            tmp_path: Path) -> None:
    path = tmp_path / "two.sgf"
    path.write_text("(;GM[1]SZ[9];B[ee];W[cc])")
    assert ok(engine, f"loadsgf {path} {'9' * 5000}") == "black"  # a ValueError from int() before
    assert ok(engine, "list_stones white") == "C7"


def test_loadsgf_rejects_unreasonable_handicaps(engine: GtpEngine, tmp_path: Path) -> None:
    path = tmp_path / "ha.sgf"
    path.write_text("(;GM[1]SZ[3]HA[9])")
    assert err(engine, f"loadsgf {path}") == f"cannot open or parse '{path}'"


def test_loadsgf_refuses_a_komi_beyond_150_points_and_keeps_the_game(engine: GtpEngine,
                                                                     tmp_path: Path) -> None:
    ok(engine, "play black E5")
    path = tmp_path / "komi.sgf"
    path.write_text("(;GM[1]SZ[9]KM[99999999999999999999999];B[cc])")
    assert err(engine, f"loadsgf {path}") == (
        f"cannot load '{path}': komi 1e+23 is out of range, at most 150 either way")
    assert ok(engine, "list_stones black") == "E5" and engine.komi == 7.5


def test_loadsgf_reads_no_further_than_16_mib_so_a_device_without_end_is_refused(engine: GtpEngine,
                                                                                 tmp_path: Path) -> None:
    # /dev/zero once filled the memory until the kernel killed the engine
    assert err(engine, "loadsgf /dev/zero") == "cannot load '/dev/zero': larger than 16 MiB"
    head, tail = b"(;GM[1]SZ[9]C[", b"];B[cc])"
    fits, big = tmp_path / "fits.sgf", tmp_path / "big.sgf"
    fits.write_bytes(head + b"x" * (16 * 2**20 - len(head) - len(tail)) + tail)  # 16 MiB exactly
    big.write_bytes(head + b"x" * (16 * 2**20 - len(head) - len(tail) + 1) + tail)
    assert ok(engine, f"loadsgf {fits}") == "white"
    assert err(engine, f"loadsgf {big}") == f"cannot load '{big}': larger than 16 MiB"
