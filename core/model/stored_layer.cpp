#include "core/model/stored_layer.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace hs {

void StoredLayer::clear() {
    used_ = 0;
    weights_.clear();
}

StoredLayer::Weight* StoredLayer::find(const Matrix& of) {
    for (Weight& w : weights_)
        if (w.of == &of) return &w;
    return nullptr;
}

void StoredLayer::declare(const Matrix& of, int rows, int cols) {
    Weight* w = find(of);
    if (!w) w = &weights_.emplace_back(Weight{&of, {}, {}});
    w->matrix = StoredMatrix{rows, cols, {}};
    w->offsets.clear();
}

const StoredMatrix* StoredLayer::declared(const Matrix& of) const {
    for (const Weight& w : weights_)
        if (w.of == &of) return &w.matrix;
    return nullptr;
}

std::uint8_t* StoredLayer::add_rows(const Matrix& of, int first_row, int rows, StoredType type, std::int64_t row_bytes) {
    Weight* w = find(of);
    if (!w || first_row < 0 || first_row + rows > w->matrix.rows)
        throw Error("stored layer: rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + rows) +
                    ") do not fit the weight they are read into");
    const auto offset = static_cast<std::int64_t>(used_);
    used_ += static_cast<std::size_t>(rows * row_bytes);
    // grown (and zeroed) only past the largest layer so far: the next layers write in place
    if (used_ > bytes_.size()) bytes_.resize(std::max(used_, bytes_.size() + bytes_.size() / 2));
    w->matrix.parts.push_back(StoredRows{first_row, rows, type, nullptr, row_bytes});
    w->offsets.push_back(offset);
    return bytes_.data() + offset;
}

void StoredLayer::attach(EncoderLayerWeights& layer) {
    for (Weight& w : weights_) {
        int covered = 0;
        for (std::size_t i = 0; i < w.matrix.parts.size(); ++i) {
            w.matrix.parts[i].bytes = bytes_.data() + w.offsets[i];
            covered += w.matrix.parts[i].rows;
        }
        std::sort(w.matrix.parts.begin(), w.matrix.parts.end(),
                  [](const StoredRows& a, const StoredRows& b) { return a.first_row < b.first_row; });
        bool contiguous = covered == w.matrix.rows;
        for (std::size_t i = 1; i < w.matrix.parts.size(); ++i)
            contiguous &= w.matrix.parts[i].first_row == w.matrix.parts[i - 1].first_row + w.matrix.parts[i - 1].rows;
        if (!contiguous)
            throw Error("stored layer: a weight of " + std::to_string(w.matrix.rows) + " rows was read with " +
                        std::to_string(covered) + " rows, not each once");
    }
    const auto at = [&](const Matrix& m) -> const StoredMatrix* {
        const Weight* w = find(m);
        return w ? &w->matrix : nullptr;
    };
    AttentionWeights& a = layer.self_attn;
    a.in_proj_stored = at(a.in_proj_weight);
    a.out_proj_stored = at(a.out_proj_weight);
    FeedForwardWeights& f = layer.ffn;
    f.linear1_stored = at(f.linear1_weight);
    f.linear2_stored = at(f.linear2_weight);
    f.gate_stored = at(f.gate_weight);
}

}  // namespace hs
