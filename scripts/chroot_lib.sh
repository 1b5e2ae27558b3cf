#!/usr/bin/env bash
# What scripts/check_distros.sh and scripts/check_package.sh share: root, debootstrap'ed
# Debian roots cached in $cache, bind mounts undone on exit. Sourced, with `cache`,
# `mirror` and `tool` (the script's name, for messages) set.

if [[ $(id -u) -ne 0 ]]; then
  echo "$tool: needs root (debootstrap, chroot and bind mounts)" >&2
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

make_root() {  # make_root <suite> <dir>: a minbase root of the suite, made once
  local suite=$1 root=$2
  [[ -x "$root/usr/bin/apt-get" && -f "$root/.headscope-ready" ]] && return 0
  rm -rf "$root"
  mkdir -p "$root"
  echo "== $suite: debootstrap into $root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror"
  touch "$root/.headscope-ready"
}

enter_root() {  # enter_root <root>: resolv.conf, apt settings and the kernel file systems
  local root=$1
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # A mirror that is a dated snapshot serves testing's Release past its Valid-Until date;
  # apt then refuses it ("Release file … is expired"). The packages are still signed.
  echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99headscope-mirror"
  bind /proc "$root/proc"
  bind /dev "$root/dev"
  bind /dev/pts "$root/dev/pts"
  bind /sys "$root/sys"  # sysfs: a test writes there to see an unwritable directory refused
}
