#include "core/kernels/stored_matrix.h"

#include <algorithm>
#include <cassert>

#include "core/kernels/gemm.h"
#include "core/kernels/stored_rows.h"

namespace hs {

StoredMatrix StoredMatrix::rows_in_memory(int r0, int n, std::vector<std::uint8_t>& buffer) const {
    StoredMatrix out{n, cols, {}};
    std::size_t bytes = 0;  // of the parts read, first sized so the buffer grows once
    for (const StoredRows& p : parts) {
        const int lo = std::max(r0, p.first_row), hi = std::min(r0 + n, p.first_row + p.rows);
        if (lo < hi && !p.bytes) bytes += static_cast<std::size_t>((hi - lo) * p.row_bytes);
    }
    if (buffer.size() < bytes) buffer.resize(bytes);
    std::size_t at = 0;
    for (const StoredRows& p : parts) {
        const int lo = std::max(r0, p.first_row), hi = std::min(r0 + n, p.first_row + p.rows);
        if (lo >= hi) continue;
        const auto skip = static_cast<std::uint64_t>(lo - p.first_row) * static_cast<std::uint64_t>(p.row_bytes);
        StoredRows rows{lo - r0, hi - lo, p.type, p.row_bytes, p.bytes ? p.bytes + skip : buffer.data() + at};
        if (!p.bytes) {
            const auto count = static_cast<std::size_t>((hi - lo) * p.row_bytes);
            p.source->read(p.offset + skip, count, buffer.data() + at, *p.name);
            at += count;
        }
        out.parts.push_back(rows);
    }
    return out;
}

void StoredMatrix::convert(int r0, int n, int c0, int cn, float* out, int ldo) const {
    assert(c0 % kColumnBlock == 0 && (cn % kColumnBlock == 0 || c0 + cn == cols));
    auto part = parts.begin();
    for (int r = r0; r < r0 + n; ++r) {
        while (part->first_row + part->rows <= r) ++part;  // rows ascend: the parts are walked once
        assert(part->bytes);
        const StoredTypeInfo& info = stored_type_info(part->type);
        const std::uint8_t* row = part->bytes + static_cast<std::int64_t>(r - part->first_row) * part->row_bytes;
        dequantize(part->type, row + static_cast<std::int64_t>(c0 / info.block_values) * info.block_bytes, cn,
                   out + static_cast<std::int64_t>(r - r0) * ldo);
    }
}

void StoredMatrix::convert_transposed(float* out, int ldo) const {
    constexpr int kRows = 16;
    thread_local std::vector<float> block(kRows * kColumnBlock);  // 16 KiB, in L1
    for (const StoredRows& part : parts) {
        assert(part.bytes);
        float* part_out = out + part.first_row;
        if (part.type == StoredType::BF16) {
            kernels::bf16_to_f32_transposed(part.bytes, part.row_bytes, part.rows, cols, part_out, ldo);
        } else if (part.type == StoredType::Q8_0) {
            kernels::q8_0_to_f32_transposed(part.bytes, part.row_bytes, part.rows, cols, part_out, ldo);
        } else {
            for (int c0 = 0; c0 < cols; c0 += kColumnBlock) {
                const int cn = std::min(kColumnBlock, cols - c0);
                for (int r0 = part.first_row; r0 < part.first_row + part.rows; r0 += kRows) {
                    const int n = std::min(kRows, part.first_row + part.rows - r0);
                    convert(r0, n, c0, cn, block.data(), cn);
                    gemm::transpose(n, cn, block.data(), cn, out + static_cast<long>(c0) * ldo + r0, ldo);
                }
            }
        }
    }
}

}  // namespace hs
