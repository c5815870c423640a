"""A match's game log: one JSON line per finished game, so long matches add up across runs.

``python -m analysis.match --log FILE`` appends a line as each game ends, so a
match that is stopped keeps every game it finished, and a later run continues
the same log with ``--first-game`` (colours keep alternating by game number).
``python -m analysis.match.log FILE...`` prints the summary of every logged game.

A line holds the :class:`GameResult` fields plus ``seconds`` and ``genmoves``:
each engine's genmove time and count in that game, ``engines``: the two
command lines, and ``versions``: what each engine said it was (its GTP ``name`` and
``version``; our engine's version names its network and the weights' fingerprint).  Lines
written before 2026-11-30 have no ``versions``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, TextIO

from analysis.match.game import GameResult
from analysis.match.stats import MatchSummary, format_summary, summarize

_RESULT_FIELDS = {f.name for f in fields(GameResult)}


class MatchLogError(ValueError):
    """A log line that is not a game record; the message names the file and line."""


def log_line(result: GameResult, engines: dict[str, str], seconds: dict[str, float],
             genmoves: dict[str, int], versions: dict[str, str]) -> str:
    """Return the JSON line (without newline) that records one game."""
    return json.dumps({**asdict(result), "engines": engines, "seconds": seconds, "genmoves": genmoves,
                       "versions": versions})


def append(stream: TextIO, line: str) -> None:
    """Write ``line`` and a newline to ``stream`` and flush it, so a killed match loses no finished game."""
    stream.write(line + "\n")
    stream.flush()


def read_log(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Return every game record of the logs, in file order.

    Raises MatchLogError for a line that is not a JSON game record, OSError for an unreadable file.
    """
    records = []
    for path in paths:
        for number, text in enumerate(Path(path).read_text().splitlines(), start=1):
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise MatchLogError(f"{path}:{number}: not JSON ({e.msg})") from None
            if not isinstance(data, dict) or not {"number", "winner", "engines"} <= data.keys():
                raise MatchLogError(f"{path}:{number}: not a game record")
            records.append(data)
    return records


def summarize_log(records: Sequence[dict[str, Any]]) -> MatchSummary:
    """Return the summary of logged games, which must all be between the same two engines.

    Raises MatchLogError if the records name different engines, or there are none.
    """
    if not records:
        raise MatchLogError("no games in the log")
    engines = records[0]["engines"]
    for data in records:
        if data["engines"] != engines:
            raise MatchLogError(f"game {data['number']} was played by {data['engines']}, not {engines}")
    results = [GameResult(**{k: v for k, v in data.items() if k in _RESULT_FIELDS}) for data in records]
    timing = {name: (sum(d["seconds"][name] for d in records), sum(d["genmoves"][name] for d in records))
              for name in engines}
    return summarize(results, engines, timing)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the summary of the logged games (text, or JSON with ``--json``)."""
    parser = argparse.ArgumentParser(prog="python -m analysis.match.log",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path, help="logs of python -m analysis.match --log")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    try:
        summary = summarize_log(read_log(args.logs))
    except (OSError, MatchLogError) as e:
        sys.exit(f"cannot summarise: {e}")
    print(json.dumps(summary.to_json(), indent=2) if args.json else format_summary(summary))


if __name__ == "__main__":
    main()
