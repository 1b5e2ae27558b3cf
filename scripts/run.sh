#!/usr/bin/env bash
# Installs what is missing, builds HeadScope (Release) and starts it.
# Extra arguments go to headscope, e.g.  scripts/run.sh forward random:d_model=64 --text "hi"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target headscope
if [[ -x build/app/headscope ]]; then
  exec build/app/headscope "$@"
fi
# Built without the window: show what the CLI does.
bin=build/cli/headscope
if [[ $# -gt 0 ]]; then exec "$bin" "$@"; fi
"$bin" forward "random:d_model=64,heads=4,layers=2,seed=1" --text "The cat sat on the mat ."
"$bin" export "random:d_model=64,heads=4,layers=2,seed=1" --text "The cat sat on the mat ." \
  --grid --png headscope_grid.png
