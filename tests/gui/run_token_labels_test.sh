#!/usr/bin/env bash
# A subword model's heatmap labels let a reader find the sentence: on stories260K, whose
# vocabulary splits "girl" into " g" "ir" "l", labels a few rows apart show the words
# ("girl", "park.") where they once showed first pieces ("g", "p"), every-row labels show
# the pieces, the byte tokens of Arabic letters show the letters (DejaVu draws them) and
# the four of an emoji its code point "[U+1F600]" (no font of the window has it; once all
# drew as "?"), which the Input panel names. At 1280×720
# in English and at 1920×1080 in Chinese (and at a larger text size, where labels thin).
# gui_check token-labels compares each drawn label with the sentence's words and pieces,
# written out by hand.
#   run_token_labels_test.sh APP CHECKER OUTDIR MODEL
set -euo pipefail
app=$1 checker=$2 out=$3 model=$4
rm -rf "$out"
mkdir -p "$out"
for run in "1280x720 en 1" "1920x1080 zh 1" "1920x1080 en 2"; do
  read -r size lang zoom <<< "$run"
  name="${size}_${lang}_${zoom}"
  cat > "$out/session_$name.txt" <<SCRIPT
model $model
lang $lang
zoom $zoom
text Once upon a time, there was a little girl named Lily. She liked to play with her red ball in the park. 😀 مرحبا
screenshot $out/$name.png
dump-state $out/$name.json
SCRIPT
  timeout 140 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 ${size}x24" "$app" --no-settings --size "$size" --script "$out/session_$name.txt"
  "$checker" token-labels "$out/$name.json"
  # Under the sanitizers one run is enough to check memory (scripts/sanitize.sh); the Release suite runs all.
  if [[ -n "${HEADSCOPE_GUI_FIRST_RUN_ONLY:-}" ]]; then break; fi
done
