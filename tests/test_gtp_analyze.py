"""Streaming analysis over GTP (lz-analyze, kata-analyze and their genmove forms) and the clock.

Info lines are read as Sabaki reads them (src/modules/analysis.js: split on ``info``,
the PV is the run of vertices ending the block, the rest are key/value pairs) and as
Lizzie reads Leela Zero's (split on `` info ``, integer values, ``pv`` to the end).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.features import get_feature_set
from analysis.go.coords import BLACK, WHITE, from_gtp
from analysis.go.position import Position
from analysis.gtp.commands_analyze import parse_analyze_args, with_unvisited
from analysis.gtp.commands_args import CommandError
from analysis.gtp.engine import GtpEngine
from analysis.mcts import MoveFilter, Search, SearchConfig
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.inference import Network
from analysis.nets.registry import default_weights
from tests.test_mcts_bot import FixedEvaluator

ROOT = Path(__file__).resolve().parent.parent
VERTEX = r"(pass|[A-Za-z]\d+)"


def sabaki_parse(line: str) -> list[dict[str, str]]:
    """Return the variations Sabaki finds in one analysis line (its regexes, in Python)."""
    variations = []
    for block in re.split(r"\s*info\s+", line)[1:]:
        block = block.strip()
        pv = re.search(rf"{VERTEX}(\s+{VERTEX})*$", block)
        assert pv is not None, block
        tokens = block[: pv.start()].strip().split()
        assert tokens[-1] == "pv", block
        pairs = tokens[:-1]
        assert len(pairs) % 2 == 0, block
        fields = dict(zip(pairs[::2], pairs[1::2], strict=True))
        fields["pv"] = pv.group(0)
        variations.append(fields)
    return variations


def lizzie_parse(line: str) -> list[dict[str, int | str | list[str]]]:
    """Return Lizzie's reading of a Leela Zero line: integers, the PV to the end of the block."""
    moves = []
    for block in line[len("info "):].split(" info "):
        data = block.strip().split(" ")
        fields: dict[str, int | str | list[str]] = {}
        i = 0
        while data[i] != "pv":
            key, value = data[i], data[i + 1]
            fields[key] = value if key == "move" else int(value)
            i += 2
        fields["pv"] = data[i + 1 :]
        moves.append(fields)
    return moves


