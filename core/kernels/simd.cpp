#include "core/kernels/simd.h"

#include <cpuid.h>

#include <cstdlib>
#include <mutex>

#include "core/error.h"
#include "core/kernels/dispatched.h"
#include "hwy/detect_targets.h"

namespace hs::kernels {

namespace {

// What each level's code is compiled to use (Highway's HWY_TARGET_STR for AVX2 and AVX3),
// asked of the CPU and the OS (libgcc's cpuid reading checks that the OS saves the
// AVX / AVX-512 registers).
// F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports has no "f16c".
bool cpu_has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
}

bool cpu_has(SimdLevel level) {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                      __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                      cpu_has_f16c() && __builtin_cpu_supports("sse4.2") &&
                      __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("pclmul") &&
                      __builtin_cpu_supports("aes");
    switch (level) {
        case SimdLevel::AVX512:
            return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
        case SimdLevel::AVX2: return avx2;
        case SimdLevel::Generic: break;
    }
    return true;
}

std::mutex g_mutex;
SimdLevel g_level = SimdLevel::Generic;

// Every kernel call indexes its per-level table with g_level (core/kernels/dispatch.h).
void apply(SimdLevel level) { g_level = level; }

SimdLevel best_level() {
    for (SimdLevel l : {SimdLevel::AVX512, SimdLevel::AVX2})
        if (cpu_has(l)) return l;
    return SimdLevel::Generic;
}

std::string levels_text() {
    std::string out;
    for (SimdLevel l : supported_simd_levels()) out += (out.empty() ? "" : ", ") + std::string(simd_name(l));
    return out;
}

// The level at start: HEADSCOPE_SIMD if set, else the best this CPU has.
SimdLevel initial_level() {
    const char* env = std::getenv("HEADSCOPE_SIMD");
    if (!env || !*env) return best_level();
    const SimdLevel wanted = parse_simd_level(env);
    if (!cpu_has(wanted))
        throw Error("HEADSCOPE_SIMD=" + std::string(env) + " asks for " + simd_name(wanted) +
                    " but this CPU runs only " + levels_text());
    return wanted;
}

void ensure_initialised() {
    static const bool once = [] {
        std::lock_guard<std::mutex> lock(g_mutex);
        apply(initial_level());
        return true;
    }();
    (void)once;
}

}  // namespace

SimdLevel simd_level() {
    ensure_initialised();
    return g_level;
}

SimdLevel running_simd_level() {
    const std::int64_t target = dispatched::target();
    if (target == HWY_AVX3 || target == HWY_AVX3_DL) return SimdLevel::AVX512;
    if (target == HWY_AVX2) return SimdLevel::AVX2;
    return SimdLevel::Generic;
}

const char* simd_name(SimdLevel level) {
    switch (level) {
        case SimdLevel::AVX512: return "avx512";
        case SimdLevel::AVX2: return "avx2";
        case SimdLevel::Generic: break;
    }
    return "generic";
}

std::vector<SimdLevel> supported_simd_levels() {
    std::vector<SimdLevel> out;
    for (SimdLevel l : {SimdLevel::Generic, SimdLevel::AVX2, SimdLevel::AVX512})
        if (cpu_has(l)) out.push_back(l);
    return out;
}

void force_simd_level(SimdLevel level) {
    ensure_initialised();
    if (!cpu_has(level))
        throw Error(std::string("cannot run the ") + simd_name(level) +
                    " kernels: this CPU runs only " + levels_text());
    std::lock_guard<std::mutex> lock(g_mutex);
    apply(level);
}

SimdLevel parse_simd_level(const std::string& name) {
    for (SimdLevel l : {SimdLevel::Generic, SimdLevel::AVX2, SimdLevel::AVX512})
        if (name == simd_name(l)) return l;
    throw Error("unknown SIMD level '" + name + "': choose avx512, avx2 or generic");
}

}  // namespace hs::kernels
