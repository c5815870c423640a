"""``python -m analysis.katajson``: KataGo's analysis engine on stdin and stdout (engine.py), with
the shipped networks (``weights/zoo.json``; a query's ``network`` names one, else the default of
this machine's device).

Options: ``--default-visits`` (a query's ``maxVisits`` when it names none, default 200),
``--max-visits`` (the most a query is searched, default 100,000), ``--threads`` (torch's CPU
threads, default 1) and ``--device`` (``cpu``, ``cuda`` or ``auto``, the default: CUDA when torch
sees a GPU).  KaTrain and other KataGo clients start it in place of ``katago analysis``; as
KataGo, it says ``Started, ready to begin handling requests`` on stderr when it reads the queries.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import torch

from analysis.gtp.stream import read_lines
from analysis.katajson.engine import AnalysisEngine
from analysis.katajson.query import MAX_MOVES, Limits


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Return the parsed command line; argparse exits with a usage message on bad options."""
    parser = argparse.ArgumentParser(prog="python -m analysis.katajson",
                                     description="KataGo's JSON analysis engine on stdin and stdout")
    parser.add_argument("--default-visits", type=int, default=200, help="maxVisits of a query naming none")
    parser.add_argument("--max-visits", type=int, default=100_000, help="the most visits a query is searched")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="where the networks run (default: CUDA when there is a GPU)")
    args = parser.parse_args(argv)
    if not 1 <= args.default_visits <= args.max_visits:
        parser.error("--default-visits must be between 1 and --max-visits")
    return args


STARTED = "Started, ready to begin handling requests"  # KataGo's line on stderr, which some clients wait for


def main(argv: Sequence[str] | None = None) -> None:
    """Answer the queries of stdin on stdout until the input ends."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    limits = Limits(args.default_visits, args.max_visits, max_turns=MAX_MOVES + 1)
    device = None if args.device == "auto" else args.device
    engine = AnalysisEngine(sys.stdout, limits, device=device)
    print(STARTED, file=sys.stderr, flush=True)
    engine.run(read_lines(sys.stdin.fileno()))


if __name__ == "__main__":
    main()