class Clocked(io.StringIO):
    """An output that remembers when each piece was written."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.times.append((time.perf_counter(), text))
        return super().write(text)


def engine(level: str = "mcts-50", **bot_options: object) -> GtpEngine:
    bot = Bot(get_level(level), evaluator=FixedEvaluator(delay=0.002), **bot_options)
    return GtpEngine(size=9, bot=bot)


def serve_with_pauses(gtp: GtpEngine, script: list[tuple[str, float]]) -> tuple[Clocked, dict[str, float]]:
    """Serve ``script`` (each line sent after its pause in seconds); return the output and when
    each line was sent."""
    sent: dict[str, float] = {}

    def lines() -> Iterator[bytes]:
        for line, pause in script:
            time.sleep(pause)
            sent[line] = time.perf_counter()
            yield (line + "\n").encode()

    out = Clocked()
    gtp.serve(lines(), out)
    return out, sent


def replies(text: str) -> list[str]:
    return [r for r in text.split("\n\n") if r]


def test_lz_analyze_streams_lines_sabaki_and_lizzie_read_until_the_next_command() -> None:
    gtp = engine()
    script = [("play b E5", 0), ("1 lz-analyze w 10", 0), ("2 name", 0.6), ("quit", 0)]
    out, sent = serve_with_pauses(gtp, script)
    first, analysis, name, _ = replies(out.getvalue())
    assert first == "= "
    header, *lines = analysis.split("\n")
    assert header == "=1" and len(lines) >= 3
    for line in lines:
        variations = sabaki_parse(line)
        assert variations == sorted(variations, key=lambda v: -int(v["visits"]))
        for order, (sabaki, lizzie) in enumerate(zip(variations, lizzie_parse(line), strict=True)):
            assert sabaki["move"] == lizzie["move"] and int(sabaki["order"]) == lizzie["order"] == order
            assert 0 <= lizzie["winrate"] <= 10000 and 0 <= lizzie["prior"] <= 10000
            assert 0 <= lizzie["lcb"] <= lizzie["winrate"]
            assert lizzie["pv"][0] == lizzie["move"] and sabaki["pv"].split()[0] == sabaki["move"]
    assert name == "=2 goweb"
    answered = next(t for t, text in out.times if text.startswith("=2"))
    assert answered - sent["2 name"] < 0.3  # the search stopped as soon as the command arrived
    assert gtp.position.to_play == -1 and len(gtp.position.moves) == 1  # analysis played nothing


def test_kata_analyze_reports_floats_and_accepts_katagos_switches() -> None:
    script = [("kata-analyze b 10 ownership true maxmoves 3", 0), ("name", 0.4)]
    out, _ = serve_with_pauses(engine(), script)
    header, *lines = replies(out.getvalue())[0].split("\n")
    assert header == "=" and lines
    for line in lines:
        variations = sabaki_parse(line)
        assert 1 <= len(variations) <= 3
        for v in variations:
            assert "." in v["winrate"] and 0 <= float(v["winrate"]) <= 1  # Sabaki: a float if it has a dot
            assert 0 <= float(v["prior"]) <= 1 and float(v["lcb"]) <= float(v["winrate"])
            assert float(v["utility"]) == pytest.approx(2 * float(v["winrate"]) - 1, abs=1e-5)


def test_kata_analyze_gives_score_leads_and_the_ownership_sabaki_and_lizzie_read() -> None:
    network = Network.from_checkpoint(default_weights(), dtype="float32")  # score and ownership heads
    after_c3 = Position(9, 7.5)
    after_c3.play(from_gtp("C3", 9))
    bagged = network.predict([after_c3], symmetries=8).ownership[0]  # warms the network up too
    gtp = GtpEngine(size=9, bot=Bot(get_level("mcts-50"), net=network))
    script = [("komi 7.5", 0), ("play b C3", 0), ("kata-analyze w 10 ownership true", 0), ("name", 2.0)]
    out, _ = serve_with_pauses(gtp, script)
    header, *lines = replies(out.getvalue())[2].split("\n")
    assert header == "=" and lines
    for line in lines:
        variations, owned = line.split(" ownership ")  # KataGo's ownership ends the line
        for v in sabaki_parse(variations):
            assert v["scoreLead"] == v["scoreMean"] and -81 <= float(v["scoreLead"]) <= 81
        ownership = [float(x) for x in owned.split()]
        assert len(ownership) == 81 and all(-1 <= x <= 1 for x in ownership)
        assert ownership == pytest.approx(bagged.tolist(), abs=1e-5)  # the 8 symmetries', White's view
        assert ownership[6 * 9 + 2] < -0.5  # C3, row by row from the top left: Black's, so not White's
    assert replies(gtp.respond("kata-analyze b 10 ownership maybe")) == [
        "? ownership must be true or false, not 'maybe'"]


def test_genmove_analyze_reports_then_plays_the_move() -> None:
    gtp = engine()
    out, _ = serve_with_pauses(gtp, [("5 kata-genmove_analyze b 1", 0), ("list_stones black", 0)])
    analysis, stones = replies(out.getvalue())
    header, *lines, play = analysis.split("\n")
    assert header == "=5" and lines and all(sabaki_parse(line) for line in lines)
    assert play.startswith("play ") and stones == f"= {play.split()[1]}"


def test_stop_ends_an_analysis_as_katago_does_and_is_answered() -> None:
    script = [("1 kata-analyze b 10", 0), ("2 stop", 0.3), ("3 stop", 0), ("quit", 0)]
    out, sent = serve_with_pauses(engine(), script)
    analysis, stopped, idle, _ = replies(out.getvalue())
    header, *lines = analysis.split("\n")
    assert header == "=1" and lines and all(line.startswith("info move ") for line in lines)
    assert (stopped, idle) == ("=2 ", "=3 ")  # with nothing to stop, stop is answered all the same
    answered = next(t for t, text in out.times if text.startswith("=2"))
    assert answered - sent["2 stop"] < 0.3


def test_analysis_errors_and_engines_that_cannot_search() -> None:
    script = [("lz-analyze b 10 frobnicate 1", 0), ("lz-analyze b 10 maxmoves", 0)]
    out, _ = serve_with_pauses(engine(), script)
    assert replies(out.getvalue()) == [
        "? unsupported analyze argument 'frobnicate'",
        "? missing value for 'maxmoves'",
    ]
    rules = GtpEngine(size=9)
    assert not {"lz-analyze", "kata-genmove_analyze", "stop"} & set(rules.commands)
    assert rules.respond("lz-analyze b 10") == "? unknown command\n\n"


@pytest.mark.parametrize(("args", "error"), [
    ("² 1", "unsupported analyze argument '²'"),  # a digit to str.isdigit, not to int()
    ("1" + "0" * 400, "invalid interval '1000000000000000'"),  # an OverflowError before
    ("b interval " + "9" * 5000, "invalid interval '9999999999999999'"),  # past int()'s 4,300 digits
    ("b maxmoves 1234567890", "invalid maxmoves '1234567890'"),
    ("b 10 maxmoves ３", "invalid maxmoves '３'"),
    ("b 10 minmoves -1", "invalid minmoves '-1'"),
    ("b interval -5", "invalid interval '-5'"),
    ("b interval -0.5", "invalid interval '-0.5'"),
    ("b interval 1e3", "invalid interval '1e3'"),
    ("b interval nan", "invalid interval 'nan'"),
    ("b interval inf", "invalid interval 'inf'"),
    ("b interval 1.5.2", "invalid interval '1.5.2'"),
    ("b interval 1_000", "invalid interval '1_000'"),
    ("b interval ٣.5", "invalid interval '٣.5'"),  # float() reads Arabic-Indic digits
    ("b interval 1234567890.5", "invalid interval '1234567890.5'"),  # 10 digits before the point
    ("b interval 1." + "0" * 40, "invalid interval '1.00000000000000'"),  # 42 characters
])
def test_an_analyze_number_is_a_few_ascii_digits_or_a_clear_error(args: str, error: str) -> None:
    with pytest.raises(CommandError) as info:
        parse_analyze_args(args.split())
    assert str(info.value) == error


def test_a_request_id_of_thousands_of_digits_is_answered_as_it_reads() -> None:
    gtp = GtpEngine(size=9)
    assert gtp.respond("0" * 3 + "7" * 5000 + " name") == f"={'7' * 5000} goweb\n\n"  # the engine died
    assert gtp.respond("000 name") == "=0 goweb\n\n"


def test_genmove_keeps_to_the_clocks_share() -> None:
    gtp = engine("mcts-2s")
    for line in ("time_settings 0 1 1", "genmove b"):  # byo-yomi: 1 second per move
        t0 = time.perf_counter()
        reply = gtp.respond(line)
        assert reply.startswith("= ")
    assert time.perf_counter() - t0 < 1.0


def test_the_engine_process_streams_and_stops_on_the_next_command(tmp_path: Path) -> None:
    torch.manual_seed(0)
    weights = tmp_path / "tiny.pt"
    config = GoloisConfig(get_feature_set("golois").num_planes, blocks=1, channels=8, value_head=True)
    checkpoint.save(weights, GoloisNet(config), "tiny")
    launcher = str(ROOT / "manage.py")  # as GUIs start it, from another directory
    argv = [sys.executable, launcher, "gtp", "--size", "9", "--level", "mcts-50", "--weights", str(weights)]
    proc = subprocess.Popen(argv, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)  # fmt: skip
    timer = threading.Timer(60, proc.kill)
    timer.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("1 lz-analyze 5\n")  # as Lizzie sends it
        proc.stdin.flush()
        assert proc.stdout.readline() == "=1\n"
        assert sabaki_parse(proc.stdout.readline())
        proc.stdin.write("2 name\n3 quit\n")
        proc.stdin.flush()
        rest, errors = proc.communicate(timeout=30)
    finally:
        timer.cancel()
    lines = rest.split("\n")
    end = lines.index("")  # the empty line that ends the analysis
    assert all(line.startswith("info move") for line in lines[:end])
    assert "\n".join(lines[end + 1 :]) == "=2 goweb\n\n=3 \n\n"
    assert proc.returncode == 0 and "Fatal" not in errors


@pytest.mark.parametrize(("args", "seconds"), [
    ("B 10.000000000000002", 0.10000000000000002),  # JavaScript's 0.1 * 100, positional
    ("b interval 12.5", 0.125),
    ("12.5", 0.125),  # positional, without a colour
    ("w 150.", 1.5),
    ("b interval .5", 0.01),  # below a centisecond: one
])
def test_an_interval_may_have_a_fraction_as_katago_reads_a_double(args: str, seconds: float) -> None:
    assert parse_analyze_args(args.split()).interval == seconds


def test_fractional_intervals_stream_from_both_commands() -> None:
    script = [("1 lz-analyze B 10.000000000000002", 0), ("2 kata-analyze B interval 12.5", 0.4),
              ("3 name", 0.4)]  # fmt: skip
    lz, kata, name = replies(serve_with_pauses(engine(), script)[0].getvalue())
    for reply, header in ((lz, "=1"), (kata, "=2")):
        first, *lines = reply.split("\n")
        assert first == header and len(lines) >= 2 and all(sabaki_parse(line) for line in lines)
    assert name == "=3 goweb"


def points(vertices: str, size: int = 9) -> frozenset[int]:
    return frozenset(from_gtp(v, size) for v in vertices.split(","))


def test_avoid_and_allow_parse_to_the_searchs_move_filters() -> None:
    line = "b 10 avoid w D4,pass 2 avoid black C3 1 allow W E5,F5 3 allow b A1 1 minmoves 5"
    parsed = parse_analyze_args(line.split(), size=9)
    assert parsed.filters == (
        MoveFilter(WHITE, points("D4,pass"), 2), MoveFilter(BLACK, points("C3"), 1),
        MoveFilter(WHITE, points("E5,F5"), 3, allow=True), MoveFilter(BLACK, points("A1"), 1, allow=True),
    )  # fmt: skip
    assert points("pass") == {81} and parsed.min_moves == 5 and parsed.interval == 0.1


@pytest.mark.parametrize(("args", "error"), [
    ("b avoid x D4 1", "invalid avoid player 'x'"),
    ("b allow bl D4 1", "invalid allow player 'bl'"),
    ("b avoid b Z9 1", "avoid: vertex 'Z9' is off a 9x9 board"),
    ("b avoid b D10 1", "avoid: vertex 'D10' is off a 9x9 board"),
    ("b allow w D4,,E5 1", "allow: invalid vertex ''"),
    ("b avoid b D4,I5 1", "avoid: invalid vertex 'I5'"),  # GTP has no I
    ("b avoid b D4 0", "invalid avoid untildepth '0'"),
    ("b avoid b D4 -1", "invalid avoid untildepth '-1'"),
    ("b avoid b D4 1.5", "invalid avoid untildepth '1.5'"),
    ("b avoid b D4 ３", "invalid avoid untildepth '３'"),
    ("b avoid b D4 1234567890", "invalid avoid untildepth '1234567890'"),
    ("b avoid b D4", "missing value for 'avoid'"),
    ("b 10 allow", "missing value for 'allow'"),
    ("b allow b D4 1 allow w D4 1 allow b E5 2", "allow given twice for 'b' (once per player)"),
])
def test_bad_avoid_and_allow_arguments_are_clear_errors(args: str, error: str) -> None:
    with pytest.raises(CommandError) as info:
        parse_analyze_args(args.split(), size=9)
    assert str(info.value) == error


def test_a_bad_avoid_is_refused_before_any_output() -> None:
    out, _ = serve_with_pauses(engine(), [("1 kata-analyze b 10 avoid b Q16 1", 0), ("2 name", 0)])
    assert replies(out.getvalue()) == ["?1 avoid: vertex 'Q16' is off a 9x9 board", "=2 goweb"]


def analysed_lines(gtp: GtpEngine, command: str, seconds: float = 0.5) -> list[list[dict[str, str]]]:
    """Return the variations of each line of ``command``'s analysis, stopped after ``seconds``."""
    out, _ = serve_with_pauses(gtp, [(command, 0), ("name", seconds)])
    header, *lines = replies(out.getvalue())[0].split("\n")
    assert header == "=" and lines
    return [sabaki_parse(line) for line in lines]


