#pragma once
// ModelConfig: the architecture of every model HeadScope runs, playground or real
// (DESIGN §3): an nn.Transformer encoder / decoder / encoder-decoder, GPT-2, BERT, Llama,
// Qwen2 and llama2.c are all choices of these fields. Validation reports every problem at
// once in words a user understands.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace hs {

enum class Arch { EncoderOnly, DecoderOnly, EncoderDecoder };
// Rotary: Q and K of every self-attention head rotated by position (no table added).
enum class PosEncoding { Sinusoidal, Learned, Rotary, None };
// Rotary pair layout: RotateHalf pairs dims (i, i + Dh/2) of a head (HF Llama / Qwen2);
// Interleaved pairs (2i, 2i+1) (llama2.c, the RoFormer paper).
enum class RopeLayout { RotateHalf, Interleaved };
enum class NormPlacement { PostLN, PreLN };
// LayerNorm: (x − μ)/√(σ² + eps)·γ + β; RMSNorm: x/√(mean(x²) + eps)·γ (no β).
enum class NormKind { LayerNorm, RMSNorm };
// The feed-forward: ReLU and GELU (erf) as nn.Transformer, GELUTanh as GPT-2 ("gelu_new"),
// SwiGLU as Llama: down(silu(gate(x)) ⊙ up(x)); GeGLU as Gemma: down(gelu_tanh(gate(x)) ⊙ up(x)).
enum class Activation { ReLU, GELU, GELUTanh, SwiGLU, GeGLU };
// Whether the feed-forward has a gate projection (SwiGLU, GeGLU).
inline bool is_gated(Activation a) { return a == Activation::SwiGLU || a == Activation::GeGLU; }
enum class MaskKind { None, Causal };
// Next-token logits: none, the token embedding reused (tied), or a separate (V, D) matrix.
enum class LmHead { None, Tied, Separate };

// The scale of the scores Q_h K_gᵀ · s: score_scale, or 1/√Dh when it is 0.
float resolved_score_scale(float score_scale, int head_dim);

struct ModelConfig {
    Arch arch = Arch::EncoderOnly;
    int d_model = 512;
    int heads = 8;
    int layers = 2;          // per stack: encoder-decoder has `layers` of each
    int d_ff = 2048;
    int vocab = 8192;        // playground ids are hashed into [0, vocab)
    int max_len = 4096;      // longest sequence (learned PE table rows)
    PosEncoding pe = PosEncoding::Sinusoidal;
    NormPlacement norm = NormPlacement::PostLN;
    Activation activation = Activation::ReLU;
    // Self-attention mask of the main stack (encoder-only / decoder-only) and of the
    // decoder stack of an encoder-decoder. The encoder of an encoder-decoder is never masked.
    MaskKind mask = MaskKind::None;
    // Sliding-window attention (Mistral): a causal self-attention's query i sees only the
    // `window` keys i − window + 1 … i; 0: every earlier key. Causal masks only.
    int window = 0;
    // Local and global layers (GPT-Neo, Gemma 2/3): which layers the window narrows, as a
    // pattern repeated over the layers, 'L' local (the window) and 'G' global (every
    // earlier key): "GL" alternates from a global layer 0. Empty: every layer (Mistral).
    std::string window_layers;
    // Scores are Q_h K_gᵀ · attn_scale; 0: 1/√Dh, the paper's. GPT-Neo leaves them unscaled
    // (1); Gemma 2 scales by query_pre_attn_scalar^(−1/2).
    float attn_scale = 0.0f;
    // Soft-capping (Gemma 2): the scaled scores s become attn_softcap · tanh(s / attn_softcap)
    // before the mask and softmax, the LM head's logits z logit_softcap · tanh(z /
    // logit_softcap); 0: none.
    float attn_softcap = 0.0f;
    float logit_softcap = 0.0f;
    float norm_eps = 1e-5f;
    std::uint64_t seed = 0;  // initialisation seed (playground)

