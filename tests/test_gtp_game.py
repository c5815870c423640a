"""A whole 9x9 game against GNU Go over GTP: our engine must finish it without an illegal move."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from analysis.gtp.client import GNUGO, GtpClient, gnugo

pytestmark = pytest.mark.skipif(shutil.which(GNUGO) is None, reason="GNU Go is installed by `make test`")

ROOT = Path(__file__).resolve().parent.parent
MAX_MOVES = 250
RESULT = re.compile(r"[BW]\+\d+(\.\d+)?|0")


@pytest.mark.parametrize(("our_color", "seed"), [("black", 1), ("white", 2)])
def test_full_game_against_gnugo_ends_with_two_passes_or_our_resignation(
    our_color: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    argv = [sys.executable, "-m", "analysis.gtp", "--size", "9", "--seed", str(seed), "--level", "rules"]
    with GtpClient(argv) as we, gnugo("--seed", str(seed), level=0) as they:
        for engine in (we, they):
            engine.send("boardsize 9")
            engine.send("clear_board")
            engine.send("komi 7.5")
        players = {our_color: we, ("white" if our_color == "black" else "black"): they}
        color, other = "black", "white"
        history: list[str] = []
        while len(history) < MAX_MOVES and history[-2:] != ["pass", "pass"]:
            vertex = players[color].send(f"genmove {color}").lower()
            history.append(vertex)
            if vertex == "resign":  # the rules level, behind on a settled board after GNU Go's passes
                break
            players[other].send(f"play {color} {vertex}")  # raises GtpError if it is illegal there
            color, other = other, color
        ended = history[-2:] == ["pass", "pass"] or history[-1] == "resign"
        assert ended, f"no two passes nor a resignation after {len(history)} moves"
        ours, theirs = we.send("final_score"), they.send("final_score")
    assert RESULT.fullmatch(ours), ours
    assert RESULT.fullmatch(theirs), theirs
    if history[-1] == "resign":  # only we resign, and only a game we lose on GNU Go's count too
        assert players[color] is we and theirs.startswith("W" if our_color == "black" else "B")
    assert len(history) <= MAX_MOVES
