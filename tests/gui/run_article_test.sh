#!/usr/bin/env bash
# A student checks the tutorial's single-head example at 1280×720: the "Compare with the
# article" tab lists every printed number beside HeadScope's; the softmax cell the article
# prints as 0.016 is 0.00704 here and marked wrong. gui_check article checks the dump.
#   run_article_test.sh APP CHECKER OUTDIR EXAMPLE
set -euo pipefail
app=$1 checker=$2 out=$3 example=$4
rm -rf "$out"
mkdir -p "$out"
cat > "$out/session.txt" <<SCRIPT
model $example
tab article
dump-state $out/article.json
screenshot $out/article.png
tab pipeline
screenshot $out/pipeline.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1280x720x24' "$app" --no-settings --size 1280x720 --script "$out/session.txt"
for f in article.json article.png pipeline.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" article "$out/article.json"
