#!/usr/bin/env bash
# UI frame-time and live-edit figures of docs/PERFORMANCE.md ("UI frame time", "Live edits"),
# three runs each under Xvfb, drawn by Dear ImGui's stock OpenGL3 backend.
# Usage: scripts/measure_ui.sh [BUILD_DIR]  (default build)
set -uo pipefail
app=$(realpath "${1:-build}")/app/headscope
tmp=$(mktemp -d)
for i in $(seq 128); do printf 'word%d ' $i; done > "$tmp/words128.txt"
for i in $(seq 4096); do printf 'w%d ' $((i % 997)); done > "$tmp/words4096.txt"
for i in $(seq 64); do printf 'tok%d ' $i; done > "$tmp/words64.txt"
X() { xvfb-run -a -s '-screen 0 1600x1000x24' "$app" --no-settings --size 1600x1000 "$@" 2>&1; }
G='random:d_model=768,heads=12,layers=12,max_len=256'
P='random:d_model=64,heads=1,layers=1,max_len=4096'
E='random:d_model=512,heads=8,layers=6'
for r in 1 2 3; do
  echo "== run $r  $(uptime)"
  for out in stock; do
    F=()
    echo "-- [$out] grid 128";              X --model $G --text "$(cat "$tmp/words128.txt")" --bench-frames 300 "${F[@]}"
    echo "-- [$out] pan 4096";              X --model $P --text "$(cat "$tmp/words4096.txt")" --bench-pan --bench-frames 300 "${F[@]}"
    echo "-- [$out] pan 4096 heatmap view"; X --model $P --text "$(cat "$tmp/words4096.txt")" --bench-pan --bench-frames 300 --bench-view heatmap "${F[@]}"
    echo "-- [$out] busy grid 128";         X --model $G --text "$(cat "$tmp/words128.txt")" --bench-busy --bench-frames 300 "${F[@]}"
    echo "-- [$out] edits heads";           X --model $E --text "$(cat "$tmp/words64.txt")" --bench-edits 60 "${F[@]}"
    echo "-- [$out] edits d_model";         X --model $E --text "$(cat "$tmp/words64.txt")" --bench-edits 60 --bench-edit d_model "${F[@]}"
  done
done
echo "== end $(uptime)"
rm -rf "$tmp"
