#pragma once
// Stored rows (core/kernels/stored_matrix.h) read from their file, converted to f32 and
// checked finite in one pass: what every weight reader (GGUF, safetensors) reads a tensor
// with. A task reads a chunk of rows (pread) into its thread's buffer and converts it while
// it is in cache; the tasks are spread over the pool, so both cores share the work.
#include <cstdint>

#include "core/kernels/stored_matrix.h"

namespace hs {

// Where stored rows sit in their tensor: the values per row, and for messages the tensor's
// row at rows.offset and whether it has one dimension (a vector's values are named [index]).
struct RowsInTensor {
    std::int64_t row_values = 0;
    std::int64_t first_row = 0;
    bool vector = false;
};

// The rows.rows rows of `rows` (rows.source, rows.offset, rows.name set) as f32 into dst
// (row-major), or, with dst null, only checked. Throws hs::Error naming the file, the
// tensor and the [row, column] (a vector's [index]) of the first value that is not finite
// (NaN, ±inf), or the read that failed.
void read_stored_rows(const StoredRows& rows, const RowsInTensor& where, float* dst);

}  // namespace hs
