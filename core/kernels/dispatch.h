#pragma once
// How a kernel file calls the code of the SIMD level in use. Each kernel file is compiled
// once per level by Highway's foreach_target.h, into the namespaces N_SCALAR (generic),
// N_AVX2 and N_AVX3 (avx512); HS_KERNEL(FUNC) is a table of the three, indexed by
// SimdLevel (core/kernels/simd.h). HeadScope detects the CPU and picks the level itself,
// so only Highway's headers are used: libhwy's own dispatch would link libhwy.so, whose
// load-time initialiser runs an instruction valgrind cannot emulate (SIGILL at start).
// A -march=native build compiles only the levels its baseline allows; the others then
// fall back to that baseline (such a binary runs only on CPUs like the build machine).
#include "core/kernels/simd.h"

#if HWY_TARGETS & HWY_SCALAR
#define HS_KERNEL_GENERIC(F) &::hs::kernels::N_SCALAR::F
#else
#define HS_KERNEL_GENERIC(F) &::hs::kernels::HWY_STATIC_DISPATCH(F)
#endif
#if HWY_TARGETS & HWY_AVX2
#define HS_KERNEL_AVX2(F) &::hs::kernels::N_AVX2::F
#else
#define HS_KERNEL_AVX2(F) &::hs::kernels::HWY_STATIC_DISPATCH(F)
#endif
#if HWY_TARGETS & HWY_AVX3
#define HS_KERNEL_AVX512(F) &::hs::kernels::N_AVX3::F
#else
#define HS_KERNEL_AVX512(F) &::hs::kernels::HWY_STATIC_DISPATCH(F)
#endif

// The function FUNC of the level in use (simd_level() applies HEADSCOPE_SIMD first).
#define HS_KERNEL(F)                                                                            \
    ([] {                                                                                       \
        static constexpr decltype(HS_KERNEL_GENERIC(F)) table[] = {                             \
            HS_KERNEL_GENERIC(F), HS_KERNEL_AVX2(F), HS_KERNEL_AVX512(F)};                      \
        return table[static_cast<int>(::hs::kernels::simd_level())];                            \
    }())
