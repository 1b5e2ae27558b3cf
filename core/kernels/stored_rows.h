#pragma once
// The stored types a large model is usually kept in (BF16, F16, Q8_0, Q4_0), converted to
// f32 at the SIMD level in use, and the check every converted weight passes (finite). The
// other types convert one value at a time (dequantize in core/kernels/stored_types.cpp,
// which calls these). Each gives the same floats at every level as the scalar decoders.
#include <cstdint>

namespace hs::kernels {

// n values → dst. bf16 and f16: 2 little-endian bytes each.
void bf16_to_f32(const std::uint8_t* src, std::int64_t n, float* dst);
void f16_to_f32(const std::uint8_t* src, std::int64_t n, float* dst);
// `blocks` blocks of 32 values → dst (32 · blocks floats):
//   Q8_0 (34 bytes): f16 scale d, 32 int8 q;            w_j = q_j · d
//   Q4_0 (18 bytes): f16 scale d, 16 bytes of nibbles;  w_j = (low nibble of byte j − 8) · d,
//                                                       w_{j+16} = (high nibble of byte j − 8) · d
void q8_0_to_f32(const std::uint8_t* src, std::int64_t blocks, float* dst);
void q4_0_to_f32(const std::uint8_t* src, std::int64_t blocks, float* dst);
// rows × k values of BF16 or Q8_0 (rows `row_bytes` apart; for Q8_0 k is whole blocks) →
// out (k, rows) with row stride ldo, transposed as they are converted: out[kk · ldo + r] =
// value kk of row r, the same float as the functions above give.
void bf16_to_f32_transposed(const std::uint8_t* src, std::int64_t row_bytes, int rows, int k, float* out, int ldo);
void q8_0_to_f32_transposed(const std::uint8_t* src, std::int64_t row_bytes, int rows, int k, float* out, int ldo);

// Index of the first of values[0 : n) that is NaN or ±inf; n when all are finite.
std::int64_t first_not_finite(const float* values, std::int64_t n);

}  // namespace hs::kernels
