// softmax_row (softmax.h), compiled once per SIMD level by Highway (see gemm_kernels.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/softmax.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void SoftmaxRow(float* row, int n_allowed, int n) {
    const hn::ScalableTag<float> d;
    const int N = static_cast<int>(hn::Lanes(d));
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const auto tail = [&](int i) { return hn::FirstN(d, static_cast<size_t>(n_allowed - i)); };
    // m = max_k s_k
    auto vmax = hn::Set(d, kNegInf);
    int i = 0;
    for (; i + N <= n_allowed; i += N) vmax = hn::Max(vmax, hn::LoadU(d, row + i));
    if (i < n_allowed)
        vmax = hn::Max(vmax, hn::IfThenElse(tail(i), hn::MaskedLoad(tail(i), d, row + i), vmax));
    const float row_max = hn::GetLane(hn::MaxOfLanes(d, vmax));
    if (row_max == kNegInf) {  // every key masked (or none allowed): no attention, not NaN
        std::fill(row, row + n, 0.0f);
        return;
    }
    // e_j = exp(s_j − m); Highway's Exp gives exactly 0 below −104, so −∞ → 0
    const auto m = hn::Set(d, row_max);
    auto vsum = hn::Zero(d);
    for (i = 0; i + N <= n_allowed; i += N) {
        const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, row + i), m));
        hn::StoreU(e, d, row + i);
        vsum = hn::Add(vsum, e);
    }
    if (i < n_allowed) {
        const auto e = hn::IfThenElseZero(tail(i), hn::Exp(d, hn::Sub(hn::MaskedLoad(tail(i), d, row + i), m)));
        hn::BlendedStore(e, tail(i), d, row + i);
        vsum = hn::Add(vsum, e);
    }
    // a_j = e_j / Σ e
    const auto inv = hn::Set(d, 1.0f / hn::GetLane(hn::SumOfLanes(d, vsum)));
    for (i = 0; i + N <= n_allowed; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, row + i), inv), d, row + i);
    for (; i < n_allowed; ++i) row[i] *= hn::GetLane(inv);
    std::fill(row + n_allowed, row + n, 0.0f);
}

void SoftcapRow(float* row, int n, float cap) {
    const hn::ScalableTag<float> d;
    const int N = static_cast<int>(hn::Lanes(d));
    const auto c = hn::Set(d, cap), inv = hn::Set(d, 1.0f / cap);
    int i = 0;
    for (; i + N <= n; i += N) hn::StoreU(hn::Mul(c, hn::Tanh(d, hn::Mul(hn::LoadU(d, row + i), inv))), d, row + i);
    if (i < n) {
        const auto m = hn::FirstN(d, static_cast<size_t>(n - i));
        const auto x = hn::MaskedLoad(m, d, row + i);
        hn::BlendedStore(hn::Mul(c, hn::Tanh(d, hn::Mul(x, inv))), m, d, row + i);
    }
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/dispatch.h"
#include "core/kernels/softmax.h"

namespace hs::kernels {


void softmax_row(float* row, int n_allowed, int n) {
    HS_KERNEL(SoftmaxRow)(row, n_allowed, n);
}

void softcap_row(float* row, int n, float cap) {
    HS_KERNEL(SoftcapRow)(row, n, cap);
}

}  // namespace hs::kernels
#endif  // HWY_ONCE
