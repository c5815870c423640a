#!/usr/bin/env bash
# One call on a lent GPU machine (README, "Training on a GPU"): build the board core, install the
# carried wheels, run the GPU tests, measure the pipeline and the search, then train until DEADLINE
# and copy the state back under $OUT (at most 8 files of 16 MiB: report.txt, bench.json,
# search.json, match.jsonl, log.csv and last.pt's four files; so a call that trains runs at most
# two of bench, search and match).
#
# Before the call, on this machine: pack the data into packed/ (train.pack.npz with the teacher,
# validation.pack.npz), put the wheels the machine lacks in packed/wheels
# (pip download --no-deps -d packed/wheels sgfmill: the machine has pytest), and move the
# weights the run does not need out of the tree (it travels capped at 64 MiB): `bash
# docs/gpu-prepare.sh prepare` does all three, and `restore` undoes the last after the call. Then:
#   run(command="TRAIN_EXTRA='--init-from weights/policy.pt --lr 0.0005' bash docs/gpu-burst.sh",
#       carry=["packed"], timeout_s=570)
# (the first burst: the default widened to golois-score-b12c128, README), then
#   run(command="RESUME=weights/training/golois-score-b12c128.pt bash docs/gpu-burst.sh", ...)
# Tested on a CPU with a tiny net (PY=.venv/bin/python PRESETS=golois-b4c48 WORKERS=1
# PRESET=golois-score-b6c64 BATCH=32 DEADLINE=120 TRAIN_EXTRA="--max-samples 256").
# The train part was tested again on 2026-11-27 with a 300-game pack, the default PRESET and
# TRAIN_EXTRA="--init-from weights/policy.pt --lr 0.0005 --max-samples 64": six files came back
# (report.txt, log.csv, last.pt and its three parts, 32 MB).
# VARIANTS times the step alone in NHWC memory; compile_graphs (--compile-mode reduce-overhead,
# CUDA graphs) and compile are left to a call with time to spare: each compiled variant of each
# preset compiles first, in the call's time. BENCH_QUICK (default --quick) times each figure for
# 2 s rather than 10.
# TRAIN_EXTRA="--compile-mode reduce-overhead" trains with the graphs.
# RECIPE is PRESET's own training options. Its default is the recipe the default net trained with
# on the CPU (weights/MODEL_CARD.md, "How to continue"): the teacher's labels, the game results as
# value targets on one position in 16 (on every position the value head learns the games by heart),
# each counted game's final board shown 8 times, the pairs' loss at weight 6, the moving average.
# darkforest at the paper's depth, from the shipped net (keep weights/darkforest.pt in the tree):
#   PRESET=darkforest-b11c192 PRESETS=darkforest-b11c192 RECIPE="--value-rate 0.0625"
#   TRAIN_EXTRA="--init-from weights/darkforest.pt --lr 0.0002 --warmup-samples 100000" bash docs/gpu-burst.sh
# (README: a deepened start needs the warmup)
# The search part times the search (python -m analysis.bench mcts) with each of SEARCH_NETWORKS
# (shipped names; their files must travel) into search.json, one JSON document after another: the
# visits/s a timed search gives each net on this GPU. The bench samples its positions from the
# validation month's zip: put a copy in packed/zip/ before the call, and the script copies it to
# ../shared/data there. On 2026-11-30 the bench died there with a segmentation fault and no message:
# two of the plane extraction's threads read ladders on one position's board at once (fixed the
# same day, BENCHMARKS). It still runs under -X faulthandler, which prints the Python stack of such
# a crash to report.txt.
# The match part plays MATCH_NETWORKS' first net (A, black in the odd games) against its second at
# MATCH_LEVEL, on MATCH_JOBS tables at once (each engine in its own process on the GPU), for
# MATCH_SECONDS at most, into match.jsonl: the equal-time match that chooses the GPU's default
# (README, "Training on a GPU", step 5). The machine has no GNU Go, so the games are counted by the
# engines and, where they disagree, by our own count (no --referee). MATCH_GAMES (default
# MATCH_JOBS) games start together, so colours stay balanced; a game still running when the time is
# up is not counted, and the report says how many were (the long ones, so it is a bias to state).
# For example, the match alone: PARTS="match" MATCH_SECONDS=540 DEADLINE=560 bash docs/gpu-burst.sh
# PARTS picks what the call does (default "tests bench train"). Each part has a time limit of its
# own, and the training takes what is left of DEADLINE seconds (counted from the script's start;
# keep it some 20 s under the call's timeout_s) less SAVE_SECONDS for its last validation and save,
# so that a slow test or bench never eats the training or keeps its state from coming back.
# The bench's JSON goes to bench.json; with CHANNELS_LAST=auto the training runs in NHWC memory
# when the bench timed PRESET's step faster so by 5% or more.
set -u
PY=${PY:-python3}
PRESET=${PRESET:-golois-score-b12c128}
PRESETS=${PRESETS:-golois-b10c128,$PRESET}
WORKERS=${WORKERS:-14}
BATCH=${BATCH:-256}
DEADLINE=${DEADLINE:-540}
SAVE_SECONDS=${SAVE_SECONDS:-45}
TESTS_SECONDS=${TESTS_SECONDS:-150}
BENCH_SECONDS=${BENCH_SECONDS:-120}
BENCH_QUICK=${BENCH_QUICK:---quick}
CHANNELS_LAST=${CHANNELS_LAST:-auto}
# a validation (the batch norms recomputed and 5,000 positions, for the net and its average) every
# million samples: about every minute at the GPU's rate, where the default 200,000 would come
# every 10 s or so and take a share of a short burst
VALIDATE_EVERY=${VALIDATE_EVERY:-1000000}
VARIANTS=${VARIANTS:---step-variants channels_last}
RECIPE=${RECIPE:---teacher packed/train.pack.npz --value-rate 0.0625 --final-shows 8 --average-decay 0.9995 --consistency-weight 6 --value-weight 1}
RESUME=${RESUME:-}
TRAIN_EXTRA=${TRAIN_EXTRA:-}
SEARCH_NETWORKS=${SEARCH_NETWORKS:-golois-score golois-score-b12c128}
SEARCH_SECONDS=${SEARCH_SECONDS:-60}
MATCH_NETWORKS=${MATCH_NETWORKS:-golois-score-b12c128 golois-score}
MATCH_LEVEL=${MATCH_LEVEL:-mcts-2s}
MATCH_JOBS=${MATCH_JOBS:-16}
MATCH_GAMES=${MATCH_GAMES:-$MATCH_JOBS}
MATCH_SECONDS=${MATCH_SECONDS:-420}
PARTS=${PARTS:-tests bench train}
OUT=${OUT:?the folder whose files come back}
RUN=$(mktemp -d)

