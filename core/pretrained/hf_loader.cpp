// Hugging Face checkpoint directory -> TransformerModel (names and layouts in hf_loader.h).
//
// Shape letters: D d_model, H heads, Hkv key/value heads, Dh head_dim, F d_ff, V vocab,
// P max positions. Every weight ends up (out, in) so y = x·Wᵀ + b, as PyTorch nn.Linear
// stores it; GPT-2's Conv1D stores (in, out) and computes y = x·W + b, so it is transposed.
#include "core/pretrained/hf_loader.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/json_file.h"
#include "core/io/safetensors.h"
#include "core/pretrained/hf_config.h"

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
        return file.matrix(name);
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

// ---------------------------------------------------------------------------------------
// GPT-2
// ---------------------------------------------------------------------------------------
TransformerWeights load_gpt2(TensorStore& t, const TransformerConfig& c,
                             const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab, P = c.max_len;
    const std::string p = t.has("transformer.wte.weight") ? "transformer." : "";
    TransformerWeights w;
    w.tok_embed = t.matrix(p + "wte.weight", V, D);  // (V, D)
    w.pos_embed = t.matrix(p + "wpe.weight", P, D);  // (P, D)
    for (int il = 0; il < c.layers; ++il) {
        const std::string h = p + "h." + std::to_string(il) + ".";
        TransformerLayerWeights l;
        l.attn_norm_w = t.vector(h + "ln_1.weight", D);
        l.attn_norm_b = t.vector(h + "ln_1.bias", D);
        // c_attn: qkv (T, 3D) = x · W + b with W (D, 3D) = [W_q | W_k | W_v] column blocks;
        // as (out, in): wq = W[:, 0:D]ᵀ, wk = W[:, D:2D]ᵀ, wv = W[:, 2D:3D]ᵀ.
        const Matrix c_attn = t.matrix(h + "attn.c_attn.weight", D, 3 * D);
        const Vector c_attn_b = t.vector(h + "attn.c_attn.bias", 3 * D);
        l.wq = c_attn.middleCols(0, D).transpose();
        l.wk = c_attn.middleCols(D, D).transpose();
        l.wv = c_attn.middleCols(2 * D, D).transpose();
        l.bq = c_attn_b.segment(0, D);
        l.bk = c_attn_b.segment(D, D);
        l.bv = c_attn_b.segment(2 * D, D);
        l.wo = t.matrix(h + "attn.c_proj.weight", D, D).transpose();  // (in D, out D)ᵀ
        l.bo = t.vector(h + "attn.c_proj.bias", D);
        l.mlp_norm_w = t.vector(h + "ln_2.weight", D);
        l.mlp_norm_b = t.vector(h + "ln_2.bias", D);
        l.w_up = t.matrix(h + "mlp.c_fc.weight", D, F).transpose();     // (F, D)
        l.b_up = t.vector(h + "mlp.c_fc.bias", F);
        l.w_down = t.matrix(h + "mlp.c_proj.weight", F, D).transpose(); // (D, F)
        l.b_down = t.vector(h + "mlp.c_proj.bias", D);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    w.final_norm_w = t.vector(p + "ln_f.weight", D);
    w.final_norm_b = t.vector(p + "ln_f.bias", D);
    return w;
}

// ---------------------------------------------------------------------------------------
// BERT
// ---------------------------------------------------------------------------------------
// LayerNorm parameters under the current (.weight/.bias) or legacy (.gamma/.beta) names.
void load_layer_norm(TensorStore& t, const std::string& base, std::int64_t D, Vector& weight,
                     Vector& bias) {
    weight = t.vector(t.pick({base + ".weight", base + ".gamma"}), D);
    bias = t.vector(t.pick({base + ".bias", base + ".beta"}), D);
}

TransformerWeights load_bert(TensorStore& t, const TransformerConfig& c,
                             const ProgressFn& progress) {
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab, P = c.max_len;
    const std::string p = t.has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
    TransformerWeights w;
    w.tok_embed = t.matrix(p + "embeddings.word_embeddings.weight", V, D);
    w.pos_embed = t.matrix(p + "embeddings.position_embeddings.weight", P, D);
    w.type_embed = t.matrix(p + "embeddings.token_type_embeddings.weight", c.type_vocab, D);
    load_layer_norm(t, p + "embeddings.LayerNorm", D, w.emb_norm_w, w.emb_norm_b);
    for (int il = 0; il < c.layers; ++il) {
        const std::string e = p + "encoder.layer." + std::to_string(il) + ".";
        TransformerLayerWeights l;
        l.wq = t.matrix(e + "attention.self.query.weight", D, D);
        l.bq = t.vector(e + "attention.self.query.bias", D);
        l.wk = t.matrix(e + "attention.self.key.weight", D, D);
        l.bk = t.vector(e + "attention.self.key.bias", D);
        l.wv = t.matrix(e + "attention.self.value.weight", D, D);
        l.bv = t.vector(e + "attention.self.value.bias", D);
        l.wo = t.matrix(e + "attention.output.dense.weight", D, D);
        l.bo = t.vector(e + "attention.output.dense.bias", D);
        // Post-LN: attn_norm follows the attention residual add, mlp_norm the MLP's.
        load_layer_norm(t, e + "attention.output.LayerNorm", D, l.attn_norm_w, l.attn_norm_b);
        l.w_up = t.matrix(e + "intermediate.dense.weight", F, D);
        l.b_up = t.vector(e + "intermediate.dense.bias", F);
        l.w_down = t.matrix(e + "output.dense.weight", D, F);
        l.b_down = t.vector(e + "output.dense.bias", D);
        load_layer_norm(t, e + "output.LayerNorm", D, l.mlp_norm_w, l.mlp_norm_b);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    return w;
}

// ---------------------------------------------------------------------------------------
// Llama / Qwen2
// ---------------------------------------------------------------------------------------
TransformerWeights load_llama(TensorStore& t, const HfConfig& hf, const ProgressFn& progress) {
    const TransformerConfig& c = hf.transformer;
    const std::int64_t D = c.d_model, F = c.d_ff, V = c.vocab;
    const std::int64_t Q = std::int64_t{c.heads} * c.head_dim;      // H·Dh
    const std::int64_t KV = std::int64_t{c.kv_heads} * c.head_dim;  // Hkv·Dh
    TransformerWeights w;
    w.tok_embed = t.matrix("model.embed_tokens.weight", V, D);
    for (int il = 0; il < c.layers; ++il) {
        const std::string m = "model.layers." + std::to_string(il) + ".";
        TransformerLayerWeights l;
        l.attn_norm_w = t.vector(m + "input_layernorm.weight", D);
        l.wq = t.matrix(m + "self_attn.q_proj.weight", Q, D);
        l.wk = t.matrix(m + "self_attn.k_proj.weight", KV, D);
        l.wv = t.matrix(m + "self_attn.v_proj.weight", KV, D);
        if (hf.qkv_bias) {
            l.bq = t.vector(m + "self_attn.q_proj.bias", Q);
            l.bk = t.vector(m + "self_attn.k_proj.bias", KV);
            l.bv = t.vector(m + "self_attn.v_proj.bias", KV);
        }
        l.wo = t.matrix(m + "self_attn.o_proj.weight", D, Q);
        if (hf.out_bias) l.bo = t.vector(m + "self_attn.o_proj.bias", D);
        l.mlp_norm_w = t.vector(m + "post_attention_layernorm.weight", D);
        l.w_gate = t.matrix(m + "mlp.gate_proj.weight", F, D);
        l.w_up = t.matrix(m + "mlp.up_proj.weight", F, D);
        l.w_down = t.matrix(m + "mlp.down_proj.weight", D, F);
        w.layers.push_back(std::move(l));
        report(progress, il + 1, c.layers);
    }
    w.final_norm_w = t.vector("model.norm.weight", D);
    if (!c.tied_lm_head) w.lm_head = t.matrix("lm_head.weight", V, D);
    return w;
}

}  // namespace

TransformerModel load_hf_model(const std::string& dir, const ProgressFn& progress) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir + " is not a directory");
    HfConfig hf = load_hf_config(dir);
    TransformerConfig& c = hf.transformer;
    TensorStore tensors(dir, c.family);
    TransformerWeights weights;
    if (c.family == "gpt2")
        weights = load_gpt2(tensors, c, progress);
    else if (c.family == "bert")
        weights = load_bert(tensors, c, progress);
    else
        weights = load_llama(tensors, hf, progress);
    c.dtype = tensors.dtype();
    std::string name = fs::path(dir).lexically_normal().string();
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    return TransformerModel(std::move(c), std::move(weights), std::move(name));
}

}  // namespace hs
