"""A match's summary: wins, A's win rate with a Wilson interval, per-colour results, speed, disputes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from analysis.match.game import GameResult
from analysis.stats import wilson_interval

COLOURS = ("black", "white")


@dataclass(frozen=True)
class ColourRecord:
    """One engine's games with one colour."""

    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class MatchSummary:
    """Everything a match reports; ``engines`` maps ``A``/``B`` to their command lines."""

    engines: dict[str, str]
    games: int
    wins: dict[str, int]
    draws: int
    win_rate: float
    interval: tuple[float, float]
    by_colour: dict[str, dict[str, ColourRecord]]
    seconds_per_move: dict[str, float | None]
    moves: dict[str, int]
    results: list[GameResult]

    @property
    def disagreements(self) -> list[GameResult]:
        """The games whose two engine scores differ."""
        return [r for r in self.results if r.disagreement]

    def to_json(self) -> dict[str, Any]:
        """Return the summary as JSON-ready data (results included, one object per game)."""
        data = asdict(self)
        data["interval"] = list(self.interval)
        data["disagreement_count"] = len(self.disagreements)
        data["disagreements"] = [_dispute(r) for r in self.disagreements]
        return data


def _dispute(result: GameResult) -> dict[str, Any]:
    """Return a score disagreement: the game number, both engines' scores, ours and the referee's."""
    return {"game": result.number, "black_score": result.black_score, "white_score": result.white_score,
            "ours": result.our_score, "referee": result.referee_score}


def _colour_record(results: Sequence[GameResult], name: str, colour: str) -> ColourRecord:
    """Return ``name``'s record in the games where it played ``colour``."""
    games = [r for r in results if getattr(r, colour) == name]
    wins = sum(r.winner == name for r in games)
    draws = sum(r.winner is None for r in games)
    return ColourRecord(len(games), wins, len(games) - wins - draws, draws)


def summarize(results: Sequence[GameResult], engines: dict[str, str],
              timing: dict[str, tuple[float, int]]) -> MatchSummary:
    """Return the summary of ``results`` between engines ``A`` and ``B``.

    ``timing`` maps each engine to its total genmove seconds and move count.
    """
    wins = {name: sum(r.winner == name for r in results) for name in engines}
    draws = sum(r.winner is None for r in results)
    a_points = wins["A"] + draws / 2
    return MatchSummary(
        engines=dict(engines),
        games=len(results),
        wins=wins,
        draws=draws,
        win_rate=a_points / len(results) if results else 0.0,
        interval=wilson_interval(a_points, len(results)),
        by_colour={name: {c: _colour_record(results, name, c) for c in COLOURS} for name in engines},
        seconds_per_move={name: seconds / moves if moves else None
                          for name, (seconds, moves) in timing.items()},
        moves={name: moves for name, (_, moves) in timing.items()},
        results=list(results),
    )


def _percent(x: float) -> str:
    """Return a fraction as a percentage with one decimal, such as ``42.5%``."""
    return f"{100 * x:.1f}%"


def format_summary(summary: MatchSummary) -> str:
    """Return the human-readable summary, several lines without a trailing newline."""
    lines = [f"engine {name}: {command}" for name, command in summary.engines.items()]
    low, high = summary.interval
    wins = ", ".join(f"{name} {count}" for name, count in summary.wins.items())
    lines += [
        f"games {summary.games}: wins {wins}, draws {summary.draws}",
        f"A win rate {_percent(summary.win_rate)} (95% Wilson interval {_percent(low)} to {_percent(high)})",
    ]
    for name, records in summary.by_colour.items():
        parts = [f"as {c} {r.wins}-{r.losses}" + (f"-{r.draws}" if r.draws else "") + f" of {r.games}"
                 for c, r in records.items()]
        lines.append(f"{name} " + ", ".join(parts))
    speed = [f"{name} {s:.3f} s ({summary.moves[name]} moves)" if s is not None else f"{name} -"
             for name, s in summary.seconds_per_move.items()]
    lines.append("seconds per move: " + ", ".join(speed))
    lines.append(f"score disagreements: {len(summary.disagreements)}")
    lines += [f"  game {d['game']}: black engine {d['black_score']}, white engine {d['white_score']}, "
              f"ours {d['ours']}" + (f", referee {d['referee']}" if d["referee"] else "")
              for d in map(_dispute, summary.disagreements)]
    return "\n".join(lines)
