"""Scoring benchmark: the dead-stone estimate against the results of counted games.

The counted games of the Tygem 9d validation month (``RE`` like ``B+3.5``:
Korean territory rules, komi 6.5) end with their dead stones still on the
board.  For each game the estimate's dead stones give a territory score.  The
figures are, for each dead-stone threshold compared, the share of games whose
score equals the recorded one exactly and the share with the recorded winner,
and the milliseconds per estimate.  With ``--gnugo N``, GNU Go 3.8's
``final_score`` on the first N of those games gives the same figures as a
reference.  Some recorded results follow the server's own conventions (seki
eyes, unplayed defensive moves), so no counter reaches 100%.

With ``--network CKPT`` the network's ownership head gives a second estimate (its
ownership map of the finished board, judged with each player to move and averaged, instead of
the playouts', the same threshold rule), compared on the same games.

With ``--sgf-dir DIR`` (a match's ``--sgf-dir``) the games there that ended
with two passes are counted too, by area with the estimate and by
``gnugo --chinese-rules``'s ``final_score``: bot games end with unsettled
fights that pro games resolve before counting.
"""

from __future__ import annotations

import argparse
import math
import shutil
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.bench.positions import VALIDATION
from analysis.go.position import Position
from analysis.go.scoring import (
    DEAD_THRESHOLD,
    area_score,
    dead_from_ownership,
    estimate_dead,
    ownership,
    territory_score,
)
from analysis.gtp.client import GtpClient
from analysis.nets.inference import Network
from analysis.sgf import read_sgf, replay
from analysis.sgf.results import result_margin

THRESHOLDS = (DEAD_THRESHOLD, 0.4)  # the default, and the one used before 2026-11-23
GNUGO = "/usr/games/gnugo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the benchmark's options: how many games, and how many of them GNU Go counts."""
    parser.add_argument("--games", type=int, default=300, help="counted games to score (default 300)")
    parser.add_argument("--gnugo", type=int, default=0, metavar="N",
                        help="also let GNU Go count the first N games (default 0)")
    parser.add_argument("--sgf-dir", default=None,
                        help="also compare with GNU Go on the games there that ended with two passes")
    parser.add_argument("--network", default=None,
                        help="a checkpoint with an ownership head: its dead stones, on the same games")


def counted_games(limit: int, archive: Path = VALIDATION) -> Iterator[tuple[str, bytes, Position, float]]:
    """Yield up to ``limit`` (member name, SGF bytes, final position, recorded margin for Black).

    Games whose result is not a count, or that do not read or replay, are skipped.
    """
    found = 0
    with zipfile.ZipFile(archive) as zf:
        for name in zf.namelist():
            data = zf.read(name)
            try:
                game = read_sgf(data, source=name)
                margin = result_margin(game.result)
                position = None if math.isnan(margin) else replay(game)
            except ValueError:  # SgfError and IllegalMoveError
                continue
            if position is None:
                continue
            yield name, data, position, margin
            found += 1
            if found >= limit:
                return


def two_pass_games(folder: str | Path) -> Iterator[tuple[str, bytes, Position]]:
    """Yield (file name, SGF bytes, final position) for the ``*.sgf`` files in ``folder`` (sorted)
    whose main line ends with two passes; unreadable files are skipped."""
    for path in sorted(Path(folder).glob("*.sgf")):
        data = path.read_bytes()
        try:
            position = replay(read_sgf(data, source=str(path)))
        except ValueError:
            continue
        if position.consecutive_passes() >= 2:
            yield path.name, data, position


def _match_games(folder: str) -> dict:
    """Return how often our area count of the two-pass games in ``folder`` agrees with GNU Go's."""
    pairs = []
    client = GtpClient([GNUGO, "--mode", "gtp", "--chinese-rules"])
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for _, data, position in two_pass_games(folder):
                ours = area_score(position, estimate_dead(position)).margin
                pairs.append((ours, _gnugo_margin(client, data, scratch)))
    finally:
        client.close()
    return _shares(pairs) if pairs else {"games": 0}


def _gnugo_margin(gnugo: GtpClient, data: bytes, folder: str) -> float:
    """Return GNU Go's final_score of the game in ``data``, as Black's margin."""
    path = Path(folder) / "game.sgf"
    path.write_bytes(data)
    gnugo.send(f"loadsgf {path}")
    result = gnugo.send("final_score").strip()
    if result in ("0", "Draw"):
        return 0.0
    return float(result[2:]) * (1 if result[0] == "B" else -1)


