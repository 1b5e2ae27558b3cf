#include "core/formats/gguf_tensor_reader.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace hs {

namespace {

std::string shape_text(Eigen::Index rows, Eigen::Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

}  // namespace

int gguf_dimension(const GgufFile& file, const std::string& key, std::int64_t fallback) {
    const std::int64_t v = fallback < 0 ? file.integer(key) : file.integer(key, fallback);
    if (v < 1 || v > kGgufMaxDim)
        throw Error(file.path() + ": metadata '" + key + "' is " + std::to_string(v) + " (expected 1.." +
                    std::to_string(kGgufMaxDim) + ")");
    return static_cast<int>(v);
}

float gguf_positive_number(const GgufFile& file, const std::string& key, double fallback) {
    const double v = file.number(key, fallback);
    if (!(v > 0.0 && v <= 1e12))
        throw Error(file.path() + ": metadata '" + key + "' is " + std::to_string(v) + " (expected a positive number)");
    return static_cast<float>(v);
}

ModelConfig gguf_decoder_config(const GgufFile& file, const std::string& arch) {
    const std::string p = arch + ".";
    ModelConfig c;
    c.family = arch;
    c.arch = Arch::DecoderOnly;
    c.mask = MaskKind::Causal;
    c.d_model = gguf_dimension(file, p + "embedding_length");
    c.layers = gguf_dimension(file, p + "block_count");
    c.d_ff = gguf_dimension(file, p + "feed_forward_length");
    c.heads = gguf_dimension(file, p + "attention.head_count");
    c.max_len = std::min(gguf_dimension(file, p + "context_length", 4096), 65536);
    return c;
}

int read_gguf_rotary_dims(const GgufFile& file, const std::string& p, int head_dim) {
    const int rope_dims = gguf_dimension(file, p + "rope.dimension_count", head_dim);
    return rope_dims == head_dim ? 0 : rope_dims;
}

void read_gguf_vocab_and_head(const GgufFile& file, const std::string& arch, ModelConfig& c) {
    const GgufTensor* embed = file.find_tensor("token_embd.weight");
    if (!embed) throw Error(file.path() + " has no tensor 'token_embd.weight', which a " + arch + " model needs");
    if (embed->ne.size() != 2 || embed->ne[1] < 1 || embed->ne[1] > kGgufMaxDim)
        throw Error(file.path() + ": tensor 'token_embd.weight' is not a (vocab, d_model) matrix");
    c.vocab = static_cast<int>(embed->ne[1]);
    c.lm_head = c.arch == Arch::EncoderOnly       ? LmHead::None  // an embedding model (bert)
                : file.find_tensor("output.weight") ? LmHead::Separate
                                                    : LmHead::Tied;
}

Matrix GgufTensorReader::matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
    const GgufTensor& t = require_shape(name, rows, cols);
    Matrix m(rows, cols);
    file_.read_rows(t, 0, rows, m.data());
    return m;
}

Vector GgufTensorReader::vector(const std::string& name, Eigen::Index n) {
    Vector v;
    vector_into(name, n, v);
    return v;
}

void GgufTensorReader::matrix_into(const std::string& name, Eigen::Index rows, Eigen::Index cols, Matrix& out) {
    const GgufTensor& t = require_shape(name, rows, cols);
    shape_into(out, rows, cols);
    rows_into(t, 0, rows, out, 0);
}

void GgufTensorReader::shape_into(Matrix& out, Eigen::Index rows, Eigen::Index cols) {
    if (!stored_) return ensure_shape(out, rows, cols);
    stored_->declare(out, static_cast<int>(rows), static_cast<int>(cols));
    out.resize(0, 0);
}

void GgufTensorReader::vector_into(const std::string& name, Eigen::Index n, Vector& out) {
    const GgufTensor& t = require(name);
    if (t.ne.size() != 1 || t.ne[0] != n)
        throw Error(file_.path() + ": tensor '" + name + "' has " + std::to_string(t.numel()) +
                    " values, but the metadata implies " + std::to_string(n));
    if (out.size() != n) out.resize(n);
    file_.read_rows(t, 0, 1, out.data());
}

