// norms.h, compiled once per SIMD level by Highway (see gemm_kernels.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/norms.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

// Σ x_i (shift = 0) or Σ (x_i − shift)² (squares) over the row, in float lanes.
template <bool kSquares>
HWY_INLINE float row_sum(const float* x, int n, float shift) {
    const DF d;
    const int N = static_cast<int>(hn::Lanes(d));
    const auto s = hn::Set(d, shift);
    auto acc = hn::Zero(d);
    int i = 0;
    for (; i + N <= n; i += N) {
        const auto v = hn::Sub(hn::LoadU(d, x + i), s);
        acc = kSquares ? hn::MulAdd(v, v, acc) : hn::Add(acc, v);
    }
    float sum = hn::GetLane(hn::SumOfLanes(d, acc));
    for (; i < n; ++i) sum += kSquares ? (x[i] - shift) * (x[i] - shift) : x[i] - shift;
    return sum;
}

// y_i = (x_i − shift) · scale · γ_i (+ β_i)
HWY_INLINE void scale_row(const float* x, float* y, const float* gamma, const float* beta, int n,
                          float shift, float scale) {
    const DF d;
    const int N = static_cast<int>(hn::Lanes(d));
    const auto s = hn::Set(d, shift), k = hn::Set(d, scale);
    int i = 0;
    for (; i + N <= n; i += N) {
        const auto v = hn::Mul(hn::Mul(hn::Sub(hn::LoadU(d, x + i), s), k), hn::LoadU(d, gamma + i));
        hn::StoreU(beta ? hn::Add(v, hn::LoadU(d, beta + i)) : v, d, y + i);
    }
    for (; i < n; ++i) y[i] = (x[i] - shift) * scale * gamma[i] + (beta ? beta[i] : 0.0f);
}

void LayerNormRow(const float* x, float* y, const float* gamma, const float* beta, int n, float eps) {
    const float inv_n = 1.0f / static_cast<float>(n);
    const float mean = row_sum<false>(x, n, 0.0f) * inv_n;
    const float var = row_sum<true>(x, n, mean) * inv_n;  // two passes: no cancellation
    scale_row(x, y, gamma, beta, n, mean, 1.0f / std::sqrt(var + eps));
}

void RmsNormRow(const float* x, float* y, const float* gamma, int n, float eps) {
    const float mean_square = row_sum<true>(x, n, 0.0f) / static_cast<float>(n);
    scale_row(x, y, gamma, nullptr, n, 0.0f, 1.0f / std::sqrt(mean_square + eps));
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/norms.h"
#include "core/kernels/dispatch.h"

namespace hs::kernels {


void layer_norm_row(const float* x, float* y, const float* gamma, const float* beta, int n, float eps) {
    HS_KERNEL(LayerNormRow)(x, y, gamma, beta, n, eps);
}

void rms_norm_row(const float* x, float* y, const float* gamma, int n, float eps) {
    HS_KERNEL(RmsNormRow)(x, y, gamma, n, eps);
}

}  // namespace hs::kernels
#endif  // HWY_ONCE
