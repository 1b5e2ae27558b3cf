#!/usr/bin/env bash
# The keyboard, played as a user would press it, on the default model (a sample set by the script): ← → ↑ ↓ select heads
# and layers after a click on a grid thumbnail (they once worked only while the Heatmap
# panel had focus), stop at the first and last layer, move the cursor instead while the
# text box is being edited; Esc then closes the editor and keeps what was typed (ImGui's
# Esc would put the old text back), and the arrows select heads again. At 1280×720 in
# English and at 1920×1080 in Chinese. gui_check keyboard reads the dumps.
#   run_keyboard_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
for run in "1280x720 en" "1920x1080 zh"; do
  read -r size lang <<< "$run"
  cat > "$out/session_$size.txt" <<SCRIPT
lang $lang
text Tom bought the small dog and it barks .
click thumb-1.2
dump-state $out/${size}_0.json
key right
dump-state $out/${size}_1.json
key down
dump-state $out/${size}_2.json
key left
key up
dump-state $out/${size}_3.json
key up
key up
dump-state $out/${size}_4.json
click text-box
key right
dump-state $out/${size}_5.json
type  Tom barks .
key escape
dump-state $out/${size}_6.json
key right
screenshot $out/${size}.png
dump-state $out/${size}_7.json
SCRIPT
  timeout 140 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 ${size}x24" "$app" --no-settings --size "$size" --script "$out/session_$size.txt"
  "$checker" keyboard "$out" "$size"
  # Under the sanitizers one run is enough to check memory (scripts/sanitize.sh); the Release suite runs all.
  if [[ -n "${HEADSCOPE_GUI_FIRST_RUN_ONLY:-}" ]]; then break; fi
done
