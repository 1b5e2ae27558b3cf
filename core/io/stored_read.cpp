#include "core/io/stored_read.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/io/state_dict.h"
#include "core/kernels/parallel.h"
#include "core/kernels/stored_rows.h"

namespace hs {

namespace {

// Stored bytes one step of a read reads, converts and checks while they are in L2.
constexpr std::int64_t kReadChunkBytes = 128 << 10;

struct NotFinite {
    std::int64_t index = -1;  // value index within the read
    float value = 0.0f;
};

}  // namespace

void read_stored_rows(const StoredRows& rows, const RowsInTensor& where, float* dst) {
    const std::int64_t count = rows.rows, bytes_per_row = rows.row_bytes, row_values = where.row_values;
    if (count <= 0) return;
    // Whole rows per task, each row converted alike whatever the split. A task notes the
    // first value that is not finite; the first of all is reported.
    const std::int64_t chunk_rows = std::max<std::int64_t>(1, kReadChunkBytes / std::max<std::int64_t>(bytes_per_row, 1));
    const int tasks = count * row_values < (1 << 16) || count < 2
                          ? 1
                          : static_cast<int>(std::min<std::int64_t>(count, 4LL * thread_count()));
    std::vector<NotFinite> first_bad(static_cast<std::size_t>(tasks));
    parallel_for(tasks, [&](int task) {
        thread_local std::vector<std::uint8_t> chunk;
        thread_local std::vector<float> row_buffer;  // one row, when only checking
        const std::int64_t end = count * (task + 1) / tasks;
        const auto finite = [&](const float* values, std::int64_t n, std::int64_t at) {
            const std::int64_t bad = kernels::first_not_finite(values, n);
            if (bad < n) first_bad[static_cast<std::size_t>(task)] = {at + bad, values[bad]};
            return bad == n;
        };
        for (std::int64_t row = count * task / tasks; row < end; row += chunk_rows) {
            const std::int64_t n_rows = std::min(chunk_rows, end - row);
            const auto n_bytes = static_cast<std::size_t>(n_rows * bytes_per_row);
            if (chunk.size() < n_bytes) chunk.resize(n_bytes);
            rows.source->read(rows.offset + static_cast<std::uint64_t>(row * bytes_per_row), n_bytes, chunk.data(),
                              *rows.name);
            if (dst) {
                float* out = dst + row * row_values;
                dequantize(rows.type, chunk.data(), n_rows * row_values, out);
                if (!finite(out, n_rows * row_values, row * row_values)) return;
                continue;
            }
            if (row_buffer.size() < static_cast<std::size_t>(row_values)) row_buffer.resize(static_cast<std::size_t>(row_values));
            for (std::int64_t r = 0; r < n_rows; ++r) {
                dequantize(rows.type, chunk.data() + r * bytes_per_row, row_values, row_buffer.data());
                if (!finite(row_buffer.data(), row_values, (row + r) * row_values)) return;
            }
        }
    });
    for (const NotFinite& bad : first_bad)
        if (bad.index >= 0) {
            const std::int64_t row = where.first_row + bad.index / row_values, col = bad.index % row_values;
            const std::string at = where.vector ? "[" + std::to_string(col) + "]"
                                          : "[" + std::to_string(row) + ", " + std::to_string(col) + "]";
            throw Error(rows.source->path() + ": tensor '" + *rows.name + "' " + not_finite_weight(bad.value, at));
        }
}

}  // namespace hs
