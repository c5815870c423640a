#!/usr/bin/env bash
# Before and after a call of docs/gpu-burst.sh on a lent GPU machine (README, "Training on a GPU").
#
#   bash docs/gpu-prepare.sh prepare   # pack the data, fetch the wheel, shrink the tree, check its size
#   run(command="... bash docs/gpu-burst.sh", carry=["packed"], timeout_s=585)
#   bash docs/gpu-prepare.sh restore   # put the weights back
#
# prepare builds what the call carries in packed/ (git-ignored, never committed: it is derived from
# ../shared/data), each piece only if it is missing:
#   packed/train.pack.npz       the 2010 months with the teacher's labels (about 13 min on 2 cores)
#   packed/validation.pack.npz  the 2011-12 month
#   packed/wheels/              sgfmill for the machine's Python 3.12
#   packed/zip/2011-12.zip      the validation month's zip, which the search bench samples
# then moves every weights/*.pt but KEEP (default: the two files the search and match parts use),
# and weights/training/, to STASH, and sums up the tree that travels: the files git tracks or would
# add, plus packed/. It exits 1 if that is over the call's 64 MiB, so a call is never spent on a
# tree that cannot travel. restore moves the stashed files back and checks that git sees no change.
set -eu
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DATA=${DATA:-../shared/data}
KEEP=${KEEP:-golois-score-b12c128.pt policy.pt}
STASH=${STASH:-/tmp/gpu-stash}
JOBS=${JOBS:-2}
LIMIT=$((64 * 1024 * 1024))

travelling_bytes() {
  { git ls-files -co --exclude-standard -z | xargs -0 stat -c %s 2>/dev/null || true
    find packed -type f -exec stat -c %s {} + 2>/dev/null || true; } | awk '{ n += $1 } END { print n + 0 }'
}

prepare() {
  mkdir -p packed/wheels packed/zip
  [ -s packed/train.pack.npz ] || $PY -m analysis.train.pack "$DATA/tygem-9d/train" \
      --teacher "$DATA/katago-b6c96/labels.npz" --out packed/train.pack.npz --jobs "$JOBS"
  [ -s packed/validation.pack.npz ] || $PY -m analysis.train.pack "$DATA/tygem-9d/validation" \
      --out packed/validation.pack.npz
  ls packed/wheels/sgfmill-*.whl > /dev/null 2>&1 || $PY -m pip download -q --no-deps --only-binary=:all: \
      --python-version 3.12 --implementation cp -d packed/wheels sgfmill
  [ -s packed/zip/2011-12.zip ] || cp "$DATA/tygem-9d/validation/2011-12.zip" packed/zip/
  mkdir -p "$STASH/training"
  for file in weights/*.pt; do
    case " $KEEP " in *" ${file#weights/} "*) ;; *) mv "$file" "$STASH/" ;; esac
  done
  if [ -d weights/training ]; then
    find weights/training -maxdepth 1 -type f -exec mv {} "$STASH/training/" \;
  fi
  bytes=$(travelling_bytes)
  echo "the tree that travels: $((bytes / 1024 / 1024)) MiB of $((LIMIT / 1024 / 1024)) (kept: $KEEP; stashed in $STASH)"
  [ "$bytes" -le "$LIMIT" ] || { echo "over the limit: keep fewer weights, or restore" >&2; exit 1; }
}

restore() {
  [ -d "$STASH" ] || { echo "nothing stashed in $STASH" >&2; exit 1; }
  mkdir -p weights/training
  find "$STASH/training" -maxdepth 1 -type f -exec mv {} weights/training/ \;
  find "$STASH" -maxdepth 1 -type f -name '*.pt' -exec mv {} weights/ \;
  rmdir "$STASH/training" "$STASH"
  if git status --porcelain -- weights | grep -q .; then
    git status --short -- weights >&2
    echo "weights/ differs from the last commit: see above" >&2
    exit 1
  fi
  echo "weights restored"
}

case "${1:-}" in
  prepare) prepare ;;
  restore) restore ;;
  *) echo "usage: bash docs/gpu-prepare.sh prepare|restore" >&2; exit 2 ;;
esac
