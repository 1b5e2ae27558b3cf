#pragma once
// The tensors of a Hugging Face checkpoint directory and how its family readers
// (hf_loader.cpp) read them: one model.safetensors, or the shards a
// model.safetensors.index.json lists ({"weight_map": {tensor: shard file}}, each opened
// once). Every read checks the tensor's name, dtype and shape against what config.json
// implies, so a wrong file is refused by name before anything is allocated from it.
#include <cstdint>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/io/safetensors.h"
#include "core/model/config.h"
#include "core/model/weight_footprint.h"
#include "core/model/stored_layer.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs {

using TensorShape = std::vector<std::int64_t>;

// The checkpoint's files, opened and validated (headers only). Immutable once made, so
// layer reads on several threads share it.
class HfTensors {
public:
    // `family`: config.json's model_type, for messages. Throws hs::Error when the directory
    // has neither file, or the index or a shard is wrong (named).
    HfTensors(const std::string& dir, std::string family);
    bool has(const std::string& name) const { return where_.count(name) != 0; }
    // The first of `names` that exists (aliases such as LayerNorm .weight / .gamma);
    // missing: an error naming the first.
    std::string pick(std::initializer_list<std::string> names) const;
    // The file holding `name`; missing: an error naming it.
    const SafetensorsFile& file_of(const std::string& name) const;
    // Tensor `name`, of a weight dtype (F32, F16, BF16) and exactly `expected` shape.
    const TensorInfo& expect(const std::string& name, const TensorShape& expected) const;
    const std::string& dir() const { return dir_; }
    // Every tensor, with the file it is in.
    const std::map<std::string, const SafetensorsFile*>& tensors() const { return where_; }

private:
    void open_index(const std::string& index);
    std::string dir_, family_, source_;
    std::vector<std::shared_ptr<SafetensorsFile>> files_;
    std::map<std::string, const SafetensorsFile*> where_;
};

// One read of tensors into weights, f32 or (for a layer read for the forward's products)
// with its linear weights left in the files: then matrix_into / rows_into declare the
// matrix in `stored` and leave it empty (StoredLayer), their rows checked finite when
// `check_stored`. `matrix` and the vectors are read as f32 and checked either way.
class HfTensorReader {
public:
    explicit HfTensorReader(const HfTensors& tensors, StoredLayer* stored = nullptr, bool check_stored = true)
        : tensors_(tensors), stored_(stored), check_stored_(check_stored) {}
    bool has(const std::string& name) const { return tensors_.has(name); }
    std::string pick(std::initializer_list<std::string> names) const { return tensors_.pick(names); }
    // Tensor `name` of `expected` shape as f32 (1-D: (1, n)), checked finite.
    Matrix matrix(const std::string& name, const TensorShape& expected);
    Matrix matrix(const std::string& name, std::int64_t rows, std::int64_t cols) {
        return matrix(name, TensorShape{rows, cols});
    }
    Vector vector(const std::string& name, std::int64_t n);
    // Tensor `name` (rows, cols) into `out`, or left as stored.
    void matrix_into(const std::string& name, std::int64_t rows, std::int64_t cols, Matrix& out);
    // `out` shaped (rows, cols) for rows_into; in stored mode declared and left empty.
    void shape_into(Matrix& out, std::int64_t rows, std::int64_t cols);
    // Rows [first, first + count) of tensor t (from expect) into rows [at, at + count) of
    // `out` (from shape_into), which has t's columns: [q; k; v] stacked as read.
    void rows_into(const TensorInfo& t, std::int64_t first, std::int64_t count, Matrix& out, std::int64_t at);
    const TensorInfo& expect(const std::string& name, const TensorShape& expected);
    // From now on, matrix_into / rows_into leave their rows stored in `stored` (null: read
    // them as f32), checked when `check_stored`.
    void leave_stored(StoredLayer* stored, bool check_stored);
    // "f32", "f16", "bf16" or e.g. "bf16+f32" over the tensors read.
    std::string dtype() const;

private:
    const HfTensors& tensors_;
    StoredLayer* stored_;
    bool check_stored_;
    std::set<std::string> dtypes_;
    // f32 mode: the tensor rows_into last read whole, for the next rows of it
    std::string cached_name_;
    Matrix cached_;
};

// The layer a tensor belongs to ("model.layers.12.mlp.up_proj.weight", BERT's
// "encoder.layer.12.…", GPT-2's "h.12.…" → 12), or -1.
int hf_layer_of(const std::string& name);
// Whether `name` is a family's token embedding or separate LM head ("model.embed_tokens.weight",
// GPT-2's "wte.weight", BERT's "…word_embeddings.weight", "lm_head.weight", Pythia's
// "embed_out.weight", …): what a model read layer by layer leaves in the file.
bool hf_embed_or_head(const std::string& name);
// The checkpoint's weights' parameters (not its buffers: masks, position ids, rotary
// inv_freq; nor a head tied to the embedding; tensors no family reads, such as BERT's
// pooler, are counted), its main stack's (layers 0 … c.layers − 1), its largest layer's and that
// layer's bytes as stored, for the memory plan.
WeightFootprint hf_footprint(const HfTensors& tensors, const ModelConfig& c);

}  // namespace hs
