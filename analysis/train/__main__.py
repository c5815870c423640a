"""``python -m analysis.train --preset NAME --data PATH... [--resume CKPT]``: train a network.

PATHs are SGF files, directories, .zip or .tar.gz archives (the shared Tygem
months, KGS archives, a user's collection).  Checkpoints and a CSV log go to
``--run-dir``; ``--resume`` continues from a checkpoint with its optimizer,
schedule and counters.
"""

from __future__ import annotations

import argparse
import json
import sys

from analysis.nets import precision
from analysis.nets.presets import PRESETS
from analysis.train import ladder_set as ladders
from analysis.train.loop import COMPILE_MODES, DDP_BACKENDS, TrainConfig, train


def _data_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of what the run trains and validates on."""
    g = p.add_argument_group("data")
    g.add_argument("--data", nargs="+", required=True, help="SGF files, directories or archives to train on")
    g.add_argument("--validation", nargs="*", default=[], help="SGF sources held out for validation")
    g.add_argument("--teacher", help="KataGo's labels (labels.npz): targets for every head")
    g.add_argument("--teacher-archives", help="the labelled months' zips' folder (default: the first --data)")
    g.add_argument("--teacher-fraction", type=float, default=0.5, help="share of each batch from the teacher")
    g.add_argument("--final-shows", type=int, default=1,
                   help="times the finished board of a counted game is shown (nets with an ownership head)")
    g.add_argument("--ladder-set", action="store_true",
                   help="train on the ladder positions of --data (Tang & Kaneko's ladder set, 85%% of its "
                        "games) and validate on the other 15%%, instead of on --validation")
    g.add_argument("--ladder-games", type=int, default=ladders.DEFAULT_GAMES,
                   help="with --ladder-set, the games of --data the ladder positions are found in")
    g.add_argument("--seed", type=int, default=0)


def _objective_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of the optimiser and the losses' weights."""
    g = p.add_argument_group("objective")
    g.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    g.add_argument("--batch-size", type=int, default=128)
    g.add_argument("--lr", type=float, default=0.002)
    g.add_argument("--restart-lr", type=float, default=0.0,
                   help="with --resume, set the learning rate to this and restart the plateau schedule")
    g.add_argument("--warmup-samples", type=int, default=0,
                   help="ramp the learning rate up linearly over the run's first this many samples "
                        "(for a warm start with --init-from, whose new weights AdamW's first steps "
                        "would otherwise move by the full rate); a resumed run keeps its own")
    g.add_argument("--value-weight", type=float, default=TrainConfig.value_weight,
                   help="weight of the value head's loss (the policy's is 1)")
    g.add_argument("--value-rate", type=float, default=1.0,
                   help="fraction of positions that train the value head (the rest train the policy only)")
    g.add_argument("--consistency-weight", type=float, default=0.0,
                   help="weight of the value-consistency loss: each game position is paired with the "
                        "next, and their win chances should sum to one (0: no pairs)")
    g.add_argument("--consistency-centered", action="store_true",
                   help="penalise only how the pairs' gap varies, not its mean (the edge of having the move)")
    g.add_argument("--average-decay", type=float, default=0.0,
                   help="keep a moving average of the weights, this much of it kept each step (0: none)")


def _run_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of where the run starts, when it stops, validates and saves."""
    g = p.add_argument_group("run")
    g.add_argument("--preset", choices=sorted(PRESETS), default="golois-b6c64")
    g.add_argument("--run-dir", default="runs/default")
    g.add_argument("--resume", help="checkpoint to continue from")
    g.add_argument("--init-from", help="start a new run from this checkpoint's fitting weights")
    g.add_argument("--max-samples", type=int, default=0, help="stop after this many samples (0: no limit)")
    g.add_argument("--max-minutes", type=float, default=0.0,
                   help="stop after this long, setup included, then validate and save (0: no limit)")
    g.add_argument("--validate-every", type=int, default=200_000)
    g.add_argument("--validation-positions", type=int, default=2000)
    g.add_argument("--checkpoint-minutes", type=float, default=10.0)
    g.add_argument("--quiet", dest="progress", action="store_false")


def _hardware_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of where and how the steps run."""
    g = p.add_argument_group("hardware")
    g.add_argument("--workers", type=int, default=1, help="data loader processes")
    g.add_argument("--dtype", choices=["auto", "float32", "bfloat16"], default="auto",
                   help="auto: bf16 only where the hardware has it and it measures faster")
    g.add_argument("--device", default="auto", help="auto (CUDA when available), cpu, cuda or cuda:N")
    g.add_argument("--ddp-backend", choices=list(DDP_BACKENDS), default="auto",
                   help="under torchrun: auto picks nccl when every local rank has its own GPU, else gloo")
    g.add_argument("--channels-last", action="store_true",
                   help="keep weights and activations in NHWC (measure it: python -m analysis.bench train)")
    g.add_argument("--compile", action="store_true", help="torch.compile the network (measure it first)")
    g.add_argument("--compile-mode", choices=COMPILE_MODES,
                   help="torch.compile the network in this mode (implies --compile, whose mode is default); "
                        "reduce-overhead replays each step as CUDA graphs (measure it: python -m "
                        "analysis.bench train --step-variants compile,compile_graphs)")


def parser() -> argparse.ArgumentParser:
    """Return the command-line parser (shared with ``manage.py train``)."""
    p = argparse.ArgumentParser(prog="python -m analysis.train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    _data_arguments(p)
    _objective_arguments(p)
    _run_arguments(p)
    _hardware_arguments(p)
    return p


def config_of(args: dict) -> TrainConfig:
    """Return the run's configuration from the parsed arguments ``args`` (a dict): a
    ``--compile-mode`` compiles the network in that mode, ``--compile`` alone in the default one."""
    mode = args["compile_mode"]
    return TrainConfig(**{**args, "compile": args["compile"] or mode is not None,
                          "compile_mode": mode or TrainConfig.compile_mode})


def main(argv: list[str] | None = None) -> int:
    """Run training from command-line arguments; print the final validation metrics as JSON."""
    p = parser()
    args = vars(p.parse_args(argv))
    if args["restart_lr"] and not args["resume"]:
        p.error("--restart-lr needs --resume: a new run starts at --lr")
    try:
        precision.device_named(args["device"])
    except ValueError as exc:
        p.error(str(exc))
    metrics = train(config_of(args))
    print(json.dumps(metrics, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
