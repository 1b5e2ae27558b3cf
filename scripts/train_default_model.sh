#!/usr/bin/env bash
# Trains HeadScope's default model (docs/DEFAULT_MODEL.md) with HeadScope's own trainer and
# writes it to assets/models/default (or --out DIR): config.json, model.safetensors and
# trainer.json (the task, seed and optimizer settings; not the optimizer's moments), plus
# training_log.csv with the loss of the first 200 steps and of every 100th after, and
# trained_on.json (SIMD level, threads, CPU, seconds).
#
# The task: sentences of the bilingual grammar (core/corpus/grammar.h), English and Chinese,
# in windows of 64 tokens, 40 % of the examples variable-offset induction sequences over
# the grammar's words. Every batch is a pure function of (seed, step) and the thread count
# is fixed, so a rerun on a CPU of the same SIMD level repeats it bit for bit
# (tests/default_model_test.cpp retrains the first steps and compares them to the log).
#
# Usage: scripts/train_default_model.sh [--steps N] [--out DIR]   (N: 14000, ~11 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=14000
out=assets/models/default
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) steps="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--steps N] [--out DIR]" >&2; exit 2 ;;
  esac
done
bin="${HEADSCOPE_BIN:-build/app/headscope}"
if [[ ! -x "$bin" ]]; then
  bash scripts/deps.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)" --target headscope
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The exact command (docs/DEFAULT_MODEL.md quotes it): keep the two in step.
start=$(date +%s)
HEADSCOPE_THREADS=2 "$bin" train grammar --spec random:d_model=128,heads=8,layers=4,seed=7 \
  --steps "$steps" --batch 16 --lr 2e-3 --warmup 100 --induction 40 --seed 14 --every 1000 \
  --save "$work/checkpoint" --log "$work/log.csv" | tee "$work/train.txt"
seconds=$(( $(date +%s) - start ))
mkdir -p "$out"
cp "$work/checkpoint/config.json" "$work/checkpoint/model.safetensors" "$work/checkpoint/trainer.json" "$out/"
awk -F, 'NR == 1 || $1 <= 200 || $1 % 100 == 0' "$work/log.csv" > "$out/training_log.csv"
# Where it was trained: a rerun at the same SIMD level and thread count repeats the log exactly.
simd=$(sed -n 's/.*(simd \([a-z0-9]*\), \([0-9]*\) threads).*/\1/p' "$work/train.txt" | head -1)
threads=$(sed -n 's/.*(simd \([a-z0-9]*\), \([0-9]*\) threads).*/\2/p' "$work/train.txt" | head -1)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //' || echo unknown)
printf '{"simd": "%s", "threads": %s, "cpu": "%s", "seconds": %s, "steps": %s}\n' \
  "$simd" "$threads" "$cpu" "$seconds" "$steps" > "$out/trained_on.json"
echo "wrote $out ($(du -sh "$out" | cut -f1)) in ${seconds} s"
