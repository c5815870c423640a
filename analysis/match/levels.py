"""How strong each bot level measured: its games against GNU Go level 10 in the match logs.

Every game of ``docs/matches/*.jsonl`` (:mod:`analysis.match.log`) whose engine ``A`` is our
GTP engine at a level (``--level NAME``) and whose engine ``B`` is GNU Go at level 10 is a game of
that level.  The games were 19x19, komi 7.5, Chinese rules.

The logs follow the shipped networks from one default to the next.  A log line since 2026-11-30
names the weights our engine played with (its ``version`` reply holds the checkpoint's
:func:`~analysis.nets.fingerprint.fingerprint`).  Given the network each level plays with today
(:func:`todays_networks`), a level's record counts only the games played with those weights when
there are any, and says so; otherwise it counts all its games and says that none of them was
recorded with today's network (BENCHMARKS.md tells the older lines apart).  A level's strength in
a plain word (how hard it is to beat: easy to very hard) follows from its win rate against GNU Go
level 10 (:data:`WORDS`).

``python -m analysis.match.levels [--device KIND]`` prints each level's record as the site shows it
on that device (default ``cpu``), from ``docs/matches``.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analysis.bot.levels import LEVELS
from analysis.match.log import MatchLogError, read_log
from analysis.nets.fingerprint import find, fingerprint
from analysis.nets.zoo import UnknownNetwork

if TYPE_CHECKING:
    import torch

    from analysis.nets.zoo import Zoo

MATCH_DIR = Path(__file__).resolve().parents[2] / "docs" / "matches"
# The least win rate against GNU Go level 10 (an amateur kyu player's strength) of each word for how
# hard a level is to beat, hardest first.
WORDS = ((0.8, "very hard"), (0.55, "hard"), (0.3, "medium"), (0.0, "easy"))
_GNUGO_10 = re.compile(r"(^|/)gnugo\b.*--level[ =]10\b")
NOT_MEASURED = "not measured against GNU Go yet"  # what a level without games says


@dataclass(frozen=True)
class LevelRecord:
    """One level's games against GNU Go level 10: ``games`` played, ``wins``, ``draws``."""

    level: str
    games: int
    wins: int
    draws: int = 0
    todays: bool | None = None  # the games were played with today's network (None: not known)

    @property
    def win_rate(self) -> float:
        """Return the share of the games won, a draw counting half (0 without games)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def word(self) -> str:
        """Return the level's strength in a plain word (:data:`WORDS`)."""
        return next(word for least, word in WORDS if self.win_rate >= least)

    def describe(self) -> str:
        """Return the record in words, as "hard: won 6 of 10 games (60%) against GNU Go level 10 on
        19×19", then "with today's network", or that no game was recorded with it, where that is known."""
        games = "1 game" if self.games == 1 else f"{self.games} games"
        won = f"won {self.wins} of {games} ({100 * self.win_rate:.0f}%)"
        played = {None: "", True: " with today's network",
                  False: " (none yet recorded with today's network)"}[self.todays]
        return f"{self.word}: {won} against GNU Go level 10 on 19×19{played}"


def level_of(command: str) -> str | None:
    """Return the level that the engine ``command`` plays (``python -m analysis.gtp --level
    NAME``), or None for another engine."""
    words = shlex.split(command)
    if "analysis.gtp" not in words or "--level" not in words[:-1]:
        return None
    return words[words.index("--level") + 1]


def network_of(game: dict[str, Any]) -> str | None:
    """Return the fingerprint of the weights our engine ``A`` played ``game`` with, from its
    logged ``version`` reply; None for a line without one (before 2026-11-30) or a level without
    a network."""
    return find(game.get("versions", {}).get("A", ""))


def level_records(records: Sequence[dict[str, Any]],
                  today: Mapping[str, str] | None = None) -> dict[str, LevelRecord]:
    """Return each level's record over the logged games ``records`` (:func:`analysis.match.log.read_log`)
    that our engine ``A`` played at that level against GNU Go level 10 (engine ``B``).

    ``today`` maps a level to the fingerprint of the network it plays with today
    (:func:`todays_networks`): such a level counts only its games with those weights when there
    are any (``todays`` True), else all its games (``todays`` False).  A level ``today`` does not
    name (the level without a network, or no ``today`` at all) counts all its games (``todays`` None).
    """
    games: dict[str, list[dict[str, Any]]] = {}
    for game in records:
        level = level_of(game["engines"]["A"])
        if level is not None and _GNUGO_10.search(game["engines"]["B"]):
            games.setdefault(level, []).append(game)
    return {level: _record(level, played, (today or {}).get(level)) for level, played in games.items()}


def _record(level: str, games: list[dict[str, Any]], network: str | None) -> LevelRecord:
    """Return the record of ``level``'s ``games``: those played with ``network`` if any."""
    todays = None
    if network is not None:
        with_it = [g for g in games if network_of(g) == network]
        todays = bool(with_it)
        games = with_it or games
    wins = sum(g["winner"] == "A" for g in games)
    draws = sum(g["winner"] is None for g in games)
    return LevelRecord(level, len(games), wins, draws, todays)


def todays_networks(device: str | torch.device | None = None, zoo: Zoo | None = None) -> dict[str, str]:
    """Return the fingerprint of the network each level plays with on 19x19 boards on ``device``
    (:meth:`analysis.bot.levels.Level.pick` among ``zoo``'s networks); the level without a network,
    and a level whose network is not shipped, are left out.  Raises OSError for an unreadable
    checkpoint file."""
    today = {}
    for name, level in LEVELS.items():
        try:
            choice = level.pick(19, device, zoo)
        except UnknownNetwork:
            continue
        if choice is not None:
            today[name] = fingerprint(choice.path)
    return today


def measured_levels(directory: Path = MATCH_DIR,
                    today: Mapping[str, str] | None = None) -> dict[str, LevelRecord]:
    """Return each level's record from the logs ``directory/*.jsonl`` (none when there is no such
    directory), counting as :func:`level_records` does with ``today``.  Raises MatchLogError for a
    line that is not a game record, OSError for an unreadable file."""
    return level_records(read_log(_logs(directory)), today)


def _logs(directory: Path) -> Iterable[Path]:
    """Return the match logs in ``directory``, by name (none when it does not exist)."""
    return sorted(directory.glob("*.jsonl")) if directory.is_dir() else []


def main(argv: Sequence[str] | None = None) -> None:
    """Print each level's record, in the levels' order, counted with the networks they play with on
    ``--device``; exits with a message when the logs cannot be read."""
    parser = argparse.ArgumentParser(prog="python -m analysis.match.levels",
                                     description="each bot level's record against GNU Go level 10")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="the device kind whose networks count (default cpu)")
    args = parser.parse_args(argv)
    try:
        measured = measured_levels(today=todays_networks(args.device))
    except (OSError, MatchLogError) as e:
        sys.exit(f"cannot read the match logs: {e}")
    for name in LEVELS:
        record = measured.get(name)
        print(f"{name:14} {record.describe() if record else NOT_MEASURED}")


if __name__ == "__main__":
    main()
