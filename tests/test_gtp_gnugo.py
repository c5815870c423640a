"""Our GTP replies against GNU Go's: the same commands give the same text.

GNU Go runs as the reference (``/usr/games/gnugo --mode gtp``); our engine runs
in-process, with Japanese rules where legality is compared (GNU Go knows only
simple ko).
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis.go.coords import to_gtp
from analysis.gtp.client import GNUGO, GtpClient, GtpError, gnugo
from analysis.gtp.engine import GtpEngine

pytestmark = pytest.mark.skipif(shutil.which(GNUGO) is None, reason="GNU Go is installed by `make test`")

Reply = tuple[bool, str]


def ours(engine: GtpEngine, command: str) -> Reply:
    """Return (success, text) of our engine's reply."""
    reply = engine.respond(command)
    assert reply is not None
    return reply[0] == "=", reply[2:-2]


def theirs(client: GtpClient, command: str) -> Reply:
    """Return (success, text) of GNU Go's reply."""
    try:
        return True, client.send(command)
    except GtpError as e:
        return False, str(e)


def both(engine: GtpEngine, client: GtpClient, command: str) -> tuple[Reply, Reply]:
    return ours(engine, command), theirs(client, command)


def same(engine: GtpEngine, client: GtpClient, command: str) -> str:
    """Send a command to both engines, assert the replies are identical and return the text."""
    mine, reference = both(engine, client, command)
    assert mine == reference, command
    return mine[1]


@pytest.fixture(scope="module")
def reference() -> Iterator[GtpClient]:
    with gnugo() as client:
        yield client


def start(reference: GtpClient, size: int, rules: str = "japanese") -> GtpEngine:
    """Return our engine and reset GNU Go, both on an empty ``size`` board."""
    reference.send(f"boardsize {size}")
    reference.send("clear_board")
    return GtpEngine(rules=rules, size=size)


def play_both(engine: GtpEngine, client: GtpClient, color: str, vertex: str) -> None:
    assert ours(engine, f"play {color} {vertex}")[0]
    client.send(f"play {color} {vertex}")


def test_board_queries_match_gnugo_move_by_move(reference: GtpClient) -> None:
    """list_stones, captures, countlib and is_legal over a game of ~70 moves with captures."""
    engine = start(reference, 9)
    rng = random.Random(7)
    colors = ("black", "white")
    captured = 0
    for number in range(70):
        color = colors[number % 2]
        legal = [p for p in range(81) if engine.position.is_legal(p)]
        vertex = to_gtp(rng.choice(legal), 9) if legal and rng.random() > 0.03 else "pass"
        play_both(engine, reference, color, vertex)
        if number % 5:
            continue
        for c in colors:
            same(engine, reference, f"list_stones {c}")
            captured += int(same(engine, reference, f"captures {c}"))
        for point in range(81):
            vertex = to_gtp(point, 9)
            if engine.position.color_at(point):
                same(engine, reference, f"countlib {vertex}")
            for c in colors:
                same(engine, reference, f"is_legal {c} {vertex}")
    assert captured > 0


@pytest.mark.parametrize(
    "command",
    [
        "list_stones",
        "list_stones red",
        "captures",
        "captures 3",
        "is_legal",
        "is_legal black",
        "is_legal black Z1",
        "is_legal purple E5",
        "countlib",
        "countlib pass",
        "countlib I5",
        "countlib E5",
        "ladder_attack",
        "ladder_attack E5",
        "loadsgf",
        "fixed_handicap 1",
        "fixed_handicap 10",
        "undo",
        "genmove",
        "genmove purple",
        "play black I5",
        "play white",
        "unknown_command",
    ],
)
def test_error_messages_match_gnugo(reference: GtpClient, command: str) -> None:
    engine = start(reference, 9)
    mine, reference_reply = both(engine, reference, command)
    assert not reference_reply[0]
    assert mine == reference_reply


def test_illegal_move_message_starts_like_gnugos(reference: GtpClient) -> None:
    engine = start(reference, 9)
    play_both(engine, reference, "black", "E5")
    (mine_ok, mine), (their_ok, reference_reply) = both(engine, reference, "play white E5")
    assert not mine_ok and not their_ok
    assert reference_reply == "illegal move"
    assert mine == "illegal move: occupied"


@pytest.mark.parametrize("size", [9, 13, 19])
def test_fixed_handicap_matches_gnugo(reference: GtpClient, size: int) -> None:
    for stones in range(2, 10):
        engine = start(reference, size)
        mine, reference_reply = both(engine, reference, f"fixed_handicap {stones}")
        assert mine[0] and reference_reply[0]
        assert set(mine[1].split()) == set(reference_reply[1].split()), stones
        same(engine, reference, "list_stones black")
        assert both(engine, reference, "fixed_handicap 2") == ((False, "board not empty"),) * 2


