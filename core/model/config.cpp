#include "core/model/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace hs {

namespace {

// Limits that keep a playground interactive and its memory bounded.
constexpr int kMaxDModel = 8192;
constexpr int kMaxLayers = 96;
constexpr int kMaxLen = 65536;

template <typename Enum>
struct Names {
    Enum value;
    const char* name;
};

constexpr Names<Arch> kArchNames[] = {{Arch::EncoderOnly, "encoder"},
                                      {Arch::DecoderOnly, "decoder"},
                                      {Arch::EncoderDecoder, "encoder-decoder"}};
constexpr Names<PosEncoding> kPeNames[] = {{PosEncoding::Sinusoidal, "sinusoidal"},
                                           {PosEncoding::Learned, "learned"},
                                           {PosEncoding::Rotary, "rope"},
                                           {PosEncoding::None, "none"}};
constexpr Names<RopeLayout> kRopeNames[] = {{RopeLayout::RotateHalf, "rotate-half"},
                                            {RopeLayout::Interleaved, "interleaved"}};
constexpr Names<NormPlacement> kNormNames[] = {{NormPlacement::PostLN, "post-ln"},
                                               {NormPlacement::PreLN, "pre-ln"}};
constexpr Names<NormKind> kNormKindNames[] = {{NormKind::LayerNorm, "layernorm"},
                                              {NormKind::RMSNorm, "rmsnorm"}};
constexpr Names<Activation> kActNames[] = {{Activation::ReLU, "relu"},
                                           {Activation::GELU, "gelu"},
                                           {Activation::GELUTanh, "gelu-tanh"},
                                           {Activation::SwiGLU, "swiglu"},
                                           {Activation::GeGLU, "geglu"}};
constexpr Names<MaskKind> kMaskNames[] = {{MaskKind::None, "none"}, {MaskKind::Causal, "causal"}};
constexpr Names<LmHead> kLmHeadNames[] = {
    {LmHead::None, "none"}, {LmHead::Tied, "tied"}, {LmHead::Separate, "separate"}};

template <typename Enum, std::size_t N>
std::string name_of(const Names<Enum> (&table)[N], Enum v) {
    for (const auto& e : table)
        if (e.value == v) return e.name;
    return "?";
}

template <typename Enum, std::size_t N>
Enum parse_name(const Names<Enum> (&table)[N], const std::string& s, const char* what) {
    for (const auto& e : table)
        if (s == e.name) return e.value;
    std::string choices;
    for (const auto& e : table) choices += std::string(choices.empty() ? "" : ", ") + e.name;
    throw Error("unknown " + std::string(what) + " '" + s + "' (choose " + choices + ")");
}

// The shortest decimal that reads back as x ("0.125").
std::string decimal_text(float x) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, res.ptr);
}

}  // namespace

ModelConfig ModelConfig::defaults_for(Arch arch) {
    ModelConfig c;
    c.arch = arch;
    c.mask = arch == Arch::EncoderOnly ? MaskKind::None : MaskKind::Causal;
    return c;
}

std::string layer_kinds_every_nth_global(int layers, int period) {
    std::string kinds;
    for (int il = 0; il < layers; ++il) kinds += period > 0 && (il + 1) % period == 0 ? 'G' : 'L';
    return kinds;
}

std::string window_pattern_of(const std::string& kinds) {
    if (kinds.find('G') == std::string::npos) return "";
    for (std::size_t p = 1; p < kinds.size(); ++p) {
        bool repeats = true;
        for (std::size_t i = p; i < kinds.size() && repeats; ++i) repeats = kinds[i] == kinds[i % p];
        if (repeats) return kinds.substr(0, p);
    }
    return kinds;
}

int ModelConfig::window_of(int layer) const {
    if (window_layers.empty()) return window;
    return window_layers[static_cast<std::size_t>(layer) % window_layers.size()] == 'L' ? window : 0;
}

float resolved_score_scale(float score_scale, int head_dim) {
    return score_scale > 0.0f ? score_scale : 1.0f / std::sqrt(static_cast<float>(head_dim));
}

float ModelConfig::score_scale() const { return resolved_score_scale(attn_scale, d_h()); }

