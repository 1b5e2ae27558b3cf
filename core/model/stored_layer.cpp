#include "core/model/stored_layer.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace hs {

void forget_stored_weights(EncoderLayerWeights& layer) {
    layer.self_attn.in_proj_stored = layer.self_attn.out_proj_stored = nullptr;
    layer.ffn.linear1_stored = layer.ffn.linear2_stored = layer.ffn.gate_stored = nullptr;
}

void StoredLayer::clear(EncoderLayerWeights& layer) {
    forget_stored_weights(layer);
    for (const Weight& w : weights_) w.matrix.release_mapped_pages();
    weights_.clear();
}

StoredLayer::Weight* StoredLayer::find(const Matrix& of) {
    for (Weight& w : weights_)
        if (w.of == &of) return &w;
    return nullptr;
}

void StoredLayer::declare(const Matrix& of, int rows, int cols) {
    Weight* w = find(of);
    if (!w) w = &weights_.emplace_back(Weight{&of, {}});
    w->matrix = StoredMatrix{rows, cols, {}};
}

const StoredMatrix* StoredLayer::declared(const Matrix& of) const {
    for (const Weight& w : weights_)
        if (w.of == &of) return &w.matrix;
    return nullptr;
}

void StoredLayer::add_rows(const Matrix& of, const StoredRows& rows) {
    Weight* w = find(of);
    if (!w || rows.first_row < 0 || rows.first_row + rows.rows > w->matrix.rows)
        throw Error("stored layer: rows [" + std::to_string(rows.first_row) + ", " +
                    std::to_string(rows.first_row + rows.rows) + ") do not fit the weight they are read into");
    w->matrix.parts.push_back(rows);
}

void StoredLayer::require_rows_each_once() {
    for (Weight& w : weights_) {
        std::vector<StoredRows>& parts = w.matrix.parts;
        std::sort(parts.begin(), parts.end(), [](const StoredRows& a, const StoredRows& b) { return a.first_row < b.first_row; });
        int covered = 0;
        bool each_once = true;
        for (const StoredRows& p : parts) {
            each_once &= p.first_row == covered;
            covered += p.rows;
        }
        if (!each_once || covered != w.matrix.rows)
            throw Error("stored layer: a weight of " + std::to_string(w.matrix.rows) + " rows was read with " +
                        std::to_string(covered) + " rows, not each once");
    }
}

void StoredLayer::point(std::initializer_list<std::pair<const Matrix*, const StoredMatrix**>> targets) {
    std::size_t attached = 0;
    for (const auto& [of, stored] : targets) {
        const Weight* w = find(*of);
        attached += w != nullptr;
        *stored = w ? &w->matrix : nullptr;
    }
    if (attached != weights_.size()) {
        for (const auto& target : targets) *target.second = nullptr;
        throw Error("stored layer: a weight was read as stored that is not one of the layer's linear weights (or, outside the layers, the embedding or the head)");
    }
}

void StoredLayer::attach(EncoderLayerWeights& layer) {
    require_rows_each_once();
    AttentionWeights& a = layer.self_attn;
    FeedForwardWeights& f = layer.ffn;
    try {
        point({{&a.in_proj_weight, &a.in_proj_stored},
               {&a.out_proj_weight, &a.out_proj_stored},
               {&f.linear1_weight, &f.linear1_stored},
               {&f.linear2_weight, &f.linear2_stored},
               {&f.gate_weight, &f.gate_stored}});
    } catch (const Error&) {
        clear(layer);
        throw;
    }
}

void StoredLayer::attach(ModelWeights& weights) {
    require_rows_each_once();
    point({{&weights.embed, &weights.embed_stored}, {&weights.lm_head, &weights.lm_head_stored}});
}

}  // namespace hs
