#!/usr/bin/env bash
# Builds the Debian package: a Release build of the window and CLI (no tests) installed
# under /usr, packed by `cpack -G DEB` (Depends from dpkg-shlibdeps, packaging/CMakeLists.txt),
# then checked by lintian. Needs scripts/deps.sh --package.
#   scripts/package.sh [BUILD_DIR]   (default build-package) → BUILD_DIR/headscope_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-package}
bash scripts/deps.sh --package >/dev/null
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DHEADSCOPE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls -t "$build"/headscope_*.deb | head -1)
echo "package: $deb"
dpkg-deb --field "$deb" Package Version Depends Installed-Size
# Lintian: errors fail the script; warnings are listed.
lintian --tag-display-limit 0 --info "$deb" || { echo "lintian: errors (above)"; exit 1; }
echo "lintian: no errors"