def test_allow_keeps_the_root_to_its_moves_and_leaves_the_bots_tree_alone() -> None:
    gtp = engine()
    analysed_lines(gtp, "lz-analyze b 10", 0.3)
    kept = gtp.bot.kept_search
    assert kept is not None
    visits, root = kept.visits, kept.root
    for line in analysed_lines(gtp, "kata-analyze b 10 allow b C3,pass 1"):
        assert {v["move"] for v in line} <= {"C3", "pass"}
    assert gtp.bot.kept_search is kept and (kept.visits, kept.root) == (visits, root)  # untouched
    assert len(root.moves) == 82  # every point and pass, as before
    analysed_lines(gtp, "lz-analyze b 10", 0.3)
    assert gtp.bot.kept_search is kept and kept.visits > visits  # the kept tree grows on


def test_avoid_counts_its_depth_from_the_analysed_position() -> None:
    # Black to play; avoid keeps C3 from Black's first move and D4, E5 from White's reply
    # (depth 2: plies 1 and 2), not from the moves after them.
    lines = analysed_lines(engine(), "lz-analyze b 10 avoid b C3 1 avoid w D4,E5 2", 0.8)
    replies_seen = 0
    for line in lines:
        for v in line:
            pv = v["pv"].split()
            assert pv[0] != "C3" and not {"D4", "E5"} & set(pv[1:2])
            replies_seen += len(pv) > 1
    assert replies_seen > 0


