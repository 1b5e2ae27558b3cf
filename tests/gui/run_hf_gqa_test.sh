#!/usr/bin/env bash
# Opens a tiny Hugging Face Llama checkpoint (4 query heads, 2 KV heads) by a scripted
# "model DIR" (as typed in the Model panel's path field) under Xvfb and checks the dumped
# state: architecture, next tokens and the KV head each query head reads.
#   run_hf_gqa_test.sh APP CHECKER OUTDIR FIXTURE_DIR TOKENIZER_DIR
# The fixture has no tokenizer files, so the test copies it beside a tiny tokenizer.json.
set -euo pipefail
app=$1 checker=$2 out=$3 fixture=$4 tokenizer=$5
rm -rf "$out"
mkdir -p "$out"
model="$out/llama"
cp -r "$fixture" "$model"
cp "$tokenizer"/* "$model/"
text="hello world"
cat > "$out/session.txt" <<SCRIPT
model $model
select layer 1
select head 3
dump-state $out/state.json
screenshot $out/shot.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings --text "$text" --size 1400x900 \
  --script "$out/session.txt"
[[ -s "$out/state.json" ]] || { echo "FAIL: $out/state.json was not written"; exit 1; }
"$checker" pretrained "$out/state.json" "$model" "$text"
