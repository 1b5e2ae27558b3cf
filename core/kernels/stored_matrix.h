#pragma once
// A weight matrix W (rows, cols) (PyTorch (out, in) layout) left as its file stores it, for
// the products to convert a panel at a time (gemm::nn_stored) so that its f32 values never
// reach memory: a model read layer by layer (core/model/layer_source.h) runs its products
// this way. W is row ranges, each of one stored type (core/kernels/stored_types.h): a fused
// [W_Q; W_K; W_V] is three tensors, and a Q4_K_M file stores some of them as Q6_K.
#include <cstdint>
#include <vector>

#include "core/kernels/stored_types.h"

namespace hs {

// Rows [first_row, first_row + rows) of W: row r at bytes + (r − first_row) · row_bytes,
// each row whole blocks of `type`.
struct StoredRows {
    int first_row = 0, rows = 0;
    StoredType type = StoredType::F32;
    const std::uint8_t* bytes = nullptr;
    std::int64_t row_bytes = 0;
};

struct StoredMatrix {
    int rows = 0, cols = 0;
    std::vector<StoredRows> parts;  // by first_row, covering [0, rows) once

    // out (n, cn) with row stride ldo = W[r0 : r0 + n, c0 : c0 + cn] as f32. c0 and cn are
    // multiples of kColumnBlock (cn may end at cols instead), so they fall on block bounds
    // of every type (32 or 256 values per block).
    static constexpr int kColumnBlock = 256;
    void convert(int r0, int n, int c0, int cn, float* out, int ldo) const;
};

}  // namespace hs
