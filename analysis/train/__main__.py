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


def parser() -> argparse.ArgumentParser:
    """Return the command-line parser (shared with ``manage.py train``)."""
    p = argparse.ArgumentParser(prog="python -m analysis.train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), default="golois-b6c64")
    p.add_argument("--data", nargs="+", required=True, help="SGF files, directories or archives to train on")
    p.add_argument("--validation", nargs="*", default=[], help="SGF sources held out for validation")
    p.add_argument("--run-dir", default="runs/default")
    p.add_argument("--resume", help="checkpoint to continue from")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.002)
    p.add_argument("--restart-lr", type=float, default=0.0,
                   help="with --resume, set the learning rate to this and restart the plateau schedule")
    p.add_argument("--warmup-samples", type=int, default=0,
                   help="ramp the learning rate up linearly over the run's first this many samples "
                        "(for a warm start with --init-from, whose new weights AdamW's first steps "
                        "would otherwise move by the full rate); a resumed run keeps its own")
    p.add_argument("--value-weight", type=float, default=TrainConfig.value_weight,
                   help="weight of the value head's loss (the policy's is 1)")
    p.add_argument("--value-rate", type=float, default=1.0,
                   help="fraction of positions that train the value head (the rest train the policy only)")
    p.add_argument("--consistency-weight", type=float, default=0.0,
                   help="weight of the value-consistency loss: each game position is paired with the "
                        "next, and their win chances should sum to one (0: no pairs)")
    p.add_argument("--consistency-centered", action="store_true",
                   help="penalise only how the pairs' gap varies, not its mean (the edge of having the move)")
    p.add_argument("--average-decay", type=float, default=0.0,
                   help="keep a moving average of the weights, this much of it kept each step (0: none)")
    p.add_argument("--teacher", help="KataGo's labels (labels.npz): targets for every head")
    p.add_argument("--teacher-archives", help="the labelled months' zips' folder (default: the first --data)")
    p.add_argument("--teacher-fraction", type=float, default=0.5, help="share of each batch from the teacher")
    p.add_argument("--final-shows", type=int, default=1,
                   help="times the finished board of a counted game is shown (nets with an ownership head)")
    p.add_argument("--init-from", help="start a new run from this checkpoint's fitting weights")
    p.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    p.add_argument("--max-samples", type=int, default=0, help="stop after this many samples (0: no limit)")
    p.add_argument("--max-minutes", type=float, default=0.0,
                   help="stop after this long, setup included, then validate and save (0: no limit)")
    p.add_argument("--validate-every", type=int, default=200_000)
    p.add_argument("--validation-positions", type=int, default=2000)
    p.add_argument("--checkpoint-minutes", type=float, default=10.0)
    p.add_argument("--workers", type=int, default=1, help="data loader processes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", choices=["auto", "float32", "bfloat16"], default="auto",
                   help="auto: bf16 only where the hardware has it and it measures faster")
    p.add_argument("--device", default="auto", help="auto (CUDA when available), cpu, cuda or cuda:N")
    p.add_argument("--ddp-backend", choices=list(DDP_BACKENDS), default="auto",
                   help="under torchrun: auto picks nccl when every local rank has its own GPU, else gloo")
    p.add_argument("--channels-last", action="store_true",
                   help="keep weights and activations in NHWC (measure it: python -m analysis.bench train)")
    p.add_argument("--compile", action="store_true", help="torch.compile the network (measure it first)")
    p.add_argument("--compile-mode", choices=COMPILE_MODES,
                   help="torch.compile the network in this mode (implies --compile, whose mode is default); "
                        "reduce-overhead replays each step as CUDA graphs (measure it: python -m "
                        "analysis.bench train --step-variants compile,compile_graphs)")
    p.add_argument("--ladder-set", action="store_true",
                   help="train on the ladder positions of --data (Tang & Kaneko's ladder set, 85%% of its "
                        "games) and validate on the other 15%%, instead of on --validation")
    p.add_argument("--ladder-games", type=int, default=ladders.DEFAULT_GAMES,
                   help="with --ladder-set, the games of --data the ladder positions are found in")
    p.add_argument("--quiet", dest="progress", action="store_false")
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
