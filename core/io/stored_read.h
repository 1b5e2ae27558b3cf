#pragma once
// Stored rows (core/kernels/stored_matrix.h) read from their file, converted to f32 and
// checked finite in one pass: what every weight reader (GGUF, safetensors) reads a tensor
// with. A task reads a chunk of rows (pread) into its thread's buffer and converts it while
// it is in cache; the tasks are spread over the pool, so both cores share the work.
#include <cstdint>

#include "core/kernels/stored_matrix.h"

namespace hs {

// The rows.rows rows of `rows` (rows.source, rows.offset, rows.name set), each of
// `row_values` values, as f32 into dst (row-major), or, with dst null, only checked.
// `tensor_row` is the tensor's row at rows.offset and `vector` whether it has one
// dimension, for messages. Throws hs::Error naming the file, the tensor and the [row,
// column] (a vector's [index]) of the first value that is not finite (NaN, ±inf), or the
// read that failed.
void read_stored_rows(const StoredRows& rows, std::int64_t row_values, std::int64_t tensor_row, bool vector,
                      float* dst);

}  // namespace hs
