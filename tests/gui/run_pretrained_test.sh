#!/usr/bin/env bash
# Opens a real llama2.c checkpoint (stories260K, referenced in place) under Xvfb, given as a
# bare path as a file manager's "Open with" passes it (headscope FILE), selects a
# head, dumps the app state, takes a screenshot, presses "continue 6", dumps again; then
# checks the heatmap pixels against core's exporter, the Model panel / next-token / KV-head
# state against core, and the continuation against core's greedy generate.
#   run_pretrained_test.sh APP CHECKER OUTDIR MODEL.bin
# A missing checkpoint is a failure, not a skip.
set -euo pipefail
app=$1 checker=$2 out=$3 model=$4
if [[ ! -f $model ]]; then
  echo "FAIL: checkpoint $model is missing (see ../shared/models/README.md)"
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
text="Once upon a time, there was a little girl"
layer=1 head=5
cat > "$out/session.txt" <<SCRIPT
dump-state $out/state.json
screenshot $out/shot.png
continue 6
dump-state $out/after.json
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" "$model" --no-settings --text "$text" \
  --layer $layer --head $head --size 1400x900 --layout "$out/layout.json" --script "$out/session.txt"
for f in state.json shot.png layout.json after.json; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" screenshot "$out/shot.png" "$out/layout.json" "$model" "$text" $layer $head 1400 900
"$checker" pretrained "$out/state.json" "$model" "$text"
"$checker" continued "$out/state.json" "$out/after.json" "$model" 6
