#pragma once
// The element types weights are stored in (GGML's numbering, which GGUF files use) and
// their conversion to f32, one block at a time.
//
// A quantised type stores a row as blocks: `block_values` weights in `block_bytes` bytes,
// a scale (and for some a minimum) plus small integers. Q8_0, for example, is 32 int8
// values q and one f16 scale d (34 bytes), weight_i = d · q_i. The "K" types group 256
// values in a super-block whose sub-block scales are themselves quantised.
#include <cstdint>
#include <string>

namespace hs {

enum class StoredType : std::uint32_t {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
    IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22,
    IQ4_XS = 23, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
    TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
};

struct StoredTypeInfo {
    StoredType type;
    const char* name;       // "Q8_0", as llama.cpp and the GGUF spec name it
    int block_values;       // weights per block (1 for plain floats and integers)
    int block_bytes;        // bytes per block
    bool readable;          // HeadScope converts it to f32 (dequantize below)
};

// The type with GGML number `code`, or nullptr for a number no GGML version defines
// (or one GGUF files may no longer hold, like the removed Q4_2).
const StoredTypeInfo* stored_type_info(std::uint32_t code);
const StoredTypeInfo& stored_type_info(StoredType type);
// "F32, F16, BF16, Q4_0, …": every readable type, for error messages and the docs.
std::string readable_stored_types();

// n weights of a readable `type` at `src` → f32 at `dst`. n must be a multiple of the
// type's block_values (readers check shapes before they convert).
void dequantize(StoredType type, const std::uint8_t* src, std::int64_t n, float* dst);

}  // namespace hs