void follow_edit(const ModelConfig& before, ModelConfig& after) {
    if (after.arch != before.arch) after.mask = ModelConfig::defaults_for(after.arch).mask;
    if (after.mask != MaskKind::Causal) after.window = 0;  // a window only narrows a causal mask
    if (before.window > 0 && after.window == 0) after.window_layers.clear();  // a pattern set first waits
    // side by side needs pre-norm in a single stack; a head smaller than the rotary dims turns whole
    if (after.norm != NormPlacement::PreLN || after.arch == Arch::EncoderDecoder) after.parallel_block = false;
    // sandwich norms: pre-norm single stacks, and not side by side (the latest choice wins)
    if (after.norm != NormPlacement::PreLN || after.arch == Arch::EncoderDecoder) after.sandwich_norm = false;
    if (after.parallel_block && after.sandwich_norm) {
        if (before.sandwich_norm) after.sandwich_norm = false;
        else after.parallel_block = false;
    }
    if (after.rotary_dims > after.d_h()) after.rotary_dims = 0;
    if (after.d_model != before.d_model && after.d_ff == before.d_ff && before.d_ff == default_d_ff(before.d_model))
        after.d_ff = default_d_ff(after.d_model);
}

int default_d_ff(int d_model) {
    // The usual transformer ratio.
    return static_cast<int>(std::clamp<long long>(4LL * d_model, std::numeric_limits<int>::min(),
                                                  std::numeric_limits<int>::max()));
}

