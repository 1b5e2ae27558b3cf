#include "core/model/attention_as_f32.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hs {

Matrix stored_as_f32(const StoredMatrix& stored) {
    constexpr int kRowsPerRead = 256;  // rows read at a time: 2 MB of a 4096-column bf16 weight
    Matrix out(stored.rows, stored.cols);
    std::vector<std::uint8_t> bytes;
    for (int r0 = 0; r0 < stored.rows; r0 += kRowsPerRead) {
        const int n = std::min(kRowsPerRead, stored.rows - r0);
        stored.rows_in_memory(r0, n, bytes, /*use_map=*/false).convert(0, n, 0, stored.cols, out.row(r0).data(), stored.cols);
    }
    return out;
}

AttentionWeights attention_as_f32(const AttentionWeights& attention) {
    AttentionWeights out = attention;
    if (attention.in_proj_stored) out.in_proj_weight = stored_as_f32(*attention.in_proj_stored);
    if (attention.out_proj_stored) out.out_proj_weight = stored_as_f32(*attention.out_proj_stored);
    out.in_proj_stored = out.out_proj_stored = nullptr;
    return out;
}

}  // namespace hs
