#include "core/kernels/stored_matrix.h"

#include <algorithm>
#include <cassert>

namespace hs {

void StoredMatrix::convert(int r0, int n, int c0, int cn, float* out, int ldo) const {
    assert(c0 % kColumnBlock == 0 && (cn % kColumnBlock == 0 || c0 + cn == cols));
    auto part = parts.begin();
    for (int r = r0; r < r0 + n; ++r) {
        while (part->first_row + part->rows <= r) ++part;  // rows ascend: the parts are walked once
        const StoredTypeInfo& info = stored_type_info(part->type);
        const std::uint8_t* row = part->bytes + static_cast<std::int64_t>(r - part->first_row) * part->row_bytes;
        dequantize(part->type, row + static_cast<std::int64_t>(c0 / info.block_values) * info.block_bytes, cn,
                   out + static_cast<std::int64_t>(r - r0) * ldo);
    }
}

}  // namespace hs
