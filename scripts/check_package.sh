#!/usr/bin/env bash
# Installs HeadScope's .deb into fresh Debian 12 (bookworm) and Debian 13 (trixie) roots
# with `apt-get install ./headscope_*.deb` and runs the installed copy there, from /tmp:
# --version (the assets it finds), forward of the default model, export to PNG and SVG,
# and the window under Xvfb taking a screenshot ($cache/<suite>-package.png: look at it).
#
#   scripts/check_package.sh [bookworm] [trixie]
#
# The .deb is built for each suite by scripts/package.sh: in this checkout for the host's
# own suite when it is that suite (build-package/), else inside the suite's build root of
# scripts/check_distros.sh (made here when missing), since each Debian release names its
# libraries' packages differently. Fresh roots are debootstrap'ed once into
# $HEADSCOPE_CHROOTS/fresh-<suite> and copied for every run, so each install starts clean.
# Needs root. Not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
cache=${HEADSCOPE_CHROOTS:-/var/cache/headscope-chroots}
mirror=${HEADSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suites=()
for a in "$@"; do
  case "$a" in
    bookworm|trixie) suites+=("$a") ;;
    *) echo "check_package: unknown argument '$a' (bookworm, trixie)" >&2; exit 2 ;;
  esac
done
[[ ${#suites[@]} -eq 0 ]] && suites=(bookworm trixie)
tool=check_package
source scripts/chroot_lib.sh
host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

# deb_for <suite>: prints the path of a .deb built for the suite.
deb_for() {
  local suite=$1
  if [[ $suite == "$host_suite" ]]; then
    bash scripts/package.sh build-package >&2
    ls -t build-package/headscope_*.deb | head -1
    return
  fi
  local root=$cache/$suite
  make_root "$suite" "$root" >&2
  enter_root "$root"
  rm -rf "$root/work/main"
  mkdir -p "$root/work/main"
  tar -C "$src" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$root/work/main" -xf -
  # the copy has no .git: its revision comes along in the environment (core/CMakeLists.txt)
  local revision
  revision=$(git -C "$src" describe --always --dirty --abbrev=10 2>/dev/null || echo unknown)
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    HEADSCOPE_GIT_REVISION="$revision" \
    bash -c "apt-get update -qq && bash /work/main/scripts/deps.sh >/dev/null &&
             rm -rf /var/tmp/headscope-package && bash /work/main/scripts/package.sh /var/tmp/headscope-package" >&2
  unmount_all
  ls -t "$root"/var/tmp/headscope-package/headscope_*.deb | head -1
}

results=()
for suite in "${suites[@]}"; do
  echo "== $suite: the package"
  deb=$(deb_for "$suite")
  echo "== $suite: $deb into a fresh root"
  pristine=$cache/fresh-$suite
  make_root "$suite" "$pristine"
  root=$cache/fresh-$suite.run
  rm -rf "$root"
  cp -a "$pristine" "$root"
  cp "$deb" "$root/tmp/"
  enter_root "$root"
  log=$cache/$suite-package.log
  set +e
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    bash -c "
      set -euo pipefail
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq ./tmp/$(basename "$deb") >/dev/null
      apt-get install -y -qq --no-install-recommends xvfb xauth >/dev/null  # for the window check only
      echo \"installed: \$(dpkg-query -W -f='\${Package} \${Version}' headscope)\"
      dpkg -L headscope | grep -v '/assets/' | sort
      cd /tmp
      headscope --version | head -2
      headscope forward default --text 'the cat is hungry .' --json forward.json
      headscope export default --text 'Mary met John because she sings .' --layer 0 --head 3 --png head.png
      headscope export default --text 'Mary met John because she sings .' --layer 0 --head 3 --svg head.svg
      ls -l forward.json head.png head.svg
      timeout 120 xvfb-run -a -s '-screen 0 1280x720x24' headscope --no-settings --size 1280x720 --frames 20 \
        --screenshot /tmp/window.png
      man -w headscope >/dev/null 2>&1 || ls /usr/share/man/man1/headscope.1.gz
    " 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  [[ -s $root/tmp/window.png ]] && cp "$root/tmp/window.png" "$cache/$suite-package.png"
  unmount_all
  if [[ $status -eq 0 ]]; then results+=("$suite: PASS ($cache/$suite-package.png)"); else results+=("$suite: FAIL (exit $status, $log)"); fi
done
echo "== summary"
printf '  %s\n' "${results[@]}"
for r in "${results[@]}"; do [[ "$r" == *PASS* ]] || exit 1; done
