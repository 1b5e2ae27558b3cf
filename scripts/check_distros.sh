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

if [[ $(id -u) -ne 0 ]]; then
  echo "check_distros: needs root (debootstrap, chroot and bind mounts)" >&2
  exit 2
fi
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap

mounted=()
unmount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
trap unmount_all EXIT

bind() {  # bind <from> <to> [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounted+=("$2")
  if [[ "${3:-}" == ro ]]; then mount -o remount,bind,ro "$2"; fi
}

make_root() {  # make_root <suite> <dir>
  local suite=$1 root=$2
  [[ -x "$root/usr/bin/apt-get" && -f "$root/.headscope-ready" ]] && return 0
  rm -rf "$root"
  mkdir -p "$root"
  echo "== $suite: debootstrap into $root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror"
  touch "$root/.headscope-ready"
}

results=()
for suite in "${suites[@]}"; do
  root=$cache/$suite
  make_root "$suite" "$root"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # A mirror that is a dated snapshot serves testing's Release past its Valid-Until date;
  # apt then refuses it ("Release file … is expired"). The packages are still signed.
  echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99headscope-mirror"
  bind /proc "$root/proc"
  bind /dev "$root/dev"
  bind /dev/pts "$root/dev/pts"
  bind /sys "$root/sys"  # sysfs: a test writes there to see an unwritable directory refused
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
