#pragma once
// What a model's weights take, in parameters and in bytes as stored: the memory plan's
// input (core/io/memory_budget.h) and what a model read layer by layer counts its
// parameters from (core/model/layer_source.h).
#include <algorithm>
#include <vector>

namespace hs {

struct WeightFootprint {
    double params = 0;             // all of them
    double stack_params = 0;       // of the layers read layer by layer, together
    double layer_params = 0;       // the largest layer's
    double layer_stored_bytes = 0; // the largest layer's, as stored in the file
    double embed_head_params = 0;  // the token embedding's and a separate head's, which a
                                   // model read layer by layer leaves in the file
};

// A file's weights added up tensor by tensor into its WeightFootprint (GGUF and
// safetensors readers name layers their own way and pass the layer they found).
class FootprintTally {
public:
    explicit FootprintTally(int layers)
        : params_(static_cast<std::size_t>(std::max(layers, 0)), 0.0), bytes_(params_) {}

    // A tensor of `params` values stored in `stored_bytes`; layer -1 (or beyond the
    // stack) for one outside the layers; `embed_or_head`: the token embedding or a separate
    // LM head.
    void add(int layer, double params, double stored_bytes, bool embed_or_head = false) {
        total_ += params;
        if (embed_or_head) embed_head_ += params;
        if (layer < 0 || layer >= static_cast<int>(params_.size())) return;
        params_[static_cast<std::size_t>(layer)] += params;
        bytes_[static_cast<std::size_t>(layer)] += stored_bytes;
    }

    WeightFootprint footprint() const {
        WeightFootprint f;
        f.params = total_;
        f.embed_head_params = embed_head_;
        for (std::size_t il = 0; il < params_.size(); ++il) {
            f.stack_params += params_[il];
            f.layer_params = std::max(f.layer_params, params_[il]);
            f.layer_stored_bytes = std::max(f.layer_stored_bytes, bytes_[il]);
        }
        return f;
    }

private:
    double total_ = 0, embed_head_ = 0;
    std::vector<double> params_, bytes_;  // per layer
};

}  // namespace hs
