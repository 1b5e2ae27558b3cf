#!/usr/bin/env bash
# The frame cache (app/gl/frame_cache.*: damage-limited redraws through the stock ImGui
# backend) and the benchmark modes, under Xvfb:
#  1. pixels: screenshots taken after partial redraws (panning the map; script edits that
#     change the selection, colormap, model (heads, d_model) and text: labels whose digits
#     or words change, widgets shifted along a line) equal, byte for byte, those of a run
#     that redraws every pixel every frame (--full-redraw);
#  2. --bench-frames / --bench-pan / --bench-busy / --bench-edits print their lines, which
#     parse and hold sane numbers (counts as asked, 0 < p50 <= p95 <= max); no time limits.
#   run_frame_cache_test.sh APP OUTDIR
set -euo pipefail
app=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
run() { timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings "$@"; }
text="The animal didn't cross the street because it was too tired ."
long=$(for i in $(seq 300); do printf 'w%d ' $((i % 37)); done)

# 1. Partial redraws give the pixels of full redraws, with the stock backend and with the
# software-GL opt-in renderer (whose program per run of triangles depends on its neighbours,
# while a partial redraw keeps unchanged triangles' old pixels).
for mode in cached full own own_full; do
  extra=()
  case $mode in full) extra=(--full-redraw) ;; own) extra=(--own-renderer) ;; own_full) extra=(--own-renderer --full-redraw) ;; esac
  if [[ $mode == cached || $mode == full ]]; then
    run --model "random:d_model=32,heads=2,layers=1,seed=5" --text "$long" --size 1200x800 --bench-pan \
      --bench-frames 14 --frames 12 --screenshot "$out/pan_$mode.png" "${extra[@]}" > "$out/pan_$mode.txt"
  fi
  cat > "$out/session_$mode.txt" <<SCRIPT
select head 1
screenshot $out/s1_$mode.png
select layer 1
colormap magma
screenshot $out/s2_$mode.png
set heads 2
select head 0
screenshot $out/s3_$mode.png
set d_model 72
screenshot $out/s4_$mode.png
text The animal didn't cross the road because it was too wide .
screenshot $out/s5_$mode.png
SCRIPT
  run --model "random:d_model=64,heads=4,layers=2,seed=3" --text "$text" --size 1280x800 \
    --script "$out/session_$mode.txt" "${extra[@]}"
done
grep -q '^frame cache retained back buffer (stock backend)$\|^frame cache offscreen + copy (stock backend)$' "$out/pan_cached.txt" \
  || { echo "FAIL: cached run did not report its frame cache"; cat "$out/pan_cached.txt"; exit 1; }
grep -q '^frame cache off (full redraw) (stock backend)$' "$out/pan_full.txt" || { echo "FAIL: --full-redraw not reported"; exit 1; }
for f in pan s1 s2 s3 s4 s5; do
  cmp "$out/${f}_cached.png" "$out/${f}_full.png" || { echo "FAIL: $f differs between cached and full redraw"; exit 1; }
done
for f in s1 s2 s3 s4 s5; do
  cmp "$out/${f}_own.png" "$out/${f}_own_full.png" \
    || { echo "FAIL: $f differs between cached and full redraw with --own-renderer"; exit 1; }
done
# The pan run really redrew only part of the window, and the screenshots differ from each other.
awk '/^phases/ { if ($NF != "%" || $(NF-1) + 0 <= 0 || $(NF-1) + 0 >= 100) exit 1; ok = 1 } END { exit !ok }' \
  "$out/pan_cached.txt" || { echo "FAIL: pan frames did not redraw part of the window"; cat "$out/pan_cached.txt"; exit 1; }
if cmp -s "$out/s1_cached.png" "$out/s2_cached.png"; then echo "FAIL: the script edits changed nothing"; exit 1; fi

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
check "$out/pan_cached.txt" "pan frames" 14
run --model "random:d_model=64,heads=4,layers=2" --text "$text" --bench-frames 20 > "$out/frames.txt"
check "$out/frames.txt" frames 20
grep -q '(stock backend)$' "$out/frames.txt" \
  || { echo "FAIL: the default run did not report the stock backend"; cat "$out/frames.txt"; exit 1; }
grep -Eq '^phases ui [0-9.]+ ms  render [0-9.]+ ms  swap [0-9.]+ ms  redrawn [0-9.]+ %$' "$out/frames.txt" \
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
# Each edit's latency contains its worker job: the UI share is never negative.
awk '/^edit ui 4 / { if ($4 + 0 < 0) exit 1; ok = 1 } END { exit !ok }' "$out/edits.txt" \
  || { echo "FAIL: edit latency shorter than its job"; cat "$out/edits.txt"; exit 1; }
run --model "random:d_model=64,heads=4,layers=2" --text "$text" --bench-edits 2 --bench-edit d_model > "$out/edits_d.txt"
check "$out/edits_d.txt" edits 2
echo "frame cache and benchmark modes OK"
