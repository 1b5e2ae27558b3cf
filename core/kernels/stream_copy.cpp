// stream_copy (stream_copy.h), compiled once per SIMD level by Highway (see gemm_kernels.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/stream_copy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void StreamCopy(const float* src, long count, float* dst) {
    const hn::ScalableTag<float> d;
    const long N = static_cast<long>(hn::Lanes(d));
    long i = 0;
    // Plain stores up to the first vector-aligned float of dst (Stream needs alignment).
    for (; i < count && reinterpret_cast<std::uintptr_t>(dst + i) % (N * sizeof(float)) != 0; ++i) dst[i] = src[i];
    for (; i + N <= count; i += N) hn::Stream(hn::LoadU(d, src + i), d, dst + i);
    for (; i < count; ++i) dst[i] = src[i];
    hwy::FlushStream();  // the non-temporal stores are visible before the caller goes on
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/dispatch.h"
#include "core/kernels/stream_copy.h"

namespace hs::kernels {

void stream_copy(const float* src, long count, float* dst) {
    HS_KERNEL(StreamCopy)(src, count, dst);
}

}  // namespace hs::kernels
#endif  // HWY_ONCE
