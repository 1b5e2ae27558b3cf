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
# Ninja for new build trees (a tree made before keeps its generator): it keeps both cores
# compiling and relinks only what changed (docs/RELIABILITY.md, where CI's time goes).
export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
stage() { echo "== test.sh: $1 at $(date +%T)"; }
stage "dependencies"
bash scripts/deps.sh
stage "Release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
stage "Release tests"
(cd build && ctest --output-on-failure -j"$(nproc)")
[[ $quick == 1 ]] && exit 0
stage "ASan + UBSan build and tests"
bash scripts/sanitize.sh address
stage "ThreadSanitizer build and tests"
bash scripts/sanitize.sh thread
stage "done"
