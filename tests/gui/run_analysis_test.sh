#!/usr/bin/env bash
# Head analysis in the window on a real checkpoint (stories260K, referenced in place):
# Analyze, screenshot the Analysis view, ablate one head, rank all heads, dump the state
# after each step; then checks labels/metrics, the ablation KL and the ranking against
# core computed independently (gui_check analysis). Last, the Plots, Similarity and Rollout
# tabs are drawn (each must be the open tab in its dump), then an encoder–decoder's Analysis
# view, so their drawing code runs under the sanitizers too (scripts/sanitize.sh leaves the layout test, which also visits them, to
# the Release suite).
#   run_analysis_test.sh APP CHECKER OUTDIR MODEL.bin
# A missing checkpoint is a failure, not a skip.
set -euo pipefail
app=$1 checker=$2 out=$3 model=$4
if [[ ! -f $model ]]; then
  echo "FAIL: checkpoint $model is missing (see ../shared/models/README.md)"
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
text="Once upon a time, there was a little girl named Lily. She liked to play with her ball."
head=1.3
cat > "$out/session.txt" <<SCRIPT
analyze
analysis-tab heads
select layer 1
select head 3
dump-state $out/analysis.json
screenshot $out/analysis.png
export-metrics-csv $out/metrics.csv
export-analysis-png prev_token $out/prev_token.png
ablate $head
dump-state $out/ablated.json
rank-heads
analysis-tab ablation
dump-state $out/ranked.json
screenshot $out/ablation.png
analysis-tab plots
dump-state $out/tab_plots.json
analysis-tab similarity
dump-state $out/tab_similarity.json
analysis-tab rollout
dump-state $out/tab_rollout.json
model random:arch=encoder-decoder,d_model=64,heads=4,layers=2
view analysis
dump-state $out/encdec_analysis.json
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings --model "$model" --text "$text" \
  --size 1600x1000 --script "$out/session.txt"
for f in analysis.json analysis.png metrics.csv prev_token.png ablated.json ranked.json ablation.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
for tab in plots similarity rollout; do
  grep -Eq "\"open_tab\": *\"$tab\"" "$out/tab_$tab.json" || { echo "FAIL: the $tab tab was not drawn"; exit 1; }
done
grep -Eq '"trace_model_arg": *"[^"]*arch=encoder-decoder' "$out/encdec_analysis.json" &&
  grep -Eq '"view": *"analysis"' "$out/encdec_analysis.json" || { echo "FAIL: no encoder–decoder in the Analysis view"; exit 1; }
"$checker" analysis "$out/analysis.json" "$out/ablated.json" "$out/ranked.json" "$out/analysis.png" \
  "$model" "$text" $head
