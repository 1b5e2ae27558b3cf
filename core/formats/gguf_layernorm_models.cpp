#include "core/formats/gguf_layernorm_models.h"

#include "core/error.h"
#include "core/formats/gguf.h"
#include "core/formats/gguf_tensor_reader.h"

namespace hs {

namespace {

// LayerNorm (γ, β) of D from "<name>.weight" and "<name>.bias".
LayerNormWeights layer_norm(GgufTensorReader& r, const std::string& name, Eigen::Index D) {
    return {r.vector(name + ".weight", D), r.vector(name + ".bias", D)};
}

}  // namespace

ModelConfig gguf_layernorm_config(const GgufFile& file, const std::string& arch) {
    const std::string p = arch + ".";
    ModelConfig c = gguf_decoder_config(file, arch);
    c.norm = NormPlacement::PreLN;
    c.norm_kind = NormKind::LayerNorm;
    c.norm_eps = static_cast<float>(file.number(p + "attention.layer_norm_epsilon", 1e-5));
    c.qkv_bias = c.out_bias = c.mlp_bias = true;
    if (arch == "gpt2") {
        c.pe = PosEncoding::Learned;
        c.activation = Activation::GELUTanh;  // GPT-2's gelu_new
        return c;
    }
    // gptneox (Pythia): rotary on the first rope.dimension_count dims, NEOX halves
    c.pe = PosEncoding::Rotary;
    c.rope_layout = RopeLayout::RotateHalf;
    c.rope_theta = gguf_positive_number(file, p + "rope.freq_base", 10000.0);
    c.rotary_dims = read_gguf_rotary_dims(file, p, c.d_h());
    c.parallel_block = file.boolean(p + "use_parallel_residual", true);
    c.activation = Activation::GELU;  // Pythia's hidden_act "gelu" (erf)
    return c;
}

void gguf_layernorm_outside(const ModelConfig& c, GgufTensorReader& r, ModelWeights& w) {
    const Eigen::Index D = c.d_model, V = c.vocab;
    r.matrix_into("token_embd.weight", V, D, w.embed);
    if (c.pe == PosEncoding::Learned) w.pos_embed = r.matrix("position_embd.weight", c.max_len, D);
    w.final_norm = layer_norm(r, "output_norm", D);
    if (c.lm_head == LmHead::Separate) r.matrix_into("output.weight", V, D, w.lm_head);
}

void gguf_layernorm_layer(const ModelConfig& c, GgufTensorReader& r, int il, EncoderLayerWeights& l) {
    const Eigen::Index D = c.d_model, F = c.d_ff;
    const std::string b = "blk." + std::to_string(il) + ".";
    read_gguf_layer_norm_into(r, b + "attn_norm", D, l.norm1);
    AttentionWeights& a = l.self_attn;
    a.heads = c.heads;
    r.matrix_into(b + "attn_qkv.weight", 3 * D, D, a.in_proj_weight);  // rows [W_Q; W_K; W_V]
    r.vector_into(b + "attn_qkv.bias", 3 * D, a.in_proj_bias);
    r.matrix_into(b + "attn_output.weight", D, D, a.out_proj_weight);
    r.vector_into(b + "attn_output.bias", D, a.out_proj_bias);
    read_gguf_layer_norm_into(r, b + "ffn_norm", D, l.norm2);
    r.matrix_into(b + "ffn_up.weight", F, D, l.ffn.linear1_weight);
    r.vector_into(b + "ffn_up.bias", F, l.ffn.linear1_bias);
    r.matrix_into(b + "ffn_down.weight", D, F, l.ffn.linear2_weight);
    r.vector_into(b + "ffn_down.bias", D, l.ffn.linear2_bias);
}

}  // namespace hs
