"""``python -m analysis.gtp``: speak GTP version 2 on stdin and stdout.

Options: ``--rules chinese|japanese`` (default chinese), ``--komi`` (default by
rules: 7.5 chinese, 6.5 japanese), ``--size`` (default 19), ``--seed`` (default 0),
``--level`` (a bot level; default ``policy`` when a next-move network is shipped, else
``rules``), ``--network`` (a shipped network's name, ``weights/zoo.json``; default: the level's
own, else its role's default on this machine's device, chosen by :mod:`analysis.nets.registry`
as the web chooses, and written to stderr with the reason; the dtype and memory layout it
computes in follow on stderr at its first batch), ``--weights`` (a checkpoint file
instead, used as it is; ``version`` names the network and its fingerprint), ``--resign-threshold`` (0 never
resigns) and ``--resign-moves`` (how many moves in a row it must stay below),
``--threads`` (torch's CPU threads, default 1: on two cores shared with a
training run one thread searched 3.5 to 9 times faster than two, see BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from analysis.bot.levels import LEVELS
from analysis.bot.load import load_bot
from analysis.go.coords import MAX_SIZE, MIN_SIZE
from analysis.go.rules import komi_option
from analysis.gtp.engine import RULES, GtpEngine
from analysis.gtp.stream import read_lines
from analysis.nets import inference
from analysis.nets.checkpoint import CheckpointError
from analysis.nets.fingerprint import fingerprint
from analysis.nets.registry import Choice, pick
from analysis.nets.zoo import UnknownNetwork


def default_level() -> str:
    """Return ``policy`` when a next-move network is shipped, else ``rules``."""
    try:
        pick(None, "next", device="cpu")  # whether one exists does not depend on the device
    except UnknownNetwork:
        return "rules"
    return "policy"


def network_label(choice: Choice | None, weights: str | None) -> str:
    """Return how ``version`` names the network: the shipped one's name, else nothing, then the
    checkpoint file's name and fingerprint; "" for the level without a network."""
    path = Path(weights) if weights else choice.path if choice else None
    if path is None:
        return ""
    return " ".join([*([choice.name] if choice else []), path.name, fingerprint(path)])


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Return the parsed command line; argparse exits with a usage message on bad options."""
    parser = argparse.ArgumentParser(prog="python -m analysis.gtp", description="GTP version 2 engine")
    parser.add_argument(
        "--rules",
        choices=RULES,
        default="chinese",
        help="chinese: positional superko, area scoring, White gets a point per handicap stone; "
        "japanese: simple ko, territory scoring, no handicap bonus",
    )
    parser.add_argument("--komi", type=komi_option, default=None,
                        help="komi, at most 150 either way (default 7.5 chinese, 6.5 japanese)")
    parser.add_argument(
        "--size",
        type=int,
        default=19,
        choices=range(MIN_SIZE, MAX_SIZE + 1),
        metavar=f"{{{MIN_SIZE}..{MAX_SIZE}}}",
        help="board size (default 19)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed of move choice and scoring")
    level = default_level()
    parser.add_argument("--level", choices=sorted(LEVELS), default=level,
                        help=f"bot strength level (default {level})")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--network", help="a shipped network's name (default: the level's, else its role's "
                        "default on this device, weights/zoo.json)")
    chosen.add_argument("--weights", help="a network checkpoint file instead of a shipped network")
    parser.add_argument("--resign-threshold", type=float, default=0.05,
                        help="resign when the win rate stays below this (0: never)")
    parser.add_argument("--resign-moves", type=int, default=3,
                        help="for this many moves in a row (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the engine on stdin/stdout until ``quit`` or the end of input."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        bot, choice = load_bot(
            args.level,
            args.weights,
            args.network,
            args.size,
            seed=args.seed,
            resign_threshold=args.resign_threshold,
            resign_moves=args.resign_moves,
        )
    except (FileNotFoundError, CheckpointError, ValueError) as exc:
        sys.exit(f"cannot load the network: {exc}")
    if choice is not None:
        print(f"network {choice.name} for {args.level}: {choice.reason}", file=sys.stderr)
    show_compute_choice()
    engine = GtpEngine(rules=args.rules, komi=args.komi, size=args.size, seed=args.seed, bot=bot,
                       network=network_label(choice, args.weights))
    engine.serve(read_lines(sys.stdin.fileno()), sys.stdout)


def show_compute_choice() -> None:
    """Have the network write on stderr, once its first batch has chosen them, the dtype and the
    memory layout it computes in and why (:mod:`analysis.nets.inference`), as GUIs show an
    engine's stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    inference_log = logging.getLogger(inference.__name__)
    inference_log.addHandler(handler)
    inference_log.setLevel(logging.INFO)


if __name__ == "__main__":
    main()
