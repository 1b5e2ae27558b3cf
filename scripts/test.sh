#!/usr/bin/env bash
# Installs what is missing, builds HeadScope (Release) and runs the whole test suite, then
# the same suite under the sanitizers (docs/RELIABILITY.md): ASan + UBSan + LeakSanitizer
# over every test, ThreadSanitizer over the threaded ones. CI (.ci/run) runs exactly this.
#   scripts/test.sh           everything (~60 min on 2 cores, most of it the three builds)
#   scripts/test.sh --quick   the Release suite only (~17 min)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[[ "${1:-}" == --quick ]] && quick=1
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure -j"$(nproc)")
[[ $quick == 1 ]] && exit 0
bash scripts/sanitize.sh address
bash scripts/sanitize.sh thread
