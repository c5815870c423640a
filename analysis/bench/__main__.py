"""Benchmarks: ``python -m analysis.bench NAME [--json]``.

Each benchmark measures its figures and ratios in one run and prints them,
as JSON with ``--json``.  A benchmark module may add options of its own with
``add_arguments(parser)``; they reach its ``run`` as keyword arguments.
Record the latest figures in BENCHMARKS.md.
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
    "bot": "analysis.bench.bot",
    "features": "analysis.bench.features",
    "flood": "analysis.bench.flood",
    "mcts": "analysis.bench.mcts",
    "mistakes": "analysis.bench.mistakes",
    "nn": "analysis.bench.nn",
    "probe": "analysis.bench.probe",
    "score": "analysis.bench.score",
    "scoring": "analysis.bench.scoring",
    "selfatari": "analysis.bench.self_atari",
    "train": "analysis.bench.train",
    "zoo": "analysis.bench.zoo",
    "web": "analysis.bench.web",
}


def machine() -> dict:
    """Return a short description of the machine the figures come from (its GPU's name, if any)."""
    import os

    import torch

    from analysis.nets.precision import cpu_has_bf16

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(), "cpu_bf16": cpu_has_bf16(), "gpu": gpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.bench", description=__doc__)
    parser.add_argument("name", choices=sorted(BENCHES))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="a smaller run, for smoke tests")
    module = importlib.import_module(BENCHES[parser.parse_known_args(argv)[0].name])
    if hasattr(module, "add_arguments"):
        module.add_arguments(parser)
    args = parser.parse_args(argv)
    options = {k: v for k, v in vars(args).items() if k not in ("name", "json", "quick")}
    started = time.time()
    try:
        figures = module.run(quick=args.quick, **options)
    except (ValueError, FileNotFoundError) as error:  # a bad --network and the like: no traceback
        parser.error(str(error))
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