std::vector<std::string> validate(const ModelConfig& c) {
    std::vector<std::string> problems;
    auto add = [&](const std::string& p) { problems.push_back(p); };
    if (c.d_model < 1 || c.d_model > kMaxDModel)
        add("d_model " + std::to_string(c.d_model) + " must be between 1 and " +
            std::to_string(kMaxDModel));
    if (c.heads < 1)
        add("heads " + std::to_string(c.heads) + " must be at least 1");
    else if (c.head_dim > 0)
        ;  // an explicit head size: Q has heads · head_dim columns, whatever d_model is
    else if (c.heads > c.d_model && c.d_model >= 1)
        add(std::to_string(c.heads) + " heads is more than d_model " + std::to_string(c.d_model) +
            " (each head needs at least one dimension)");
    else if (c.d_model >= 1 && c.d_model % c.heads != 0)
        add("d_model " + std::to_string(c.d_model) + " is not divisible by " +
            std::to_string(c.heads) + " heads");
    if (c.head_dim < 0 || c.head_dim > kMaxDModel)
        add("head_dim " + std::to_string(c.head_dim) + " must be between 1 and " +
            std::to_string(kMaxDModel) + " (or 0: d_model / heads)");
    if (c.kv_heads < 0)
        add("kv_heads " + std::to_string(c.kv_heads) + " must be at least 1 (or 0: one per query head)");
    else if (c.kv_heads > 0 && c.heads >= 1 && c.heads % c.kv_heads != 0)
        add(std::to_string(c.heads) + " query heads cannot share " + std::to_string(c.kv_heads) +
            " key/value heads evenly (heads must be a multiple of kv_heads)");
    // Only for a whole head size: d_model not divisible by heads is reported above, and
    // d_model / heads rounded down would name a size no head has.
    const bool whole_head = c.head_dim > 0 || (c.heads >= 1 && c.d_model >= 1 && c.d_model % c.heads == 0);
    if (c.pe == PosEncoding::Rotary && whole_head && c.d_h() % 2 != 0)
        add(c.head_dim > 0 ? "rotary positions need an even head size, but head_dim is " + std::to_string(c.head_dim)
                           : "rotary positions need an even head size, but d_model / heads is " +
                                 std::to_string(c.d_h()));
    if (c.pe == PosEncoding::Rotary && !(c.rope_theta > 1.0f))
        add("rope theta must be greater than 1");
    if (c.window < 0)
        add("the attention window " + std::to_string(c.window) + " must be at least 1 (or 0: no window)");
    else if (c.window > 0 && c.mask != MaskKind::Causal)
        add("a sliding attention window needs the causal mask (each query sees the window of keys before it)");
    if (c.window_layers.size() > 1024 || c.window_layers.find_first_not_of("LG") != std::string::npos)
        add("the window's layer pattern \"" + c.window_layers.substr(0, 64) +
            "\" must be at most 1024 letters, each L (local: the window) or G (global)");
    else if (!c.window_layers.empty() && c.window <= 0)
        add("a pattern of local and global layers needs an attention window");
    if (!(c.attn_scale >= 0.0f && c.attn_scale <= 1000.0f))
        add("the attention scale must be between 0 and 1000 (0: 1/√d_k)");
    if (c.rotary_dims < 0 || c.rotary_dims % 2 != 0 || (whole_head && c.rotary_dims > c.d_h()))
        add("rotary dims " + std::to_string(c.rotary_dims) + " must be even and at most the head size " +
            std::to_string(c.d_h()) + " (or 0: all of it)");
    if (c.parallel_block && (c.norm != NormPlacement::PreLN || c.arch == Arch::EncoderDecoder))
        add("attention and feed-forward side by side (parallel) need pre-norm layers in a single stack");
    if (c.sandwich_norm && (c.norm != NormPlacement::PreLN || c.arch == Arch::EncoderDecoder || c.parallel_block))
        add("sandwich norms need pre-norm layers in a single stack, one sub-layer after the other (not parallel)");
    const auto cap_ok = [](float cap) { return cap == 0.0f || (cap >= 1e-3f && cap <= 1e6f); };
    if (!cap_ok(c.attn_softcap) || !cap_ok(c.logit_softcap))
        add("soft-caps must be between 0.001 and 1000000 (or 0: none)");
    if (!(c.rope_local_theta == 0.0f || (c.rope_local_theta > 1.0f && c.rope_local_theta <= 1e12f)))
        add("the local layers' rope theta must be greater than 1 (or 0: rope theta)");
    else if (c.rope_local_theta > 0.0f && c.arch == Arch::EncoderDecoder)
        add("a local layers' rope theta needs a single stack (an encoder's layers have no window)");
    if (!c.rope_freq_divisors.empty()) {
        if (c.pe != PosEncoding::Rotary || static_cast<int>(c.rope_freq_divisors.size()) * 2 != c.rotary_dim_count())
            add("rope frequency divisors: " + std::to_string(c.rope_freq_divisors.size()) +
                " given, a rotary model with head size " + std::to_string(c.rotary_dim_count()) + " needs " +
                std::to_string(c.rotary_dim_count() / 2));
        for (float d : c.rope_freq_divisors)
            if (!(d > 0.0f) || !std::isfinite(d)) {
                add("rope frequency divisors must be positive and finite");
                break;
            }
    }
    if (c.type_vocab < 0 || c.type_vocab > 1024)
        add("type_vocab " + std::to_string(c.type_vocab) + " must be between 0 and 1024");
    if (c.layers < 1 || c.layers > kMaxLayers)
        add("layers " + std::to_string(c.layers) + " must be between 1 and " +
            std::to_string(kMaxLayers));
    // A d_ff that is only the default follows d_model: one complaint about d_model is enough.
    const bool d_ff_follows_bad_d_model =
        c.d_ff == default_d_ff(c.d_model) && (c.d_model < 1 || c.d_model > kMaxDModel);
    if ((c.d_ff < 1 || c.d_ff > 8 * kMaxDModel) && !d_ff_follows_bad_d_model)
        add("d_ff " + std::to_string(c.d_ff) + " must be between 1 and " +
            std::to_string(8 * kMaxDModel));
    if (c.vocab < 2 || c.vocab > 1'000'000)
        add("vocab " + std::to_string(c.vocab) + " must be between 2 and 1000000");
    if (c.max_len < 1 || c.max_len > kMaxLen)
        add("max_len " + std::to_string(c.max_len) + " must be between 1 and " +
            std::to_string(kMaxLen));
    if (!(c.norm_eps > 0.0f) || c.norm_eps > 1.0f) add("norm_eps must be in (0, 1]");
    // A playground's parameters stay below ~4 GB of f32 so a typo like d_model=81920 cannot
    // exhaust memory (a real model's, family set, are what its file holds).
    if (problems.empty() && c.family.empty()) {
        const double params = approximate_parameter_count(c);
        if (params > 1e9)
            add("this model would have " + std::to_string(static_cast<long long>(params / 1e6)) +
                " million parameters; the playground allows at most 1000 million");
    }
    return problems;
}

