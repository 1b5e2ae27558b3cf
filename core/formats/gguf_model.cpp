#include "core/formats/gguf_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/formats/gguf.h"
#include "core/formats/gguf_layer_source.h"
#include "core/formats/gguf_bert.h"
#include "core/formats/gguf_layernorm_models.h"
#include "core/formats/gguf_tensor_reader.h"
#include "core/io/memory_budget.h"
#include "core/model/config_summary.h"

namespace hs {

namespace {

// What each llama-shaped architecture adds to the llama block (the shared key and tensor names).
struct LlamaTraits {
    const char* name;
    bool qkv_bias;           // attn_q/k/v.bias tensors
    RopeLayout rope_layout;  // llama.cpp's rope mode: "normal" adjacent pairs, or NEOX halves
    bool qk_norm;            // attn_q_norm / attn_k_norm tensors (Dh): RMSNorm of each head's q, k
    // Gemma: GeGLU for SwiGLU and token embeddings × √d_model (llama.cpp's converter stores
    // Gemma's RMSNorm weights as 1 + w already); sandwich: Gemma 2/3's post_attention_norm
    // and post_ffw_norm tensors.
    bool gemma = false, sandwich = false;
    // Phi-3: [q; k; v] in one attn_qkv tensor (or three, as llama), [gate; up] in one
    // ffn_up of 2F rows, a sliding window (attention.sliding_window) in every layer.
    bool phi3 = false;
};
constexpr LlamaTraits kLlamaShaped[] = {
    {"llama", false, RopeLayout::Interleaved, false},
    {"qwen2", true, RopeLayout::RotateHalf, false},
    {"qwen3", false, RopeLayout::RotateHalf, true},
    {"gemma", false, RopeLayout::RotateHalf, false, true},
    {"gemma2", false, RopeLayout::RotateHalf, false, true, true},
    {"gemma3", false, RopeLayout::RotateHalf, true, true, true},
    {"phi3", false, RopeLayout::RotateHalf, false, false, false, true},
};

// "Q8_0 ×16, F32 ×5": the stored types of the tensors, most frequent first.
std::string stored_types_summary(const GgufFile& file) {
    std::vector<std::pair<std::string, int>> counts;
    for (const GgufTensor& t : file.tensors()) {
        const std::string name = stored_type_info(t.type).name;
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
        if (it == counts.end()) counts.emplace_back(name, 1);
        else ++it->second;
    }
    std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (const auto& [name, n] : counts) out += (out.empty() ? "" : ", ") + name + " ×" + std::to_string(n);
    return out.empty() ? "no tensors" : out;
}


}  // namespace

std::string describe_gguf(const GgufFile& file) {
    std::ostringstream out;
    const std::string name = file.string("general.name", "");
    out << "model:      " << file.path() << " (GGUF v" << file.version() << ", "
        << file.string("general.architecture", "no architecture") << (name.empty() ? "" : ": " + name) << ")\n";
    std::string tokenizer = "none in the file";
    int tokenizer_vocab = -1;
    if (file.has("tokenizer.ggml.model")) {
        const std::string kind = file.string("tokenizer.ggml.model");
        tokenizer_vocab = file.has("tokenizer.ggml.tokens") ? static_cast<int>(file.strings("tokenizer.ggml.tokens").size()) : 0;
        tokenizer = kind + (kind == "llama" ? " (SentencePiece BPE)" : kind == "gpt2" ? " (byte-level BPE)" : kind == "bert" ? " (WordPiece)" : "") + ", " +
                    std::to_string(tokenizer_vocab) + " tokens";
    }
    int layers = 0;
    if (!file.tensors().empty()) {
        try {
            const ModelConfig c = gguf_config(file);
            layers = c.layers;
            out << describe_architecture(c, tokenizer_vocab);
        } catch (const Error& e) {  // the header is still worth reading
            out << "opens:      no — " << e.what() << "\n";
        }
    }
    std::uint64_t stored = 0;
    long long params = 0;
    for (const GgufTensor& t : file.tensors()) {
        stored += t.bytes;
        params += t.numel();
    }
    out << "tokenizer:  " << tokenizer << "\n"
        << "tensors:    " << file.tensors().size() << " (" << stored_types_summary(file) << ")\n"
        << "parameters: " << params << "\n"
        << "on disk:    " << memory_text(static_cast<double>(stored)) << " of weights as stored\n"
        << describe_memory_plan(gguf_footprint(file, layers), available_memory_bytes(), layers > 0);
    return out.str();
}

namespace {

// Gemma 2 and 3: every other layer (Gemma 2, from layer 0) or five in six (Gemma 3,
// sliding_window_pattern) local with attention.sliding_window keys (4096, their Hugging
// Face configs' default, when absent); scores × 1/√key_length, or × 1/√(d_model / heads) in
// the 27B models (46 and 62 layers), as llama.cpp scales them (the file does not store
// query_pre_attn_scalar; this is what the 27B configs say); soft-caps when stored (Gemma
// 2's default 50 and 30); Gemma 3's local layers turn with base 10000.
void read_gguf_gemma2_and_3(const GgufFile& file, const std::string& arch, ModelConfig& c) {
    const std::string p = arch + ".";
    const bool gemma2 = arch == "gemma2";
    c.sandwich_norm = true;
    c.window = gguf_dimension(file, p + "attention.sliding_window", 4096);
    const int pattern = gemma2 ? 2 : gguf_dimension(file, p + "attention.sliding_window_pattern", 6);
    c.window_layers = window_pattern_of(layer_kinds_every_nth_global(std::min(c.layers, pattern), pattern));
    const bool big = c.layers == (gemma2 ? 46 : 62);
    c.attn_scale = 1.0f / std::sqrt(static_cast<float>(big ? c.d_model / c.heads : c.d_h()));
    const auto cap = [&](const char* key, double fallback) {
        return file.has(p + key) || fallback > 0.0 ? gguf_positive_number(file, p + key, fallback) : 0.0f;
    };
    c.attn_softcap = cap("attn_logit_softcapping", gemma2 ? 50.0 : 0.0);
    c.logit_softcap = cap("final_logit_softcapping", gemma2 ? 30.0 : 0.0);
    if (!gemma2) c.rope_local_theta = 10000.0f;
}

// Linear rope scaling as llama.cpp reads it: every θ_i divided by rope.scaling.factor (or
// the older rope.scale_linear) whether rope.scaling.type says linear, none or nothing
// (Gemma 3's global layers: 8); the other types (yarn, longrope, …) are refused by name.
void read_rope_scaling(const GgufFile& file, const std::string& p, ModelConfig& c) {
    const std::string type = file.string(p + "rope.scaling.type", "linear");
    if (type != "linear" && type != "none")
        throw Error(file.path() + ": " + p + "rope.scaling.type '" + type + "' (rope scaling) is not supported yet");
    const float factor = gguf_positive_number(file, p + "rope.scaling.factor",
                                              file.number(p + "rope.scale_linear", 1.0));
    if (factor != 1.0f) c.rope_freq_divisors.assign(static_cast<std::size_t>(c.rotary_dim_count() / 2), factor);
}

// The llama-shaped architectures (kLlamaShaped): RMSNorm, rotary positions, gated feed-forward.
ModelConfig llama_like_config(const GgufFile& file, const std::string& arch) {
    const auto* it = std::find_if(std::begin(kLlamaShaped), std::end(kLlamaShaped),
                                  [&](const LlamaTraits& t) { return arch == t.name; });
    if (it == std::end(kLlamaShaped)) throw Error("GGUF architecture '" + arch + "' is not llama-shaped");
    const LlamaTraits& traits = *it;
    const std::string p = arch + ".";
    ModelConfig c = gguf_decoder_config(file, arch);
    const int kv = gguf_dimension(file, p + "attention.head_count_kv", c.heads);
    if (c.heads % kv != 0)
        throw Error(file.path() + ": " + std::to_string(c.heads) + " query heads cannot share " +
                    std::to_string(kv) + " key/value heads evenly");
    c.kv_heads = kv == c.heads ? 0 : kv;
    const int key_length = gguf_dimension(file, p + "attention.key_length", c.heads > 0 ? c.d_model / c.heads : 1);
    if (gguf_dimension(file, p + "attention.value_length", key_length) != key_length)
        throw Error(file.path() + ": attention.value_length differs from attention.key_length (not supported)");
    if (key_length * c.heads != c.d_model || c.d_model % c.heads != 0) c.head_dim = key_length;
    c.rotary_dims = read_gguf_rotary_dims(file, p, c.d_h());  // partial rotary: Phi-4-mini
    c.norm = NormPlacement::PreLN;
    c.norm_kind = NormKind::RMSNorm;
    c.norm_eps = static_cast<float>(file.number(p + "attention.layer_norm_rms_epsilon", 1e-5));
    c.activation = traits.gemma ? Activation::GeGLU : Activation::SwiGLU;
    c.embed_scale = traits.gemma;
    c.pe = PosEncoding::Rotary;
    c.rope_layout = traits.rope_layout;
    c.rope_theta = static_cast<float>(file.number(p + "rope.freq_base", 10000.0));
    read_rope_scaling(file, p, c);
    c.qkv_bias = traits.qkv_bias;
    c.out_bias = c.mlp_bias = false;
    c.qk_norm = traits.qk_norm;
    if (traits.sandwich) read_gguf_gemma2_and_3(file, arch, c);
    // Phi-3's window in every layer, as Hugging Face runs it (llama.cpp ignores it since 2025;
    // the two differ only past it: 2047 tokens in Phi-3-mini-4k)
    if (traits.phi3 && file.has(p + "attention.sliding_window"))
        c.window = gguf_dimension(file, p + "attention.sliding_window");
    return c;
}

// RMSNorm γ of D from `name` into norm.
void rms_norm_into(GgufTensorReader& r, const std::string& name, Eigen::Index D, LayerNormWeights& norm) {
    r.vector_into(name, D, norm.weight);
}

// The norm an optional holds, made first when it holds none (Gemma's sandwich norms).
LayerNormWeights& emplaced(std::optional<LayerNormWeights>& norm) { return norm ? *norm : norm.emplace(); }

void llama_like_outside(const ModelConfig& c, GgufTensorReader& r, ModelWeights& w) {
    const Eigen::Index D = c.d_model, V = c.vocab;
    r.matrix_into("token_embd.weight", V, D, w.embed);
    w.final_norm = LayerNormWeights{r.vector("output_norm.weight", D), Vector()};
    if (c.lm_head == LmHead::Separate) r.matrix_into("output.weight", V, D, w.lm_head);
}

void llama_like_layer(const ModelConfig& c, GgufTensorReader& r, int il, EncoderLayerWeights& l) {
    const Eigen::Index D = c.d_model, F = c.d_ff, I = c.inner(),
                       Ikv = static_cast<Eigen::Index>(c.kv_head_count()) * c.d_h();
    const std::string b = "blk." + std::to_string(il) + ".";
    rms_norm_into(r, b + "attn_norm.weight", D, l.norm1);
    AttentionWeights& a = l.self_attn;
    a.heads = c.heads;
    a.kv_heads = c.kv_heads;
    read_gguf_qkv(r, b, I, Ikv, D, a.in_proj_weight);  // rows [W_Q; W_K; W_V]
    if (c.qkv_bias) read_gguf_qkv_bias(r, b, I, Ikv, a.in_proj_bias);
    if (c.qk_norm) {
        r.vector_into(b + "attn_q_norm.weight", c.d_h(), a.q_norm);
        r.vector_into(b + "attn_k_norm.weight", c.d_h(), a.k_norm);
    }
    r.matrix_into(b + "attn_output.weight", D, I, a.out_proj_weight);
    if (c.sandwich_norm) rms_norm_into(r, b + "post_attention_norm.weight", D, emplaced(l.post_attn_norm));
    rms_norm_into(r, b + "ffn_norm.weight", D, l.norm2);
    if (c.sandwich_norm) rms_norm_into(r, b + "post_ffw_norm.weight", D, emplaced(l.post_ffn_norm));
    if (c.family == "phi3") {  // ffn_up: (2F, D) = [gate; up]
        const GgufTensor& gate_up = r.expect_matrix(b + "ffn_up.weight", 2 * F, D);  // before the halves are allocated
        r.shape_into(l.ffn.gate_weight, F, D);
        r.shape_into(l.ffn.linear1_weight, F, D);
        r.rows_into(gate_up, 0, F, l.ffn.gate_weight, 0);
        r.rows_into(gate_up, F, F, l.ffn.linear1_weight, 0);
    } else {
        r.matrix_into(b + "ffn_gate.weight", F, D, l.ffn.gate_weight);   // silu(gate x), Gemma gelu_tanh
        r.matrix_into(b + "ffn_up.weight", F, D, l.ffn.linear1_weight);  // ⊙ up x
    }
    r.matrix_into(b + "ffn_down.weight", D, F, l.ffn.linear2_weight);   // down
}

// Every architecture HeadScope opens: how its config and its weights are read.
// The readers take a GgufTensorReader, which checks each tensor's shape and records it as
// used: `outside` reads every weight but the layers, `layer` one layer's.
struct GgufArchitecture {
    const char* name;
    ModelConfig (*config)(const GgufFile& file, const std::string& arch);
    void (*outside)(const ModelConfig& c, GgufTensorReader& r, ModelWeights& w);
    GgufLayerReader layer;
};
constexpr GgufArchitecture kArchitectures[] = {
    {"llama", llama_like_config, llama_like_outside, llama_like_layer},
    {"qwen2", llama_like_config, llama_like_outside, llama_like_layer},
    {"qwen3", llama_like_config, llama_like_outside, llama_like_layer},
    {"gemma", llama_like_config, llama_like_outside, llama_like_layer},
    {"gemma2", llama_like_config, llama_like_outside, llama_like_layer},
    {"gemma3", llama_like_config, llama_like_outside, llama_like_layer},
    {"phi3", llama_like_config, llama_like_outside, llama_like_layer},
    {"gpt2", gguf_layernorm_config, gguf_layernorm_outside, gguf_layernorm_layer},
    {"gptneox", gguf_layernorm_config, gguf_layernorm_outside, gguf_layernorm_layer},
    {"bert", gguf_bert_config, gguf_bert_outside, gguf_bert_layer},
};

const GgufArchitecture& architecture_of(const GgufFile& file, const std::string& arch) {
    for (const GgufArchitecture& a : kArchitectures)
        if (arch == a.name) return a;
    std::string names;
    for (const GgufArchitecture& a : kArchitectures) names += (names.empty() ? "" : ", ") + std::string(a.name);
    throw Error(file.path() + " holds a '" + arch + "' model; HeadScope opens GGUF architectures " + names + " so far");
}

}  // namespace

ModelConfig gguf_config(const GgufFile& file) {
    const std::string arch = file.string("general.architecture");
    ModelConfig c = architecture_of(file, arch).config(file, arch);
    read_gguf_vocab_and_head(file, arch, c);
    if (const std::vector<std::string> problems = validate(c); !problems.empty())
        throw Error(file.path() + ": " + problems.front());
    return c;
}

Model gguf_model(const std::shared_ptr<const GgufFile>& file, const ProgressFn& progress,
                 std::optional<WeightResidency> residency) {
    ModelConfig c = gguf_config(*file);
    const std::string what = "GGUF file '" + file->path() + "'";
    const WeightFootprint footprint = gguf_footprint(*file, c.layers);
    if (!residency) residency = plan_weight_residency(footprint, available_memory_bytes(), true, what);
    GgufTensorReader r(*file);
    if (r.has("rope_freqs.weight")) {  // Llama-3.1 rope scaling: θ_i / rope_freqs[i]
        const Vector divisors = r.vector("rope_freqs.weight", c.rotary_dim_count() / 2);
        c.rope_freq_divisors.assign(divisors.data(), divisors.data() + divisors.size());
        if (const std::vector<std::string> problems = validate(c); !problems.empty())
            throw Error(file->path() + ": tensor 'rope_freqs.weight': " + problems.front());
    }
    const GgufArchitecture& arch = architecture_of(*file, c.family);
    ModelWeights w;
    // Every value checked finite as it is read (GgufFile::read_rows); read layer by layer,
    // the embedding and the head are left in the file (checked, not converted).
    std::unique_ptr<StoredLayer> outside =
        read_outside_layers(*residency == WeightResidency::PerLayer, r, w,
                            [&](GgufTensorReader& reader, ModelWeights& into) { arch.outside(c, reader, into); });
    const auto report = [&](int done) {
        if (progress && !progress(done, c.layers)) throw Cancelled{};
    };
    if (*residency == WeightResidency::PerLayer) {
        // layer 0 read now (its shapes and values checked), the others' tensors checked
        // against it; each read again as the forward reaches it
        EncoderLayerWeights first;
        arch.layer(c, r, 0, first);
        report(1);
        check_layers_like_first(*file, r, c.layers, progress);
        r.require_all_used();
        auto layers = gguf_layer_source(file, c, arch.layer, footprint, std::move(outside));
        Model model(std::move(c), std::move(w), std::move(layers), file->path());
        model.set_stored_dtype(stored_types_summary(*file) + " in GGUF, read one layer at a time");
        return model;
    }
    for (int il = 0; il < c.layers; ++il) {
        arch.layer(c, r, il, w.layers.emplace_back());
        report(il + 1);
    }
    r.require_all_used();
    Model model(std::move(c), std::move(w), file->path());
    model.set_stored_dtype(stored_types_summary(*file) + " in GGUF");
    return model;
}

GgufCheckpoint load_gguf(const std::string& path, const ProgressFn& progress, std::optional<WeightResidency> residency) {
    const auto file = GgufFile::open(path);
    auto tokenizer = gguf_tokenizer(*file);  // cheap: a missing or unknown tokenizer fails first
    Model model = gguf_model(file, progress, residency);
    return GgufCheckpoint{std::move(model), std::move(tokenizer)};
}

}  // namespace hs
