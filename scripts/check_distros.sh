#!/usr/bin/env bash
# Builds HeadScope and runs its Release test suite (GUI tests included, under Xvfb) inside
# chroots of Debian 12 (bookworm), Debian 13 (trixie) and Debian testing, made with
# debootstrap from Debian's registry. Warnings are errors, so "passes" means zero warnings
# on each distro's own g++ (12 on bookworm, 14 on trixie, the newest on testing).
#
#   scripts/check_distros.sh                 all three
#   scripts/check_distros.sh trixie testing  only those
#   scripts/check_distros.sh --build-only …  configure and build, no tests
#
# The chroots are cached in $HEADSCOPE_CHROOTS (default /var/cache/headscope-chroots) and
# updated with apt on each run; the first run downloads about 1 GiB per distro. Needs root
# (debootstrap, chroot, bind mounts). Not part of .ci/run: it takes most of an hour.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
shared=$(cd .. && pwd)/shared
cache=${HEADSCOPE_CHROOTS:-/var/cache/headscope-chroots}
mirror=${HEADSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

build_only=0
suites=()
for a in "$@"; do
  case "$a" in
    --build-only) build_only=1 ;;
    bookworm|trixie|testing) suites+=("$a") ;;
    *) echo "check_distros: unknown argument '$a' (bookworm, trixie, testing, --build-only)" >&2
       exit 2 ;;
  esac
done
[[ ${#suites[@]} -eq 0 ]] && suites=(bookworm trixie testing)

tool=check_distros
source scripts/chroot_lib.sh

results=()
for suite in "${suites[@]}"; do
  root=$cache/$suite
  make_root "$suite" "$root"
  enter_root "$root"
  # A snapshot of the checkout (edits made while it builds do not leak in) and ../shared at
  # the same places as here, so ../shared/models resolves.
  rm -rf "$root/work/main"
  mkdir -p "$root/work/main"
  tar -C "$src" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$root/work/main" -xf -
  bind "$shared" "$root/work/shared" ro
  build=/var/tmp/headscope-build
  log=$cache/$suite.log
  echo "== $suite: build and test (log: $log)"
  set +e
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    bash -c "
      set -euo pipefail
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -qq >/dev/null
      bash /work/main/scripts/deps.sh
      echo \"g++: \$(g++ --version | head -1)\"
      echo \"cmake: \$(cmake --version | head -1)\"
      for p in libimgui-dev libeigen3-dev libglfw3-dev libhwy-dev; do
        echo \"\$p: \$(dpkg-query -W -f='\${Version}' \$p)\"
      done
      # A clean build every run: the snapshot keeps the checkout's file times, which can be
      # older than objects a previous run built, so an incremental build could link stale ones.
      rm -rf $build
      cmake -S /work/main -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_COMPILE_WARNING_AS_ERROR=ON >/dev/null
      cmake --build $build -j\$(nproc) 2>&1 | grep -E 'warning|error|Built target headscope\$' || true
      cmake --build $build -j\$(nproc) >/dev/null
      if [[ $build_only == 0 ]]; then
        cd $build && ctest -j\$(nproc) --output-on-failure | tail -n 25
      fi
    " 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  unmount_all
  if [[ $status -eq 0 ]]; then results+=("$suite: PASS"); else results+=("$suite: FAIL (exit $status)"); fi
done

echo "== summary"
printf '  %s\n' "${results[@]}"
for r in "${results[@]}"; do [[ "$r" == *PASS ]] || exit 1; done
