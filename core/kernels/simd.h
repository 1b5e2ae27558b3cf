#pragma once
// Which SIMD instruction set the kernels run with, chosen at run time (DESIGN §2). One
// binary carries every level; nothing needs -march=native.
//   avx512   AVX-512 F/VL/DQ/BW: Intel Skylake-X and later, AMD Zen 4 and later
//   avx2     AVX2 + FMA: Intel Haswell and later, AMD Zen 1–3 (and Zen 4+ when forced)
//   generic  portable C++, one float at a time: any CPU; the fallback that always works
// The kernel files are compiled once per level by Highway (foreach_target.h); each call
// goes to the level in use through a per-level table (dispatch.h). The CPU check is
// HeadScope's own (cpuid through GCC's __builtin_cpu_supports), not libhwy's. The level
// is the best this CPU has, unless HEADSCOPE_SIMD=avx512|avx2|generic asks for a lower
// one (read at the first kernel call; asking for a level the CPU lacks is an error).
#include <string>
#include <vector>

namespace hs::kernels {

enum class SimdLevel { Generic, AVX2, AVX512 };

// The level the kernels run with now.
SimdLevel simd_level();
// The level of the code the kernels actually run, as the dispatched code reports it
// (equals simd_level(); tests check that it does).
SimdLevel running_simd_level();
// "avx512", "avx2", "generic".
const char* simd_name(SimdLevel level);
// The levels this CPU can run, lowest first (always starts with Generic).
std::vector<SimdLevel> supported_simd_levels();
// Makes every later kernel call run at `level` (tests, benchmarks, HEADSCOPE_SIMD).
// Throws hs::Error naming the CPU's levels when this CPU cannot run it. Not to be
// called while another thread runs kernels.
void force_simd_level(SimdLevel level);
// "avx512" / "avx2" / "generic" → level; throws hs::Error naming the choices.
SimdLevel parse_simd_level(const std::string& name);

}  // namespace hs::kernels
