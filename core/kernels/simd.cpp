#include "core/kernels/simd.h"

#include <cstdlib>
#include <mutex>

#include "core/error.h"
#include "core/kernels/dispatched.h"
#include "hwy/highway.h"
#include "hwy/targets.h"

namespace hs::kernels {

namespace {

// The Highway target that implements each level (HWY_TARGETS: core/CMakeLists.txt
// disables SSSE3/SSE4, so these three are the ones compiled). Highway's portable
// fallback is HWY_SCALAR with GCC < 12.3 (its EMU128 is disabled there).
std::int64_t target_of(SimdLevel level) {
    switch (level) {
        case SimdLevel::AVX512: return HWY_AVX3;
        case SimdLevel::AVX2: return HWY_AVX2;
        case SimdLevel::Generic: break;
    }
    return HWY_STATIC_TARGET;
}

// What the CPU supports, read once before any level is forced (forcing changes what
// hwy::SupportedTargets() reports).
std::int64_t cpu_targets() {
    static const std::int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
    return targets;
}

bool cpu_has(SimdLevel level) {
    return level == SimdLevel::Generic || (cpu_targets() & target_of(level)) != 0;
}

std::mutex g_mutex;
SimdLevel g_level = SimdLevel::Generic;

// Highway dispatches every exported kernel to the best of the targets it is told the
// CPU supports; telling it only `level`'s target pins the kernels to that level.
void apply(SimdLevel level) {
    g_level = level;
    hwy::SetSupportedTargetsForTest(target_of(level));
}

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
