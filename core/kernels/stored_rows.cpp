// stored_rows.h, compiled once per SIMD level by Highway (see gemm_kernels.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/kernels/stored_rows.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/kernels/half_float.h"
#include "core/kernels/little_endian.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hs::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#include "core/kernels/transpose_8x8-inl.h"  // inside the namespace: once per target

using DF = hn::ScalableTag<float>;

// bf16 is the top half of an f32: widen each 16-bit value and shift it up.
void Bf16ToF32(const std::uint8_t* src, std::int64_t n, float* dst) {
    const DF df;
    const hn::RebindToUnsigned<DF> du32;
    const hn::Rebind<std::uint16_t, DF> du16;
    const auto N = static_cast<std::int64_t>(hn::Lanes(df));
    std::int64_t i = 0;
    for (; i + N <= n; i += N) {
        const auto wide = hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const std::uint16_t*>(src) + i));
        hn::StoreU(hn::BitCast(df, hn::ShiftLeft<16>(wide)), df, dst + i);
    }
    for (; i < n; ++i) dst[i] = hs::bf16_to_f32(load_le_u16(src + 2 * i));
}

// out[kk · ldo + r] = bf16 value kk of row r (rows `row_bytes` apart), for r < rows and
// kk < k: a stored panel converted and laid out in one pass (gemm::nn_stored). Blocks of
// 8 rows × 8 values go through registers: each row's 8 values widened and shifted up (as
// Bf16ToF32), the block stored transposed; 64 values of each row per sweep of the rows, so
// the (64, 64) stretch of out being written stays in L1.
void Bf16ToF32Transposed(const std::uint8_t* src, std::int64_t row_bytes, int rows, int k, float* out, int ldo) {
    const auto value = [&](int r, int kk) { return src + r * row_bytes + 2L * kk; };
    int r8 = 0, k8 = 0;  // the part done in registers: rows [0, r8), values [0, k8)
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES >= 32
    const F8 d;
    const hn::RebindToUnsigned<F8> du32;
    const hn::Rebind<std::uint16_t, F8> du16;
    r8 = rows / 8 * 8;
    k8 = k / 8 * 8;
    for (int k0 = 0; k0 < k8; k0 += 64)
        for (int r = 0; r < r8; r += 8)
            for (int kk = k0; kk < std::min(k0 + 64, k8); kk += 8) {
                hn::Vec<F8> v[8];
                for (int i = 0; i < 8; ++i) {
                    const auto wide = hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const std::uint16_t*>(value(r + i, kk))));
                    v[i] = hn::BitCast(d, hn::ShiftLeft<16>(wide));
                }
                store_transposed_8x8(v, out + static_cast<long>(kk) * ldo + r, ldo);
            }
#endif
    for (int kk = 0; kk < k; ++kk)  // the rest one value at a time
        for (int r = kk < k8 ? r8 : 0; r < rows; ++r)
            out[static_cast<long>(kk) * ldo + r] = hs::bf16_to_f32(load_le_u16(value(r, kk)));
}

// The same for Q8_0 (k whole blocks): value kk of a row is q · d of its block kk / 32 (as
// Q8_0ToF32). A block of 8 rows' scales is converted once for its 4 steps of 8 values.
void Q8_0ToF32Transposed(const std::uint8_t* src, std::int64_t row_bytes, int rows, int k, float* out, int ldo) {
    const auto block = [&](int r, int b) { return src + r * row_bytes + 34L * b; };
    int r8 = 0;  // the rows done in registers
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES >= 32
    const F8 d;
    const hn::RebindToSigned<F8> di32;
    const hn::Rebind<std::int8_t, F8> di8;
    const int blocks = k / 32;
    r8 = rows / 8 * 8;
    for (int b0 = 0; b0 < blocks; b0 += 2)  // 64 values of each row per sweep
        for (int r = 0; r < r8; r += 8)
            for (int b = b0; b < std::min(b0 + 2, blocks); ++b) {
                hn::Vec<F8> scale[8], v[8];
                const std::int8_t* q[8];
                for (int i = 0; i < 8; ++i) {
                    scale[i] = hn::Set(d, hs::f16_to_f32(load_le_u16(block(r + i, b))));
                    q[i] = reinterpret_cast<const std::int8_t*>(block(r + i, b) + 2);
                }
                for (int j = 0; j < 32; j += 8) {
                    for (int i = 0; i < 8; ++i)
                        v[i] = hn::Mul(hn::ConvertTo(d, hn::PromoteTo(di32, hn::LoadU(di8, q[i] + j))), scale[i]);
                    store_transposed_8x8(v, out + (32L * b + j) * ldo + r, ldo);
                }
            }
#endif
    for (int r = r8; r < rows; ++r)  // the other rows one value at a time
        for (int b = 0; b < k / 32; ++b) {
            const float scale = hs::f16_to_f32(load_le_u16(block(r, b)));
            const auto* q = reinterpret_cast<const std::int8_t*>(block(r, b) + 2);
            for (int j = 0; j < 32; ++j) out[(32L * b + j) * ldo + r] = static_cast<float>(q[j]) * scale;
        }
}

