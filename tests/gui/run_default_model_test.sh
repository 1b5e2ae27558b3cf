#!/usr/bin/env bash
# The first launch: no settings, no model on the command line. The window opens on the
# default model (assets/models/default), probes its heads against gold relations and
# shows a claimed relation head (coreference when claimed) on a sample with the gold arcs;
# then the Chinese
# coreference head, the Relations tab, "continue" of the Chinese sample by three tokens, and
# a playground (marked untrained). Screenshots
# at 1280×720; gui_check default compares what was shown with core.
#   run_default_model_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
cat > "$out/session.txt" <<SCRIPT
dump-state $out/first.json
screenshot $out/first.png
relations-show coreference zh
dump-state $out/zh.json
screenshot $out/zh.png
analysis-tab relations
screenshot $out/relations.png
view attention
continue 3
dump-state $out/continued.json
screenshot $out/continued.png
model random:d_model=64,heads=4,layers=2
view attention
dump-state $out/playground.json
screenshot $out/playground.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1280x720x24' "$app" --no-settings --size 1280x720 --script "$out/session.txt"
for f in first.json first.png zh.json zh.png relations.png continued.json continued.png playground.json playground.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" default "$out/first.json" "$out/zh.json" "$out/playground.json" "$out/continued.json"
