"""``python -m analysis.nets.score_head FILE [HEAD]``: the score head a network's lead is read from.

A network with both score heads, a distribution over the final margin and a Gaussian (a mean and
a spread), shows one lead: the review's, the search's score utility, GTP's ``scoreLead``.  The
file says which (its ``score_head``; without one, the distribution), so that every use reads the
same head.  ``python -m analysis.bench score --network FILE`` measures each head and marks the
one read.  Without HEAD this prints the head read and the heads the network has; with HEAD it
rewrites FILE naming it, its weights untouched (``python -m analysis.train.ship_average
--score-head`` names it when it ships a training state's average).
"""

from __future__ import annotations

import argparse
import os
import sys

from analysis.nets import checkpoint
from analysis.nets.inference import read_score_head


def heads(path: str | os.PathLike) -> tuple[str, tuple[str, ...]]:
    """Return (the head the lead of the checkpoint at ``path`` is read from, "" for a network
    without a score head; the score heads it has).

    Raises FileNotFoundError, or CheckpointError for a file that is not a checkpoint of ours (or
    names a score head its network lacks).
    """
    model, data = checkpoint.load_model(path)
    kinds = tuple(model.config.score_kinds)
    try:
        return read_score_head(kinds, data.get("score_head")), kinds
    except ValueError as exc:
        raise checkpoint.CheckpointError(f"{path}: {exc}") from exc


def name_score_head(path: str | os.PathLike, head: str) -> None:
    """Rewrite the checkpoint at ``path`` so that its lead is read from ``head``.

    Raises FileNotFoundError, CheckpointError for a file that is not a checkpoint of ours, or
    ValueError for a head the network lacks (the file is then left as it was).
    """
    model, data = checkpoint.load_model(path)
    read_score_head(model.config.score_kinds, head)
    data["score_head"] = head
    checkpoint.write(path, data)


def main(argv: list[str] | None = None) -> int:
    """Print (or name, then print) the head read; exit 2 with the reason on a bad file or head."""
    p = argparse.ArgumentParser(prog="python -m analysis.nets.score_head", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a network's checkpoint (weights/NAME.pt)")
    p.add_argument("head", nargs="?", choices=["distribution", "gaussian"],
                   help="the head to read the lead from (default: only print the one read)")
    args = p.parse_args(argv)
    try:
        if args.head:
            name_score_head(args.file, args.head)
        read, kinds = heads(args.file)
    except (OSError, ValueError) as exc:  # CheckpointError is a ValueError
        print(f"score_head: {exc}", file=sys.stderr)
        return 2
    if not read:
        print(f"{args.file}: no score head")
    else:
        print(f"{args.file}: the lead is read from the {read} head (its heads: {', '.join(kinds)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
