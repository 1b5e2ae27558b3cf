#pragma once
// Pretrained transformers (issue 4): one runtime covering llama2.c checkpoints and the
// Hugging Face GPT-2, BERT, Llama and Qwen2 families. Each family is a choice of norm
// (LayerNorm / RMSNorm), norm placement (pre / post), positions (learned / rotary),
// MLP (GELU-tanh, GELU-erf, SwiGLU), grouped-query attention and biases.
//
// Shapes: T tokens, D d_model, H query heads, Hkv key/value heads (H % Hkv == 0; query
// head h reads KV head h / (H / Hkv)), Dh head_dim, F d_ff, V vocab.
// Weights are (out, in) as PyTorch / HF store them: y = x·Wᵀ + b (GPT-2's Conv1D (in, out)
// weights are transposed by the loader).
#include <string>
#include <vector>

#include "core/model.h"
#include "core/tensor.h"
#include "core/trace.h"

namespace hs {

enum class NormKind { LayerNorm, RMSNorm };
enum class MlpKind { GeluTanh, GeluErf, SwiGLU };
enum class PositionKind { Learned, Rotary };
// Rotary pair layout: llama2.c rotates adjacent dims (2i, 2i+1) of each head; HF Llama /
// Qwen2 store weights for "rotate half" (i, i + Dh/2).
enum class RopeLayout { Interleaved, RotateHalf };

struct TransformerConfig {
    std::string family;      // "llama2.c", "gpt2", "bert", "llama", "qwen2"
    int d_model = 0, heads = 0, kv_heads = 0, head_dim = 0, layers = 0, d_ff = 0;
    int vocab = 0, max_len = 0;
    NormKind norm = NormKind::LayerNorm;
    float norm_eps = 1e-5f;
    bool pre_norm = true;    // false: post-LN (BERT): x = norm(x + sublayer(x))
    MlpKind mlp = MlpKind::GeluTanh;
    PositionKind positions = PositionKind::Learned;
    RopeLayout rope_layout = RopeLayout::RotateHalf;
    float rope_theta = 10000.0f;
    bool causal = true;
    bool final_norm = true;        // GPT-2 ln_f, Llama norm; BERT has none
    bool embedding_norm = false;   // BERT: LayerNorm after word + position + type embeddings
    bool has_lm_head = true;       // decoder LMs predict next tokens; BERT here does not
    bool tied_lm_head = true;      // lm_head = token embedding
    int type_vocab = 0;            // BERT token-type embeddings (segment 0 used)
    int bos_id = -1, eos_id = -1;
    std::string dtype = "f32";     // dtype found in the file (for display)
};

struct TransformerLayerWeights {
    Matrix wq, wk, wv;          // (H·Dh, D), (Hkv·Dh, D), (Hkv·Dh, D)
    Vector bq, bk, bv;          // empty when the family has no q/k/v bias
    Matrix wo;                  // (D, H·Dh)
    Vector bo;                  // empty when none
    Vector attn_norm_w, attn_norm_b;  // pre-norm: before attention; post-norm: after the add
    Vector mlp_norm_w, mlp_norm_b;    // (b empty for RMSNorm)
    Matrix w_up;                // (F, D)   GPT-2 c_fc, BERT intermediate, Llama up_proj
    Vector b_up;                // empty when none
    Matrix w_gate;              // (F, D)   SwiGLU only (Llama gate_proj, llama2.c w1)
    Matrix w_down;              // (D, F)
    Vector b_down;
};

struct TransformerWeights {
    Matrix tok_embed;           // (V, D)
    Matrix pos_embed;           // (max_len, D), learned positions only
    Matrix type_embed;          // (type_vocab, D), BERT only
    Vector emb_norm_w, emb_norm_b;
    std::vector<TransformerLayerWeights> layers;
    Vector final_norm_w, final_norm_b;
    Matrix lm_head;             // (V, D); empty when tied to tok_embed
};

using TokenProb = Trace::NextToken;

class TransformerModel {
public:
    TransformerModel(TransformerConfig config, TransformerWeights weights, std::string name);
    const TransformerConfig& config() const { return config_; }
    const TransformerWeights& weights() const { return weights_; }
    const std::string& name() const { return name_; }
    long long parameter_count() const;

    // Forward over token ids. The Trace has the same shape as a playground trace (main
    // stack, per-layer per-head weights (T, T), hidden states, steps of the detail layer
    // with K/V heads repeated per query head); trace.config is the nearest ModelConfig.
    // Throws hs::Error on empty ids / ids out of range / too long; hs::Cancelled on cancel.
    Trace forward(const std::vector<int>& ids, const std::vector<std::string>& tokens,
                  const TraceOptions& options = {}, const ProgressFn& progress = nullptr) const;
    // Recomputes the full maps (H × (T, T)) of layer `layer` of `trace` (which forward
    // produced) from its stored hidden states, as a full capture holds them; scores too
    // when `scores`. Throws hs::Error when the trace lacks the hidden states.
    HeadMaps layer_maps(const Trace& trace, int layer, bool scores) const;
    // Logits (V) after the last position (decoder LMs only; throws hs::Error otherwise).
    Vector next_token_logits(const std::vector<int>& ids) const;

private:
    TransformerConfig config_;
    TransformerWeights weights_;
    std::string name_;
};

// The playground ModelConfig closest to a pretrained config (what Trace::config holds):
// DecoderOnly if causal else EncoderOnly, sizes, mask, pre/post-LN, learned or no PE.
ModelConfig nearest_model_config(const TransformerConfig& config);

// Top-k next-token probabilities from logits (softmax over all V).
std::vector<TokenProb> top_k(const Vector& logits, int k);

}  // namespace hs