double approximate_parameter_count(const ModelConfig& c) {
    const double d = c.d_model, f = c.d_ff;
    const double inner = double(c.heads) * c.d_h();
    const double per_layer = 4 * d * inner + (is_gated(c.activation) ? 3 : 2) * d * f;
    const double stacks = c.arch == Arch::EncoderDecoder ? 2.5 : 1.0;
    return per_layer * c.layers * stacks + double(c.vocab) * d +
           (c.pe == PosEncoding::Learned ? double(c.max_len) * d : 0.0);
}

void ensure_valid(const ModelConfig& config) {
    const auto problems = validate(config);
    if (problems.empty()) return;
    std::string joined;
    for (const auto& p : problems) joined += (joined.empty() ? "" : "; ") + p;
    throw Error(joined);
}

std::string to_string(Arch v) { return name_of(kArchNames, v); }
std::string to_string(PosEncoding v) { return name_of(kPeNames, v); }
std::string to_string(RopeLayout v) { return name_of(kRopeNames, v); }
std::string to_string(NormPlacement v) { return name_of(kNormNames, v); }
std::string to_string(NormKind v) { return name_of(kNormKindNames, v); }
std::string to_string(Activation v) { return name_of(kActNames, v); }
std::string to_string(MaskKind v) { return name_of(kMaskNames, v); }
std::string to_string(LmHead v) { return name_of(kLmHeadNames, v); }
Arch parse_arch(const std::string& s) { return parse_name(kArchNames, s, "architecture"); }
PosEncoding parse_pos_encoding(const std::string& s) {
    return parse_name(kPeNames, s, "positional encoding");
}
RopeLayout parse_rope_layout(const std::string& s) {
    return parse_name(kRopeNames, s, "rotary layout");
}
NormPlacement parse_norm_placement(const std::string& s) {
    return parse_name(kNormNames, s, "norm placement");
}
NormKind parse_norm_kind(const std::string& s) { return parse_name(kNormKindNames, s, "norm"); }
LmHead parse_lm_head(const std::string& s) { return parse_name(kLmHeadNames, s, "LM head"); }
Activation parse_activation(const std::string& s) {
    return parse_name(kActNames, s, "activation");
}
MaskKind parse_mask(const std::string& s) { return parse_name(kMaskNames, s, "mask"); }

double float_for_json(float x) { return std::strtod(decimal_text(x).c_str(), nullptr); }

nlohmann::json config_to_json(const ModelConfig& c) {
    nlohmann::json j{{"format", "headscope-playground"},
                          {"arch", to_string(c.arch)},
                          {"d_model", c.d_model},
                          {"heads", c.heads},
                          {"layers", c.layers},
                          {"d_ff", c.d_ff},
                          {"vocab", c.vocab},
                          {"max_len", c.max_len},
                          {"pe", to_string(c.pe)},
                          {"norm", to_string(c.norm)},
                          {"activation", to_string(c.activation)},
                          {"mask", to_string(c.mask)},
                          {"norm_eps", float_for_json(c.norm_eps)},
                          {"seed", c.seed}};
    // The modern options only when they differ from nn.Transformer's, so configs written
    // before they existed and nn.Transformer-style models read the same.
    const ModelConfig d;
    if (c.norm_kind != d.norm_kind) j["norm_kind"] = to_string(c.norm_kind);
    if (c.kv_heads != d.kv_heads) j["kv_heads"] = c.kv_heads;
    if (c.window != d.window) j["window"] = c.window;
    if (c.window_layers != d.window_layers) j["window_layers"] = c.window_layers;
    if (c.attn_scale != d.attn_scale) j["attn_scale"] = float_for_json(c.attn_scale);
    if (c.head_dim != d.head_dim) j["head_dim"] = c.head_dim;
    if (c.pe == PosEncoding::Rotary) {
        j["rope_layout"] = to_string(c.rope_layout);
        j["rope_theta"] = float_for_json(c.rope_theta);
        if (c.rotary_dims != d.rotary_dims) j["rotary_dims"] = c.rotary_dims;
        if (!c.rope_freq_divisors.empty()) {
            nlohmann::json divisors = nlohmann::json::array();
            for (float d : c.rope_freq_divisors) divisors.push_back(float_for_json(d));
            j["rope_freq_divisors"] = divisors;
        }
    }
    if (c.qkv_bias != d.qkv_bias) j["qkv_bias"] = c.qkv_bias;
    if (c.out_bias != d.out_bias) j["out_bias"] = c.out_bias;
    if (c.mlp_bias != d.mlp_bias) j["mlp_bias"] = c.mlp_bias;
    if (c.qk_norm != d.qk_norm) j["qk_norm"] = c.qk_norm;
    if (c.parallel_block != d.parallel_block) j["parallel_block"] = c.parallel_block;
    if (c.embed_norm != d.embed_norm) j["embed_norm"] = c.embed_norm;
    if (c.embed_scale != d.embed_scale) j["embed_scale"] = c.embed_scale;
    if (c.sandwich_norm != d.sandwich_norm) j["sandwich_norm"] = c.sandwich_norm;
    if (c.attn_softcap != d.attn_softcap) j["attn_softcap"] = float_for_json(c.attn_softcap);
    if (c.logit_softcap != d.logit_softcap) j["logit_softcap"] = float_for_json(c.logit_softcap);
    if (c.rope_local_theta != d.rope_local_theta) j["rope_local_theta"] = float_for_json(c.rope_local_theta);
    if (c.type_vocab != d.type_vocab) j["type_vocab"] = c.type_vocab;
    if (c.lm_head != d.lm_head) j["lm_head"] = to_string(c.lm_head);
    if (!c.family.empty()) j["family"] = c.family;
    return j;
}

