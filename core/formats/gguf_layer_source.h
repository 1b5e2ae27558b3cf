#pragma once
// A GGUF model's layers read from its file as the forward reaches them (core/model/
// layer_source.h), for a model whose f32 weights do not fit in memory. For the forward's
// products a layer's linear weights stay in the file: the products read each panel's rows
// as stored (pread, so the system's page cache holds the file, not this process) and
// convert them just before use (core/kernels/stored_matrix.h); its vectors are read as
// f32. The Pipeline's layer is read whole as f32. Every value is checked finite the first
// time its layer is read.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/gguf.h"
#include "core/io/memory_budget.h"
#include "core/model/layer_source.h"
#include "core/model/model.h"

namespace hs {

class GgufTensorReader;

// One layer's weights from a GGUF file into `layer` (GgufTensorReader::matrix_into: its
// matrices reused when their shape matches), read and shape-checked through r.
using GgufLayerReader = void (*)(const ModelConfig& c, GgufTensorReader& r, int il, EncoderLayerWeights& layer);

class GgufLayerSource final : public LayerSource {
public:
    // `footprint`: gguf_footprint(*file, config.layers), as the memory plan used it.
    GgufLayerSource(std::shared_ptr<const GgufFile> file, ModelConfig config, GgufLayerReader read,
                    WeightFootprint footprint);
    void read_layer(int il, EncoderLayerWeights& layer) const override;
    // The linear weights left in the file (slot.stored: where their rows are; checked
    // finite the first time the layer is read), the products reading and converting them
    // a panel at a time.
    const EncoderLayerWeights& read_layer_for_products(int il, ProductsLayer& slot) const override;
    int layers() const override { return config_.layers; }
    const WeightFootprint& footprint() const override { return footprint_; }

private:
    std::string where() const { return "GGUF file '" + file_->path() + "'"; }
    void require_layer(int il) const;

    std::shared_ptr<const GgufFile> file_;
    ModelConfig config_;
    GgufLayerReader read_;
    WeightFootprint footprint_;
    // Layers whose stored weights were checked finite (read_layer checks every time).
    std::unique_ptr<std::atomic<bool>[]> checked_;
};

// The parameters of the file's tensors, of its largest layer (the "blk.N." tensors), and
// that layer's bytes as stored, for the memory plan.
WeightFootprint gguf_footprint(const GgufFile& file, int layers);

// For a model whose layers are not read at open: layer 0 has been read through r; every
// other layer must hold the same tensors ("blk.N." for "blk.0.") of the same shapes, each
// of a type HeadScope reads. Marks them used in r; throws hs::Error naming the first that
// is missing or differs. progress(il + 1, layers) after each layer (false: Cancelled).
void check_layers_like_first(const GgufFile& file, GgufTensorReader& r, int layers, const ProgressFn& progress);

}  // namespace hs
