// activations.h, compiled once per SIMD level by Highway (see gemm_kernels.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/activations.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Applies f to whole vectors of x, then to the tail through a zero-padded vector (the
// tail is shorter than one vector; no read or write past x + n).
template <class F>
HWY_INLINE void map_in_place(float* x, long n, const F& f) {
    const DF d;
    const long N = static_cast<long>(hn::Lanes(d));
    long i = 0;
    for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, x + i);
    if (i < n) {
        HWY_ALIGN float buf[hn::MaxLanes(DF())] = {};
        for (long j = i; j < n; ++j) buf[j - i] = x[j];
        hn::Store(f(d, hn::Load(d, buf)), d, buf);
        for (long j = i; j < n; ++j) x[j] = buf[j - i];
    }
}

// erf(z) for any z: A&S 7.1.26 on |z|, sign restored.
HWY_INLINE VF erf_as(DF d, VF z) {
    const VF a = hn::Abs(z);
    const VF t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(hn::Set(d, 0.3275911f), a, hn::Set(d, 1.0f)));
    // Horner: t (a₁ + t (a₂ + t (a₃ + t (a₄ + t a₅))))
    VF poly = hn::Set(d, 1.061405429f);
    poly = hn::MulAdd(poly, t, hn::Set(d, -1.453152027f));
    poly = hn::MulAdd(poly, t, hn::Set(d, 1.421413741f));
    poly = hn::MulAdd(poly, t, hn::Set(d, -0.284496736f));
    poly = hn::MulAdd(poly, t, hn::Set(d, 0.254829592f));
    poly = hn::Mul(poly, t);
    const VF e = hn::Exp(d, hn::Neg(hn::Mul(a, a)));
    const VF erf_abs = hn::NegMulAdd(poly, e, hn::Set(d, 1.0f));  // 1 − poly · e^(−z²)
    return hn::CopySign(erf_abs, z);
}

void GeluErf(float* x, long n) {
    map_in_place(x, n, [](DF d, VF v) {
        const VF half_v = hn::Mul(hn::Set(d, 0.5f), v);
        const VF erf = erf_as(d, hn::Mul(v, hn::Set(d, 0.70710678118654752f)));  // z = x / √2
        return hn::MulAdd(half_v, erf, half_v);  // ½x + ½x · erf
    });
}

void GeluTanh(float* x, long n) {
    map_in_place(x, n, [](DF d, VF v) {
        const VF v3 = hn::Mul(hn::Mul(v, v), v);
        const VF inner = hn::Mul(hn::Set(d, 0.79788456080286535588f),  // √(2/π)
                                 hn::MulAdd(hn::Set(d, 0.044715f), v3, v));
        const VF half_v = hn::Mul(hn::Set(d, 0.5f), v);
        return hn::MulAdd(half_v, hn::Tanh(d, inner), half_v);
    });
}

void Silu(float* x, long n) {
    map_in_place(x, n, [](DF d, VF v) {
        return hn::Div(v, hn::Add(hn::Set(d, 1.0f), hn::Exp(d, hn::Neg(v))));
    });
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/activations.h"
#include "core/kernels/dispatch.h"

namespace hs::kernels {


void gelu_erf(float* x, long n) {
    HS_KERNEL(GeluErf)(x, n);
}

void gelu_tanh(float* x, long n) {
    HS_KERNEL(GeluTanh)(x, n);
}

void silu(float* x, long n) {
    HS_KERNEL(Silu)(x, n);
}

}  // namespace hs::kernels
#endif  // HWY_ONCE