    NormKind norm_kind = NormKind::LayerNorm;
    int kv_heads = 0;        // key/value heads (grouped-query attention); 0: one per query head
    int head_dim = 0;        // Dh; 0: d_model / heads
    RopeLayout rope_layout = RopeLayout::RotateHalf;  // PosEncoding::Rotary only
    // Partial rotary (GPT-NeoX's rotary_pct): only the first rotary_dims dims of each head
    // turn, θ_i = theta^(−2i/rotary_dims); 0: all Dh.
    int rotary_dims = 0;
    float rope_theta = 10000.0f;                      // θ_i = theta^(−2i/Dh)
    // Gemma 3: the local layers' (window_of(layer) > 0) own base θ, without the global
    // layers' rope_freq_divisors; 0: rope_theta in every layer.
    float rope_local_theta = 0.0f;
    // Llama-3.1's rope scaling: θ_i divided by rope_freq_divisors[i] (R/2 values, ≥ 1 for
    // the long wavelengths it stretches); empty: plain RoPE. Real models only.
    std::vector<float> rope_freq_divisors;
    // Biases of the q/k/v projections, the attention output projection and the
    // feed-forward's linear layers (nn.Transformer has all; Llama none; Qwen2 q/k/v only).
    bool qkv_bias = true, out_bias = true, mlp_bias = true;
    // QK-norm (Qwen3, Gemma 3, OLMo 2): each head's row of Q and of K divided by its RMS
    // over Dh and scaled by a γ of Dh (one for Q, one for K, shared by the heads), before
    // the rotation; self-attention blocks only. ε is norm_eps.
    bool qk_norm = false;
    // GPT-NeoX (Pythia) / GPT-J: attention and feed-forward side by side on the same
    // input, x + attn(norm1(x)) + ffn(norm2(x)); pre-norm single stacks only.
    bool parallel_block = false;
    // Sandwich norms (Gemma 2/3): pre-norm layers whose sub-layer outputs are normalised
    // too, x + norm_post_attn(attn(norm1(x))), then x + norm_post_ffn(ffn(norm2(x))); pre-norm
    // single stacks only, not parallel.
    bool sandwich_norm = false;
    bool embed_norm = false;  // BERT: a norm after word + position + token-type embeddings
    bool embed_scale = false; // Gemma: token embeddings multiplied by √d_model
    int type_vocab = 0;       // BERT token types (segment 0 is used); 0: none
    LmHead lm_head = LmHead::None;
    // A layer is its self-attention block alone, out = MHA(x): no norm, residual or
    // feed-forward. The textbook block of worked examples (core/worked_example.h), never a
    // playground or saved model (not in specs or config.json).
    bool attention_only = false;
    // Where a real model came from ("gpt2", "bert", "llama", "qwen2", "llama2.c"); empty
    // for playground models.
    std::string family;

    // Dh = head_dim, or d_model / heads.
    int d_h() const { return head_dim > 0 ? head_dim : heads > 0 ? d_model / heads : 0; }
    // Hkv: the key/value heads; query head h reads K/V head h / (H / Hkv).
    int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
    // The window of layer il's causal self-attention: `window`, or 0 in a global layer.
    int window_of(int layer) const;
    // The scale of every head's scores: attn_scale, or 1/√Dh.
    float score_scale() const;
    // Whether layer il turns with rope_local_theta (a local layer when it is set) rather
    // than rope_theta (StackRotary::of_layer).
    bool local_rope(int layer) const { return rope_local_theta > 0.0f && window_of(layer) > 0; }
    // R: the dims of each head that rotary positions turn (rotary_dims, or all Dh).
    int rotary_dim_count() const { return rotary_dims > 0 ? rotary_dims : d_h(); }
    // Q columns I = H · Dh (may differ from d_model in real models with a set head_dim).
    int inner() const { return heads * d_h(); }
    // Whether heads alone decide the split of Q, K and V (no kv_heads or head_dim fixed,
    // no qk-norm γ of Dh), so that another head count keeps every weight's shape
    // (Model::with_heads).
    bool heads_only_split() const { return kv_heads == 0 && head_dim == 0 && !qk_norm; }
    bool has_decoder_stack() const { return arch == Arch::EncoderDecoder; }
    // Defaults per architecture: decoder-only is causal.
    static ModelConfig defaults_for(Arch arch);
    bool operator==(const ModelConfig&) const = default;
};

// Local and global layers as one letter per layer (L local, G global): `layers` letters of
// which every `period`-th is G (layer il with (il + 1) % period == 0): Gemma 2 (period 2,
// "LGLG…") and Gemma 3 (6, "LLLLLG…").
std::string layer_kinds_every_nth_global(int layers, int period);
// ModelConfig::window_layers for one letter per layer: its shortest repeating pattern
// ("GLGLGL" → "GL"), or empty when every layer is local (the window alone says that).
std::string window_pattern_of(const std::string& kinds);

// The parameters a model of this config holds, nearly: attention (4·D·I per layer, as if
// K/V were as wide as Q), feed-forward and the token embeddings; norms, biases and a
// separate head left out.
double approximate_parameter_count(const ModelConfig& config);

// Every problem with the config, each a full sentence; empty when valid.
std::vector<std::string> validate(const ModelConfig& config);
// The d_ff a spec without one gets: 4·d_model, saturated to int's range (an absurd d_model
// is then reported by validate, not wrapped).
int default_d_ff(int d_model);

