// Hugging Face checkpoint directory -> Model (names and layouts in hf_loader.h).
//
// Shape letters: D d_model, H heads, Hkv key/value heads, Dh head_dim, F d_ff, V vocab,
// P max positions. Every weight ends up (out, in) so y = x·Wᵀ + b, as PyTorch nn.Linear
// stores it; GPT-2's Conv1D stores (in, out) and computes y = x·W + b, so it is transposed.
#include "core/formats/hf_loader.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/json_file.h"
#include "core/io/memory_budget.h"
#include "core/io/safetensors.h"
#include "core/io/state_dict.h"
#include "core/formats/hf_config.h"

namespace hs {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Shape = std::vector<std::int64_t>;

std::string shape_string(const Shape& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string lower_dtype(DType d) {
    std::string s = to_string(d);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// All tensors of a checkpoint: one model.safetensors, or shards listed by
// model.safetensors.index.json. Reads check names and shapes and remember the dtypes.
class TensorStore {
public:
    TensorStore(const std::string& dir, std::string family) : dir_(dir), family_(std::move(family)) {
        const fs::path single = fs::path(dir) / "model.safetensors";
        const fs::path index = fs::path(dir) / "model.safetensors.index.json";
        std::error_code ec;
        if (fs::is_regular_file(single, ec)) {
            auto file = SafetensorsFile::open(single.string());
            for (const auto& [name, info] : file->tensors()) where_[name] = file.get();
            files_.push_back(std::move(file));
            source_ = "model.safetensors";
        } else if (fs::is_regular_file(index, ec)) {
            open_index(index);
            source_ = "model.safetensors.index.json";
        } else {
            std::string hint;
            if (fs::exists(fs::path(dir) / "pytorch_model.bin", ec))
                hint = " (pytorch_model.bin is not read: convert it to safetensors)";
            throw Error(dir + " has neither model.safetensors nor model.safetensors.index.json" +
                        hint);
        }
    }

    bool has(const std::string& name) const { return where_.count(name) != 0; }

    // The first of `names` that exists (aliases such as LayerNorm .weight / .gamma);
    // missing: an error naming the first.
    std::string pick(std::initializer_list<std::string> names) const {
        for (const std::string& n : names)
            if (has(n)) return n;
        throw Error(dir_ + ": tensor '" + *names.begin() + "' is missing from " + source_ +
                    " (expected in a " + family_ + " checkpoint)");
    }

    // A tensor that must have exactly `expected` shape, converted to f32 (1-D: (1, n)).
    Matrix matrix(const std::string& name, const Shape& expected) {
        const SafetensorsFile& file = file_of(name);
        const TensorInfo& info = file.info(name);
        if (!dtype_is_readable(info.dtype))
            throw Error(dir_ + ": tensor '" + name + "' has unsupported dtype " +
                        to_string(info.dtype) + " (weights must be F32, F16 or BF16)");
        if (info.shape != expected)
            throw Error(dir_ + ": tensor '" + name + "' has shape " + shape_string(info.shape) +
                        ", expected " + shape_string(expected) + " from config.json");
        dtypes_.insert(lower_dtype(info.dtype));
        Matrix m = file.matrix(name);
        require_finite_tensor(m.data(), m.size(), info.shape, name, dir_);
        return m;
    }
    Matrix matrix(const std::string& name, std::int64_t rows, std::int64_t cols) {
        return matrix(name, Shape{rows, cols});
    }
    Vector vector(const std::string& name, std::int64_t n) {
        const Matrix m = matrix(name, Shape{n});
        return Eigen::Map<const Vector>(m.data(), n);
    }

    // "f32", "f16", "bf16" or e.g. "bf16+f32" over the tensors read.
    std::string dtype() const {
        std::string s;
        for (const std::string& d : dtypes_) s += (s.empty() ? "" : "+") + d;
        return s.empty() ? "f32" : s;
    }

private:
    const SafetensorsFile& file_of(const std::string& name) const {
        const auto it = where_.find(name);
        if (it == where_.end())
            throw Error(dir_ + ": tensor '" + name + "' is missing from " + source_ +
                        " (expected in a " + family_ + " checkpoint)");
        return *it->second;
    }

    // {"metadata": {...}, "weight_map": {"tensor": "model-00001-of-00002.safetensors"}}:
    // each shard opened once; each listed tensor must be in the shard named for it.
    void open_index(const fs::path& index) {
        const std::string path = index.string();
        const json j = read_json_file(path);
        if (!j.is_object() || !j.contains("weight_map") || !j.at("weight_map").is_object())
            throw Error(path + " has no \"weight_map\" object mapping tensor names to shard files");
        std::map<std::string, const SafetensorsFile*> shards;
        for (const auto& [name, value] : j.at("weight_map").items()) {
            if (!value.is_string())
                throw Error(path + ": weight_map entry for '" + name +
                            "' is not a file name (got " + value.dump() + ")");
            const std::string shard = value.get<std::string>();
            if (shard.empty() || shard.find('/') != std::string::npos ||
                shard.find('\\') != std::string::npos || shard == "." || shard == "..")
                throw Error(path + ": weight_map entry for '" + name + "' names \"" + shard +
                            "\", which is not a file name inside the directory");
            auto it = shards.find(shard);
            if (it == shards.end()) {
                const fs::path shard_path = fs::path(dir_) / shard;
                std::error_code ec;
                if (!fs::is_regular_file(shard_path, ec))
                    throw Error(path + " lists shard " + shard + " (for tensor '" + name +
                                "'), but " + shard_path.string() + " does not exist");
                files_.push_back(SafetensorsFile::open(shard_path.string()));
                it = shards.emplace(shard, files_.back().get()).first;
            }
            if (!it->second->has(name))
                throw Error(path + " puts tensor '" + name + "' in " + shard +
                            ", but that shard has no such tensor");
            where_[name] = it->second;
        }
    }

    std::string dir_, family_, source_;
    std::vector<std::shared_ptr<SafetensorsFile>> files_;
    std::map<std::string, const SafetensorsFile*> where_;
    std::set<std::string> dtypes_;
};

void report(const ProgressFn& progress, int done, int total) {
    if (progress && !progress(done, total)) throw Cancelled{};
}

// [W_q; W_k; W_v]: (Q + 2·KV, D) stacked into one in_proj_weight (and the biases
// likewise) — the fused projection multi_head_attention runs.
Matrix stack_rows(const Matrix& a, const Matrix& b, const Matrix& c) {
    Matrix out(a.rows() + b.rows() + c.rows(), a.cols());
    out << a, b, c;
    return out;
}
Vector stack(const Vector& a, const Vector& b, const Vector& c) {
    Vector out(a.size() + b.size() + c.size());
    out << a, b, c;
    return out;
}

// A feed-forward of two nn.Linear layers with biases: up (F, D) then down (D, F), under
// `up` and `down` (".weight" / ".bias" appended).
FeedForwardWeights linear_mlp(TensorStore& t, const std::string& up, const std::string& down, std::int64_t F,
                              std::int64_t D) {
    FeedForwardWeights f;
    f.linear1_weight = t.matrix(up + ".weight", F, D);
    f.linear1_bias = t.vector(up + ".bias", F);
    f.linear2_weight = t.matrix(down + ".weight", D, F);
    f.linear2_bias = t.vector(down + ".bias", D);
    return f;
}

// ---------------------------------------------------------------------------------------
// GPT-2
// ---------------------------------------------------------------------------------------

ModelWeights load_gpt2(TensorStore& t, const ModelConfig& c, const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab, P = c.max_len;
    const std::string p = t.has("transformer.wte.weight") ? "transformer." : "";
    ModelWeights w;
    w.embed = t.matrix(p + "wte.weight", V, D);      // (V, D)
    w.pos_embed = t.matrix(p + "wpe.weight", P, D);  // (P, D)
    for (int il = 0; il < c.layers; ++il) {
        const std::string h = p + "h." + std::to_string(il) + ".";
        EncoderLayerWeights l;
        // Pre-LN: norm1 = ln_1 before attention, norm2 = ln_2 before the MLP.
        l.norm1 = {t.vector(h + "ln_1.weight", D), t.vector(h + "ln_1.bias", D)};
        // c_attn: qkv (T, 3D) = x · W + b with W (D, 3D) = [W_q | W_k | W_v] column blocks,
        // so Wᵀ (3D, D) is in_proj_weight [W_q; W_k; W_v] as (out, in).
        l.self_attn.heads = c.heads;
        l.self_attn.in_proj_weight = t.matrix(h + "attn.c_attn.weight", D, 3 * D).transpose();
        l.self_attn.in_proj_bias = t.vector(h + "attn.c_attn.bias", 3 * D);
        l.self_attn.out_proj_weight = t.matrix(h + "attn.c_proj.weight", D, D).transpose();
        l.self_attn.out_proj_bias = t.vector(h + "attn.c_proj.bias", D);
        l.norm2 = {t.vector(h + "ln_2.weight", D), t.vector(h + "ln_2.bias", D)};
        l.ffn.linear1_weight = t.matrix(h + "mlp.c_fc.weight", D, F).transpose();    // (F, D)
        l.ffn.linear1_bias = t.vector(h + "mlp.c_fc.bias", F);
        l.ffn.linear2_weight = t.matrix(h + "mlp.c_proj.weight", F, D).transpose();  // (D, F)
        l.ffn.linear2_bias = t.vector(h + "mlp.c_proj.bias", D);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    w.final_norm = LayerNormWeights{t.vector(p + "ln_f.weight", D), t.vector(p + "ln_f.bias", D)};
    return w;
}

// ---------------------------------------------------------------------------------------
// BERT
// ---------------------------------------------------------------------------------------

// LayerNorm parameters under the current (.weight/.bias) or legacy (.gamma/.beta) names.
LayerNormWeights load_layer_norm(TensorStore& t, const std::string& base, std::int64_t D) {
    return {t.vector(t.pick({base + ".weight", base + ".gamma"}), D),
            t.vector(t.pick({base + ".bias", base + ".beta"}), D)};
}

ModelWeights load_bert(TensorStore& t, const ModelConfig& c, const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab, P = c.max_len;
    const std::string p = t.has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
    ModelWeights w;
    w.embed = t.matrix(p + "embeddings.word_embeddings.weight", V, D);
    w.pos_embed = t.matrix(p + "embeddings.position_embeddings.weight", P, D);
    w.type_embed = t.matrix(p + "embeddings.token_type_embeddings.weight", c.type_vocab, D);
    w.embed_norm = load_layer_norm(t, p + "embeddings.LayerNorm", D);
    for (int il = 0; il < c.layers; ++il) {
        const std::string e = p + "encoder.layer." + std::to_string(il) + ".";
        EncoderLayerWeights l;
        const std::string a = e + "attention.self.";
        l.self_attn.heads = c.heads;
        l.self_attn.in_proj_weight = stack_rows(t.matrix(a + "query.weight", D, D),
                                                t.matrix(a + "key.weight", D, D),
                                                t.matrix(a + "value.weight", D, D));
        l.self_attn.in_proj_bias = stack(t.vector(a + "query.bias", D), t.vector(a + "key.bias", D),
                                         t.vector(a + "value.bias", D));
        l.self_attn.out_proj_weight = t.matrix(e + "attention.output.dense.weight", D, D);
        l.self_attn.out_proj_bias = t.vector(e + "attention.output.dense.bias", D);
        // Post-LN: norm1 follows the attention residual add, norm2 the MLP's.
        l.norm1 = load_layer_norm(t, e + "attention.output.LayerNorm", D);
        l.ffn = linear_mlp(t, e + "intermediate.dense", e + "output.dense", F, D);
        l.norm2 = load_layer_norm(t, e + "output.LayerNorm", D);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    return w;
}

// ---------------------------------------------------------------------------------------
// GPT-Neo
// ---------------------------------------------------------------------------------------

// nn.Linear throughout (no Conv1D): q/k/v_proj without biases, out_proj and the MLP with.
// Checkpoints may also hold the causal-mask buffers attn.attention.bias / masked_bias,
// which are not weights and are not read.
ModelWeights load_gpt_neo(TensorStore& t, const ModelConfig& c, const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab, P = c.max_len;
    ModelWeights w;
    w.embed = t.matrix("transformer.wte.weight", V, D);
    w.pos_embed = t.matrix("transformer.wpe.weight", P, D);
    for (int il = 0; il < c.layers; ++il) {
        const std::string h = "transformer.h." + std::to_string(il) + ".";
        const std::string a = h + "attn.attention.";
        EncoderLayerWeights l;
        l.norm1 = {t.vector(h + "ln_1.weight", D), t.vector(h + "ln_1.bias", D)};
        l.self_attn.heads = c.heads;
        l.self_attn.in_proj_weight = stack_rows(t.matrix(a + "q_proj.weight", D, D), t.matrix(a + "k_proj.weight", D, D),
                                                t.matrix(a + "v_proj.weight", D, D));
        l.self_attn.out_proj_weight = t.matrix(a + "out_proj.weight", D, D);
        l.self_attn.out_proj_bias = t.vector(a + "out_proj.bias", D);
        l.norm2 = {t.vector(h + "ln_2.weight", D), t.vector(h + "ln_2.bias", D)};
        l.ffn = linear_mlp(t, h + "mlp.c_fc", h + "mlp.c_proj", F, D);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    w.final_norm = LayerNormWeights{t.vector("transformer.ln_f.weight", D), t.vector("transformer.ln_f.bias", D)};
    if (c.lm_head == LmHead::Separate) w.lm_head = t.matrix("lm_head.weight", V, D);
    return w;
}

// ---------------------------------------------------------------------------------------
// GPT-NeoX (Pythia)
// ---------------------------------------------------------------------------------------

// query_key_value (3D, D) holds each head's q, k and v rows together: output row
// h·3·Dh + j·Dh + d is part j (q, k, v) of head h, dim d (HF views the product as
// (T, H, 3·Dh)). Reordered into [W_Q; W_K; W_V], row j·D + h·Dh + d; the bias alike.
template <typename M>
M neox_qkv_to_stacked(const M& fused, int H, int Dh) {
    M out = fused;
    for (int h = 0; h < H; ++h)
        for (int j = 0; j < 3; ++j)
            for (int d = 0; d < Dh; ++d) out.row(j * H * Dh + h * Dh + d) = fused.row(h * 3 * Dh + j * Dh + d);
    return out;
}

ModelWeights load_gpt_neox(TensorStore& t, const ModelConfig& c, const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab;
    const int H = c.heads, Dh = c.d_h();
    ModelWeights w;
    w.embed = t.matrix("gpt_neox.embed_in.weight", V, D);
    for (int il = 0; il < c.layers; ++il) {
        const std::string m = "gpt_neox.layers." + std::to_string(il) + ".";
        EncoderLayerWeights l;
        l.norm1 = {t.vector(m + "input_layernorm.weight", D), t.vector(m + "input_layernorm.bias", D)};
        l.norm2 = {t.vector(m + "post_attention_layernorm.weight", D), t.vector(m + "post_attention_layernorm.bias", D)};
        AttentionWeights& a = l.self_attn;
        a.heads = c.heads;
        a.in_proj_weight = neox_qkv_to_stacked(t.matrix(m + "attention.query_key_value.weight", 3 * D, D), H, Dh);
        a.out_proj_weight = t.matrix(m + "attention.dense.weight", D, D);
        if (c.qkv_bias) {
            const Matrix b = neox_qkv_to_stacked(t.matrix(m + "attention.query_key_value.bias", Shape{3 * D}).transpose().eval(), H, Dh);
            a.in_proj_bias = Eigen::Map<const Vector>(b.data(), 3 * D);
            a.out_proj_bias = t.vector(m + "attention.dense.bias", D);
        }
        l.ffn = linear_mlp(t, m + "mlp.dense_h_to_4h", m + "mlp.dense_4h_to_h", F, D);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    w.final_norm = LayerNormWeights{t.vector("gpt_neox.final_layer_norm.weight", D),
                                    t.vector("gpt_neox.final_layer_norm.bias", D)};
    if (c.lm_head == LmHead::Separate) w.lm_head = t.matrix("embed_out.weight", V, D);
    return w;
}

// ---------------------------------------------------------------------------------------
// Llama / Qwen2 / Qwen3 / Mistral / Phi-3 / Gemma 1–3
// ---------------------------------------------------------------------------------------

ModelWeights load_llama(TensorStore& t, const ModelConfig& c, const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab;
    const std::int64_t Q = c.inner();                                       // H·Dh
    const std::int64_t KV = std::int64_t{c.kv_head_count()} * c.d_h();      // Hkv·Dh
    const bool phi3 = c.family == "phi3";                                   // fused q/k/v and gate/up
    ModelWeights w;
    w.embed = t.matrix("model.embed_tokens.weight", V, D);
    for (int il = 0; il < c.layers; ++il) {
        const std::string m = "model.layers." + std::to_string(il) + ".";
        EncoderLayerWeights l;
        l.norm1 = {t.vector(m + "input_layernorm.weight", D), Vector()};  // RMSNorm: γ only
        AttentionWeights& a = l.self_attn;
        a.heads = c.heads;
        a.kv_heads = c.kv_heads;
        a.in_proj_weight = phi3 ? t.matrix(m + "self_attn.qkv_proj.weight", Q + 2 * KV, D)  // [q; k; v] as stored
                                : stack_rows(t.matrix(m + "self_attn.q_proj.weight", Q, D),
                                             t.matrix(m + "self_attn.k_proj.weight", KV, D),
                                             t.matrix(m + "self_attn.v_proj.weight", KV, D));
        if (c.qkv_bias)
            a.in_proj_bias = stack(t.vector(m + "self_attn.q_proj.bias", Q),
                                   t.vector(m + "self_attn.k_proj.bias", KV),
                                   t.vector(m + "self_attn.v_proj.bias", KV));
        if (c.qk_norm) {  // Qwen3: RMSNorm γ of head_dim for every head's q and k
            a.q_norm = t.vector(m + "self_attn.q_norm.weight", c.d_h());
            a.k_norm = t.vector(m + "self_attn.k_norm.weight", c.d_h());
        }
        a.out_proj_weight = t.matrix(m + "self_attn.o_proj.weight", D, Q);
        if (c.out_bias) a.out_proj_bias = t.vector(m + "self_attn.o_proj.bias", D);
        if (c.sandwich_norm) {  // Gemma 2/3: post_attention_layernorm is the attention's output norm
            l.post_attn_norm = LayerNormWeights{t.vector(m + "post_attention_layernorm.weight", D), Vector()};
            l.norm2 = {t.vector(m + "pre_feedforward_layernorm.weight", D), Vector()};
            l.post_ffn_norm = LayerNormWeights{t.vector(m + "post_feedforward_layernorm.weight", D), Vector()};
        } else {
            l.norm2 = {t.vector(m + "post_attention_layernorm.weight", D), Vector()};
        }
        // SwiGLU (Gemma: GeGLU): down(act(gate(x)) ⊙ up(x)) with up = linear1, down = linear2.
        if (phi3) {  // gate_up_proj: (2F, D) = [gate; up]
            const Matrix gate_up = t.matrix(m + "mlp.gate_up_proj.weight", 2 * F, D);
            l.ffn.gate_weight = gate_up.topRows(F);
            l.ffn.linear1_weight = gate_up.bottomRows(F);
        } else {
            l.ffn.gate_weight = t.matrix(m + "mlp.gate_proj.weight", F, D);
            l.ffn.linear1_weight = t.matrix(m + "mlp.up_proj.weight", F, D);
        }
        l.ffn.linear2_weight = t.matrix(m + "mlp.down_proj.weight", D, F);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    w.final_norm = LayerNormWeights{t.vector("model.norm.weight", D), Vector()};
    if (c.lm_head == LmHead::Separate) w.lm_head = t.matrix("lm_head.weight", V, D);
    if (c.family.starts_with("gemma")) {  // GemmaRMSNorm scales by (1 + w): γ = 1 + the stored w
        for (EncoderLayerWeights& l : w.layers) {
            for (LayerNormWeights* n : {&l.norm1, &l.norm2}) n->weight.array() += 1.0f;
            for (auto* n : {&l.post_attn_norm, &l.post_ffn_norm})
                if (*n) (*n)->weight.array() += 1.0f;
            for (Vector* g : {&l.self_attn.q_norm, &l.self_attn.k_norm}) g->array() += 1.0f;  // Gemma 3 (empty: none)
        }
        w.final_norm->weight.array() += 1.0f;
    }
    return w;
}

}  // namespace

Model load_hf_model(const std::string& dir, const ProgressFn& progress) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir + " is not a directory");
    const ModelConfig c = load_hf_config(dir).config;
    WeightFootprint footprint;
    footprint.params = approximate_parameter_count(c);
    (void)plan_weight_residency(footprint, available_memory_bytes(), false, "the model in " + dir);
    TensorStore tensors(dir, c.family);
    ModelWeights weights;
    if (c.family == "gpt2")
        weights = load_gpt2(tensors, c, progress);
    else if (c.family == "bert")
        weights = load_bert(tensors, c, progress);
    else if (c.family == "gpt_neo")
        weights = load_gpt_neo(tensors, c, progress);
    else if (c.family == "gpt_neox")
        weights = load_gpt_neox(tensors, c, progress);
    else
        weights = load_llama(tensors, c, progress);
    std::string name = fs::path(dir).lexically_normal().string();
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    Model model(c, std::move(weights), std::move(name));
    model.set_stored_dtype(tensors.dtype());
    return model;
}

}  // namespace hs
