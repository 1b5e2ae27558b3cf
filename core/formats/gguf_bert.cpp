#include "core/formats/gguf_bert.h"

#include "core/error.h"
#include "core/formats/gguf.h"
#include "core/formats/gguf_tensor_reader.h"

namespace hs {

ModelConfig gguf_bert_config(const GgufFile& file, const std::string& arch) {
    const std::string p = arch + ".";
    ModelConfig c = gguf_decoder_config(file, arch);
    if (file.boolean(p + "attention.causal", false))
        throw Error(file.path() + ": a causal '" + arch + "' (" + p + "attention.causal) is not a BERT encoder");
    c.family = "bert";
    c.arch = Arch::EncoderOnly;
    c.mask = MaskKind::None;
    c.norm = NormPlacement::PostLN;
    c.norm_kind = NormKind::LayerNorm;
    c.norm_eps = static_cast<float>(file.number(p + "attention.layer_norm_epsilon", 1e-12));
    c.pe = PosEncoding::Learned;
    c.activation = Activation::GELU;  // BERT's hidden_act "gelu" (erf)
    c.embed_norm = true;
    const GgufTensor* types = file.find_tensor("token_types.weight");
    if (!types || types->ne.size() != 2 || types->ne[1] < 1 || types->ne[1] > 1024)
        throw Error(file.path() + " has no (token types, d_model) tensor 'token_types.weight', which a bert model needs");
    c.type_vocab = static_cast<int>(types->ne[1]);
    return c;
}

void gguf_bert_outside(const ModelConfig& c, GgufTensorReader& r, ModelWeights& w) {
    const Eigen::Index D = c.d_model;
    r.matrix_into("token_embd.weight", c.vocab, D, w.embed);
    w.pos_embed = r.matrix("position_embd.weight", c.max_len, D);
    w.type_embed = r.matrix("token_types.weight", c.type_vocab, D);
    read_gguf_layer_norm_into(r, "token_embd_norm", D, w.embed_norm.emplace());
}

void gguf_bert_layer(const ModelConfig& c, GgufTensorReader& r, int il, EncoderLayerWeights& l) {
    const Eigen::Index D = c.d_model, F = c.d_ff;
    const std::string b = "blk." + std::to_string(il) + ".";
    AttentionWeights& a = l.self_attn;
    a.heads = c.heads;
    read_gguf_qkv(r, b, D, D, D, a.in_proj_weight);  // rows [W_Q; W_K; W_V]
    read_gguf_qkv_bias(r, b, D, D, a.in_proj_bias);
    r.matrix_into(b + "attn_output.weight", D, D, a.out_proj_weight);
    r.vector_into(b + "attn_output.bias", D, a.out_proj_bias);
    read_gguf_layer_norm_into(r, b + "attn_output_norm", D, l.norm1);  // post-norm: after the attention's residual add
    r.matrix_into(b + "ffn_up.weight", F, D, l.ffn.linear1_weight);
    r.vector_into(b + "ffn_up.bias", F, l.ffn.linear1_bias);
    r.matrix_into(b + "ffn_down.weight", D, F, l.ffn.linear2_weight);
    r.vector_into(b + "ffn_down.bias", D, l.ffn.linear2_bias);
    read_gguf_layer_norm_into(r, b + "layer_output_norm", D, l.norm2);  // after the feed-forward's
}

}  // namespace hs