void GgufTensorReader::rows_into(const GgufTensor& t, Eigen::Index first, Eigen::Index count, Matrix& out,
                                 Eigen::Index at) {
    const StoredMatrix* stored = stored_ ? stored_->declared(out) : nullptr;
    const Eigen::Index out_rows = stored ? stored->rows : out.rows(), out_cols = stored ? stored->cols : out.cols();
    if ((stored_ && !stored) || out_cols != t.ne[0] || at < 0 || at + count > out_rows)
        throw Error(file_.path() + ": rows of tensor '" + t.name + "' do not fit where they are read to");
    if (!stored_) return file_.read_rows(t, first, count, out.data() + at * out.cols());
    stored_->add_rows(out, file_.stored_rows(t, first, count, static_cast<int>(at)));
    if (check_stored_) file_.check_rows(t, first, count);
}

const GgufTensor& GgufTensorReader::require_shape(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
    const GgufTensor& t = require(name);
    if (t.ne.size() > 2)
        throw Error(file_.path() + ": tensor '" + name + "' has " + std::to_string(t.ne.size()) +
                    " dimensions; only 1-D and 2-D tensors are matrices");
    const std::int64_t t_rows = t.ne.size() == 2 ? t.ne[1] : 1, t_cols = t.ne[0];
    if (t_rows != rows || t_cols != cols)
        throw Error(file_.path() + ": tensor '" + name + "' is " + shape_text(t_rows, t_cols) +
                    " (out, in), but the metadata implies " + shape_text(rows, cols));
    return t;
}

void GgufTensorReader::require_all_used() const {
    for (const GgufTensor& t : file_.tensors())
        if (std::find(used_.begin(), used_.end(), t.name) == used_.end())
            throw Error(file_.path() + " holds tensor '" + t.name + "', which HeadScope's " +
                        file_.string("general.architecture") + " model has no place for (not supported yet)");
}

const GgufTensor& GgufTensorReader::require(const std::string& name) {
    const GgufTensor* t = file_.find_tensor(name);
    if (!t)
        throw Error(file_.path() + " has no tensor '" + name + "', which a " + file_.string("general.architecture") +
                    " model needs");
    used_.push_back(name);
    return *t;
}

void read_gguf_qkv(GgufTensorReader& r, const std::string& b, Eigen::Index I, Eigen::Index Ikv, Eigen::Index D,
                   Matrix& qkv) {
    if (r.has(b + "attn_qkv.weight")) return r.matrix_into(b + "attn_qkv.weight", I + 2 * Ikv, D, qkv);
    // the file's shapes checked before the stack is allocated
    const GgufTensor& q = r.expect_matrix(b + "attn_q.weight", I, D);
    const GgufTensor& k = r.expect_matrix(b + "attn_k.weight", Ikv, D);
    const GgufTensor& v = r.expect_matrix(b + "attn_v.weight", Ikv, D);
    r.shape_into(qkv, I + 2 * Ikv, D);
    r.rows_into(q, 0, I, qkv, 0);
    r.rows_into(k, 0, Ikv, qkv, I);
    r.rows_into(v, 0, Ikv, qkv, I + Ikv);
}

void read_gguf_layer_norm_into(GgufTensorReader& r, const std::string& name, Eigen::Index D, LayerNormWeights& norm) {
    r.vector_into(name + ".weight", D, norm.weight);
    r.vector_into(name + ".bias", D, norm.bias);
}

void read_gguf_qkv_bias(GgufTensorReader& r, const std::string& b, Eigen::Index I, Eigen::Index Ikv, Vector& bias) {
    const Vector bq = r.vector(b + "attn_q.bias", I), bk = r.vector(b + "attn_k.bias", Ikv),
                 bv = r.vector(b + "attn_v.bias", Ikv);
    bias.resize(I + 2 * Ikv);  // no-op when it has that size
    bias << bq, bk, bv;
}

}  // namespace hs
