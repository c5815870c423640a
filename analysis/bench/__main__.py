"""Benchmarks: ``python -m analysis.bench NAME [--json]``.

Each benchmark measures its figures and ratios in one run and prints them,
as JSON with ``--json``.  Record the latest figures in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time

BENCHES = {
    "board": "analysis.bench.board",
    "features": "analysis.bench.features",
    "mcts": "analysis.bench.mcts",
    "nn": "analysis.bench.nn",
    "train": "analysis.bench.train",
}


def machine() -> dict:
    """Return a short description of the machine the figures come from."""
    import os

    return {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.bench", description=__doc__)
    parser.add_argument("name", choices=sorted(BENCHES))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="a smaller run, for smoke tests")
    args = parser.parse_args(argv)
    module = importlib.import_module(BENCHES[args.name])
    started = time.time()
    figures = module.run(quick=args.quick)
    report = {"bench": args.name, "date": time.strftime("%Y-%m-%d", time.gmtime(started)),
              "machine": machine(), **figures}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
