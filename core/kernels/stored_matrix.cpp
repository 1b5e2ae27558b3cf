#include "core/kernels/stored_matrix.h"

#include <algorithm>
#include <cassert>

#include "core/kernels/gemm.h"
#include "core/kernels/stored_rows.h"

namespace hs {

namespace {

// A part's rows within [r0, r0 + n): none when lo ≥ hi.
struct RowsOfPart {
    int lo, hi;
    std::uint64_t skip;  // bytes from the part's first row to row lo
    std::size_t count;   // bytes of rows [lo, hi)
};

RowsOfPart rows_of_part(const StoredRows& p, int r0, int n) {
    const int lo = std::max(r0, p.first_row), hi = std::min(r0 + n, p.first_row + p.rows);
    if (lo >= hi) return {lo, hi, 0, 0};
    return {lo, hi, static_cast<std::uint64_t>(lo - p.first_row) * static_cast<std::uint64_t>(p.row_bytes),
            static_cast<std::size_t>((hi - lo) * p.row_bytes)};
}

// Where those rows lie in memory or in the file's map (when use_map), else null: read them.
const std::uint8_t* rows_in_place(const StoredRows& p, const RowsOfPart& r, bool use_map) {
    if (p.bytes) return p.bytes + r.skip;
    return use_map ? p.source->mapped(p.offset + r.skip, r.count) : nullptr;
}

}  // namespace

StoredMatrix StoredMatrix::rows_in_memory(int r0, int n, std::vector<std::uint8_t>& buffer, bool use_map) const {
    StoredMatrix out{n, cols, {}};
    std::size_t to_read = 0;  // bytes of the rows read, first summed so the buffer grows once
    for (const StoredRows& p : parts) {
        const RowsOfPart r = rows_of_part(p, r0, n);
        if (r.lo < r.hi && !rows_in_place(p, r, use_map)) to_read += r.count;
    }
    if (buffer.size() < to_read) buffer.resize(to_read);
    std::size_t at = 0;
    for (const StoredRows& p : parts) {
        const RowsOfPart r = rows_of_part(p, r0, n);
        if (r.lo >= r.hi) continue;
        StoredRows rows{r.lo - r0, r.hi - r.lo, p.type, p.row_bytes, rows_in_place(p, r, use_map)};
        if (!rows.bytes) {
            p.source->read(p.offset + r.skip, r.count, buffer.data() + at, *p.name);
            rows.bytes = buffer.data() + at;
            at += r.count;
        } else if (!p.bytes) {
            out.mapped = true;
        }
        out.parts.push_back(rows);
    }
    return out;
}

StoredMatrix::BytesInPlace StoredMatrix::bytes_in_place(int r0, int n) const {
    for (const StoredRows& p : parts) {
        const RowsOfPart r = rows_of_part(p, r0, n);
        if (r.lo >= r.hi) continue;
        const std::uint8_t* at = rows_in_place(p, r, /*use_map=*/true);
        return at ? BytesInPlace{at, r.count} : BytesInPlace{};
    }
    return {};
}

void StoredMatrix::release_mapped_pages() const {
    for (const StoredRows& p : parts)
        if (!p.bytes && p.source) p.source->release(p.offset, static_cast<std::size_t>(p.rows * p.row_bytes));
}

void StoredMatrix::require_still_in_file() const {
    for (const StoredRows& p : parts)
        if (!p.bytes && p.source) p.source->require_holds(p.offset, static_cast<std::size_t>(p.rows * p.row_bytes), *p.name);
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