// What editing a playground config (the Model panel, the script's `set`) implies for the
// fields the user did not touch, from `before` to `after`:
//   another architecture takes its default mask (a decoder and an encoder–decoder's
//   decoder are causal, an encoder sees every token: defaults_for);
//   a mask that is not causal drops the sliding window, and no window its local/global
//   layer pattern; post-norm or an encoder–decoder
//   drops the parallel block; a head size below rotary_dims turns whole heads (0);
//   another d_model takes d_ff along when d_ff was the default 4·d_model (a d_ff the user
//   chose stays).
void follow_edit(const ModelConfig& before, ModelConfig& after);

// The head count the Model panel's − / + buttons go to from `heads`: the next smaller
// (direction < 0) or larger (direction > 0) divisor of d_model, so every step is a valid
// split (d_k = d_model / heads); `heads` itself when there is none that way (1, or
// d_model). Values between divisors step to the nearest divisor in that direction.
int step_heads(int d_model, int heads, int direction);
// Throws hs::Error with all problems joined by "; " when invalid.
void ensure_valid(const ModelConfig& config);

// Names used in JSON, specs and the UI: "encoder", "decoder", "encoder-decoder";
// "sinusoidal", "learned", "rope", "none"; "rotate-half", "interleaved"; "post-ln",
// "pre-ln"; "layernorm", "rmsnorm"; "relu", "gelu", "gelu-tanh", "swiglu", "geglu"; "none",
// "causal"; "none", "tied", "separate".
std::string to_string(Arch v);
std::string to_string(PosEncoding v);
std::string to_string(RopeLayout v);
std::string to_string(NormPlacement v);
std::string to_string(NormKind v);
std::string to_string(Activation v);
std::string to_string(MaskKind v);
std::string to_string(LmHead v);
Arch parse_arch(const std::string& s);              // throws hs::Error naming the choices
PosEncoding parse_pos_encoding(const std::string& s);
RopeLayout parse_rope_layout(const std::string& s);
NormPlacement parse_norm_placement(const std::string& s);
NormKind parse_norm_kind(const std::string& s);
Activation parse_activation(const std::string& s);
MaskKind parse_mask(const std::string& s);
LmHead parse_lm_head(const std::string& s);

// The shortest decimal that reads back as the same float, as a double (for JSON): 1e-5f
// is written "1e-05", not its exact binary value 9.999999747378752e-06.
double float_for_json(float x);

// config.json of a model directory (DESIGN §4).
nlohmann::json config_to_json(const ModelConfig& config);
ModelConfig config_from_json(const nlohmann::json& j);  // missing keys keep defaults

// Playground spec "random:d_model=512,heads=8,layers=2,seed=7,mask=causal,arch=decoder,pe=learned".
// Keys: d_model heads layers d_ff vocab max_len seed mask arch pe norm act, and the modern
// options kv_heads (K), bias (0|1: every linear layer), rope (rotate-half|interleaved),
// theta, lm_head (none|tied|separate), window (W: sliding-window attention, 0 = off),
// qk_norm (0|1), rotary_dims (R: partial rotary, 0 = all), parallel (0|1: attention and
// feed-forward side by side).
// norm takes post-ln, pre-ln, rmsnorm (= pre-norm RMSNorm, as Llama) or post-rmsnorm; act relu, gelu, gelu-tanh, swiglu; pe sinusoidal,
// learned, rope, none. Unknown keys, bad numbers and bad values throw hs::Error naming the
// key. Does not validate.
ModelConfig parse_playground_spec(const std::string& spec);
// One key of a playground spec set on `c` as parse_playground_spec reads it ("norm",
// "rmsnorm" sets the norm's kind and placement); "arch" sets the architecture only, not its
// defaults. Throws hs::Error naming the key for an unknown key or a bad value.
void set_spec_key(ModelConfig& c, const std::string& key, const std::string& value);
// Whether a MODEL argument names a playground spec ("random:…") rather than a directory
// or a worked example (open_source dispatches on it).
bool is_playground_spec(const std::string& arg);
// `base` with the keys of `overrides` replaced or added ("random:heads=4,layers=2" and
// "random:heads=8" → "random:heads=8,layers=2"; the overrides may omit "random:", as
// `train --spec heads=8` does). Throws as parse_playground_spec does for
// items that are not key=value or keys given twice within one spec.
std::string merge_playground_specs(const std::string& base, const std::string& overrides);
std::string to_playground_spec(const ModelConfig& config);

}  // namespace hs
