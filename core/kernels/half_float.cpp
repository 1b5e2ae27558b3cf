#include "core/kernels/half_float.h"

#include <bit>
#include <cmath>

namespace hs {

// Round to nearest, ties to even; overflow -> ±inf; NaN stays NaN (quiet).
std::uint16_t f32_to_f16(float f) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    const std::uint32_t exp32 = (x >> 23) & 0xFFu;
    const std::uint32_t mant32 = x & 0x7FFFFFu;
    if (exp32 == 0xFF)  // inf or NaN
        return static_cast<std::uint16_t>(sign | 0x7C00u | (mant32 ? 0x200u | (mant32 >> 13) : 0u));
    const int e = static_cast<int>(exp32) - 127 + 15;  // f16 biased exponent
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
    if (e <= 0) {
        // Subnormal result: value = (1.m) · 2^(e−15) expressed in units of 2^−24.
        if (e < -10) return sign;  // below half the smallest subnormal: ±0
        const std::uint32_t m = mant32 | 0x800000u;
        const int shift = 14 - e;  // 14..24
        std::uint32_t h = m >> shift;
        const std::uint32_t rem = m & ((1u << shift) - 1);
        const std::uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) ++h;  // may carry into the exponent: fine
        return static_cast<std::uint16_t>(sign | h);
    }
    std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mant32 >> 13);
    const std::uint32_t rem = mant32 & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry up to 0x7C00 = inf
    return static_cast<std::uint16_t>(sign | h);
}

std::uint16_t f32_to_bf16(float f) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu))  // NaN: keep it quiet
        return static_cast<std::uint16_t>((x >> 16) | 0x40u);
    const std::uint32_t lower = x & 0xFFFFu;
    std::uint32_t upper = x >> 16;
    if (lower > 0x8000u || (lower == 0x8000u && (upper & 1u))) ++upper;
    return static_cast<std::uint16_t>(upper);
}

}  // namespace hs
