#pragma once
// 16-bit floats as checkpoints store them: IEEE half (f16) and bfloat16 (bf16, the top
// half of an f32), to and from f32.
#include <cstdint>

namespace hs {

float f16_to_f32(std::uint16_t h);
float bf16_to_f32(std::uint16_t b);
// Round to nearest, ties to even; overflow → ±inf; NaN stays a (quiet) NaN.
std::uint16_t f32_to_f16(float f);
std::uint16_t f32_to_bf16(float f);

}  // namespace hs