ModelConfig config_from_json(const nlohmann::json& j) {
    if (!j.is_object()) throw Error("config.json must hold a JSON object");
    ModelConfig c;
    auto get_int = [&](const char* key, int& out) {
        if (!j.contains(key)) return;
        if (!j[key].is_number_integer())
            throw Error(std::string("config.json: '") + key + "' must be an integer");
        const auto v = j[key].get<long long>();
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            throw Error(std::string("config.json: '") + key + "' = " + std::to_string(v) +
                        " is out of range");
        out = static_cast<int>(v);
    };
    auto get_str = [&](const char* key) -> std::string {
        if (!j[key].is_string())
            throw Error(std::string("config.json: '") + key + "' must be a string");
        return j[key].get<std::string>();
    };
    auto get_float = [&](const char* key, float& out) {
        if (!j.contains(key)) return;
        if (!j[key].is_number()) throw Error(std::string("config.json: '") + key + "' must be a number");
        out = j[key].get<float>();
    };
    if (j.contains("arch")) c = ModelConfig::defaults_for(parse_arch(get_str("arch")));
    get_int("d_model", c.d_model);
    get_int("heads", c.heads);
    get_int("layers", c.layers);
    get_int("d_ff", c.d_ff);
    get_int("vocab", c.vocab);
    get_int("max_len", c.max_len);
    if (j.contains("pe")) c.pe = parse_pos_encoding(get_str("pe"));
    if (j.contains("norm")) c.norm = parse_norm_placement(get_str("norm"));
    if (j.contains("activation")) c.activation = parse_activation(get_str("activation"));
    if (j.contains("mask")) c.mask = parse_mask(get_str("mask"));
    get_float("norm_eps", c.norm_eps);
    if (j.contains("norm_kind")) c.norm_kind = parse_norm_kind(get_str("norm_kind"));
    get_int("kv_heads", c.kv_heads);
    get_int("window", c.window);
    if (j.contains("window_layers")) c.window_layers = get_str("window_layers");
    get_float("attn_scale", c.attn_scale);
    get_float("attn_softcap", c.attn_softcap);
    get_float("logit_softcap", c.logit_softcap);
    get_float("rope_local_theta", c.rope_local_theta);
    get_int("rotary_dims", c.rotary_dims);
    get_int("head_dim", c.head_dim);
    get_int("type_vocab", c.type_vocab);
    if (j.contains("rope_layout")) c.rope_layout = parse_rope_layout(get_str("rope_layout"));
    get_float("rope_theta", c.rope_theta);
    if (j.contains("rope_freq_divisors")) {
        const auto& divisors = j["rope_freq_divisors"];
        if (!divisors.is_array()) throw Error("config.json: 'rope_freq_divisors' must be an array of numbers");
        for (const auto& d : divisors) {
            if (!d.is_number()) throw Error("config.json: 'rope_freq_divisors' must be an array of numbers");
            c.rope_freq_divisors.push_back(d.get<float>());
        }
    }
    auto get_bool = [&](const char* key, bool& out) {
        if (!j.contains(key)) return;
        if (!j[key].is_boolean())
            throw Error(std::string("config.json: '") + key + "' must be true or false");
        out = j[key].get<bool>();
    };
    get_bool("qkv_bias", c.qkv_bias);
    get_bool("out_bias", c.out_bias);
    get_bool("mlp_bias", c.mlp_bias);
    get_bool("qk_norm", c.qk_norm);
    get_bool("parallel_block", c.parallel_block);
    get_bool("embed_norm", c.embed_norm);
    get_bool("embed_scale", c.embed_scale);
    get_bool("sandwich_norm", c.sandwich_norm);
    if (j.contains("lm_head")) c.lm_head = parse_lm_head(get_str("lm_head"));
    if (j.contains("family")) c.family = get_str("family");
    if (j.contains("seed")) {
        if (!j["seed"].is_number_unsigned())
            throw Error("config.json: 'seed' must be a non-negative integer");
        c.seed = j["seed"].get<std::uint64_t>();
    }
    return c;
}

