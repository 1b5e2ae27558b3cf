#!/usr/bin/env bash
# Opens a worked example under Xvfb, edits one cell of X as the Pipeline tab does, exports
# the trace, and checks it equals the example recomputed with the same edit, and that the
# Model panel was given the example's title, description and source to show.
#   run_example_edit_test.sh APP CHECKER OUTDIR EXAMPLE
set -euo pipefail
app=$1 checker=$2 out=$3 example=$4
rm -rf "$out"
mkdir -p "$out"
cat > "$out/session.txt" <<SCRIPT
model $example
edit x 0 1 -3.5
export-json $out/trace.json
dump-state $out/state.json
screenshot $out/example.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings --script "$out/session.txt"
"$checker" example "$out/trace.json" "$example" 0 1 -3.5 "$out/state.json"
