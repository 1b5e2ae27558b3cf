#!/usr/bin/env bash
# HeadScope's GGUF block decoders checked against ggml's own code (issue 40).
#
# tests/fixtures/gguf/blocks.gguf holds one (2, 256) tensor of random block bytes per
# stored type HeadScope reads (f32 f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 q2_k q3_k q4_k q5_k
# q6_k iq4_nl); tests/fixtures/gguf/blocks_expected.json holds their values as the numpy
# reference of tests/gen_gguf_fixtures.py dequantises them, the values HeadScope's tests
# hold core/kernels/stored_types.cpp to. This script checks that reference against ggml:
# a small C++ program (below, written for this check; it only calls ggml's public API)
# opens blocks.gguf with ggml's gguf reader (gguf_init_from_file, no_alloc = false, so
# ggml loads the tensor data into a ggml context), checks that each tensor's ggml type is
# the one its name says, dequantises it row by row with ggml_get_type_traits(type)->to_float
# (ggml has no to_float for F32: its values are compared as ggml loaded them), and compares
# every value with the JSON. It prints one line per type (values equal bit for bit, within
# 1e-6 relative, max |difference|, max relative difference) and exits 1 if any type has a
# value off by more than 1e-6 relative, or a tensor is missing or of another type.
#
# ggml's reader refuses arrays of arrays, which GGUF allows and blocks.gguf has one of
# (test.nested): the script then says so and checks a copy in the work directory with
# only such keys left out of the header (every tensor byte copied unchanged).
#
# ggml is built outside the repository and never vendored: from a ggml git directory (the
# mirror, or a bare repository) the script extracts one commit with `git archive` into the
# work directory (/tmp by default); a ggml source tree is built out of tree, in the work
# directory. Only the ggml-base library is built (gguf reader, type traits, the reference
# dequantisers of ggml-quants.c); the CPU backend is not needed for to_float. GGML_NATIVE
# is off, so no -march=native (and no FMA contraction) in ggml's build. The build is niced
# and runs on at most 2 jobs; a second run reuses it (about 20 s first, 1 s after).
#
# Run:
#   scripts/check_gguf_blocks_with_ggml.sh [GGML]
#     GGML   a ggml git directory (mirror or bare repository) or a ggml source tree;
#            default /work/.mirror/ggml-org+ggml/repo
#   environment:
#     GGML_CHECK_DIR   work directory (sources, build, checker); default /tmp/headscope-ggml-check
#     GGML_REV         commit to extract from a mirror; default HEAD
#     GGML_JOBS        build jobs; default 2
# Needs cmake, a C/C++ compiler, git (for a mirror) and python3 (standard library only).
set -euo pipefail
start=$(date +%s)
ggml=$(realpath -m "${1:-/work/.mirror/ggml-org+ggml/repo}")
work=$(realpath -m "${GGML_CHECK_DIR:-/tmp/headscope-ggml-check}")
cd "$(dirname "$0")/.."
repo=$(pwd)
rev=${GGML_REV:-HEAD}
jobs=${GGML_JOBS:-2}
fixture=$repo/tests/fixtures/gguf/blocks.gguf
expected=$repo/tests/fixtures/gguf/blocks_expected.json