def test_a_filtered_analysis_searches_as_the_bots_tree_would() -> None:
    bot = Bot(get_level("darkforest-2s"), evaluator=FixedEvaluator())
    position = Position(9, 7.5)
    fresh = bot.fresh_search(position, [MoveFilter(BLACK, points("E5"), 1)])
    kept = bot.search_at(position)
    assert fresh is not kept and fresh.config == kept.config and fresh.config.tree_policy == "darkforest"
    assert fresh.evaluator is kept.evaluator and bot.kept_search is kept


def skewed_priors(top: str) -> np.ndarray:
    """Priors with the ``top`` vertices (9x9) far ahead of every other point."""
    weights = np.full(82, 1e-4)
    for rank, vertex in enumerate(top.split(",")):
        weights[from_gtp(vertex, 9)] = 1.0 - rank / 100
    return weights


def test_minmoves_adds_the_best_prior_unvisited_legal_moves_as_katago_does() -> None:
    # White to play after Black A2 and B1:  A1 is suicide for White.
    #   2 X . . .
    #   1 . X . .
    #     A B C D        (and White's E5)
    evaluator = FixedEvaluator(weights=skewed_priors("E3,C7,G7,G3"))
    gtp = GtpEngine(size=9, bot=Bot(get_level("mcts-50"), evaluator=evaluator))
    for move in ("play b A2", "play w E5", "play b B1"):
        assert gtp.respond(move) == "= \n\n"
    out, _ = serve_with_pauses(gtp, [("lz-analyze w 10 minmoves 100", 0), ("name", 0.5)])
    header, *lines = replies(out.getvalue())[0].split("\n")
    assert header == "=" and lines
    for line in lines:
        blocks = lizzie_parse(line)
        moves = [b["move"] for b in blocks]
        assert len(moves) == len(set(moves)) == 78 and not {"A1", "A2", "B1", "E5"} & set(moves)  # 77 + pass
        assert [b["order"] for b in blocks] == list(range(78))
        unvisited = [b for b in blocks if b["visits"] == 0]
        assert unvisited and blocks[-len(unvisited):] == unvisited  # after every visited move
        assert [b["prior"] for b in unvisited] == sorted((b["prior"] for b in unvisited), reverse=True)
        assert len({b["winrate"] for b in unvisited}) == 1  # the root's (unit-tested below)
        assert all(b["lcb"] == 0 and b["pv"] == [b["move"]] for b in unvisited)
        assert [v["move"] for v in sabaki_parse(line)] == moves
    out, _ = serve_with_pauses(gtp, [("kata-analyze w 10 minmoves 100 maxmoves 5", 0), ("name", 0.3)])
    lines = replies(out.getvalue())[0].split("\n")[1:]
    assert lines and all(len(sabaki_parse(line)) == 5 for line in lines)  # maxmoves still caps