namespace {

// Whole numbers in [0, INT_MAX]; seeds use the same range so specs stay portable.
long long parse_number(const std::string& key, const std::string& value) {
    long long out = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, out);
    if (ec != std::errc() || ptr != end)
        throw Error("playground spec: '" + key + "' needs a whole number, got '" + value + "'");
    if (out < 0 || out > std::numeric_limits<int>::max())
        throw Error("playground spec: '" + key + "' = " + value + " is out of range");
    return out;
}

// A decimal like 1, 0.125 or 6.25e-2, finite and not negative.
float parse_decimal(const std::string& key, const std::string& value) {
    float out = 0.0f;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, out);
    if (ec != std::errc() || ptr != end || !std::isfinite(out) || out < 0.0f)
        throw Error("playground spec: '" + key + "' needs a number of at least 0, got '" + value + "'");
    return out;
}

// "0" or "1".
bool parse_flag(const std::string& key, const std::string& value) {
    if (value == "0" || value == "1") return value == "1";
    throw Error("playground spec: '" + key + "' is 0 or 1, got '" + value + "'");
}

// norm=post-ln | pre-ln (LayerNorm) | rmsnorm (pre-norm RMSNorm, as Llama) | post-rmsnorm.
void set_norm(ModelConfig& c, const std::string& v) {
    if (v == "rmsnorm" || v == "pre-rmsnorm" || v == "post-rmsnorm") {
        c.norm_kind = NormKind::RMSNorm;
        c.norm = v == "post-rmsnorm" ? NormPlacement::PostLN : NormPlacement::PreLN;
        return;
    }
    if (v != "post-ln" && v != "pre-ln")
        throw Error("unknown norm '" + v + "' (choose post-ln, pre-ln, rmsnorm, post-rmsnorm)");
    c.norm_kind = NormKind::LayerNorm;
    c.norm = parse_norm_placement(v);
}

// The spec's name of (placement, kind): the inverse of set_norm.
std::string norm_spec(const ModelConfig& c) {
    if (c.norm_kind == NormKind::LayerNorm) return to_string(c.norm);
    return c.norm == NormPlacement::PreLN ? "rmsnorm" : "post-rmsnorm";
}

