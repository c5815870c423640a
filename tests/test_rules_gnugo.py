"""GNU Go as the rules oracle: random games played in both engines must agree.

Each game mixes uniformly random legal moves with deliberate attempts to
retake a ko, to commit suicide and to play on occupied points.  After every
move the stones (``list_stones``) must be identical, and legality
(``is_legal``) must agree on every point we try, legal or not.
"""

from __future__ import annotations

import random
import shutil

import pytest

from analysis.go.coords import BLACK, WHITE, to_gtp
from analysis.go.position import Position
from analysis.gtp.client import GNUGO, GtpClient, gnugo

pytestmark = pytest.mark.skipif(shutil.which(GNUGO) is None, reason="GNU Go is installed by `make test`")

COLOR = {BLACK: "black", WHITE: "white"}


def our_stones(pos: Position, color: int) -> set[str]:
    return {to_gtp(p, pos.size) for p in pos.stone_points(color)}


def their_stones(engine: GtpClient, color: int) -> set[str]:
    return set(engine.send(f"list_stones {COLOR[color]}").split())


def probes(pos: Position, rng: random.Random) -> list[int]:
    """Points worth asking both engines about: ko, suicides, occupied and random points."""
    size = pos.size
    area = size * size
    stones = pos.stones().ravel()
    points = [rng.randrange(area) for _ in range(3)]
    if pos.board.ko >= 0:
        points.append(pos.board.ko)
    empties = [p for p in range(area) if stones[p] == 0]
    reasons = {p: pos.illegal_reason(p) for p in empties}
    suicides = [p for p, why in reasons.items() if why == "suicide"]
    points += rng.sample(suicides, min(3, len(suicides)))
    points += [p for p, why in reasons.items() if why == "superko"]
    occupied = [p for p in range(area) if stones[p] != 0]
    points += rng.sample(occupied, min(1, len(occupied)))
    return points


def play_random_game(engine: GtpClient, size: int, moves: int, seed: int, superko: bool) -> dict:
    rng = random.Random(seed)
    engine.send(f"boardsize {size}")
    engine.send("clear_board")
    pos = Position(size, superko=superko)
    stats = dict.fromkeys(["moves", "captures", "illegal_checked", "occupied", "ko", "suicide", "superko"], 0)
    for _ in range(moves):
        color = pos.to_play
        for p in probes(pos, rng):
            ours = pos.is_legal(p, color)
            theirs = engine.send(f"is_legal {COLOR[color]} {to_gtp(p, size)}") == "1"
            assert ours == theirs, (
                f"seed {seed} move {stats['moves']}: is_legal {COLOR[color]} {to_gtp(p, size)} "
                f"ours={ours} gnugo={theirs} ({pos.illegal_reason(p, color)})\n{pos}"
            )
            if not ours:
                stats["illegal_checked"] += 1
                stats[pos.illegal_reason(p, color)] += 1
        legal = pos.legal_points(color).nonzero()[0].tolist()
        # Prefer retaking a ko when the rules allow it: long ko fights test ko and superko.
        if pos.board.ko >= 0 and pos.board.ko in legal and rng.random() < 0.7:
            move = pos.board.ko
        elif not legal or rng.random() < 0.02:
            move = pos.pass_point
        else:
            move = rng.choice(legal)
        stats["captures"] += pos.play(move, color)
        engine.send(f"play {COLOR[color]} {to_gtp(move, size)}")
        stats["moves"] += 1
        for c in (BLACK, WHITE):
            assert our_stones(pos, c) == their_stones(engine, c), (
                f"seed {seed} after move {stats['moves']} ({COLOR[color]} {to_gtp(move, size)}): "
                f"{COLOR[c]} stones differ\n{pos}"
            )
    return stats


@pytest.mark.parametrize("superko", [False, True], ids=["simple-ko", "positional-superko"])
def test_random_games_match_gnugo_stone_for_stone_and_on_legality(superko: bool) -> None:
    options = ("--positional-superko",) if superko else ()
    totals: dict[str, int] = {}
    games = 0
    with gnugo(*options) as engine:
        for seed in range(26):
            size, moves = (9, 300) if seed % 2 == 0 else (19, 400)
            stats = play_random_game(engine, size, moves, seed + (1000 if superko else 0), superko)
            games += 1
            for k, v in stats.items():
                totals[k] = totals.get(k, 0) + v
    assert games == 26
    # The games really exercise the rules, not only quiet moves.
    assert totals["captures"] > 1000
    assert totals["ko"] > 20
    assert totals["suicide"] > 100


def test_superko_cycles_on_small_boards_are_refused_exactly_as_gnugo_does() -> None:
    totals: dict[str, int] = {}
    with gnugo("--positional-superko") as engine:
        for seed in range(40):
            stats = play_random_game(engine, 5, 250, 5000 + seed, superko=True)
            for k, v in stats.items():
                totals[k] = totals.get(k, 0) + v
    assert totals["superko"] > 10


def test_gnugo_and_we_agree_after_undo() -> None:
    rng = random.Random(7)
    with gnugo() as engine:
        engine.send("boardsize 9")
        engine.send("clear_board")
        pos = Position(9)
        for _ in range(120):
            legal = pos.legal_points().nonzero()[0].tolist()
            move = rng.choice(legal)
            engine.send(f"play {COLOR[pos.to_play]} {to_gtp(move, 9)}")
            pos.play(move)
            if rng.random() < 0.2:
                pos.undo()
                engine.send("undo")
            for c in (BLACK, WHITE):
                assert our_stones(pos, c) == their_stones(engine, c)