def test_unvisited_moves_follow_the_visited_ones_by_prior() -> None:
    top = ["E3", "C7", "G7", "G3", "D5"]
    weights = skewed_priors(",".join(top))
    evaluator = FixedEvaluator(black_wins=0.6, weights=weights)
    search = Search(Position(9, 7.5), evaluator, SearchConfig(batch_size=1))
    priors = np.append(weights[:-1], 0.01)  # FixedEvaluator's pass
    result = search.run(max_visits=4)
    visited = [c.move for c in result.candidates]
    assert 1 <= len(visited) < 6
    padded = with_unvisited(result, search.root, 6)
    assert len(padded.candidates) == 6 and padded.candidates[: len(visited)] == result.candidates
    by_prior = [*(from_gtp(v, 9) for v in top), 81]  # pass (0.01) before the points of 1e-4
    assert [c.move for c in padded.candidates[len(visited) :]] == [m for m in by_prior if m not in visited]
    for c in padded.candidates[len(visited) :]:
        assert (c.visits, c.winrate, c.pv) == (0, result.winrate, (c.move,))
        assert c.prior == pytest.approx(priors[c.move] / priors.sum())
    assert with_unvisited(result, search.root, len(visited)) is result
    assert with_unvisited(result, search.root, 0) is result


def test_genmove_analyze_takes_minmoves_avoid_and_allow() -> None:
    gtp = engine()
    script = [("1 kata-genmove_analyze b 1 minmoves 82", 0), ("2 lz-genmove_analyze w 1 allow w C3 1", 0),
              ("3 lz-genmove_analyze b 1 avoid b E5,D4,F6 1 avoid b pass 1", 0)]  # fmt: skip
    out, _ = serve_with_pauses(gtp, script)
    first, allowed, avoided = replies(out.getvalue())
    header, *lines, play = first.split("\n")
    assert header == "=1" and lines and play.startswith("play ")
    assert all(len(sabaki_parse(line)) == 82 for line in lines)  # 81 points and pass, on an empty board
    header, *lines, play = allowed.split("\n")
    assert header == "=2" and play == "play C3"
    assert lines and all({m["move"] for m in sabaki_parse(line)} == {"C3"} for line in lines)
    header, *lines, play = avoided.split("\n")
    assert header == "=3" and play.split()[1] not in ("E5", "D4", "F6", "pass")
    assert lines and all(not {m["move"] for m in sabaki_parse(line)} & {"E5", "D4", "F6", "pass"}
                         for line in lines)  # fmt: skip
    assert len(gtp.position.moves) == 3