// f16 → f32 by the CPU's conversion (F16C at avx2 and avx512): exact, as f16_to_f32.
void F16ToF32(const std::uint8_t* src, std::int64_t n, float* dst) {
    const DF df;
    const hn::Rebind<hwy::float16_t, DF> dh;
    const auto N = static_cast<std::int64_t>(hn::Lanes(df));
    std::int64_t i = 0;
    for (; i + N <= n; i += N)
        hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(src) + i)), df, dst + i);
    for (; i < n; ++i) dst[i] = hs::f16_to_f32(load_le_u16(src + 2 * i));
}

void Q8_0ToF32(const std::uint8_t* src, std::int64_t blocks, float* dst) {
    const DF df;
    const hn::RebindToSigned<DF> di32;
    const hn::Rebind<std::int8_t, DF> di8;
    const int N = static_cast<int>(hn::Lanes(df));
    for (std::int64_t b = 0; b < blocks; ++b, src += 34, dst += 32) {
        const auto d = hn::Set(df, hs::f16_to_f32(load_le_u16(src)));
        const auto* q = reinterpret_cast<const std::int8_t*>(src + 2);
        int j = 0;
        for (; j + N <= 32; j += N)
            hn::StoreU(hn::Mul(hn::ConvertTo(df, hn::PromoteTo(di32, hn::LoadU(di8, q + j))), d), df, dst + j);
        for (; j < 32; ++j) dst[j] = static_cast<float>(q[j]) * hn::GetLane(d);
    }
}

void Q4_0ToF32(const std::uint8_t* src, std::int64_t blocks, float* dst) {
    const DF df;
    const hn::RebindToSigned<DF> di32;
    const hn::Rebind<std::uint8_t, DF> du8;
    const int N = static_cast<int>(hn::Lanes(df));
    const auto eight = hn::Set(di32, 8), low_bits = hn::Set(di32, 0x0F);
    for (std::int64_t b = 0; b < blocks; ++b, src += 18, dst += 32) {
        const float scale = hs::f16_to_f32(load_le_u16(src));
        const auto d = hn::Set(df, scale);
        const std::uint8_t* qs = src + 2;
        int j = 0;
        for (; j + N <= 16; j += N) {
            const auto bytes = hn::BitCast(di32, hn::PromoteTo(hn::RebindToUnsigned<DF>(), hn::LoadU(du8, qs + j)));
            const auto low = hn::Sub(hn::And(bytes, low_bits), eight);
            const auto high = hn::Sub(hn::ShiftRight<4>(bytes), eight);
            hn::StoreU(hn::Mul(hn::ConvertTo(df, low), d), df, dst + j);
            hn::StoreU(hn::Mul(hn::ConvertTo(df, high), d), df, dst + 16 + j);
        }
        for (; j < 16; ++j) {
            dst[j] = static_cast<float>((qs[j] & 0x0F) - 8) * scale;
            dst[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * scale;
        }
    }
}

std::int64_t FirstNotFinite(const float* values, std::int64_t n) {
    const DF df;
    const auto N = static_cast<std::int64_t>(hn::Lanes(df));
    std::int64_t i = 0;
    for (; i + N <= n; i += N)
        if (!hn::AllTrue(df, hn::IsFinite(hn::LoadU(df, values + i)))) break;
    for (; i < n; ++i)
        if (!std::isfinite(values[i])) return i;
    return n;
}

}  // namespace hs::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/kernels/dispatch.h"
#include "core/kernels/stored_rows.h"

namespace hs::kernels {

void bf16_to_f32(const std::uint8_t* src, std::int64_t n, float* dst) { HS_KERNEL(Bf16ToF32)(src, n, dst); }
void bf16_to_f32_transposed(const std::uint8_t* src, std::int64_t row_bytes, int rows, int k, float* out, int ldo) {
    HS_KERNEL(Bf16ToF32Transposed)(src, row_bytes, rows, k, out, ldo);
}
void q8_0_to_f32_transposed(const std::uint8_t* src, std::int64_t row_bytes, int rows, int k, float* out, int ldo) {
    HS_KERNEL(Q8_0ToF32Transposed)(src, row_bytes, rows, k, out, ldo);
}
void f16_to_f32(const std::uint8_t* src, std::int64_t n, float* dst) { HS_KERNEL(F16ToF32)(src, n, dst); }
void q8_0_to_f32(const std::uint8_t* src, std::int64_t blocks, float* dst) { HS_KERNEL(Q8_0ToF32)(src, blocks, dst); }
void q4_0_to_f32(const std::uint8_t* src, std::int64_t blocks, float* dst) { HS_KERNEL(Q4_0ToF32)(src, blocks, dst); }
std::int64_t first_not_finite(const float* values, std::int64_t n) { return HS_KERNEL(FirstNotFinite)(values, n); }

}  // namespace hs::kernels
#endif  // HWY_ONCE
