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

}  // namespace

std::shared_ptr<const LayerSource> gguf_layer_source(std::shared_ptr<const GgufFile> file, ModelConfig config,
                                                     GgufLayerReader read, WeightFootprint footprint,
                                                     std::unique_ptr<StoredLayer> outside) {
    const int layers = config.layers;
    std::string where = "GGUF file '" + file->path() + "'";
    auto read_layer = [file = std::move(file), config = std::move(config), read](
                          int il, EncoderLayerWeights& layer, StoredLayer* stored, bool check_stored) {
        GgufTensorReader r(*file, stored, check_stored);  // vectors (and f32 matrices) checked as converted
        read(config, r, il, layer);
    };
    return std::make_shared<const FileLayerSource>(std::move(where), layers, std::move(read_layer), footprint, true,
                                                   std::move(outside));
}

WeightFootprint gguf_footprint(const GgufFile& file, int layers) {
    FootprintTally tally(layers);  // a layer's tensors are "blk.N.…"
    for (const GgufTensor& t : file.tensors())
        tally.add(layer_of(t.name), static_cast<double>(t.numel()), static_cast<double>(t.bytes),
                  t.name == "token_embd.weight" || t.name == "output.weight");
    return tally.footprint();
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
