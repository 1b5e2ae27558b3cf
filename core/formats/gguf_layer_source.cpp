#include "core/formats/gguf_layer_source.h"

#include <algorithm>

#include "core/error.h"
#include "core/formats/gguf_tensor_reader.h"

namespace hs {

namespace {

// The layer a tensor belongs to ("blk.12.attn_q.weight" → 12), or -1.
int layer_of(const std::string& name) {
    if (name.rfind("blk.", 0) != 0) return -1;
    const std::size_t dot = name.find('.', 4);
    if (dot == std::string::npos || dot == 4 || dot > 12) return -1;
    int il = 0;
    for (std::size_t i = 4; i < dot; ++i) {
        if (name[i] < '0' || name[i] > '9') return -1;
        il = il * 10 + (name[i] - '0');
    }
    return il;
}

// Each layer's parameters and stored bytes: the "blk.N." tensors of N < layers.
struct LayerSizes {
    std::vector<long long> params;
    std::vector<double> stored_bytes;
};
LayerSizes layer_sizes(const GgufFile& file, int layers) {
    LayerSizes sizes{std::vector<long long>(static_cast<std::size_t>(std::max(layers, 0)), 0),
                     std::vector<double>(static_cast<std::size_t>(std::max(layers, 0)), 0.0)};
    for (const GgufTensor& t : file.tensors())
        if (const int il = layer_of(t.name); il >= 0 && il < layers) {
            sizes.params[static_cast<std::size_t>(il)] += t.numel();
            sizes.stored_bytes[static_cast<std::size_t>(il)] += static_cast<double>(t.bytes);
        }
    return sizes;
}

}  // namespace

std::shared_ptr<const LayerSource> gguf_layer_source(std::shared_ptr<const GgufFile> file, ModelConfig config,
                                                     GgufLayerReader read, WeightFootprint footprint) {
    const int layers = config.layers;
    std::string where = "GGUF file '" + file->path() + "'";
    auto read_layer = [file = std::move(file), config = std::move(config), read](
                          int il, EncoderLayerWeights& layer, StoredLayer* stored, bool check_stored) {
        GgufTensorReader r(*file, stored, check_stored);  // vectors (and f32 matrices) checked as converted
        read(config, r, il, layer);
    };
    return std::make_shared<const FileLayerSource>(std::move(where), layers, std::move(read_layer), footprint, true);
}

WeightFootprint gguf_footprint(const GgufFile& file, int layers) {
    WeightFootprint f;
    for (const GgufTensor& t : file.tensors()) f.params += static_cast<double>(t.numel());
    const LayerSizes sizes = layer_sizes(file, layers);
    for (std::size_t il = 0; il < sizes.params.size(); ++il) {
        f.stack_params += static_cast<double>(sizes.params[il]);
        f.layer_params = std::max(f.layer_params, static_cast<double>(sizes.params[il]));
        f.layer_stored_bytes = std::max(f.layer_stored_bytes, sizes.stored_bytes[il]);
    }
    return f;
}

void check_layers_like_first(const GgufFile& file, GgufTensorReader& r, int layers, const ProgressFn& progress) {
    std::vector<const GgufTensor*> first;
    for (const std::string& name : r.used())
        if (layer_of(name) == 0) first.push_back(file.find_tensor(name));
    for (int il = 1; il < layers; ++il) {
        const std::string prefix = "blk." + std::to_string(il) + ".";
        for (const GgufTensor* t0 : first) {
            const std::string name = prefix + t0->name.substr(6);  // after "blk.0."
            r.mark_used(name);  // throws when the file lacks it
            const GgufTensor& t = *file.find_tensor(name);
            if (t.ne != t0->ne) throw Error(file.path() + ": tensor '" + name + "' is not shaped as '" + t0->name + "'");
            file.require_readable(t);
        }
        if (progress && !progress(il + 1, layers)) throw Cancelled{};
    }
}

}  // namespace hs
