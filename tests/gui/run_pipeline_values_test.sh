#!/usr/bin/env bash
# The Pipeline at real sizes keeps its values reachable (the default model on a sample of
# 10 tokens: every card a heatmap at 1280×720): each heatmap card has a colour bar with its range; ÷√d_k and
# + mask share Q_h K_hᵀ's scale (the scaling shows as fainter colours); the masked cells are
# the −∞ grey, not the blue of a strong negative score; a click opens a card large as a
# table of numbers whose rows and columns are the tokens. At 1280×720 in English and
# 1920×1080 in Chinese. gui_check pipeline-values reads the dump and the screenshot.
#   run_pipeline_values_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
for run in "1280x720 en 900" "1920x1080 zh 1400"; do  # scrolled so that cards 7–10 are in view
  read -r size lang scroll <<< "$run"
  cat > "$out/session_$size.txt" <<SCRIPT
lang $lang
text Tom bought the small dog and it barks .
tab pipeline
pipeline-scroll $scroll
screenshot $out/${size}.png
dump-state $out/${size}.json
click card-9
screenshot $out/${size}_open.png
dump-state $out/${size}_open.json
SCRIPT
  timeout 140 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 ${size}x24" "$app" --no-settings --size "$size" --script "$out/session_$size.txt"
  "$checker" pipeline-values "$out/${size}.json" "$out/${size}.png" "$out/${size}_open.json"
  # Under the sanitizers one run is enough to check memory (scripts/sanitize.sh); the Release suite runs all.
  if [[ -n "${HEADSCOPE_GUI_FIRST_RUN_ONLY:-}" ]]; then break; fi
done
