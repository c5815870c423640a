"""``python -m analysis.match``: play two GTP engines against each other and summarise the match.

Example::

    python -m analysis.match --black "python -m analysis.gtp --size 9" \\
        --white "/usr/games/gnugo --mode gtp --level 0 --chinese-rules" --games 4 --size 9

The engine given as ``--black`` is called A and plays black in the odd games,
white in the even ones; the other is B.  Each game is refereed by our own
Position (see :mod:`analysis.match.game`), each engine runs under a per-command
time limit and is restarted after a failure (:mod:`analysis.match.engine`), and
the summary is printed as text or JSON (:mod:`analysis.match.stats`).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path
from typing import TextIO

from analysis.go.coords import MAX_SIZE, MIN_SIZE
from analysis.go.rules import default_komi, komi_option
from analysis.match.engine import MatchEngine
from analysis.match.game import GameConfig, GameResult, play_game, save_sgf
from analysis.match.log import append, log_line
from analysis.match.stats import MatchSummary, format_summary, summarize
from analysis.sgf import GameRecord

RULES = ("chinese", "japanese")


class _Tables:
    """The tables of a match: each plays the next unplayed game number until none is left or the
    match stops, and every finished game is recorded under one lock."""

    def __init__(self, engines: dict[str, str], numbers: range, config: GameConfig, timeout: float,
                 referee: str | None,
                 record: Callable[[GameResult, GameRecord, dict, dict, dict], None]) -> None:
        self.engines, self.config, self.timeout, self.referee = engines, config, timeout, referee
        self.numbers = iter(numbers)
        self.on_record = record
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.results: list[GameResult] = []
        self.timing = {name: [0.0, 0] for name in engines}
        self.running: list[MatchEngine] = []

    def record(self, result: GameResult, game: GameRecord, seconds: dict[str, float],
               genmoves: dict[str, int], versions: dict[str, str]) -> None:
        """Keep one game's result and its engines' thinking time, and pass it on."""
        with self.lock:
            self.on_record(result, game, seconds, genmoves, versions)
            self.results.append(result)
            for name in self.engines:
                self.timing[name][0] += seconds[name]
                self.timing[name][1] += genmoves[name]

    def table(self) -> None:
        """Start a pair of engines (and a referee) and play games on them until none is left."""
        a = MatchEngine("A", self.engines["A"], self.timeout)
        b = MatchEngine("B", self.engines["B"], self.timeout)
        judge = None if self.referee is None else MatchEngine("referee", self.referee, self.timeout)
        with self.lock:
            self.running.extend(e for e in (a, b, judge) if e is not None)
        with a, b, judge or nullcontext():
            a.start()
            b.start()
            while not self.stop.is_set():
                with self.lock:
                    number = next(self.numbers, None)
                if number is None:
                    return
                before = {e.name: (e.move_seconds, e.moves) for e in (a, b)}
                first, second = (a, b) if number % 2 else (b, a)
                result, game = play_game(number, first, second, self.config, judge)
                if self.stop.is_set():
                    return
                self.record(result, game, {e.name: e.move_seconds - before[e.name][0] for e in (a, b)},
                            {e.name: e.moves - before[e.name][1] for e in (a, b)},
                            {e.name: e.version for e in (a, b)})

    def play(self, tables: int) -> None:
        """Play on ``tables`` tables at once; close every engine when done or when one table fails."""
        pool = ThreadPoolExecutor(max_workers=max(1, tables), thread_name_prefix="match-table")
        try:
            for future in [pool.submit(self.table) for _ in range(tables)]:
                try:
                    future.result()
                except BaseException:
                    self.stop.set()
                    raise
        finally:
            self.stop.set()
            with self.lock:
                for engine in self.running:
                    engine.close()
            pool.shutdown(wait=True)


def run_match(
    black: str,
    white: str,
    games: int,
    config: GameConfig,
    timeout: float = 60.0,
    sgf_dir: Path | None = None,
    on_game: Callable[[GameResult], None] | None = None,
    referee: str | None = None,
    jobs: int = 1,
    first_game: int = 1,
    log: TextIO | None = None,
) -> MatchSummary:
    """Play ``games`` games between engine A (``black`` command) and B (``white``), alternating colours.

    Games are numbered from ``first_game``; A is black in the odd ones.  ``jobs``
    tables play at once, each with its own engine processes.  Saves ``game-NNN.sgf``
    files in ``sgf_dir`` when given, appends a line per game to ``log`` (see
    :mod:`analysis.match.log`) and calls ``on_game`` after every game.  ``referee`` is
    a GTP engine command that counts the games the two engines score differently.
    Returns the summary, games in number order; every engine process has ended by then.
    Raises ValueError for a bad command line, OSError if an engine cannot be started
    at all or a file cannot be written.
    """
    engines = {"A": black, "B": white}

    def record(result: GameResult, game: GameRecord, seconds: dict[str, float],
               genmoves: dict[str, int], versions: dict[str, str]) -> None:
        if sgf_dir is not None:
            save_sgf(game, sgf_dir, result.number)
        if log is not None:
            append(log, log_line(result, engines, seconds, genmoves, versions))
        if on_game is not None:
            on_game(result)

    tables = _Tables(engines, range(first_game, first_game + games), config, timeout, referee, record)
    tables.play(min(jobs, games))
    results = sorted(tables.results, key=lambda r: r.number)
    return summarize(results, engines, {name: (t[0], int(t[1])) for name, t in tables.timing.items()})


def format_game(result: GameResult) -> str:
    """Return a one-line account of a game."""
    winner = f"{result.winner} wins" if result.winner else "draw"
    line = (f"game {result.number}: {result.black} black, {result.white} white: {result.result} "
            f"({result.reason}, {result.moves} moves) {winner}")
    return line + (f": {result.detail}" if result.detail else "")


def _positive(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    """Return an argparse type that accepts only positive numbers of ``kind``."""

    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Return the parsed command line; argparse exits with a usage message on bad options."""
    parser = argparse.ArgumentParser(prog="python -m analysis.match", description=__doc__.splitlines()[0])
    parser.add_argument("--black", required=True, help="engine A's command (black in odd games)")
    parser.add_argument("--white", required=True, help="engine B's command (white in odd games)")
    parser.add_argument("--games", type=_positive(int), default=2, help="number of games (default 2)")
    parser.add_argument("--size", type=int, default=19, choices=range(MIN_SIZE, MAX_SIZE + 1),
                        metavar=f"{{{MIN_SIZE}..{MAX_SIZE}}}", help="board size (default 19)")
    parser.add_argument("--komi", type=komi_option, default=None,
                        help="komi, at most 150 either way (default 7.5 chinese, 6.5 japanese)")
    parser.add_argument("--rules", choices=RULES, default="chinese",
                        help="our referee's ko rule and scoring (default chinese)")
    parser.add_argument("--sgf-dir", type=Path, help="save every game there as game-NNN.sgf")
    parser.add_argument("--max-moves", type=_positive(int), default=None,
                        help="score the game after this many moves (default 3 * size * size)")
    parser.add_argument("--timeout", type=_positive(float), default=60.0,
                        help="seconds an engine may take for any command (default 60)")
    parser.add_argument("--referee", help="a GTP engine that counts the games the two engines score "
                        "differently, e.g. \"gnugo --mode gtp --chinese-rules\" (default: our own count)")
    parser.add_argument("--jobs", type=_positive(int), default=1,
                        help="games played at once, each pair of engines in its own processes (default 1)")
    parser.add_argument("--log", type=Path, help="append one JSON line per finished game to this file; "
                        "python -m analysis.match.log sums logs up")
    parser.add_argument("--first-game", type=_positive(int), default=1,
                        help="number of the first game, to continue a log (default 1)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser.parse_args(argv)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """Turn the first SIGTERM into SystemExit, so that the engines are shut down on the way out, and
    ignore the later ones: ``timeout`` signals the harness and then its group, and a second
    SystemExit in the middle of that shutdown would leave a table playing on with its engines."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(128 + signum)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the match and print the summary; exits with a message if an engine cannot be started."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    config = GameConfig(
        size=args.size,
        komi=default_komi(args.rules) if args.komi is None else args.komi,
        rules=args.rules,
        max_moves=args.max_moves or 3 * args.size * args.size,
    )
    on_game = None if args.json else lambda result: print(format_game(result), flush=True)
    try:
        with open(args.log, "a") if args.log else nullcontext() as log:
            summary = run_match(args.black, args.white, args.games, config, args.timeout, args.sgf_dir,
                                on_game, args.referee, args.jobs, args.first_game, log)
    except (OSError, ValueError) as e:
        sys.exit(f"match aborted: {e}")
    print(json.dumps(summary.to_json(), indent=2) if args.json else format_summary(summary))