// The key=value items of a spec, in order ("activation" read as "act"). Spaces around keys
// and values are ignored ("d_model=64, heads=4"); a key given twice is an error rather
// than a silent "last one wins".
std::vector<std::pair<std::string, std::string>> spec_items(const std::string& spec) {
    const std::string prefix = "random:";
    if (spec.rfind(prefix, 0) != 0 && spec != "random")
        throw Error("playground spec must start with 'random:' (got '" + spec + "')");
    std::vector<std::pair<std::string, std::string>> items;
    std::stringstream ss(spec.size() > prefix.size() ? spec.substr(prefix.size()) : "");
    std::string item;
    auto trim = [](const std::string& t) {
        const auto b = t.find_first_not_of(" \t");
        if (b == std::string::npos) return std::string();
        return t.substr(b, t.find_last_not_of(" \t") - b + 1);
    };
    while (std::getline(ss, item, ',')) {
        item = trim(item);
        if (item.empty()) continue;
        const auto eq = item.find('=');
        std::string key = eq == std::string::npos ? item : trim(item.substr(0, eq));
        if (eq == std::string::npos || key.empty())
            throw Error("playground spec: '" + item + "' is not key=value");
        if (key == "activation") key = "act";
        for (const auto& [k, v] : items)
            if (k == key)
                throw Error("playground spec: '" + key + "' is given twice ('" + key + "=" + v +
                            "' and '" + item + "')");
        items.emplace_back(key, trim(item.substr(eq + 1)));
    }
    return items;
}

}  // namespace

int step_heads(int d_model, int heads, int direction) {
    if (d_model < 1) return heads;
    if (direction < 0) {
        for (int h = std::min(heads - 1, d_model); h >= 1; --h)
            if (d_model % h == 0) return h;
    } else if (direction > 0) {
        for (int h = std::max(heads + 1, 1); h <= d_model; ++h)
            if (d_model % h == 0) return h;
    }
    return heads;
}

bool is_playground_spec(const std::string& arg) { return arg.rfind("random", 0) == 0; }

std::string merge_playground_specs(const std::string& base, const std::string& overrides) {
    std::vector<std::pair<std::string, std::string>> items = spec_items(base);
    // The overrides may be bare keys ("seed=5,heads=2"), as a base's keys read.
    const std::string keys = overrides.rfind("random", 0) == 0 ? overrides : "random:" + overrides;
    for (const auto& [key, value] : spec_items(keys)) {
        auto same = std::find_if(items.begin(), items.end(), [&k = key](const auto& item) { return item.first == k; });
        if (same != items.end()) same->second = value;
        else items.emplace_back(key, value);
    }
    std::string spec = "random:";
    for (std::size_t i = 0; i < items.size(); ++i) spec += (i ? "," : "") + items[i].first + "=" + items[i].second;
    return spec;
}

void set_spec_key(ModelConfig& c, const std::string& k, const std::string& v) {
    const auto num = [&] { return static_cast<int>(parse_number(k, v)); };
    if (k == "d_model") c.d_model = num();
    else if (k == "heads") c.heads = num();
    else if (k == "layers") c.layers = num();
    else if (k == "d_ff") c.d_ff = num();
    else if (k == "vocab") c.vocab = num();
    else if (k == "max_len") c.max_len = num();
    else if (k == "seed") c.seed = static_cast<std::uint64_t>(parse_number(k, v));
    else if (k == "mask") c.mask = parse_mask(v);
    else if (k == "arch") c.arch = parse_arch(v);
    else if (k == "pe") c.pe = parse_pos_encoding(v);
    else if (k == "norm") set_norm(c, v);
    else if (k == "act") c.activation = parse_activation(v);
    else if (k == "kv_heads") c.kv_heads = num();
    else if (k == "bias") c.qkv_bias = c.out_bias = c.mlp_bias = parse_flag(k, v);
    else if (k == "rope") c.rope_layout = parse_rope_layout(v);
    else if (k == "theta") c.rope_theta = static_cast<float>(parse_number(k, v));
    else if (k == "lm_head") c.lm_head = parse_lm_head(v);
    else if (k == "window") c.window = num();
    else if (k == "qk_norm") c.qk_norm = parse_flag(k, v);
    else if (k == "rotary_dims") c.rotary_dims = num();
    else if (k == "parallel") c.parallel_block = parse_flag(k, v);
    else if (k == "window_layers") c.window_layers = v;
    else if (k == "scale") c.attn_scale = parse_decimal(k, v);
    else if (k == "embed_scale") c.embed_scale = parse_flag(k, v);
    else if (k == "sandwich") c.sandwich_norm = parse_flag(k, v);
    else if (k == "softcap") c.attn_softcap = parse_decimal(k, v);
    else if (k == "logit_softcap") c.logit_softcap = parse_decimal(k, v);
    else if (k == "local_theta") c.rope_local_theta = static_cast<float>(parse_number(k, v));
    else
        throw Error("playground spec: unknown key '" + k +
                    "' (keys: d_model, heads, layers, d_ff, vocab, max_len, seed, mask, arch, pe, norm, act, "
                    "kv_heads, bias, rope, theta, local_theta, lm_head, window, window_layers, scale, softcap, "
                    "logit_softcap, qk_norm, rotary_dims, parallel, sandwich, embed_scale)");
}

