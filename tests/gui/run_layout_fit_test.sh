#!/usr/bin/env bash
# Nothing is clipped: at 1280×720, 1600×1000 and 2560×1440, in English and in Chinese,
# through the Attention view (Pipeline, Layer outputs, Export, a playground's Model panel and
# a real checkpoint's: stories260K, grouped-query attention; a worked example's), the
# Analysis view of an encoder–decoder (its narrow Heatmap panel with the map-kind choice),
# every tab of the Analysis view after Analyze (Ablation with a head switched off: its
# three-part effect) and the Train view, no window's widgets are wider than
# the window unless it scrolls sideways. gui_check fit checks the dumped window extents.
#   run_layout_fit_test.sh APP CHECKER OUTDIR STORIES260K_BIN
set -euo pipefail
app=$1 checker=$2 out=$3 stories=$4
example="$(cd "$(dirname "$0")/../.." && pwd)/assets/examples/article_two_heads.json"
rm -rf "$out"
mkdir -p "$out"
dumps=()
for lang in en zh; do
  for size in 1280x720 1600x1000 2560x1440; do
    tag="${lang}_${size}"
    cat > "$out/session_$tag.txt" <<SCRIPT
lang $lang
dump-state $out/${tag}_attention.json
screenshot $out/${tag}_attention.png
view analysis
analyze
dump-state $out/${tag}_analysis.json
screenshot $out/${tag}_analysis.png
analysis-tab plots
dump-state $out/${tag}_plots.json
analysis-tab similarity
dump-state $out/${tag}_similarity.json
analysis-tab ablation
ablate 0.1
dump-state $out/${tag}_ablation.json
screenshot $out/${tag}_ablation.png
restore all
analysis-tab rollout
dump-state $out/${tag}_rollout.json
analysis-tab relations
dump-state $out/${tag}_relations.json
view train
dump-state $out/${tag}_train.json
view attention
tab export
dump-state $out/${tag}_export.json
model random:d_model=64,heads=4,layers=2
tab layers
dump-state $out/${tag}_playground.json
screenshot $out/${tag}_playground.png
model $stories
dump-state $out/${tag}_checkpoint.json
model $example
dump-state $out/${tag}_example.json
model random:arch=encoder-decoder,d_model=64,heads=4,layers=2
view analysis
dump-state $out/${tag}_encdec_analysis.json
SCRIPT
    timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 ${size}x24" "$app" --no-settings --size "$size" --script "$out/session_$tag.txt"
    for view in attention analysis plots similarity ablation rollout relations train export playground checkpoint \
              example encdec_analysis; do
      dumps+=("$out/${tag}_${view}.json")
    done
  done
done
"$checker" fit "${dumps[@]}"