case "$work" in "$repo"|"$repo"/*) echo "GGML_CHECK_DIR must be outside the repository: $work" >&2; exit 2 ;; esac
[[ -e "$ggml" ]] || { echo "no ggml at $ggml (give a ggml mirror or source tree)" >&2; exit 2; }
mkdir -p "$work"

# --- ggml sources ------------------------------------------------------------------------
if [[ -f "$ggml/CMakeLists.txt" && -f "$ggml/include/gguf.h" ]]; then
  src=$(cd "$ggml" && pwd)
  commit=unknown
  if [[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || true)" == "$src" ]]; then
    commit=$(git -C "$src" rev-parse HEAD)
    [[ -z "$(git -C "$src" status --porcelain)" ]] || commit="$commit (modified tree)"
  fi
elif commit=$(git --git-dir="$ggml" rev-parse --verify --quiet "$rev^{commit}"); then
  # A git directory without a work tree (the mirror has no config file, so git does not
  # call it bare): extract the commit's files.
  src=$work/src-$commit
  if [[ ! -f "$src/.extracted" ]]; then
    rm -rf "$src" && mkdir -p "$src"
    git --git-dir="$ggml" archive "$commit" | tar -x -C "$src"
    touch "$src/.extracted"
  fi
else
  echo "$ggml is neither a ggml git repository with commit $rev nor a ggml source tree" >&2; exit 2
fi
echo "ggml: $ggml @ $commit"

# --- ggml-base -----------------------------------------------------------------------------
build=$work/build-${commit%% *}
if [[ $commit == unknown* || $commit == *modified* ]]; then build=$work/build-tree; fi
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DGGML_NATIVE=OFF -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DGGML_OPENMP=OFF >"$work/cmake.log" 2>&1 \
  || { cat "$work/cmake.log" >&2; exit 2; }
nice -n 10 cmake --build "$build" --target ggml-base -j"$jobs" >"$work/build.log" 2>&1 \
  || { tail -50 "$work/build.log" >&2; exit 2; }
lib=$(find "$build" -name 'libggml-base.a' | head -1)
[[ -n "$lib" ]] || { echo "libggml-base.a not found under $build" >&2; exit 2; }

# --- the expected values as plain text: "name count", then one value a line ----------------
python3 - "$expected" "$work/expected.txt" <<'PY'
import json, struct, sys
data = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as out:
    for name, values in data.items():
        out.write(f"{name} {len(values)}\n")
        for v in values:
            # Every value is a float32 widened to a double; repr() round-trips it exactly.
            if struct.unpack("<f", struct.pack("<f", v))[0] != v and v == v:
                sys.exit(f"{name}: {v!r} is not a float32 value")
            out.write(repr(v) + "\n")
PY

# --- a copy for ggml without arrays of arrays ----------------------------------------------
# GGUF allows arrays of arrays (docs/gguf.md: "Arrays can be nested") and blocks.gguf has
# one (test.nested), but ggml's reader refuses them ("invalid GGUF type 9"). If ggml cannot
# read the fixture, the checker reads this copy: the same file with those keys left out of
# the header, the data section (every tensor's bytes) copied unchanged.
python3 - "$fixture" "$work/blocks-for-ggml.gguf" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
at = 0
def take(fmt):
    global at
    v = struct.unpack_from("<" + fmt, data, at); at += struct.calcsize("<" + fmt); return v[0]
SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
def skip(kind):
    global at
    if kind == 8:
        n = take("Q"); at += n
    elif kind == 9:
        element, n = take("I"), take("Q")
        for _ in range(n): skip(element)
    else: at += SIZES[kind]
assert data[:4] == b"GGUF"
at = 4
version, n_tensors, n_kv = take("I"), take("Q"), take("Q")
kept, dropped, alignment = [], [], 32
for _ in range(n_kv):
    begin = at
    n = take("Q"); key = data[at:at + n].decode(); at += n
    kind = take("I")
    nested = kind == 9 and struct.unpack_from("<I", data, at)[0] == 9
    if key == "general.alignment": alignment = struct.unpack_from("<I", data, at)[0]
    skip(kind)
    (dropped if nested else kept).append((key, data[begin:at]))
infos_begin = at
for _ in range(n_tensors):
    n = take("Q"); at += n           # name
    n_dims = take("I"); at += 8 * n_dims + 4 + 8  # ne[], type, offset
infos = data[infos_begin:at]
body = data[(at + alignment - 1) // alignment * alignment:]
head = b"GGUF" + struct.pack("<IQQ", version, n_tensors, len(kept)) + b"".join(b for _, b in kept) + infos
head += b"\0" * (-len(head) % alignment)
open(sys.argv[2], "wb").write(head + body)
print("keys ggml cannot read (arrays of arrays): " + (", ".join(k for k, _ in dropped) or "none"))
PY

# --- the checker ---------------------------------------------------------------------------
cat >"$work/check_blocks.cpp" <<'CPP'
// Dequantises every tensor of a GGUF file with ggml and compares with expected values.
// Usage: check_blocks FILE.gguf EXPECTED.txt (exit 0 all agree, 1 mismatch, 3 ggml cannot read FILE)
#include "ggml.h"
#include "gguf.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

static const char *kNames[] = {"f32",  "f16",  "bf16", "q4_0", "q4_1", "q5_0", "q5_1",
                               "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "iq4_nl"};
static const double kRelTol = 1e-6;

int main(int argc, char **argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: %s FILE.gguf EXPECTED.txt\n", argv[0]); return 2; }

    std::map<std::string, std::vector<double>> expected;
    {
        std::ifstream in(argv[2]);
        std::string name;
        size_t count;
        while (in >> name >> count) {
            std::vector<double> &v = expected[name];
            v.resize(count);
            for (size_t i = 0; i < count; ++i) {
                std::string s;
                in >> s;
                v[i] = std::strtod(s.c_str(), nullptr);
            }
        }
        if (expected.empty()) { std::fprintf(stderr, "no expected values in %s\n", argv[2]); return 2; }
    }

    ggml_context *ctx = nullptr;
    gguf_init_params params = {/*no_alloc =*/false, /*ctx =*/&ctx};
    gguf_context *gguf = gguf_init_from_file(argv[1], params);
    if (!gguf || !ctx) { std::fprintf(stderr, "ggml could not read %s\n", argv[1]); return 3; }
    std::printf("ggml read %s: GGUF v%u, %lld tensors, %lld metadata keys, alignment %zu\n\n", argv[1],
                gguf_get_version(gguf), (long long)gguf_get_n_tensors(gguf), (long long)gguf_get_n_kv(gguf),
                gguf_get_alignment(gguf));

    std::printf("%-7s %-7s %6s %7s %8s %13s %13s  %s\n", "tensor", "ggml", "values", "bitwise", "<=1e-6rel",
                "max|diff|", "max rel diff", "result");
    int failures = 0;
    for (const char *name : kNames) {
        ggml_tensor *t = ggml_get_tensor(ctx, name);
        if (!t || gguf_find_tensor(gguf, name) < 0) {
            std::printf("%-7s missing from the file                                           FAIL\n", name);
            ++failures;
            continue;
        }
        std::string type_name = ggml_type_name(t->type);
        std::string lower = type_name;
        for (char &c : lower) c = (char)std::tolower((unsigned char)c);
        auto it = expected.find(name);
        const int64_t n = ggml_nelements(t);
        if (lower != name || it == expected.end() || (int64_t)it->second.size() != n) {
            std::printf("%-7s %-7s %6lld  type or count differs from the expected values (%zu)      FAIL\n", name,
                        type_name.c_str(), (long long)n, it == expected.end() ? (size_t)0 : it->second.size());
            ++failures;
            continue;
        }

        // Row by row through ggml's own dequantiser (rows are ne[0] values, nb[1] bytes apart).
        std::vector<float> got((size_t)n);
        const int64_t ne0 = t->ne[0], rows = n / ne0;
        const ggml_type_traits *traits = ggml_get_type_traits(t->type);
        const char *how = "to_float";
        for (int64_t r = 0; r < rows; ++r) {
            const char *row = (const char *)t->data + r * t->nb[1];
            if (traits->to_float) {
                traits->to_float(row, got.data() + r * ne0, ne0);
            } else if (t->type == GGML_TYPE_F32) {
                std::memcpy(got.data() + r * ne0, row, (size_t)ne0 * sizeof(float));
                how = "raw f32";
            } else {
                std::printf("%-7s ggml has no to_float for %s  FAIL\n", name, type_name.c_str());
                ++failures;
                goto next;
            }
        }
        {
            const std::vector<double> &want = it->second;
            int64_t bitwise = 0, close = 0;
            double max_abs = 0, max_rel = 0;
            std::vector<int64_t> bad;
            for (int64_t i = 0; i < n; ++i) {
                const float w = (float)want[i], g = got[i];
                const bool both_nan = std::isnan(w) && std::isnan(g);
                if (std::memcmp(&w, &g, sizeof w) == 0 || both_nan) { ++bitwise; ++close; continue; }
                const double d = std::fabs((double)g - (double)w);
                const double scale = std::fmax(std::fabs((double)g), std::fabs((double)w));
                const double rel = scale > 0 ? d / scale : 0;
                if (!(d <= max_abs)) max_abs = std::isnan(d) ? INFINITY : d;
                if (!(rel <= max_rel)) max_rel = std::isnan(rel) ? INFINITY : rel;
                if (rel <= kRelTol) ++close; else bad.push_back(i);
            }
            const bool ok = bad.empty();
            std::printf("%-7s %-7s %6lld %7lld %8lld %13.6g %13.6g  %s%s\n", name, type_name.c_str(), (long long)n,
                        (long long)bitwise, (long long)close, max_abs, max_rel,
                        ok ? (bitwise == n ? "exact" : "ok (within 1e-6)") : "FAIL",
                        std::strcmp(how, "to_float") ? "  [F32 has no to_float: ggml's loaded data]" : "");
            if (!ok) {
                ++failures;
                for (size_t k = 0; k < bad.size() && k < 6; ++k) {
                    const int64_t i = bad[k];
                    std::printf("          [%lld] (row %lld, col %lld, block %lld) ggml %.9g  expected %.9g\n",
                                (long long)i, (long long)(i / ne0), (long long)(i % ne0),
                                (long long)((i % ne0) / ggml_blck_size(t->type)), got[i], want[i]);
                }
                if (bad.size() > 6) std::printf("          ... %zu values off in all\n", bad.size());
            }
        }
    next:;
    }
    std::printf("\n%s: %d of %zu types agree with ggml\n", failures ? "MISMATCH" : "OK",
                (int)(sizeof kNames / sizeof *kNames) - failures, sizeof kNames / sizeof *kNames);
    gguf_free(gguf);
    ggml_free(ctx);
    return failures ? 1 : 0;
}
CPP
nice -n 10 g++ -std=c++17 -O1 -Wall -Wextra -I"$src/include" "$work/check_blocks.cpp" "$lib" -lpthread -lm \
  -o "$work/check_blocks"

status=0
"$work/check_blocks" "$fixture" "$work/expected.txt" 2>&1 || status=$?
if [[ $status == 3 ]]; then
  echo "NOTE: ggml's gguf reader refuses $fixture (above); checking the copy without arrays of arrays"
  status=0
  "$work/check_blocks" "$work/blocks-for-ggml.gguf" "$work/expected.txt" 2>&1 || status=$?
fi
echo "ggml commit: $commit"
echo "time: $(( $(date +%s) - start )) s"
exit $status
