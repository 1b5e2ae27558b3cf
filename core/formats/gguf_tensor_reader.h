#pragma once
// What every GGUF architecture reader (gguf_model.cpp, gguf_layernorm_models.cpp) reads a
// file with: metadata numbers checked into range, and tensors read by name and checked
// against the shape the config implies, with a record of which tensors were used so that
// a tensor no reader placed is refused by name instead of silently ignored.
#include <cstdint>
#include <string>
#include <vector>

#include "core/formats/gguf.h"
#include "core/model/config.h"
#include "core/model/stored_layer.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace hs {

constexpr std::int64_t kGgufMaxDim = 1 << 24;  // far above any real model; guards overflow

// Metadata `key` as an int within 1..kGgufMaxDim (`fallback` when absent and ≥ 0).
int gguf_dimension(const GgufFile& file, const std::string& key, std::int64_t fallback = -1);
// Metadata `key` as a positive finite number (`fallback` when absent).
float gguf_positive_number(const GgufFile& file, const std::string& key, double fallback);
// What every GGUF architecture `arch` starts from: a causal decoder of family `arch` whose
// shape comes from the "{arch}." keys embedding_length (d_model), block_count (layers),
// feed_forward_length (d_ff), attention.head_count (heads) and context_length (max_len,
// 4096 when absent, at most 65536).
ModelConfig gguf_decoder_config(const GgufFile& file, const std::string& arch);
// ModelConfig::rotary_dims from rope.dimension_count R (default: the head size Dh): 0
// when R is all of Dh, else R (partial rotary; validate checks it is even and ≤ Dh).
int read_gguf_rotary_dims(const GgufFile& file, const std::string& p, int head_dim);
// The vocabulary from token_embd (V, D) and the head: none for an encoder, else `output`
// (V, D) when stored, else tied to token_embd.
void read_gguf_vocab_and_head(const GgufFile& file, const std::string& arch, ModelConfig& c);

// m resized to (rows, cols) unless it has that shape already (its memory then reused).
inline void ensure_shape(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
    if (m.rows() != rows || m.cols() != cols) m.resize(rows, cols);
}

class GgufTensorReader {
public:
    // With `stored`, the matrices a layer reader reads into (matrix_into, rows_into) are left
    // as stored in it instead (each empty, declared by its address: StoredLayer), their
    // values checked finite when `check_stored` (a layer read before was checked then);
    // `matrix` and the vectors are read as f32, and checked, either way.
    explicit GgufTensorReader(const GgufFile& file, StoredLayer* stored = nullptr, bool check_stored = true)
        : file_(file), stored_(stored), check_stored_(check_stored) {}
    // Tensor `name` as an (out, in) = (rows, cols) matrix, or a vector of n values.
    Matrix matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols);
    Vector vector(const std::string& name, Eigen::Index n);
    // The same into `out`, resized only when its shape differs: a layer read into the
    // previous layer's matrices reuses their memory.
    void matrix_into(const std::string& name, Eigen::Index rows, Eigen::Index cols, Matrix& out);
    void vector_into(const std::string& name, Eigen::Index n, Vector& out);
    // Tensor `name`, recorded as used; throws unless it is an (rows, cols) matrix. Check
    // before allocating what a read fills: the metadata alone may imply gigabytes.
    const GgufTensor& expect_matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
        return require_shape(name, rows, cols);
    }
    // `out` shaped (rows, cols) for rows_into: resized unless it has that shape; in stored
    // mode, declared as that stored weight and left empty.
    void shape_into(Matrix& out, Eigen::Index rows, Eigen::Index cols);
    // Rows [first, first + count) of t (from expect_matrix) into rows [at, at + count) of
    // `out` (from shape_into), which has t's columns and room for them: [q; k; v] stacked
    // as read.
    void rows_into(const GgufTensor& t, Eigen::Index first, Eigen::Index count, Matrix& out, Eigen::Index at);
    bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }
    // After every read: a tensor the model did not use would be silently ignored, so the
    // file is refused naming it (a bias, rope_freqs of Llama-3.1, …).
    void require_all_used() const;
    // Records tensor `name` as used without reading it (throws when the file lacks it), and
    // the names recorded so far.
    void mark_used(const std::string& name) { (void)require(name); }
    const std::vector<std::string>& used() const { return used_; }
    // From now on, matrix_into / rows_into leave their rows stored in `stored` (null: read
    // them as f32), checked when `check_stored`.
    void leave_stored(StoredLayer* stored, bool check_stored) {
        stored_ = stored;
        check_stored_ = check_stored;
    }

private:
    const GgufTensor& require(const std::string& name);
    const GgufTensor& require_shape(const std::string& name, Eigen::Index rows, Eigen::Index cols);
    const GgufFile& file_;
    StoredLayer* stored_;
    bool check_stored_;
    std::vector<std::string> used_;
};

// [q; k; v] (I + 2·Ikv, D) into qkv from blk.N.attn_qkv, or attn_q (I, D), attn_k and
// attn_v (Ikv, D) stacked as read; `b` is the layer's "blk.N." prefix.
void read_gguf_qkv(GgufTensorReader& r, const std::string& b, Eigen::Index I, Eigen::Index Ikv, Eigen::Index D,
                   Matrix& qkv);
// LayerNorm (γ, β) of D from "<name>.weight" and "<name>.bias" into norm.
void read_gguf_layer_norm_into(GgufTensorReader& r, const std::string& name, Eigen::Index D, LayerNormWeights& norm);
// [b_q; b_k; b_v] (I + 2·Ikv) from attn_q.bias (I), attn_k.bias and attn_v.bias (Ikv).
void read_gguf_qkv_bias(GgufTensorReader& r, const std::string& b, Eigen::Index I, Eigen::Index Ikv, Vector& bias);

}  // namespace hs
