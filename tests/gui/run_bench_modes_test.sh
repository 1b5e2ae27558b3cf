#!/usr/bin/env bash
# The benchmark modes of the window, under Xvfb:
#  1. --bench-pan really pans (its last frame differs from a still one's);
#  2. --bench-frames / --bench-pan / --bench-busy / --bench-edits print their lines, which
#     parse and hold sane numbers (counts as asked, 0 < p50 <= p95 <= max); no time limits.
#   run_bench_modes_test.sh APP OUTDIR
set -euo pipefail
app=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
run() { timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings "$@"; }
text="The animal didn't cross the street because it was too tired ."
long=$(for i in $(seq 300); do printf 'w%d ' $((i % 37)); done)

# 1. A pan run draws the map moving: its last frame differs from a still frame's.
run --model "random:d_model=32,heads=2,layers=1,seed=5" --text "$long" --size 1200x800 --bench-pan \
  --bench-frames 14 --frames 12 --screenshot "$out/pan.png" > "$out/pan.txt"
run --model "random:d_model=32,heads=2,layers=1,seed=5" --text "$long" --size 1200x800 \
  --frames 12 --screenshot "$out/still.png" > /dev/null
if cmp -s "$out/pan.png" "$out/still.png"; then echo "FAIL: the pan frames showed the still map"; exit 1; fi

# 2. Benchmark lines parse and are sane: "<what> N  p50 A ms  p95 B ms  max C ms".
check() {  # check FILE WHAT COUNT
  awk -v what="$2" -v n="$3" '
    index($0, what " ") == 1 {
      rest = substr($0, length(what) + 2); split(rest, f, " +")
      if (f[1] != n || f[2] != "p50" || f[4] != "ms" || f[5] != "p95" || f[7] != "ms" || f[8] != "max" || f[10] != "ms") exit 1
      if (!(f[3] + 0 > 0 && f[3] + 0 <= f[6] + 0 && f[6] + 0 <= f[9] + 0)) exit 1
      found = 1 }
    END { exit !found }' "$1" || { echo "FAIL: no sane '$2 $3 …' line in $1:"; cat "$1"; exit 1; }
}
check "$out/pan.txt" "pan frames" 14
run --model "random:d_model=64,heads=4,layers=2" --text "$text" --bench-frames 20 > "$out/frames.txt"
check "$out/frames.txt" frames 20
grep -Eq '^phases ui [0-9.]+ ms  render [0-9.]+ ms  swap [0-9.]+ ms$' "$out/frames.txt" \
  || { echo "FAIL: phases line"; cat "$out/frames.txt"; exit 1; }
# 90 busy frames; the bench runs on until a forward has finished (however slow the build:
# the sanitizer suite runs this too), so the passes line counts at least one.
run --model "random:d_model=256,heads=8,layers=6" --text "$long" --bench-busy --bench-frames 90 > "$out/busy.txt"
check "$out/busy.txt" "busy frames" 90
awk '/^busy passes / { if ($3 + 0 < 1) exit 1; ok = 1 } END { exit !ok }' "$out/busy.txt" \
  || { echo "FAIL: no forward pass finished during the busy frames"; cat "$out/busy.txt"; exit 1; }
run --model "random:d_model=64,heads=4,layers=2" --text "$text" --bench-edits 4 > "$out/edits.txt"
check "$out/edits.txt" edits 4
for what in "edit jobs" "edit loads" "edit forwards"; do
  grep -Eq "^$what 4  p50 [0-9.]+ ms  p95 [0-9.]+ ms  max [0-9.]+ ms$" "$out/edits.txt" \
    || { echo "FAIL: '$what' line"; cat "$out/edits.txt"; exit 1; }
done
# Frames drawn while an edit's job runs (none while it is younger than the progress
# overlay's delay: app/frame_wait.h; a sanitizer build's slower jobs may show some).
grep -Eq "^edit frames between 4  p50 [0-9]+  p95 [0-9]+  max [0-9]+$" "$out/edits.txt" \
  || { echo "FAIL: 'edit frames between' line"; cat "$out/edits.txt"; exit 1; }
# The frame of each edit starts the job and is not drawn (app/app.cpp, show_frame): the
# result's frame is the first to show the edit.
grep -Eq "^edit click frames drawn 0 of 4$" "$out/edits.txt" \
  || { echo "FAIL: a frame that started an edit's job was drawn"; cat "$out/edits.txt"; exit 1; }
# Each edit's latency contains its worker job: the UI share is never negative.
awk '/^edit ui 4 / { if ($4 + 0 < 0) exit 1; ok = 1 } END { exit !ok }' "$out/edits.txt" \
  || { echo "FAIL: edit latency shorter than its job"; cat "$out/edits.txt"; exit 1; }
run --model "random:d_model=64,heads=4,layers=2" --text "$text" --bench-edits 2 --bench-edit d_model > "$out/edits_d.txt"
check "$out/edits_d.txt" edits 2
echo "benchmark modes OK"
