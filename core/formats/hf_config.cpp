// config.json of a Hugging Face checkpoint -> ModelConfig.
//
// Key names and defaults follow the HF configuration classes (GPT2Config, BertConfig,
// GPTNeoConfig, GPTNeoXConfig, GemmaConfig, LlamaConfig, MistralConfig, Phi3Config, Qwen2Config, Qwen3Config). Keys that fix tensor shapes are required, so a truncated
// config fails here with the key's name instead of later as a puzzling shape mismatch;
// numerical details (eps, theta, activation) fall back to the HF defaults.
#include "core/formats/hf_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/json_file.h"
#include "core/model/rope.h"

namespace hs {

namespace {

using nlohmann::json;

// Reads keys of one config object, naming the file and the model_type in every error.
class Keys {
public:
    Keys(const json& j, std::string where, std::string model_type)
        : j_(j), where_(std::move(where)), type_(std::move(model_type)) {}

    bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
    std::string dump(const char* key) const { return has(key) ? j_.at(key).dump() : "null"; }

    int required_int(const char* key) const {
        if (!has(key))
            throw Error(where_ + " is missing the required key \"" + key + "\" for model_type " +
                        type_);
        return positive_int(key);
    }
    int optional_int(const char* key, int fallback) const {
        return has(key) ? positive_int(key) : fallback;
    }
    float optional_float(const char* key, float fallback) const {
        return optional<float>(key, fallback, &json::is_number, "a number");
    }
    bool optional_bool(const char* key, bool fallback) const {
        return optional<bool>(key, fallback, &json::is_boolean, "true or false");
    }
    std::string optional_string(const char* key, const std::string& fallback) const {
        return optional<std::string>(key, fallback, &json::is_string, "a string");
    }
    // The object under `key` (rope_scaling); an error naming the key for anything else.
    const json& object(const char* key) const {
        if (!has(key) || !j_.at(key).is_object())
            throw Error(where_ + ": \"" + key + "\" must be an object (got " + dump(key) + ")");
        return j_.at(key);
    }
    const std::string& where() const { return where_; }
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(where_ + ": " + what);
    }

private:
    // The value of `key` as T, `fallback` when absent or null; any other JSON type is an
    // error naming what the key must be.
    template <typename T>
    T optional(const char* key, T fallback, bool (json::*is_type)() const noexcept,
               const char* must_be) const {
        if (!has(key)) return fallback;
        const json& v = j_.at(key);
        if (!(v.*is_type)())
            throw Error(where_ + ": \"" + key + "\" must be " + must_be + " (got " + v.dump() + ")");
        if constexpr (std::is_floating_point_v<T>) {  // 1e300 for a float: out of range
            const double d = v.get<double>();
            if (!std::isfinite(d) || std::abs(d) > std::numeric_limits<T>::max())
                throw Error(where_ + ": \"" + key + "\" is " + v.dump() + ", out of range");
        }
        return v.get<T>();
    }

    int positive_int(const char* key) const {
        const json& v = j_.at(key);
        if (!v.is_number_integer() || v.get<long long>() <= 0 ||
            v.get<long long>() > (1LL << 30))
            throw Error(where_ + ": \"" + key + "\" must be a positive integer (got " + v.dump() +
                        ")");
        return v.get<int>();
    }

