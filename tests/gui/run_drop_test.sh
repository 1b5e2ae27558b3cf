#!/usr/bin/env bash
# Drag and drop, driven by the script action `drop PATH` (the same queue the GLFW drop
# callback fills): a dropped text file becomes the input text, a dropped llama2.c .bin
# opens that model, and so does a dropped GGUF file. Checks the dumped state after each drop.
#   run_drop_test.sh APP OUTDIR MODEL_BIN MODEL_GGUF
set -euo pipefail
app=$1 out=$2 model=$3 gguf=$4
for f in "$model" "$gguf"; do
  [[ -f "$f" ]] || { echo "FAIL: $f is missing (../shared/models must be beside the project)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"
printf '我是秦始皇\n' > "$out/dropped.txt"
cat > "$out/session.txt" <<SCRIPT
drop $out/dropped.txt
dump-state $out/after_text.json
drop $model
dump-state $out/after_model.json
drop $gguf
dump-state $out/after_gguf.json
screenshot $out/after_gguf.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings \
  --model "random:d_model=32,heads=4,layers=1" --text "before" --size 1200x800 --script "$out/session.txt"
fail() { echo "FAIL: $*"; exit 1; }
grep -q '"text": "我是秦始皇"' "$out/after_text.json" || fail "dropped text file did not become the input"
grep -q '"notice": "Loaded text from ' "$out/after_text.json" || fail "no notice for the dropped text"
grep -A6 '"tokens": \[' "$out/after_text.json" | grep -q '"皇"' || fail "tokens of the dropped text missing"
grep -q "\"model_arg\": \"$model\"" "$out/after_model.json" || fail "dropped .bin did not become the model"
grep -q '"family": "llama2.c"' "$out/after_model.json" || fail "dropped model was not opened"
grep -q "\"model_arg\": \"$gguf\"" "$out/after_gguf.json" || fail "dropped .gguf did not become the model"
grep -q '"family": "llama"' "$out/after_gguf.json" || fail "dropped GGUF model was not opened"
grep -q '"d_model": 128' "$out/after_gguf.json" || fail "dropped GGUF model is not TinyStories-656K (d_model 128)"
echo "PASS: dropped text and models (.bin, .gguf) were opened"
