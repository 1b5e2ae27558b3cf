#!/usr/bin/env bash
# The Pipeline strip stays readable: at 1280×720 and 1600×1000, scrolled to its start, its
# middle and its end, in the textbook and the PyTorch layout, on the default model and on
# a worked example, every table of numbers keeps columns as wide as its widest value (no
# slivers). gui_check pipeline checks the dumped card rectangles.
#   run_pipeline_layout_test.sh APP CHECKER OUTDIR EXAMPLE
set -euo pipefail
app=$1 checker=$2 out=$3 example=$4
rm -rf "$out"
mkdir -p "$out"
for size in 1280x720 1600x1000; do
  cat > "$out/session_$size.txt" <<SCRIPT
model $example
tab pipeline
dump-state $out/${size}_example_start.json
pipeline-scroll 100000
dump-state $out/${size}_example_end.json
screenshot $out/${size}_example_end.png
pipeline-layout pytorch
pipeline-scroll 0
dump-state $out/${size}_example_pytorch.json
model default
pipeline-layout textbook
pipeline-scroll 900
dump-state $out/${size}_default_middle.json
screenshot $out/${size}_default_middle.png
pipeline-scroll 100000
dump-state $out/${size}_default_end.json
SCRIPT
  timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 ${size}x24" "$app" --no-settings --size "$size" --script "$out/session_$size.txt"
  # Under the sanitizers one run is enough to check memory (scripts/sanitize.sh); the Release suite runs all.
  if [[ -n "${HEADSCOPE_GUI_FIRST_RUN_ONLY:-}" ]]; then break; fi
done
"$checker" pipeline "$out"/*.json
# The default model is pre-LN: its attention reads LayerNorm(h), and its first card says so;
# a worked example (no norm) reads X itself.
grep -q '"title": "X = LayerNorm(h)"' "$out/1280x720_default_middle.json" || { echo "FAIL: the pre-LN X card is not named LayerNorm(h)"; exit 1; }
grep -q '"title": "X"' "$out/1280x720_example_start.json" || { echo "FAIL: the worked example's X card is renamed"; exit 1; }
# Above d_model 1024 (mipmapped cards, the fused layout): the maps are coloured, not blank.
cat > "$out/session_large.txt" <<SCRIPT
model random:d_model=1280,heads=4,layers=1,seed=3
text the cat sat on the mat
tab pipeline
pipeline-scroll 0
dump-state $out/large_model.json
screenshot $out/large_model.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 1280x720x24" "$app" --no-settings --size 1280x720 --script "$out/session_large.txt"
"$checker" pipeline-maps "$out/large_model.json" "$out/large_model.png"