@pytest.mark.parametrize("size", [2, 3, 5, 6, 9, 12, 13, 19])
def test_showboard_matches_gnugo_exactly(reference: GtpClient, size: int) -> None:
    engine = start(reference, size)
    rng = random.Random(size)
    for number in range(size * size // 2):
        legal = [p for p in range(size * size) if engine.position.is_legal(p)]
        if not legal:
            break
        play_both(engine, reference, ("black", "white")[number % 2], to_gtp(rng.choice(legal), size))
    board = same(engine, reference, "showboard")
    assert board.count("\n") == size + 2


LOADSGF_FILES = {
    "handicap.sgf": "(;GM[1]FF[4]SZ[9]KM[5.5]HA[2]AB[cc][gg]PL[W];W[ee];B[dd];W[ff];B[cd];W[];B[de])",
    "plain.sgf": "(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[dd];B[ff];W[cd])",
    "setup_midgame.sgf": "(;GM[1]FF[4]SZ[9]AB[aa]AW[bb];B[ee];W[dd]AB[ii];B[ff];W[cd])",
    "captures.sgf": "(;GM[1]SZ[9];B[ba];W[aa];B[ab];W[ee];B[ca];W[ac];B[bb])",
    "pl_only.sgf": "(;GM[1]SZ[13]AB[dd][jj]AW[dj]PL[W])",
    "handicap_no_moves.sgf": "(;GM[1]SZ[19]HA[3]AB[dd][pp][dp])",
    "variations.sgf": "(;GM[1]SZ[9];B[ee](;W[dd];B[cc])(;W[cc];B[dd]))",
}
UNTIL = [None, "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "E5", "D6", "C7", "J1", "0", "x", "3rd"]


@pytest.mark.parametrize("name", sorted(LOADSGF_FILES))
def test_loadsgf_matches_gnugo(reference: GtpClient, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(LOADSGF_FILES[name])
    engine = start(reference, 19)
    for until in UNTIL:
        command = f"loadsgf {path}" + (f" {until}" if until else "")
        assert same(engine, reference, command) in ("black", "white"), command
        for query in ("list_stones black", "list_stones white", "captures black", "captures white"):
            mine, reference_reply = both(engine, reference, query)
            assert mine == reference_reply, (command, query)


def test_loadsgf_errors_match_gnugo(reference: GtpClient, tmp_path: Path) -> None:
    engine = start(reference, 9)
    missing = tmp_path / "missing.sgf"
    assert same(engine, reference, f"loadsgf {missing}") == f"cannot open or parse '{missing}'"


def test_printsgf_reloads_into_the_same_position_here_and_in_gnugo(
    reference: GtpClient, tmp_path: Path
) -> None:
    engine = GtpEngine(size=9, seed=3)
    assert ours(engine, "fixed_handicap 3")[0]
    for color in ("white", "black") * 12:
        assert ours(engine, f"genmove {color}")[0]
    assert ours(engine, "play white pass")[0]
    expected = {q: ours(engine, q) for q in ("list_stones black", "list_stones white", "captures black",
                                            "captures white")}  # fmt: skip
    sgf = ours(engine, "printsgf")[1]
    assert "HA[3]" in sgf and "KM[7.5]" in sgf and "AB[" in sgf
    path = tmp_path / "printed.sgf"
    path.write_text(sgf)
    to_move = "white" if engine.position.to_play == -1 else "black"

    reloaded = GtpEngine(size=19)
    assert ours(reloaded, f"loadsgf {path}") == (True, to_move)
    assert reloaded.position.hash == engine.position.hash
    assert reloaded.komi == 7.5
    assert ours(reloaded, "printsgf") == (True, sgf)
    reference.send("clear_board")
    assert theirs(reference, f"loadsgf {path}") == (True, to_move)
    for query, reply in expected.items():
        assert ours(reloaded, query) == reply
        assert theirs(reference, query) == reply


@pytest.mark.parametrize(
    ("sgf", "until"),
    [
        (LOADSGF_FILES["setup_midgame.sgf"], "4"),
        (LOADSGF_FILES["pl_only.sgf"], None),
        (LOADSGF_FILES["handicap_no_moves.sgf"], None),
        ("(;GM[1]SZ[9];B[ee];W[dd];PL[W])", None),
        ("(;GM[1]SZ[9]AB[aa:cc];W[ee];B[dd]AW[ii][hh];W[ff])", None),
    ],
)
def test_printsgf_keeps_setup_stones_and_the_player_to_move(
    reference: GtpClient, tmp_path: Path, sgf: str, until: str | None
) -> None:
    source = tmp_path / "source.sgf"
    source.write_text(sgf)
    engine = GtpEngine()
    to_move = ours(engine, f"loadsgf {source}" + (f" {until}" if until else ""))
    path = tmp_path / "printed.sgf"
    assert ours(engine, f"printsgf {path}") == (True, "")
    reloaded = GtpEngine()
    assert ours(reloaded, f"loadsgf {path}") == to_move
    assert reloaded.position.hash == engine.position.hash
    assert theirs(reference, f"loadsgf {path}") == to_move
    for query in ("list_stones black", "list_stones white"):
        assert theirs(reference, query) == ours(engine, query)


def test_printsgf_keeps_removed_stones(tmp_path: Path) -> None:
    """AE (which GNU Go does not read) survives a round trip through our engine."""
    source = tmp_path / "source.sgf"
    source.write_text("(;GM[1]SZ[9]AB[aa:cc];W[ee];B[dd]AE[aa]AW[ii];W[ff])")
    engine = GtpEngine()
    assert ours(engine, f"loadsgf {source}") == (True, "black")
    assert "A9" not in ours(engine, "list_stones black")[1]
    path = tmp_path / "printed.sgf"
    assert ours(engine, f"printsgf {path}") == (True, "")
    reloaded = GtpEngine()
    assert ours(reloaded, f"loadsgf {path}") == (True, "black")
    assert reloaded.position.hash == engine.position.hash


def test_ladder_attack_replies_like_gnugo(reference: GtpClient) -> None:
    engine = start(reference, 9)
    for color, vertex in [("black", "B3"), ("black", "C2"), ("black", "D2"), ("white", "C3")]:
        play_both(engine, reference, color, vertex)
    assert same(engine, reference, "ladder_attack C3") == "1 C4"  # the plain ladder to the edge
    play_both(engine, reference, "white", "G7")  # a breaker
    assert same(engine, reference, "ladder_attack C3") == "0"
    mine, gnu = both(engine, reference, "ladder_attack G7")  # four liberties
    assert mine == gnu == (False, "string must have exactly 2 liberties")