ModelConfig parse_playground_spec(const std::string& spec) {
    // First pass finds arch so its defaults (decoder = causal) apply before other keys.
    const std::vector<std::pair<std::string, std::string>> items = spec_items(spec);
    ModelConfig c;
    c.d_model = 512;
    c.heads = 8;
    c.layers = 2;
    for (const auto& [k, v] : items)
        if (k == "arch") {
            const ModelConfig base = c;
            c = ModelConfig::defaults_for(parse_arch(v));
            c.d_model = base.d_model;
            c.heads = base.heads;
            c.layers = base.layers;
        }
    bool d_ff_given = false;
    for (const auto& [k, v] : items) {
        if (k == "arch") continue;  // applied above, with its defaults
        set_spec_key(c, k, v);
        d_ff_given |= k == "d_ff";
    }
    if (!d_ff_given) c.d_ff = default_d_ff(c.d_model);
    return c;
}

std::string to_playground_spec(const ModelConfig& c) {
    std::string s = "random:d_model=" + std::to_string(c.d_model) +
                    ",heads=" + std::to_string(c.heads) + ",layers=" + std::to_string(c.layers);
    if (c.d_ff != default_d_ff(c.d_model)) s += ",d_ff=" + std::to_string(c.d_ff);
    s += ",seed=" + std::to_string(c.seed) + ",arch=" + to_string(c.arch) +
         ",mask=" + to_string(c.mask) + ",pe=" + to_string(c.pe) + ",norm=" + norm_spec(c) +
         ",act=" + to_string(c.activation);
    const ModelConfig d;
    if (c.vocab != d.vocab) s += ",vocab=" + std::to_string(c.vocab);
    if (c.max_len != d.max_len) s += ",max_len=" + std::to_string(c.max_len);
    if (c.kv_heads != d.kv_heads) s += ",kv_heads=" + std::to_string(c.kv_heads);
    if (!c.qkv_bias && !c.out_bias && !c.mlp_bias) s += ",bias=0";
    if (c.pe == PosEncoding::Rotary && c.rope_layout != d.rope_layout)
        s += ",rope=" + to_string(c.rope_layout);
    if (c.pe == PosEncoding::Rotary && c.rope_theta != d.rope_theta)
        s += ",theta=" + std::to_string(static_cast<long long>(c.rope_theta));
    if (c.lm_head != d.lm_head) s += ",lm_head=" + to_string(c.lm_head);
    if (c.window != d.window) s += ",window=" + std::to_string(c.window);
    if (!c.window_layers.empty()) s += ",window_layers=" + c.window_layers;
    if (c.attn_scale != d.attn_scale) s += ",scale=" + decimal_text(c.attn_scale);
    if (c.qk_norm) s += ",qk_norm=1";
    if (c.pe == PosEncoding::Rotary && c.rotary_dims != d.rotary_dims) s += ",rotary_dims=" + std::to_string(c.rotary_dims);
    if (c.parallel_block) s += ",parallel=1";
    if (c.embed_scale) s += ",embed_scale=1";
    if (c.sandwich_norm) s += ",sandwich=1";
    if (c.attn_softcap != d.attn_softcap) s += ",softcap=" + decimal_text(c.attn_softcap);
    if (c.logit_softcap != d.logit_softcap) s += ",logit_softcap=" + decimal_text(c.logit_softcap);
    if (c.pe == PosEncoding::Rotary && c.rope_local_theta != d.rope_local_theta)
        s += ",local_theta=" + std::to_string(static_cast<long long>(c.rope_local_theta));
    return s;
}

}  // namespace hs
