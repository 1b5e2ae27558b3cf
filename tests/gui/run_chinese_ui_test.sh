#!/usr/bin/env bash
# The interface in 简体中文 (--lang zh), with settings in a fresh config folder: the first
# launch shows the welcome; every view renders with no character missing from the font
# atlas (no "?" glyphs), at 1280×720 and 1600×1000; the language is remembered by the next
# launch; switching back to English by script works and keeps the open Analysis tab. gui_check chinese-ui checks the dumps.
#   run_chinese_ui_test.sh APP CHECKER OUTDIR EXAMPLE
set -euo pipefail
app=$1 checker=$2 out=$3 example=$4
rm -rf "$out"
mkdir -p "$out/config"
export XDG_CONFIG_HOME="$out/config"
cat > "$out/first.txt" <<SCRIPT
dump-state $out/first.json
screenshot $out/welcome_zh.png
help close
screenshot $out/attention_zh.png
view analysis
screenshot $out/analysis_zh.png
view train
screenshot $out/train_zh.png
view attention
tab export
screenshot $out/export_zh.png
save-settings
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1280x720x24' "$app" --lang zh --size 1280x720 --script "$out/first.txt"
cat > "$out/second.txt" <<SCRIPT
dump-state $out/second.json
screenshot $out/second_zh_1600.png
model $example
tab article
dump-state $out/example_zh.json
screenshot $out/article_zh_1600.png
view analysis
analysis-tab ablation
lang en
screenshot $out/analysis_en_1600.png
dump-state $out/english.json
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --size 1600x1000 --script "$out/second.txt"
for f in first.json second.json example_zh.json english.json welcome_zh.png attention_zh.png analysis_zh.png train_zh.png export_zh.png \
         second_zh_1600.png article_zh_1600.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" chinese-ui "$out"
