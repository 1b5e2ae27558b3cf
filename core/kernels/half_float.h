#pragma once
// 16-bit floats as checkpoints store them: IEEE half (f16) and bfloat16 (bf16, the top
// half of an f32), to and from f32.
#include <bit>
#include <cmath>
#include <cstdint>

namespace hs {

// Inline: converting a tensor calls them once per value, and the compiler vectorises the
// loops they sit in (dequantize in stored_types.cpp).
// f16: sign 1 | exponent 5 (bias 15) | mantissa 10.
//   exp = 0:  (−1)^s · m · 2^−24            (zero and subnormals)
//   exp = 31: ±inf (m = 0) or NaN (m ≠ 0)
//   else:     (−1)^s · (1 + m/1024) · 2^(exp−15)
inline float f16_to_f32(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    const std::uint32_t mant = h & 0x3FFu;
    if (exp == 0) {  // zero or subnormal: mant · 2^-24
        const float magnitude = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
    return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}
inline float bf16_to_f32(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }
// Round to nearest, ties to even; overflow → ±inf; NaN stays a (quiet) NaN.
std::uint16_t f32_to_f16(float f);
std::uint16_t f32_to_bf16(float f);

}  // namespace hs
