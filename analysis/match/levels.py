"""How strong each bot level measured: its games against GNU Go level 10 in the match logs.

Every game of ``docs/matches/*.jsonl`` (:mod:`analysis.match.log`) whose engine ``A`` is our
GTP engine at a level (``--level NAME``) and whose engine ``B`` is GNU Go at level 10 counts for
that level, whatever network file it ran with (the logs follow the shipped network from one
default to the next; BENCHMARKS.md tells them apart).  The games were 19x19, komi 7.5, Chinese
rules.  A level's strength in a plain word (how hard it is to beat: easy to very hard) follows from
its win rate against GNU Go level 10 (:data:`WORDS`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.match.log import read_log

MATCH_DIR = Path(__file__).resolve().parents[2] / "docs" / "matches"
# The least win rate against GNU Go level 10 (an amateur kyu player's strength) of each word for how
# hard a level is to beat, hardest first.
WORDS = ((0.8, "very hard"), (0.55, "hard"), (0.3, "medium"), (0.0, "easy"))
_GNUGO_10 = re.compile(r"(^|/)gnugo\b.*--level[ =]10\b")


@dataclass(frozen=True)
class LevelRecord:
    """One level's games against GNU Go level 10: ``games`` played, ``wins``, ``draws``."""

    level: str
    games: int
    wins: int
    draws: int = 0

    @property
    def win_rate(self) -> float:
        """Return the share of the games won, a draw counting half (0 without games)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def word(self) -> str:
        """Return the level's strength in a plain word (:data:`WORDS`)."""
        return next(word for least, word in WORDS if self.win_rate >= least)

    def describe(self) -> str:
        """Return the record in words, as "hard: won 6 of 10 games (60%) against GNU Go level 10 on 19×19"."""
        games = "1 game" if self.games == 1 else f"{self.games} games"
        won = f"won {self.wins} of {games} ({100 * self.win_rate:.0f}%)"
        return f"{self.word}: {won} against GNU Go level 10 on 19×19"


def level_of(command: str) -> str | None:
    """Return the level that the engine ``command`` plays (``python -m analysis.gtp --level
    NAME``), or None for another engine."""
    words = shlex.split(command)
    if "analysis.gtp" not in words or "--level" not in words[:-1]:
        return None
    return words[words.index("--level") + 1]


def level_records(records: Sequence[dict[str, Any]]) -> dict[str, LevelRecord]:
    """Return each level's record over the logged games ``records`` (:func:`analysis.match.log.read_log`)
    that our engine ``A`` played at that level against GNU Go level 10 (engine ``B``)."""
    tally: dict[str, list[int]] = {}
    for game in records:
        level = level_of(game["engines"]["A"])
        if level is None or not _GNUGO_10.search(game["engines"]["B"]):
            continue
        counts = tally.setdefault(level, [0, 0, 0])
        counts[0] += 1
        counts[1] += game["winner"] == "A"
        counts[2] += game["winner"] is None
    return {level: LevelRecord(level, *counts) for level, counts in tally.items()}


def measured_levels(directory: Path = MATCH_DIR) -> dict[str, LevelRecord]:
    """Return each level's record from the logs ``directory/*.jsonl`` (none when there is no such
    directory).  Raises MatchLogError for a line that is not a game record, OSError for an
    unreadable file."""
    return level_records(read_log(_logs(directory)))


def _logs(directory: Path) -> Iterable[Path]:
    """Return the match logs in ``directory``, by name (none when it does not exist)."""
    return sorted(directory.glob("*.jsonl")) if directory.is_dir() else []