$PY setup.py -q build_ext --inplace > /dev/null
ls packed/wheels/*.whl > /dev/null 2>&1 && $PY -m pip install -q --no-index --no-deps packed/wheels/*.whl 2>&1 | grep -v WARNING
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; date -u; } > "$OUT/report.txt" 2>&1
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if part tests; then
  timeout -s KILL "$TESTS_SECONDS" $PY -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py \
      >> "$OUT/report.txt" 2>&1 || echo "tests: exit $?" >> "$OUT/report.txt"
fi
if part bench; then
  # shellcheck disable=SC2086  # BENCH_QUICK and VARIANTS are lists of options
  timeout -s KILL "$BENCH_SECONDS" $PY -m analysis.bench train --json $BENCH_QUICK --pipeline-only \
      --presets "$PRESETS" --workers "$WORKERS" $VARIANTS > "$OUT/bench.json" 2>> "$OUT/report.txt" \
      || echo "bench: exit $?" >> "$OUT/report.txt"
fi
if part search; then
  validation=../shared/data/tygem-9d/validation
  mkdir -p "$validation" && cp -n packed/zip/2011-12.zip "$validation"/ 2>> "$OUT/report.txt"
  for net in $SEARCH_NETWORKS; do
    timeout -s KILL "$SEARCH_SECONDS" $PY -X faulthandler -m analysis.bench mcts --json --network "$net" >> "$OUT/search.json" \
        2>> "$OUT/report.txt" || echo "search $net: exit $?" >> "$OUT/report.txt"
  done
fi
if part match; then
  read -r net_a net_b <<< "$MATCH_NETWORKS"
  gtp="$PY -m analysis.gtp --level $MATCH_LEVEL --network"
  timeout -s TERM "$MATCH_SECONDS" $PY -m analysis.match --black "$gtp $net_a" --white "$gtp $net_b" \
      --games "$MATCH_GAMES" --jobs "$MATCH_JOBS" --timeout 120 --log "$OUT/match.jsonl" > /dev/null \
      2>> "$OUT/report.txt" || echo "match: exit $?" >> "$OUT/report.txt"
  finished=$(cat "$OUT/match.jsonl" 2>/dev/null | wc -l)
  echo "match: $finished of $MATCH_GAMES games finished in ${MATCH_SECONDS}s (A $net_a, B $net_b)" >> "$OUT/report.txt"
  [ "$finished" -gt 0 ] && $PY -m analysis.match.log "$OUT/match.jsonl" | tee -a "$OUT/report.txt"
fi
if part train; then
  start=(--preset "$PRESET")
  [ -n "$RESUME" ] && start=(--resume "$RESUME")
  nhwc=()
  if [ "$CHANNELS_LAST" = auto ] && [ -s "$OUT/bench.json" ]; then
    faster=$($PY -c 'import json,sys; f=json.load(open(sys.argv[1]))["pipeline"][sys.argv[2]]
print(int(f["step_alone_variants"]["channels_last"] >= 1.05 * f["step_alone"]))' "$OUT/bench.json" "$PRESET" 2>/dev/null)
    [ "$faster" = 1 ] && nhwc=(--channels-last)
  elif [ "$CHANNELS_LAST" = yes ]; then
    nhwc=(--channels-last)
  fi
  seconds=$((DEADLINE - SECONDS - SAVE_SECONDS))
  echo "train: ${seconds}s ${nhwc[*]}" >> "$OUT/report.txt"
  # shellcheck disable=SC2086  # RECIPE and TRAIN_EXTRA are lists of options
  timeout -s TERM "$seconds" $PY -m analysis.train "${start[@]}" --data packed/train.pack.npz \
      --validation packed/validation.pack.npz --validation-positions 5000 --validate-every "$VALIDATE_EVERY" \
      --batch-size "$BATCH" --workers "$WORKERS" --run-dir "$RUN" --quiet "${nhwc[@]}" $RECIPE $TRAIN_EXTRA \
      > /dev/null 2>> "$OUT/report.txt"
  cp "$RUN"/log.csv "$RUN"/last.pt* "$OUT"/
  echo "done at ${SECONDS}s" >> "$OUT/report.txt"
  tail -n 3 "$RUN/log.csv"
fi