def _shares(pairs: list[tuple[float, float]]) -> dict:
    """Return the exact and same-winner shares of (counted, recorded) margin pairs."""
    n = len(pairs)
    exact = sum(ours == recorded for ours, recorded in pairs)
    winner = sum(np.sign(ours) == np.sign(recorded) for ours, recorded in pairs)
    return {"games": n, "exact": round(exact / n, 4), "winner": round(winner / n, 4)}


@dataclass
class _Tally:
    """The bench's pairs of (our margin, recorded margin) by estimate, and the seconds they took."""

    by_threshold: dict[float, list[tuple[float, float]]] = field(
        default_factory=lambda: {t: [] for t in THRESHOLDS})
    by_network: list[tuple[float, float]] = field(default_factory=list)
    by_gnugo: list[tuple[float, float]] = field(default_factory=list)
    estimate_seconds: float = 0.0
    network_seconds: float = 0.0

    def add_estimate(self, position: Position, recorded: float) -> None:
        """Count ``position`` by the playouts' ownership at each threshold; time the default one."""
        start = time.perf_counter()  # the two steps of estimate_dead, timed
        owner = ownership(position)
        default_dead = dead_from_ownership(position, owner)
        self.estimate_seconds += time.perf_counter() - start
        for t, pairs in self.by_threshold.items():
            dead = default_dead if t == DEAD_THRESHOLD else dead_from_ownership(position, owner, t)
            pairs.append((territory_score(position, dead).margin, recorded))

    def add_network(self, net: Network, position: Position, recorded: float) -> None:
        """Count ``position`` by ``net``'s settled ownership, timed."""
        start = time.perf_counter()
        dead = dead_from_ownership(position, net.settled_ownership(position))
        self.network_seconds += time.perf_counter() - start
        self.by_network.append((territory_score(position, dead).margin, recorded))

    def figures(self, network: str | None) -> dict:
        """Return the bench's figures; ``network`` names the checkpoint counted by add_network."""
        default = self.by_threshold[DEAD_THRESHOLD]
        n = max(len(default), 1)
        figures = {
            "archive": VALIDATION.name,
            "estimate_ms": round(1000 * self.estimate_seconds / n, 1),
            **{f"threshold_{t:g}": _shares(pairs) for t, pairs in self.by_threshold.items()},
        }
        if self.by_network:
            figures["network"] = {**_shares(self.by_network), "checkpoint": network,
                                  "estimate_ms": round(1000 * self.network_seconds / n, 1)}
        if self.by_gnugo:
            figures["gnugo"] = _shares(self.by_gnugo)
            figures["ours_on_gnugo_games"] = _shares(default[: len(self.by_gnugo)])
        return figures


def run(
    quick: bool = False,
    games: int = 300,
    gnugo: int = 0,
    sgf_dir: str | None = None,
    network: str | None = None,
) -> dict:
    """Return the estimate's agreement with recorded counts per threshold, GNU Go's if asked, and
    the agreement with GNU Go on the two-pass games in ``sgf_dir`` if given.

    Raises NotADirectoryError at once if ``sgf_dir`` is given and is not a directory.
    """
    if sgf_dir and not Path(sgf_dir).is_dir():
        raise NotADirectoryError(f"--sgf-dir {sgf_dir}: not a directory")
    games = 10 if quick else games
    tally = _Tally()
    net = Network.from_checkpoint(network, dtype="float32") if network else None
    client = GtpClient([GNUGO, "--mode", "gtp"]) if gnugo and shutil.which(GNUGO) else None
    with tempfile.TemporaryDirectory() as folder:
        try:
            for number, (_, data, position, recorded) in enumerate(counted_games(games)):
                tally.add_estimate(position, recorded)
                if net is not None:
                    tally.add_network(net, position, recorded)
                if client is not None and number < gnugo:
                    tally.by_gnugo.append((_gnugo_margin(client, data, folder), recorded))
        finally:
            if client is not None:
                client.close()
    figures = tally.figures(network)
    if sgf_dir:
        figures["match_games_vs_gnugo"] = _match_games(sgf_dir)
    return figures
