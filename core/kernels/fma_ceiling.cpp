// multiply_add_chains (fma_ceiling.h), compiled once per SIMD level by Highway (see
// gemm_kernels.cpp). The twelve chains are twelve named registers, not an array: GCC 12
// kept an array of vectors in memory at -O2 and timed loads and stores instead.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/fma_ceiling.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>

#include "core/kernels/fma_ceiling.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

MultiplyAddRun MultiplyAddChains(std::int64_t steps, float b, float c) {
    static_assert(kChains == 12, "the loop below names twelve chains");
    const hn::ScalableTag<float> d;
    const auto vb = hn::Set(d, b), vc = hn::Set(d, c);
    auto a0 = hn::Set(d, 0.0f), a1 = hn::Set(d, 1.0f), a2 = hn::Set(d, 2.0f), a3 = hn::Set(d, 3.0f);
    auto a4 = hn::Set(d, 4.0f), a5 = hn::Set(d, 5.0f), a6 = hn::Set(d, 6.0f), a7 = hn::Set(d, 7.0f);
    auto a8 = hn::Set(d, 8.0f), a9 = hn::Set(d, 9.0f), a10 = hn::Set(d, 10.0f), a11 = hn::Set(d, 11.0f);
    for (std::int64_t s = 0; s < steps; ++s) {  // a_j ← a_j·b + c, twelve independent chains
        a0 = hn::MulAdd(a0, vb, vc);
        a1 = hn::MulAdd(a1, vb, vc);
        a2 = hn::MulAdd(a2, vb, vc);
        a3 = hn::MulAdd(a3, vb, vc);
        a4 = hn::MulAdd(a4, vb, vc);
        a5 = hn::MulAdd(a5, vb, vc);
        a6 = hn::MulAdd(a6, vb, vc);
        a7 = hn::MulAdd(a7, vb, vc);
        a8 = hn::MulAdd(a8, vb, vc);
        a9 = hn::MulAdd(a9, vb, vc);
        a10 = hn::MulAdd(a10, vb, vc);
        a11 = hn::MulAdd(a11, vb, vc);
    }
    const auto total = hn::Add(hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7))),
                               hn::Add(hn::Add(a8, a9), hn::Add(a10, a11)));
    MultiplyAddRun run;
    run.sum = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, total)));
    run.lanes = static_cast<int>(hn::Lanes(d));
    run.flops = static_cast<std::int64_t>(kChains) * run.lanes * steps * 2;
    return run;
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/dispatch.h"

namespace hs::kernels {

MultiplyAddRun multiply_add_chains(std::int64_t steps, float b, float c) {
    return HS_KERNEL(MultiplyAddChains)(steps, b, c);
}

}  // namespace hs::kernels
#endif  // HWY_ONCE
