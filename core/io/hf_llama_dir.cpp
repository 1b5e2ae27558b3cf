// Model -> Hugging Face Llama directory (names and layout in hf_llama_dir.h).
#include "core/io/directory_writer.h"
#include "core/io/hf_llama_dir.h"

#include <filesystem>
#include <numeric>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/model_dir.h"
#include "core/io/safetensors.h"

namespace hs {

namespace {

namespace fs = std::filesystem;
using Shape = std::vector<std::int64_t>;

NamedTensor tensor(const std::string& name, const Matrix& m) {
    return {name, Shape{m.rows(), m.cols()}, std::vector<float>(m.data(), m.data() + m.size())};
}
NamedTensor tensor(const std::string& name, const Vector& v) {
    return {name, Shape{v.size()}, std::vector<float>(v.data(), v.data() + v.size())};
}

// Row order of one head under the interleaved -> rotate-half permutation: new row j of a
// head is old row order[j], order = [0, 2, 4, …, 1, 3, 5, …] (pair i = (2i, 2i+1) becomes
// (i, i + Dh/2)).
std::vector<int> rotate_half_order(int Dh) {
    std::vector<int> order;
    for (int i = 0; i < Dh; i += 2) order.push_back(i);
    for (int i = 1; i < Dh; i += 2) order.push_back(i);
    return order;
}

// rows (n_heads·Dh, …) with each head's rows reordered by `order` (identity when empty).
template <typename M>
M permute_heads(const M& rows, int n_heads, int Dh, const std::vector<int>& order) {
    if (order.empty()) return rows;
    M out = rows;
    for (int h = 0; h < n_heads; ++h)
        for (int j = 0; j < Dh; ++j) out.row(h * Dh + j) = rows.row(h * Dh + order[j]);
    return out;
}

nlohmann::json llama_config(const ModelConfig& c) {
    nlohmann::json j = {{"architectures", {"LlamaForCausalLM"}},
                        {"model_type", "llama"},
                        {"hidden_size", c.d_model},
                        {"intermediate_size", c.d_ff},
                        {"num_attention_heads", c.heads},
                        {"num_key_value_heads", c.kv_head_count()},
                        {"head_dim", c.d_h()},
                        {"num_hidden_layers", c.layers},
                        {"vocab_size", c.vocab},
                        {"max_position_embeddings", c.max_len},
                        {"rms_norm_eps", float_for_json(c.norm_eps)},
                        {"rope_theta", float_for_json(c.rope_theta)},
                        {"hidden_act", "silu"},
                        {"attention_bias", c.qkv_bias},
                        {"mlp_bias", false},
                        {"tie_word_embeddings", c.lm_head != LmHead::Separate},
                        {"torch_dtype", "float32"}};
    if (c.qk_norm) {  // Qwen3: Llama with q_norm / k_norm
        j["architectures"] = {"Qwen3ForCausalLM"};
        j["model_type"] = "qwen3";
    }
    if (c.window > 0) {  // Mistral: Llama with a sliding window of keys in every layer
        j["architectures"] = {"MistralForCausalLM"};
        j["model_type"] = "mistral";
        j["sliding_window"] = c.window;
        j.erase("attention_bias");
        j.erase("mlp_bias");
    }
    if (c.family.empty()) j["headscope_tokenizer"] = "playground";
    if (c.lm_head == LmHead::None) j["headscope_lm_head"] = "none";
    return j;
}

}  // namespace

bool is_llama_shaped(const ModelConfig& c) {
    return c.arch == Arch::DecoderOnly && c.mask == MaskKind::Causal &&
           c.norm == NormPlacement::PreLN && c.norm_kind == NormKind::RMSNorm &&
           c.pe == PosEncoding::Rotary && c.activation == Activation::SwiGLU && !c.mlp_bias &&
           c.qkv_bias == c.out_bias && !c.embed_norm && c.type_vocab == 0 &&
           !(c.window > 0 && (c.qkv_bias || c.qk_norm)) &&  // with a window a Mistral: no biases, no qk-norm
           !c.parallel_block && c.rotary_dims == 0 &&        // GPT-NeoX's options have no Llama names
           c.window_layers.empty() && c.attn_scale == 0.0f &&  // nor GPT-Neo's
           !c.embed_scale && !c.sandwich_norm &&                // nor Gemma's
           c.attn_softcap == 0.0f && c.logit_softcap == 0.0f && c.rope_local_theta == 0.0f;
}

void save_hf_llama_dir(const Model& model, const std::string& dir) {
    const ModelConfig& c = model.config();
    if (!is_llama_shaped(c))
        throw Error("only Llama-shaped decoders (pre-norm RMSNorm, RoPE, SwiGLU, causal) can be "
                    "saved as a Hugging Face Llama directory");
    const ModelWeights& w = model.weights();
    const int H = c.heads, Hkv = c.kv_head_count(), Dh = c.d_h(), I = H * Dh, Ikv = Hkv * Dh;
    const std::vector<int> order =
        c.rope_layout == RopeLayout::Interleaved ? rotate_half_order(Dh) : std::vector<int>{};
    std::vector<NamedTensor> out;
    out.push_back(tensor("model.embed_tokens.weight", w.embed));
    for (int il = 0; il < c.layers; ++il) {
        const EncoderLayerWeights& l = w.layers[static_cast<std::size_t>(il)];
        const std::string p = "model.layers." + std::to_string(il) + ".";
        const Matrix& w_in = l.self_attn.in_proj_weight;  // [W_q; W_k; W_v]: (I + 2·Ikv, D)
        out.push_back(tensor(p + "input_layernorm.weight", l.norm1.weight));
        out.push_back(tensor(p + "self_attn.q_proj.weight", permute_heads<Matrix>(w_in.topRows(I), H, Dh, order)));
        out.push_back(tensor(p + "self_attn.k_proj.weight",
                             permute_heads<Matrix>(w_in.middleRows(I, Ikv), Hkv, Dh, order)));
        out.push_back(tensor(p + "self_attn.v_proj.weight", Matrix(w_in.bottomRows(Ikv))));
        if (c.qkv_bias) {
            const Vector& b = l.self_attn.in_proj_bias;
            out.push_back(tensor(p + "self_attn.q_proj.bias", permute_heads<Vector>(b.head(I), H, Dh, order)));
            out.push_back(tensor(p + "self_attn.k_proj.bias",
                                 permute_heads<Vector>(b.segment(I, Ikv), Hkv, Dh, order)));
            out.push_back(tensor(p + "self_attn.v_proj.bias", Vector(b.tail(Ikv))));
            out.push_back(tensor(p + "self_attn.o_proj.bias", l.self_attn.out_proj_bias));
        }
        if (c.qk_norm) {  // γ of a head's Dh entries, in the rows' order
            out.push_back(tensor(p + "self_attn.q_norm.weight", permute_heads<Vector>(l.self_attn.q_norm, 1, Dh, order)));
            out.push_back(tensor(p + "self_attn.k_norm.weight", permute_heads<Vector>(l.self_attn.k_norm, 1, Dh, order)));
        }
        out.push_back(tensor(p + "self_attn.o_proj.weight", l.self_attn.out_proj_weight));
        out.push_back(tensor(p + "post_attention_layernorm.weight", l.norm2.weight));
        out.push_back(tensor(p + "mlp.gate_proj.weight", l.ffn.gate_weight));
        out.push_back(tensor(p + "mlp.up_proj.weight", l.ffn.linear1_weight));
        out.push_back(tensor(p + "mlp.down_proj.weight", l.ffn.linear2_weight));
    }
    if (!w.final_norm) throw Error("a pre-norm decoder must have a final norm");
    out.push_back(tensor("model.norm.weight", w.final_norm->weight));
    if (c.lm_head == LmHead::Separate) out.push_back(tensor("lm_head.weight", w.lm_head));

    // Both files or neither (directory_writer.h).
    write_directory_atomic(
        dir,
        [&](const std::string& new_dir) {
            write_safetensors((fs::path(new_dir) / "model.safetensors").string(), out, {{"format", "pt"}});
            write_file_atomic((fs::path(new_dir) / "config.json").string(), llama_config(c).dump(2) + "\n");
        },
        model_dir_files());
}

}  // namespace hs