    const json& j_;
    std::string where_;
    std::string type_;
};

void require_divisible(const Keys& k, int d_model, int heads, const char* d_key,
                       const char* h_key) {
    if (d_model % heads != 0)
        k.fail(std::string(d_key) + " " + std::to_string(d_model) + " is not divisible by " +
               h_key + " " + std::to_string(heads));
}

// The key names one family uses for the multi-head shape.
struct MhaKeys {
    const char* d_model;
    const char* heads;
    const char* layers;
};

// d_model, heads, layers and vocab_size (all required), d_model % heads == 0, and the
// plain multi-head layout that follows: every query head has its own K/V head of
// Dh = d_model / heads.
void read_mha_shape(const Keys& k, const MhaKeys& names, ModelConfig& c) {
    c.d_model = k.required_int(names.d_model);
    c.heads = k.required_int(names.heads);
    c.layers = k.required_int(names.layers);
    c.vocab = k.required_int("vocab_size");
    require_divisible(k, c.d_model, c.heads, names.d_model, names.heads);
}

// The GELU a GPT-2, BERT or GPT-NeoX config names under `key`: "gelu" is erf's, the
// tanh approximations (gelu_new, gelu_pytorch_tanh, gelu_fast) are GELUTanh.
Activation read_gelu(const Keys& k, const char* key, const char* fallback) {
    const std::string act = k.optional_string(key, fallback);
    if (act == "gelu") return Activation::GELU;
    if (act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast") return Activation::GELUTanh;
    k.fail(std::string(key) + " \"" + act + "\" is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, gelu_fast)");
}

// GPT-2: x += attn(ln_1(x)); x += mlp(ln_2(x)); ln_f; logits = x · wteᵀ.
HfConfig parse_gpt2(const Keys& k) {
    HfConfig out;
    ModelConfig& c = out.config;
    c.family = "gpt2";
    read_mha_shape(k, {"n_embd", "n_head", "n_layer"}, c);
    c.max_len = k.required_int("n_positions");
    c.d_ff = k.optional_int("n_inner", default_d_ff(c.d_model));
    c.norm_kind = NormKind::LayerNorm;
    c.norm_eps = k.optional_float("layer_norm_epsilon", 1e-5f);
    c.norm = NormPlacement::PreLN;
    c.activation = read_gelu(k, "activation_function", "gelu_new");
    if (!k.optional_bool("scale_attn_weights", true)) c.attn_scale = 1.0f;  // Q·Kᵀ unscaled
    if (k.optional_bool("scale_attn_by_inverse_layer_idx", false))
        k.fail("scale_attn_by_inverse_layer_idx true is not supported");
    c.pe = PosEncoding::Learned;
    c.arch = Arch::DecoderOnly;
    c.mask = MaskKind::Causal;
    c.lm_head = LmHead::Tied;  // GPT2LMHeadModel always ties lm_head to wte
    return out;
}

// BERT: x = LN(word + pos + type₀); per layer x = LN(x + attn(x)); x = LN(x + mlp(x)).
HfConfig parse_bert(const Keys& k) {
    HfConfig out;
    ModelConfig& c = out.config;
    c.family = "bert";
    read_mha_shape(k, {"hidden_size", "num_attention_heads", "num_hidden_layers"}, c);
    c.d_ff = k.required_int("intermediate_size");
    c.max_len = k.required_int("max_position_embeddings");
    c.type_vocab = k.optional_int("type_vocab_size", 2);
    c.norm_kind = NormKind::LayerNorm;
    c.norm_eps = k.optional_float("layer_norm_eps", 1e-12f);
    c.norm = NormPlacement::PostLN;
    c.activation = read_gelu(k, "hidden_act", "gelu");
    const std::string pos = k.optional_string("position_embedding_type", "absolute");
    if (pos != "absolute")
        k.fail("position_embedding_type \"" + pos + "\" is not supported (only \"absolute\")");
    c.pe = PosEncoding::Learned;
    c.arch = Arch::EncoderOnly;
    c.mask = MaskKind::None;
    c.embed_norm = true;
    c.lm_head = LmHead::None;
    return out;
}

// The rotary dims R of each head from the fraction under `key` (GPT-NeoX's rotary_pct,
// Phi-3's partial_rotary_factor; `fallback` when absent): HF's int(Dh · fraction), even and
// at least 2. Returns rotary_dims: R, or 0 when R is all of Dh.
int read_rotary_dims(const Keys& k, const char* key, float fallback, const ModelConfig& c) {
    const float fraction = k.optional_float(key, fallback);
    const int rotary = fraction > 0.0f && fraction <= 1.0f ? static_cast<int>(static_cast<float>(c.d_h()) * fraction) : 0;
    if (rotary < 2 || rotary % 2 != 0)
        k.fail(std::string(key) + " " + k.dump(key) + " gives " + std::to_string(rotary) + " rotary dims of a head of " +
               std::to_string(c.d_h()) + "; they must be even and at least 2");
    return rotary == c.d_h() ? 0 : rotary;
}

// GPT-NeoX (Pythia): per layer x + attn(ln1(x)) + mlp(ln2(x)) (use_parallel_residual, else
// one after the other), LayerNorm with biases, GELU, RoPE on the first rotary_pct of each
// head (rotate-half pairs), untied embed_out.
HfConfig parse_gpt_neox(const Keys& k) {
    HfConfig out;
    ModelConfig& c = out.config;
    c.family = "gpt_neox";
    read_mha_shape(k, {"hidden_size", "num_attention_heads", "num_hidden_layers"}, c);
    c.d_ff = k.required_int("intermediate_size");
    c.max_len = k.optional_int("max_position_embeddings", 2048);
    c.norm_kind = NormKind::LayerNorm;
    c.norm_eps = k.optional_float("layer_norm_eps", 1e-5f);
    c.norm = NormPlacement::PreLN;
    c.parallel_block = k.optional_bool("use_parallel_residual", true);
    c.activation = read_gelu(k, "hidden_act", "gelu");
    c.pe = PosEncoding::Rotary;
    c.rope_layout = RopeLayout::RotateHalf;
    c.rope_theta = k.optional_float("rotary_emb_base", k.optional_float("rope_theta", 10000.0f));
    c.rotary_dims = read_rotary_dims(k, k.has("rotary_pct") ? "rotary_pct" : "partial_rotary_factor", 0.25f, c);
    if (k.has("rope_scaling")) k.fail("rope_scaling " + k.dump("rope_scaling") + " is not supported for gpt_neox");
    c.arch = Arch::DecoderOnly;
    c.mask = MaskKind::Causal;
    c.qkv_bias = c.out_bias = k.optional_bool("attention_bias", true);
    c.mlp_bias = true;
    c.lm_head = k.optional_bool("tie_word_embeddings", false) ? LmHead::Tied : LmHead::Separate;
    return out;
}

// Layer counts the per-layer readers below accept (real models have at most a few hundred
// layers); a hostile count fails here instead of building a pattern of 2³⁰ letters.
constexpr int kMaxPatternLayers = 1024;

void check_pattern_layers(const Keys& k, int layers) {
    if (layers > kMaxPatternLayers)
        k.fail("a model of " + std::to_string(layers) + " layers has more than the " +
               std::to_string(kMaxPatternLayers) + " layers HeadScope reads attention kinds for");
}

// GPT-Neo's layer kinds: attention_types [[["global", "local"], n], …] lists patterns and
// how often each repeats (HF expands it into attention_layers, one per layer, and so do
// we); "global" or "local" per layer, as many as num_layers. One letter per layer.
std::string read_gpt_neo_layers(const Keys& k, const json& types, int layers) {
    check_pattern_layers(k, layers);
    const std::string bad = "attention_types " + types.dump() +
                            " must be a list of [[\"global\" or \"local\", …], repeats]";
    if (!types.is_array()) k.fail(bad);
    long long total = 0;  // Σ pattern length × repeats, counted before anything is expanded
    for (const json& item : types) {
        if (!item.is_array() || item.size() != 2 || !item[0].is_array() || item[0].empty() ||
            !item[1].is_number_integer() || item[1].get<long long>() < 1 ||
            item[1].get<long long>() > kMaxPatternLayers)
            k.fail(bad);
        for (const json& kind : item[0])
            if (!kind.is_string() || (kind != "global" && kind != "local")) k.fail(bad);
        total += static_cast<long long>(item[0].size()) * item[1].get<long long>();
        if (total > kMaxPatternLayers) break;
    }
    if (total != layers)
        k.fail("attention_types gives " + std::to_string(total) + " layers, but num_layers is " + std::to_string(layers));
    std::string kinds;
    for (const json& item : types)
        for (long long r = 0; r < item[1].get<long long>(); ++r)
            for (const json& kind : item[0]) kinds += kind == "local" ? 'L' : 'G';
    return kinds;
}

// GPT-Neo (TinyStories-1M…33M, GPT-Neo 125M…2.7B): x += attn(ln_1(x)); x += mlp(ln_2(x));
// ln_f; logits = x · wteᵀ. Learned positions, unscaled scores (Q·Kᵀ, no 1/√Dh), q/k/v
// without biases; local layers see the window_size keys up to the query, global ones all.
HfConfig parse_gpt_neo(const Keys& k, const json& config) {
    HfConfig out;
    ModelConfig& c = out.config;
    c.family = "gpt_neo";
    read_mha_shape(k, {"hidden_size", "num_heads", "num_layers"}, c);
    c.d_ff = k.optional_int("intermediate_size", default_d_ff(c.d_model));
    c.max_len = k.optional_int("max_position_embeddings", 2048);
    c.norm_kind = NormKind::LayerNorm;
    c.norm_eps = k.optional_float("layer_norm_epsilon", 1e-5f);
    c.norm = NormPlacement::PreLN;
    c.activation = read_gelu(k, "activation_function", "gelu_new");
    c.pe = PosEncoding::Learned;
    c.arch = Arch::DecoderOnly;
    c.mask = MaskKind::Causal;
    c.attn_scale = 1.0f;
    c.qkv_bias = false;
    c.out_bias = c.mlp_bias = true;
    // HF's default attention_types alternates 12 × (global, local): 24 layers, else an error
    static const json kDefaultTypes = json::parse(R"([[["global", "local"], 12]])");
    const std::string kinds =
        read_gpt_neo_layers(k, k.has("attention_types") ? config.at("attention_types") : kDefaultTypes, c.layers);
    if (kinds.find('L') != std::string::npos) {
        c.window = k.optional_int("window_size", 256);
        c.window_layers = window_pattern_of(kinds);
    }
    c.lm_head = k.optional_bool("tie_word_embeddings", true) ? LmHead::Tied : LmHead::Separate;
    return out;
}

// rope_scaling {"rope_type": "llama3", factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings} (Llama 3.1/3.2) as the divisor of each θ_i
// (llama3_rope_divisors), or {"rope_type": "linear", factor} (Gemma 3's global layers:
// every θ_i divided by factor, positions stretched); other kinds are refused by name.
std::vector<float> read_rope_scaling(const Keys& k, const ModelConfig& c) {
    if (c.rotary_dim_count() > kMaxPatternLayers * 64)  // one divisor per pair: no allocation from a typo
        k.fail("head_dim " + std::to_string(c.d_h()) + " is too large for rope_scaling");
    const json& s = k.object("rope_scaling");
    const Keys scaling(s, k.where() + " rope_scaling", "llama");
    const std::string type = scaling.optional_string("rope_type", scaling.optional_string("type", ""));
    if (type == "linear") {
        const float factor = scaling.optional_float("factor", 1.0f);
        if (!(factor >= 1.0f && factor <= 1e6f)) k.fail("rope_scaling " + k.dump("rope_scaling") + " needs factor ≥ 1");
        return std::vector<float>(static_cast<std::size_t>(c.rotary_dim_count() / 2), factor);
    }
    if (type != "llama3")
        k.fail("rope_scaling of type \"" + type + "\" is not supported (only \"llama3\", Llama 3.1's, and \"linear\")");
    Llama3RopeScaling r;
    r.factor = scaling.optional_float("factor", 8.0f);
    r.low_freq_factor = scaling.optional_float("low_freq_factor", 1.0f);
    r.high_freq_factor = scaling.optional_float("high_freq_factor", 4.0f);
    r.original_max_positions = scaling.optional_int("original_max_position_embeddings", 8192);
    if (!(r.factor >= 1.0f) || !(r.low_freq_factor > 0.0f) || !(r.high_freq_factor > r.low_freq_factor))
        k.fail("rope_scaling " + k.dump("rope_scaling") +
               " needs factor ≥ 1 and high_freq_factor > low_freq_factor > 0");
    return llama3_rope_divisors(r, c.d_h(), c.rope_theta);
}

// Which layers attend a sliding window of `sliding_window` keys: those layer_types names
// "sliding_attention" (newer configs list every layer); else Mistral's and Phi-3's every
// layer, Qwen2's and Qwen3's with use_sliding_window the layers from max_window_layers on.
void read_sliding_window(const Keys& k, const json& config, const std::string& type, ModelConfig& c) {
    std::string kinds;  // one letter per layer, L local (the window), G global
    check_pattern_layers(k, c.layers);
    if (k.has("layer_types")) {
        const json& types = config.at("layer_types");
        if (!types.is_array() || static_cast<int>(types.size()) != c.layers)
            k.fail("layer_types " + k.dump("layer_types") + " must list one of \"full_attention\" or "
                   "\"sliding_attention\" for each of the " + std::to_string(c.layers) + " layers");
        for (const json& t : types) {
            if (t != "full_attention" && t != "sliding_attention")
                k.fail("layer_types holds " + t.dump() + " (supported: \"full_attention\", \"sliding_attention\")");
            kinds += t == "sliding_attention" ? 'L' : 'G';
        }
    } else if (type == "mistral" || type == "phi3") {
        kinds = std::string(static_cast<std::size_t>(c.layers), 'L');
    } else if (type == "gemma2" || type == "gemma3_text") {
        // Gemma 2: even layers local (from layer 0); Gemma 3: every sliding_window_pattern-th
        // layer global, the others local ((il + 1) % pattern != 0), 6 by default
        const int pattern = type == "gemma2" ? 2 : k.optional_int("sliding_window_pattern", 6);  // ≥ 1
        kinds = layer_kinds_every_nth_global(c.layers, pattern);
    } else if (k.optional_bool("use_sliding_window", false)) {
        // Qwen2Config / Qwen3Config: max_window_layers 28 unless given (0: every layer)
        const bool zero = k.has("max_window_layers") && config.at("max_window_layers") == 0;
        const int global = zero ? 0 : std::min(c.layers, k.optional_int("max_window_layers", 28));
        kinds = std::string(static_cast<std::size_t>(global), 'G') + std::string(std::size_t(c.layers - global), 'L');
    }
    // Gemma 2/3's configs default to 4096 keys; elsewhere an absent or null window is none
    const bool gemma = type == "gemma2" || type == "gemma3_text";
    if (kinds.find('L') == std::string::npos || (!k.has("sliding_window") && !gemma)) return;
    c.window = k.optional_int("sliding_window", 4096);
    c.window_layers = window_pattern_of(kinds);
}

// A soft-cap of Gemma 2's: `absent_fallback` when the key is absent (0: none), none when it
// is null; a given cap must lie in [0.001, 1e6] (ModelConfig's bounds).
float read_softcap(const Keys& k, const json& config, const char* key, float absent_fallback) {
    if (!config.contains(key)) return absent_fallback;
    if (!k.has(key)) return 0.0f;  // null
    const float cap = k.optional_float(key, 0.0f);
    if (!(cap >= 1e-3f && cap <= 1e6f))
        k.fail(std::string(key) + " " + k.dump(key) + " must be between 0.001 and 1000000 (or null: none)");
    return cap;
}

// What Gemma 2 and Gemma 3 add to Gemma: sandwich norms, scores scaled by
// query_pre_attn_scalar^(−1/2), soft-capped scores and logits (Gemma 2 by default, Gemma 3
// when set); Gemma 3: qk-norm and the local layers' own rope base.
void read_gemma2_and_3(const Keys& k, const json& config, const std::string& type, ModelConfig& c) {
    c.sandwich_norm = true;
    const float scalar = k.optional_float("query_pre_attn_scalar", 256.0f);
    if (!(scalar > 0.0f)) k.fail("query_pre_attn_scalar " + k.dump("query_pre_attn_scalar") + " must be positive");
    c.attn_scale = 1.0f / std::sqrt(scalar);
    const bool gemma2 = type == "gemma2";
    // Gemma 2's defaults are 50 and 30; a null (or, for Gemma 3, absent) cap is none
    c.attn_softcap = read_softcap(k, config, "attn_logit_softcapping", gemma2 ? 50.0f : 0.0f);
    c.logit_softcap = read_softcap(k, config, "final_logit_softcapping", gemma2 ? 30.0f : 0.0f);
    if (gemma2) return;
    c.qk_norm = true;
    c.rope_local_theta = k.optional_float("rope_local_base_freq", 10000.0f);
    if (!(c.rope_local_theta > 1.0f)) k.fail("rope_local_base_freq " + k.dump("rope_local_base_freq") + " must be greater than 1");
}

// Llama / Qwen2 / Qwen3 / Mistral / Phi-3 / Gemma 1–3: x += attn(rms(x)) with RoPE on q, k;
// x += down(silu(gate) ⊙ up)(rms(x)); Gemma: GELU-tanh for silu, embeddings × √D (Gemma 2
// and 3 more: read_gemma2_and_3).
HfConfig parse_llama_like(const Keys& k, const json& config, const std::string& type) {
    HfConfig out;
    ModelConfig& c = out.config;
    c.family = type;
    c.d_model = k.required_int("hidden_size");
    c.heads = k.required_int("num_attention_heads");
    c.layers = k.required_int("num_hidden_layers");
    c.d_ff = k.required_int("intermediate_size");
    c.vocab = k.required_int("vocab_size");
    c.kv_heads = k.optional_int("num_key_value_heads", c.heads);
    if (c.kv_heads == c.heads) c.kv_heads = 0;  // one K/V head per query head
    if (c.kv_heads > 0 && c.heads % c.kv_heads != 0)
        k.fail("num_attention_heads " + std::to_string(c.heads) +
               " is not a multiple of num_key_value_heads " + std::to_string(c.kv_heads));
    if (!k.has("head_dim"))
        require_divisible(k, c.d_model, c.heads, "hidden_size", "num_attention_heads");
    c.head_dim = k.optional_int("head_dim", 0);
    if (c.head_dim == c.d_model / c.heads && c.d_model % c.heads == 0) c.head_dim = 0;  // the usual
    if (c.d_h() % 2 != 0)
        k.fail("head_dim " + std::to_string(c.d_h()) + " is odd; rotary embeddings need it even");
    const bool gemma = type == "gemma" || type == "gemma2" || type == "gemma3_text";
    c.max_len = k.optional_int("max_position_embeddings", type == "qwen2" || type == "qwen3" ? 32768
                                                          : type == "gemma3_text"            ? 131072
                                                          : gemma                            ? 8192
                                                                                             : 2048);
    c.norm_kind = NormKind::RMSNorm;
    c.norm_eps = k.optional_float("rms_norm_eps", 1e-6f);
    c.norm = NormPlacement::PreLN;
    if (gemma) {
        // GeGLU: the gate through GELU-tanh. Gemma's configs name it in hidden_activation
        // (read first, as HF's Gemma code did when it was added) or hidden_act (read by
        // today's); the erf GELU is refused rather than guessed.
        const char* key = k.has("hidden_activation") ? "hidden_activation" : "hidden_act";
        if (read_gelu(k, key, "gelu_pytorch_tanh") != Activation::GELUTanh)
            k.fail(std::string(key) + " " + k.dump(key) + " is not supported for " + type +
                   " (only the tanh GELU: gelu_pytorch_tanh)");
        c.activation = Activation::GeGLU;
        c.embed_scale = true;  // inputs_embeds × √hidden_size
    } else {
        const std::string act = k.optional_string("hidden_act", "silu");
        if (act != "silu")
            k.fail("hidden_act \"" + act + "\" is not supported (only \"silu\", i.e. SwiGLU)");
        c.activation = Activation::SwiGLU;
    }
    c.pe = PosEncoding::Rotary;
    c.rope_layout = RopeLayout::RotateHalf;
    c.rope_theta = k.optional_float("rope_theta", type == "gemma3_text" ? 1e6f : 10000.0f);
    if (k.has("rope_scaling")) c.rope_freq_divisors = read_rope_scaling(k, c);
    read_sliding_window(k, config, type, c);
    if (type == "gemma2" || type == "gemma3_text") read_gemma2_and_3(k, config, type, c);
    if (type == "phi3") c.rotary_dims = read_rotary_dims(k, "partial_rotary_factor", 1.0f, c);  // Phi-4-mini: 3/4
    if (k.optional_bool("mlp_bias", false)) k.fail("mlp_bias true is not supported");
    c.arch = Arch::DecoderOnly;
    c.mask = MaskKind::Causal;
    c.lm_head = k.optional_bool("tie_word_embeddings", gemma) ? LmHead::Tied : LmHead::Separate;
    c.mlp_bias = false;
    if (type == "qwen2") {
        c.qkv_bias = true;
        c.out_bias = false;
    } else if (type == "qwen3") {  // Qwen3: q_norm / k_norm of head_dim on every layer (Gemma 3's above)
        c.qk_norm = true;
        c.qkv_bias = c.out_bias = k.optional_bool("attention_bias", false);
    } else {
        c.qkv_bias = c.out_bias = k.optional_bool("attention_bias", false);
    }
    return out;
}

}  // namespace

const std::vector<std::string>& supported_hf_model_types() {
    static const std::vector<std::string> types = {"gpt2",    "bert",  "gpt_neo", "gpt_neox", "gemma",
                                                   "gemma2",  "gemma3_text", "llama", "mistral",  "phi3",
                                                   "qwen2",   "qwen3"};
    return types;
}

std::string supported_hf_model_types_text() {
    std::string s;
    for (const std::string& t : supported_hf_model_types()) s += (s.empty() ? "" : ", ") + t;
    return s;
}

std::string hf_model_type(const json& config, const std::string& where) {
    if (!config.is_object() || !config.contains("model_type")) return "";
    if (!config.at("model_type").is_string())
        throw Error(where + ": \"model_type\" must be a string (got " + config.at("model_type").dump() + ")");
    return config.at("model_type").get<std::string>();
}

HfConfig parse_hf_config(const json& config, const std::string& where) {
    if (!config.is_object())
        throw Error(where + " is not a JSON object (got " + std::string(config.type_name()) + ")");
    if (!config.contains("model_type"))
        throw Error(where + " has no \"model_type\"; Hugging Face checkpoints name their "
                    "architecture there (supported: " + supported_hf_model_types_text() + ")");
    const std::string type = hf_model_type(config, where);
    const Keys keys(config, where, type);
    HfConfig out;
    if (type == "gpt2")
        out = parse_gpt2(keys);
    else if (type == "bert")
        out = parse_bert(keys);
    else if (type == "gpt_neo")
        out = parse_gpt_neo(keys, config);
    else if (type == "gpt_neox")
        out = parse_gpt_neox(keys);
    else if (type == "llama" || type == "qwen2" || type == "qwen3" || type == "mistral" || type == "phi3" ||
             type == "gemma" || type == "gemma2" || type == "gemma3_text")
        out = parse_llama_like(keys, config, type);
    else if (type == "gemma3")
        throw Error(where + ": model_type \"gemma3\" is Gemma 3's image-and-text model; HeadScope opens its text "
                    "model (model_type \"gemma3_text\", e.g. gemma-3-1b)");
    else
        throw Error(where + ": model_type \"" + type + "\" is not supported (supported: " +
                    supported_hf_model_types_text() + ")");
    // Keys HeadScope adds when it saves a playground model in HF layout (hf_llama_dir.h).
    out.playground_tokenizer = keys.optional_string("headscope_tokenizer", "") == "playground";
    if (keys.optional_string("headscope_lm_head", "") == "none") out.config.lm_head = LmHead::None;
    return out;
}

HfConfig load_hf_config(const std::string& dir) {
    namespace fs = std::filesystem;
    const std::string path = (fs::path(dir) / "config.json").string();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw Error(dir + " has no config.json (a Hugging Face model directory needs "
                    "config.json and model.safetensors)");
    return parse_hf_config(read_json_file(path), path);
}

bool is_hf_model_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    const fs::path path = fs::path(dir) / "config.json";
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    return j.is_object() && j.contains("model_type") && j.at("model_type").is_string();
}

}  // namespace hs
