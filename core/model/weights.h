#pragma once
// Parameters of every model (ModelConfig, DESIGN §3), laid out as PyTorch stores them
// (weights are (out, in): y = x · Wᵀ + b). io/state_dict maps these to and from
// nn.Transformer state_dict names such as "layers.0.self_attn.in_proj_weight", and
// io/hf_llama_dir and formats/hf_loader to and from Hugging Face names.
// An absent bias (a model without that bias) is an empty Vector.
#include <memory>
#include <optional>
#include <vector>

#include "core/kernels/stored_matrix.h"
#include "core/model/config.h"
#include "core/tensor.h"

namespace hs {

// nn.MultiheadAttention, with grouped-query attention. D = model width, I = H·Dh the
// query width (equal to D in playground models), Ikv = Hkv·Dh the key/value width
// (= I without grouped-query attention).
struct AttentionWeights {
    // How multi_head_attention(w, …) splits the columns of Q, K and V (kv_heads 0: one K/V
    // head per query head). Inside a Model the layers run with the config's counts instead
    // (Model::with_heads shares the matrices between head counts), so there they are only
    // the counts the weights were made with.
    int heads = 1;
    int kv_heads = 0;
    Matrix in_proj_weight;   // (I + 2·Ikv, D): rows [W_Q; W_K; W_V]
    Vector in_proj_bias;     // (I + 2·Ikv), or empty
    Matrix out_proj_weight;  // (D_out, I)
    Vector out_proj_bias;    // (D_out), or empty
    // QK-norm's γ (ModelConfig::qk_norm): each head's row of Q, of K, is RMS-normalised
    // over its Dh entries and scaled by these, before the rotation; empty: none.
    Vector q_norm, k_norm;   // (Dh) each
    // A layer read for its products only (LayerSource::read_layer_for_products): W_in and
    // W_o left as their file stores them (owned by the layer's StoredLayer), the two f32
    // matrices above then empty. Null otherwise.
    const StoredMatrix* in_proj_stored = nullptr;
    const StoredMatrix* out_proj_stored = nullptr;
    Eigen::Index in_rows() const { return in_proj_stored ? in_proj_stored->rows : in_proj_weight.rows(); }  // I + 2·Ikv
    Eigen::Index d_in() const { return in_proj_stored ? in_proj_stored->cols : in_proj_weight.cols(); }     // D
    Eigen::Index d_out() const { return out_proj_stored ? out_proj_stored->rows : out_proj_weight.rows(); } // D_out
    int inner() const { return static_cast<int>(out_proj_stored ? out_proj_stored->cols : out_proj_weight.cols()); }  // I
    int kv_inner() const { return (static_cast<int>(in_rows()) - inner()) / 2; }  // Ikv
    int d_h() const { return inner() / heads; }  // Dh
};

// LayerNorm (γ, β) or RMSNorm (γ; bias empty).
struct LayerNormWeights {
    Vector weight;  // (D) gamma
    Vector bias;    // (D) beta, or empty
};

// Position-wise feed-forward: linear2(act(linear1(x))), or with SwiGLU
// linear2(silu(gate(x)) ⊙ linear1(x)) (Llama's up_proj = linear1, gate_proj = gate,
// down_proj = linear2), GeGLU with gelu_tanh for silu (Gemma).
struct FeedForwardWeights {
    Matrix linear1_weight;  // (d_ff, D)
    Vector linear1_bias;    // (d_ff), or empty
    Matrix linear2_weight;  // (D, d_ff)
    Vector linear2_bias;    // (D), or empty
    Matrix gate_weight;     // (d_ff, D), gated (SwiGLU, GeGLU) only
    Vector gate_bias;       // (d_ff), gated with biases only
    // As AttentionWeights: the three left as stored, the f32 matrices then empty.
    const StoredMatrix* linear1_stored = nullptr;
    const StoredMatrix* linear2_stored = nullptr;
    const StoredMatrix* gate_stored = nullptr;
    bool gated() const { return gate_stored || gate_weight.size() > 0; }
    int d_ff() const { return static_cast<int>(linear1_stored ? linear1_stored->rows : linear1_weight.rows()); }
    int d_model() const { return static_cast<int>(linear1_stored ? linear1_stored->cols : linear1_weight.cols()); }
};

// nn.TransformerEncoderLayer: self-attention, FFN, norm1 after/before attention, norm2 FFN.
struct EncoderLayerWeights {
    AttentionWeights self_attn;
    FeedForwardWeights ffn;
    LayerNormWeights norm1, norm2;
    // Sandwich norms (ModelConfig::sandwich_norm, Gemma 2/3) of the attention's and the
    // feed-forward's outputs, before each joins the residual; absent otherwise.
    std::optional<LayerNormWeights> post_attn_norm, post_ffn_norm;
};

// nn.TransformerDecoderLayer: masked self-attention, cross-attention ("multihead_attn"),
// FFN; norm1, norm2, norm3 respectively.
struct DecoderLayerWeights {
    AttentionWeights self_attn;
    AttentionWeights cross_attn;
    FeedForwardWeights ffn;
    LayerNormWeights norm1, norm2, norm3;
};

struct ModelWeights {
    Matrix embed;      // (vocab, D) "embed.weight"
    Matrix pos_embed;  // (max_len, D) "pos_embed.weight", learned PE only
    Matrix type_embed; // (type_vocab, D), token types (BERT) only
    std::optional<LayerNormWeights> embed_norm;  // after the embeddings (BERT) only
    Matrix lm_head;    // (vocab, D), LmHead::Separate only
    // A model read layer by layer leaves these two in its file (embed and lm_head then
    // empty): a lookup converts the rows of its tokens, the head's product a panel at a
    // time. They point into the model's LayerSource (StoredLayer::attach).
    const StoredMatrix* embed_stored = nullptr;
    const StoredMatrix* lm_head_stored = nullptr;
    // Encoder-only / decoder-only: the one stack ("layers.N."); encoder-decoder: the
    // encoder ("encoder.layers.N.").
    std::vector<EncoderLayerWeights> layers;
    std::vector<DecoderLayerWeights> decoder_layers;  // "decoder.layers.N."
    // Final norms: "norm." for pre-LN single stacks; "encoder.norm." and
    // "decoder.norm." always for encoder-decoder (as nn.Transformer has them).
    std::optional<LayerNormWeights> final_norm;
    std::optional<LayerNormWeights> decoder_final_norm;
};

// Deterministic initialisation in the spirit of PyTorch's defaults (xavier-uniform
// in_proj, zero biases, kaiming-uniform Linear, N(0,1) embeddings, LayerNorm 1/0,
// RMSNorm 1),
// drawn from core/rng.h so the same seed gives the same weights on every platform. Each
// tensor has its own key from (seed, tensor name); uniform tensors are counter-based
// (fill_uniform_counter: element i from SplitMix64 output i of the key), and so are
// the normal tables (fill_normal_counter). The fills run in parallel
// (hs::parallel_for) with values that do not depend on the thread count.
ModelWeights init_weights(const ModelConfig& config);


// Whether a model with this config has the final norms described above.
bool has_final_norm(const ModelConfig& config);

}  // namespace hs
