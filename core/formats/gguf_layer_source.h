#pragma once
// A GGUF model's layers read from its file as the forward reaches them (core/model/
// layer_source.h), for a model whose f32 weights do not fit in memory. For the forward's
// products a layer's linear weights stay in the file: the products read each panel's rows
// as stored, where they lie in the file's map (core/io/read_only_file.h) and
// convert them just before use (core/kernels/stored_matrix.h); its vectors are read as
// f32. The Pipeline's layer is read whole as f32. Every value is checked finite the first
// time its layer is read.
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

// The layers of `file` read as the forward reaches them, by the architecture's `read`;
// `footprint`: gguf_footprint(*file, config.layers), as the memory plan used it. Layer 0
// was read and checked at open. `outside`: the weights outside the layers left in the file
// (FileLayerSource).
std::shared_ptr<const LayerSource> gguf_layer_source(std::shared_ptr<const GgufFile> file, ModelConfig config,
                                                     GgufLayerReader read, WeightFootprint footprint,
                                                     std::unique_ptr<StoredLayer> outside);

// The parameters of the file's tensors, of its largest layer (the "blk.N." tensors), and
// that layer's bytes as stored, for the memory plan.
WeightFootprint gguf_footprint(const GgufFile& file, int layers);

// For a model whose layers are not read at open: layer 0 has been read through r; every
// other layer must hold the same tensors ("blk.N." for "blk.0.") of the same shapes, each
// of a type HeadScope reads. Marks them used in r; throws hs::Error naming the first that
// is missing or differs. progress(il + 1, layers) after each layer (false: Cancelled).
void check_layers_like_first(const GgufFile& file, GgufTensorReader& r, int layers, const ProgressFn& progress);

}  // namespace hs
