#!/usr/bin/env bash
# One call on a lent GPU machine (README, "Training on a GPU"): build the board core, install the
# carried wheels, run the GPU tests, measure the pipeline, then train for TRAIN_SECONDS and copy
# the state back under $OUT (at most 8 files of 16 MiB: report.txt, log.csv and last.pt's files).
#
# Before the call, on this machine: pack the data into packed/ (train.pack.npz with the teacher,
# validation.pack.npz), put the wheels the machine lacks in packed/wheels
# (pip download --no-deps -d packed/wheels sgfmill pytest pluggy iniconfig packaging), and move the
# weights the run does not need out of the tree (it travels capped at 64 MiB). Then, for example:
#   run(command="TRAIN_EXTRA='--init-from weights/policy.pt --lr 0.0005' bash docs/gpu-burst.sh",
#       carry=["packed"], timeout_s=560)
# (the first burst: the default widened to golois-score-b12c128, README), then
#   run(command="RESUME=weights/training/golois-score-b12c128.pt bash docs/gpu-burst.sh", ...)
# Tested on a CPU with a tiny net (PY=.venv/bin/python PRESETS=golois-b4c48 WORKERS=1
# PRESET=golois-score-b6c64 BATCH=32 TRAIN_SECONDS=120 TRAIN_EXTRA="--max-samples 256").
# The train part was tested again on 2026-11-27 with a 300-game pack, the default PRESET and
# TRAIN_EXTRA="--init-from weights/policy.pt --lr 0.0005 --max-samples 64": six files came back
# (report.txt, log.csv, last.pt and its three parts, 32 MB).
# VARIANTS times the step alone in NHWC memory and compiled into CUDA graphs (compile_graphs:
# --compile-mode reduce-overhead); each compiled variant of each preset compiles first, in the
# call's time, so the plain compiled step (compile) is left to a call with time to spare.
# TRAIN_EXTRA="--compile-mode reduce-overhead" trains with the graphs.
# RECIPE is PRESET's own training options. Its default is the recipe the default net trained with
# on the CPU (weights/MODEL_CARD.md, "How to continue"): the teacher's labels, the game results as
# value targets on one position in 16 (on every position the value head learns the games by heart),
# each counted game's final board shown 8 times, the pairs' loss at weight 6, the moving average.
# darkforest at the paper's depth, from the shipped net (keep weights/darkforest.pt in the tree):
#   PRESET=darkforest-b11c192 PRESETS=darkforest-b11c192 RECIPE="--value-rate 0.0625"
#   TRAIN_EXTRA="--init-from weights/darkforest.pt --lr 0.0002 --warmup-samples 100000" bash docs/gpu-burst.sh
# (README: a deepened start needs the warmup)
# PARTS picks what the call does (default "tests bench train"): with 15 minutes of device time a
# session may rather make two calls back to back on the warm machine, PARTS="tests bench" first
# (about 4 minutes) and PARTS=train with TRAIN_SECONDS set to what is left, so that a slow bench
# never eats the training or keeps its state from coming back.
set -u
PY=${PY:-python3}
PRESET=${PRESET:-golois-score-b12c128}
PRESETS=${PRESETS:-golois-b10c128,$PRESET}
WORKERS=${WORKERS:-14}
BATCH=${BATCH:-256}
TRAIN_SECONDS=${TRAIN_SECONDS:-360}
# a validation (the batch norms recomputed and 5,000 positions, for the net and its average) every
# million samples: about every minute at the GPU's rate, where the default 200,000 would come
# every 10 s or so and take a share of a short burst
VALIDATE_EVERY=${VALIDATE_EVERY:-1000000}
VARIANTS=${VARIANTS:---step-variants channels_last,compile_graphs}
RECIPE=${RECIPE:---teacher packed/train.pack.npz --value-rate 0.0625 --final-shows 8 --average-decay 0.9995 --consistency-weight 6 --value-weight 1}
RESUME=${RESUME:-}
TRAIN_EXTRA=${TRAIN_EXTRA:-}
PARTS=${PARTS:-tests bench train}
OUT=${OUT:?the folder whose files come back}
RUN=$(mktemp -d)

$PY setup.py -q build_ext --inplace > /dev/null
$PY -m pip install -q --no-index --no-deps packed/wheels/*.whl 2>&1 | grep -v WARNING
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; date -u; } > "$OUT/report.txt" 2>&1
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if part tests; then
  $PY -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py >> "$OUT/report.txt" 2>&1
fi
if part bench; then
  # shellcheck disable=SC2086  # VARIANTS, RECIPE and TRAIN_EXTRA are lists of options
  $PY -m analysis.bench train --json --pipeline-only --presets "$PRESETS" --workers "$WORKERS" $VARIANTS \
      >> "$OUT/report.txt" 2>&1
fi
if part train; then
  start=(--preset "$PRESET")
  [ -n "$RESUME" ] && start=(--resume "$RESUME")
  # shellcheck disable=SC2086
  timeout -s TERM "$TRAIN_SECONDS" $PY -m analysis.train "${start[@]}" --data packed/train.pack.npz \
      --validation packed/validation.pack.npz --validation-positions 5000 --validate-every "$VALIDATE_EVERY" \
      --batch-size "$BATCH" --workers "$WORKERS" --run-dir "$RUN" --quiet $RECIPE $TRAIN_EXTRA \
      > /dev/null 2>> "$OUT/report.txt"
  cp "$RUN"/log.csv "$RUN"/last.pt* "$OUT"/
  tail -n 3 "$RUN/log.csv"
fi
