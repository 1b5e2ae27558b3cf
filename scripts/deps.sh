#!/usr/bin/env bash
# Installs the Debian 12 packages HeadScope needs to build, run and test.
# Skips packages that are already installed; uses sudo when not root.
#   scripts/deps.sh            build + app + tests
#   scripts/deps.sh --fixtures also python3-torch/numpy/sentencepiece/regex, to regenerate test fixtures
#   scripts/deps.sh --fuzz     also clang and its libFuzzer runtime (scripts/fuzz.sh)
#   scripts/deps.sh --package  also what scripts/package.sh and check_package.sh use
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config
  libimgui-dev libglfw3-dev libeigen3-dev nlohmann-json3-dev libstb-dev libhwy-dev
  libpng-dev  # PNG export streamed row by row (images over 2 GiB)
  libharfbuzz-dev libfribidi-dev  # text in exported PNGs: shaping (Arabic joined) and right-to-left runs
  libsentencepiece-dev  # SentencePiece's tokenizer.model files
  libgl-dev
  # speed: OpenBLAS behind Eigen's matrix products (docs/PERFORMANCE.md)
  libopenblas-dev
  # tests and benchmarks
  libgtest-dev libbenchmark-dev
  # headless GUI tests and screenshots
  xvfb xauth libgl1-mesa-dri x11-apps
  # fonts: Latin labels and a CJK-capable font for Chinese tokens; Noto for the other
  # scripts and colour emoji in exported figures
  fonts-dejavu-core fonts-wqy-microhei fonts-noto-core fonts-noto-color-emoji
)
if [[ "${1:-}" == "--fixtures" ]]; then
  packages+=(python3-torch python3-numpy python3-sentencepiece python3-regex)
fi
if [[ "${1:-}" == "--package" ]]; then  # the .deb: icons, man page, checks, chroots
  packages+=(dpkg-dev librsvg2-bin help2man lintian desktop-file-utils appstream debootstrap)
fi
if [[ "${1:-}" == "--fuzz" ]]; then  # scripts/fuzz.sh: clang's libFuzzer and sanitizer runtimes
  packages+=(clang libclang-rt-14-dev)
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

# Installs those of the given packages that are not installed yet.
install_missing() {
  local missing=() p status
  for p in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "deps: all $# packages present"
    return 0
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing "${packages[@]}"
# SentencePiece 0.2's header (Debian 13's successors) includes Abseil headers that its -dev
# package does not pull in.
if grep -qs '#include <absl/' /usr/include/sentencepiece_processor.h; then
  install_missing libabsl-dev
fi
