// Hugging Face checkpoint directory -> Model (names and layouts in hf_loader.h).
//
// Shape letters: D d_model, H heads, Hkv key/value heads, Dh head_dim, F d_ff, V vocab,
// P max positions. Every weight ends up (out, in) so y = x·Wᵀ + b, as PyTorch nn.Linear
// stores it; GPT-2's Conv1D stores (in, out) and computes y = x·W + b, so it is transposed.
#include "core/formats/hf_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.h"
#include "core/formats/hf_config.h"
#include "core/formats/hf_tensors.h"
#include "core/model/config_summary.h"
#include "core/model/layer_source.h"

namespace hs {

namespace {

namespace fs = std::filesystem;

// One layer's weights into `l`, and the weights outside the layers into `w`, read through
// t (as f32: each matrix a new one; left stored: each declared in t's StoredLayer).
using HfLayerFn = void (*)(const ModelConfig& c, HfTensorReader& t, int il, EncoderLayerWeights& l);
using HfOutsideFn = void (*)(const ModelConfig& c, HfTensorReader& t, ModelWeights& w);

// A feed-forward of two nn.Linear layers with biases: up (F, D) then down (D, F), under
// `up` and `down` (".weight" / ".bias" appended).
void linear_mlp(HfTensorReader& t, const std::string& up, const std::string& down, std::int64_t F, std::int64_t D,
                FeedForwardWeights& f) {
    t.matrix_into(up + ".weight", F, D, f.linear1_weight);
    f.linear1_bias = t.vector(up + ".bias", F);
    t.matrix_into(down + ".weight", D, F, f.linear2_weight);
    f.linear2_bias = t.vector(down + ".bias", D);
}

// [W_q; W_k; W_v] (Q + 2·KV, D) stacked into one in_proj_weight — the fused projection
// attention runs — from three (out, in) tensors.
void stacked_qkv(HfTensorReader& t, const std::string& q, const std::string& k, const std::string& v, std::int64_t Q,
                 std::int64_t KV, std::int64_t D, Matrix& out) {
    const TensorInfo& tq = t.expect(q, {Q, D});  // all three checked before anything is read
    const TensorInfo& tk = t.expect(k, {KV, D});
    const TensorInfo& tv = t.expect(v, {KV, D});
    t.shape_into(out, Q + 2 * KV, D);
    t.rows_into(tq, 0, Q, out, 0);
    t.rows_into(tk, 0, KV, out, Q);
    t.rows_into(tv, 0, KV, out, Q + KV);
}
Vector stack(const Vector& a, const Vector& b, const Vector& c) {
    Vector out(a.size() + b.size() + c.size());
    out << a, b, c;
    return out;
}

// ---------------------------------------------------------------------------------------
// GPT-2
// ---------------------------------------------------------------------------------------

std::string gpt2_prefix(const HfTensorReader& t) { return t.has("transformer.wte.weight") ? "transformer." : ""; }

void gpt2_outside(const ModelConfig& c, HfTensorReader& t, ModelWeights& w) {
    const std::string p = gpt2_prefix(t);
    t.matrix_into(p + "wte.weight", c.vocab, c.d_model, w.embed);      // (V, D)
    w.pos_embed = t.matrix(p + "wpe.weight", c.max_len, c.d_model);  // (P, D)
    w.final_norm = LayerNormWeights{t.vector(p + "ln_f.weight", c.d_model), t.vector(p + "ln_f.bias", c.d_model)};
}

// Conv1D stores (in, out) and computes y = x·W + b, so every matrix is read as f32 and
// transposed (none is left as stored).
void gpt2_layer(const ModelConfig& c, HfTensorReader& t, int il, EncoderLayerWeights& l) {
    const std::int64_t D = c.d_model, F = c.d_ff;
    const std::string h = gpt2_prefix(t) + "h." + std::to_string(il) + ".";
    // Pre-LN: norm1 = ln_1 before attention, norm2 = ln_2 before the MLP.
    l.norm1 = {t.vector(h + "ln_1.weight", D), t.vector(h + "ln_1.bias", D)};
    // c_attn: qkv (T, 3D) = x · W + b with W (D, 3D) = [W_q | W_k | W_v] column blocks,
    // so Wᵀ (3D, D) is in_proj_weight [W_q; W_k; W_v] as (out, in).
    l.self_attn.heads = c.heads;
    l.self_attn.in_proj_weight = t.matrix(h + "attn.c_attn.weight", D, 3 * D).transpose();
    l.self_attn.in_proj_bias = t.vector(h + "attn.c_attn.bias", 3 * D);
    l.self_attn.out_proj_weight = t.matrix(h + "attn.c_proj.weight", D, D).transpose();
    l.self_attn.out_proj_bias = t.vector(h + "attn.c_proj.bias", D);
    l.norm2 = {t.vector(h + "ln_2.weight", D), t.vector(h + "ln_2.bias", D)};
    l.ffn.linear1_weight = t.matrix(h + "mlp.c_fc.weight", D, F).transpose();    // (F, D)
    l.ffn.linear1_bias = t.vector(h + "mlp.c_fc.bias", F);
    l.ffn.linear2_weight = t.matrix(h + "mlp.c_proj.weight", F, D).transpose();  // (D, F)
    l.ffn.linear2_bias = t.vector(h + "mlp.c_proj.bias", D);
}

// ---------------------------------------------------------------------------------------
// BERT
// ---------------------------------------------------------------------------------------

// LayerNorm parameters under the current (.weight/.bias) or legacy (.gamma/.beta) names.
LayerNormWeights layer_norm(HfTensorReader& t, const std::string& base, std::int64_t D) {
    return {t.vector(t.pick({base + ".weight", base + ".gamma"}), D), t.vector(t.pick({base + ".bias", base + ".beta"}), D)};
}

std::string bert_prefix(const HfTensorReader& t) { return t.has("bert.embeddings.word_embeddings.weight") ? "bert." : ""; }

void bert_outside(const ModelConfig& c, HfTensorReader& t, ModelWeights& w) {
    const std::string p = bert_prefix(t);
    const std::int64_t D = c.d_model;
    t.matrix_into(p + "embeddings.word_embeddings.weight", c.vocab, D, w.embed);
    w.pos_embed = t.matrix(p + "embeddings.position_embeddings.weight", c.max_len, D);
    w.type_embed = t.matrix(p + "embeddings.token_type_embeddings.weight", c.type_vocab, D);
    w.embed_norm = layer_norm(t, p + "embeddings.LayerNorm", D);
}

void bert_layer(const ModelConfig& c, HfTensorReader& t, int il, EncoderLayerWeights& l) {
    const std::int64_t D = c.d_model, F = c.d_ff;
    const std::string e = bert_prefix(t) + "encoder.layer." + std::to_string(il) + ".";
    const std::string a = e + "attention.self.";
    l.self_attn.heads = c.heads;
    stacked_qkv(t, a + "query.weight", a + "key.weight", a + "value.weight", D, D, D, l.self_attn.in_proj_weight);
    l.self_attn.in_proj_bias = stack(t.vector(a + "query.bias", D), t.vector(a + "key.bias", D), t.vector(a + "value.bias", D));
    t.matrix_into(e + "attention.output.dense.weight", D, D, l.self_attn.out_proj_weight);
    l.self_attn.out_proj_bias = t.vector(e + "attention.output.dense.bias", D);
    // Post-LN: norm1 follows the attention residual add, norm2 the MLP's.
    l.norm1 = layer_norm(t, e + "attention.output.LayerNorm", D);
    linear_mlp(t, e + "intermediate.dense", e + "output.dense", F, D, l.ffn);
    l.norm2 = layer_norm(t, e + "output.LayerNorm", D);
}

// ---------------------------------------------------------------------------------------
// GPT-Neo
// ---------------------------------------------------------------------------------------

// nn.Linear throughout (no Conv1D): q/k/v_proj without biases, out_proj and the MLP with.
// Checkpoints may also hold the causal-mask buffers attn.attention.bias / masked_bias,
// which are not weights and are not read.
void gpt_neo_outside(const ModelConfig& c, HfTensorReader& t, ModelWeights& w) {
    const std::int64_t D = c.d_model;
    t.matrix_into("transformer.wte.weight", c.vocab, D, w.embed);
    w.pos_embed = t.matrix("transformer.wpe.weight", c.max_len, D);
    w.final_norm = LayerNormWeights{t.vector("transformer.ln_f.weight", D), t.vector("transformer.ln_f.bias", D)};
    if (c.lm_head == LmHead::Separate) t.matrix_into("lm_head.weight", c.vocab, D, w.lm_head);
}

void gpt_neo_layer(const ModelConfig& c, HfTensorReader& t, int il, EncoderLayerWeights& l) {
    const std::int64_t D = c.d_model, F = c.d_ff;
    const std::string h = "transformer.h." + std::to_string(il) + ".";
    const std::string a = h + "attn.attention.";
    l.norm1 = {t.vector(h + "ln_1.weight", D), t.vector(h + "ln_1.bias", D)};
    l.self_attn.heads = c.heads;
    stacked_qkv(t, a + "q_proj.weight", a + "k_proj.weight", a + "v_proj.weight", D, D, D, l.self_attn.in_proj_weight);
    t.matrix_into(a + "out_proj.weight", D, D, l.self_attn.out_proj_weight);
    l.self_attn.out_proj_bias = t.vector(a + "out_proj.bias", D);
    l.norm2 = {t.vector(h + "ln_2.weight", D), t.vector(h + "ln_2.bias", D)};
    linear_mlp(t, h + "mlp.c_fc", h + "mlp.c_proj", F, D, l.ffn);
}

// ---------------------------------------------------------------------------------------
// GPT-NeoX (Pythia)
// ---------------------------------------------------------------------------------------

void gpt_neox_outside(const ModelConfig& c, HfTensorReader& t, ModelWeights& w) {
    const std::int64_t D = c.d_model;
    t.matrix_into("gpt_neox.embed_in.weight", c.vocab, D, w.embed);
    w.final_norm = LayerNormWeights{t.vector("gpt_neox.final_layer_norm.weight", D),
                                    t.vector("gpt_neox.final_layer_norm.bias", D)};
    if (c.lm_head == LmHead::Separate) t.matrix_into("embed_out.weight", c.vocab, D, w.lm_head);
}

// query_key_value (3D, D) holds each head's q, k and v rows together: output row
// h·3·Dh + j·Dh + d is part j (q, k, v) of head h, dim d (HF views the product as
// (T, H, 3·Dh)). Read into [W_Q; W_K; W_V], row j·D + h·Dh + d; the bias alike.
void gpt_neox_layer(const ModelConfig& c, HfTensorReader& t, int il, EncoderLayerWeights& l) {
    const std::int64_t D = c.d_model, F = c.d_ff;
    const int H = c.heads, Dh = c.d_h();
    const std::string m = "gpt_neox.layers." + std::to_string(il) + ".";
    l.norm1 = {t.vector(m + "input_layernorm.weight", D), t.vector(m + "input_layernorm.bias", D)};
    l.norm2 = {t.vector(m + "post_attention_layernorm.weight", D), t.vector(m + "post_attention_layernorm.bias", D)};
    AttentionWeights& a = l.self_attn;
    a.heads = c.heads;
    const TensorInfo& qkv = t.expect(m + "attention.query_key_value.weight", {3 * D, D});
    t.shape_into(a.in_proj_weight, 3 * D, D);
    for (int h = 0; h < H; ++h)
        for (int j = 0; j < 3; ++j) t.rows_into(qkv, (3 * h + j) * Dh, Dh, a.in_proj_weight, j * D + h * Dh);
    t.matrix_into(m + "attention.dense.weight", D, D, a.out_proj_weight);
    a.in_proj_bias = Vector();
    a.out_proj_bias = Vector();
    if (c.qkv_bias) {
        const Vector fused = t.vector(m + "attention.query_key_value.bias", 3 * D);
        a.in_proj_bias.resize(3 * D);
        for (int h = 0; h < H; ++h)
            for (int j = 0; j < 3; ++j) a.in_proj_bias.segment(j * D + h * Dh, Dh) = fused.segment((3 * h + j) * Dh, Dh);
        a.out_proj_bias = t.vector(m + "attention.dense.bias", D);
    }
    linear_mlp(t, m + "mlp.dense_h_to_4h", m + "mlp.dense_4h_to_h", F, D, l.ffn);
}

// ---------------------------------------------------------------------------------------
// Llama / Qwen2 / Qwen3 / Mistral / Phi-3 / Gemma 1–3
// ---------------------------------------------------------------------------------------

// GemmaRMSNorm scales by (1 + w): γ = 1 + the stored w.
bool gemma(const ModelConfig& c) { return c.family.starts_with("gemma"); }
Vector rms_gamma(const ModelConfig& c, HfTensorReader& t, const std::string& name, std::int64_t n) {
    Vector g = t.vector(name, n);
    if (gemma(c)) g.array() += 1.0f;
    return g;
}

void llama_outside(const ModelConfig& c, HfTensorReader& t, ModelWeights& w) {
    t.matrix_into("model.embed_tokens.weight", c.vocab, c.d_model, w.embed);
    w.final_norm = LayerNormWeights{rms_gamma(c, t, "model.norm.weight", c.d_model), Vector()};
    if (c.lm_head == LmHead::Separate) t.matrix_into("lm_head.weight", c.vocab, c.d_model, w.lm_head);
}

void llama_layer(const ModelConfig& c, HfTensorReader& t, int il, EncoderLayerWeights& l) {
    const std::int64_t D = c.d_model, F = c.d_ff;
    const std::int64_t Q = c.inner();                                   // H·Dh
    const std::int64_t KV = std::int64_t{c.kv_head_count()} * c.d_h();  // Hkv·Dh
    const bool phi3 = c.family == "phi3";                               // fused q/k/v and gate/up
    const std::string m = "model.layers." + std::to_string(il) + ".";
    l.norm1 = {rms_gamma(c, t, m + "input_layernorm.weight", D), Vector()};  // RMSNorm: γ only
    AttentionWeights& a = l.self_attn;
    a.heads = c.heads;
    a.kv_heads = c.kv_heads;
    if (phi3)
        t.matrix_into(m + "self_attn.qkv_proj.weight", Q + 2 * KV, D, a.in_proj_weight);  // [q; k; v] as stored
    else
        stacked_qkv(t, m + "self_attn.q_proj.weight", m + "self_attn.k_proj.weight", m + "self_attn.v_proj.weight", Q,
                    KV, D, a.in_proj_weight);
    if (c.qkv_bias)
        a.in_proj_bias = stack(t.vector(m + "self_attn.q_proj.bias", Q), t.vector(m + "self_attn.k_proj.bias", KV),
                               t.vector(m + "self_attn.v_proj.bias", KV));
    if (c.qk_norm) {  // Qwen3, Gemma 3: RMSNorm γ of head_dim for every head's q and k
        a.q_norm = rms_gamma(c, t, m + "self_attn.q_norm.weight", c.d_h());
        a.k_norm = rms_gamma(c, t, m + "self_attn.k_norm.weight", c.d_h());
    }
    t.matrix_into(m + "self_attn.o_proj.weight", D, Q, a.out_proj_weight);
    if (c.out_bias) a.out_proj_bias = t.vector(m + "self_attn.o_proj.bias", D);
    if (c.sandwich_norm) {  // Gemma 2/3: post_attention_layernorm is the attention's output norm
        l.post_attn_norm = LayerNormWeights{rms_gamma(c, t, m + "post_attention_layernorm.weight", D), Vector()};
        l.norm2 = {rms_gamma(c, t, m + "pre_feedforward_layernorm.weight", D), Vector()};
        l.post_ffn_norm = LayerNormWeights{rms_gamma(c, t, m + "post_feedforward_layernorm.weight", D), Vector()};
    } else {
        l.norm2 = {rms_gamma(c, t, m + "post_attention_layernorm.weight", D), Vector()};
    }
    // SwiGLU (Gemma: GeGLU): down(act(gate(x)) ⊙ up(x)) with up = linear1, down = linear2.
    if (phi3) {  // gate_up_proj: (2F, D) = [gate; up]
        const TensorInfo& gate_up = t.expect(m + "mlp.gate_up_proj.weight", {2 * F, D});
        t.shape_into(l.ffn.gate_weight, F, D);
        t.rows_into(gate_up, 0, F, l.ffn.gate_weight, 0);
        t.shape_into(l.ffn.linear1_weight, F, D);
        t.rows_into(gate_up, F, F, l.ffn.linear1_weight, 0);
    } else {
        t.matrix_into(m + "mlp.gate_proj.weight", F, D, l.ffn.gate_weight);
        t.matrix_into(m + "mlp.up_proj.weight", F, D, l.ffn.linear1_weight);
    }
    t.matrix_into(m + "mlp.down_proj.weight", D, F, l.ffn.linear2_weight);
}

struct HfFamilyReader {
    HfOutsideFn outside;
    HfLayerFn layer;
};
HfFamilyReader family_reader(const std::string& family) {
    if (family == "gpt2") return {gpt2_outside, gpt2_layer};
    if (family == "bert") return {bert_outside, bert_layer};
    if (family == "gpt_neo") return {gpt_neo_outside, gpt_neo_layer};
    if (family == "gpt_neox") return {gpt_neox_outside, gpt_neox_layer};
    return {llama_outside, llama_layer};  // hf_config.cpp admits no other model_type
}

void report(const ProgressFn& progress, int done, int total) {
    if (progress && !progress(done, total)) throw Cancelled{};
}

}  // namespace

Model load_hf_model(const std::string& dir, const ProgressFn& progress, std::optional<WeightResidency> residency) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir + " is not a directory");
    ModelConfig c = load_hf_config(dir).config;
    auto tensors = std::make_shared<const HfTensors>(dir, c.family);
    const WeightFootprint footprint = hf_footprint(*tensors, c);
    if (!residency) residency = plan_weight_residency(footprint, available_memory_bytes(), true, "the model in " + dir);
    std::string name = fs::path(dir).lexically_normal().string();
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    const HfFamilyReader family = family_reader(c.family);
    HfTensorReader t(*tensors);
    ModelWeights weights;
    // Read layer by layer, the embedding and the head are left in the files (checked finite
    // now, not converted); the other weights outside the layers are read as f32.
    std::unique_ptr<StoredLayer> outside =
        read_outside_layers(*residency == WeightResidency::PerLayer, t, weights,
                            [&](HfTensorReader& reader, ModelWeights& into) { family.outside(c, reader, into); });
    if (*residency == WeightResidency::PerLayer) {
        // Every layer's tensors checked for names, dtypes and shapes (their vectors read and
        // checked); their matrices are checked finite when the forward first reads them.
        ProductsLayer scratch;
        t.leave_stored(&scratch.stored, false);
        for (int il = 0; il < c.layers; ++il) {
            scratch.stored.clear(scratch.layer);
            family.layer(c, t, il, scratch.layer);
            report(progress, il + 1, c.layers);
        }
        scratch.stored.clear(scratch.layer);
        auto read = [tensors, c, layer = family.layer](int il, EncoderLayerWeights& l, StoredLayer* stored,
                                                        bool check_stored) {
            HfTensorReader r(*tensors, stored, check_stored);
            layer(c, r, il, l);
        };
        auto layers = std::make_shared<const FileLayerSource>("the model in " + dir, c.layers, std::move(read),
                                                              footprint, false, std::move(outside));
        Model model(std::move(c), std::move(weights), std::move(layers), std::move(name));
        model.set_stored_dtype(t.dtype() + ", read one layer at a time");
        return model;
    }
    for (int il = 0; il < c.layers; ++il) {
        family.layer(c, t, il, weights.layers.emplace_back());
        report(progress, il + 1, c.layers);
    }
    Model model(std::move(c), std::move(weights), std::move(name));
    model.set_stored_dtype(t.dtype());
    return model;
}

std::string describe_hf_model(const std::string& dir, const std::string& tokenizer, int tokenizer_vocab) {
    const ModelConfig c = load_hf_config(dir).config;
    const HfTensors tensors(dir, c.family);
    std::map<std::string, int> by_dtype;
    double on_disk = 0;
    for (const auto& [name, file] : tensors.tensors()) {
        const TensorInfo& t = file->info(name);
        ++by_dtype[to_string(t.dtype)];
        on_disk += static_cast<double>(t.end - t.begin);
    }
    std::string dtypes;
    for (const auto& [dtype, n] : by_dtype) dtypes += (dtypes.empty() ? "" : ", ") + dtype + " ×" + std::to_string(n);
    const WeightFootprint footprint = hf_footprint(tensors, c);
    std::ostringstream out;
    out << "model:      " << dir << " (Hugging Face " << c.family << " checkpoint)\n"
        << describe_architecture(c, tokenizer_vocab) << "tokenizer:  " << tokenizer << "\n"
        << "tensors:    " << tensors.tensors().size() << " (" << dtypes << ")\n"
        << "parameters: " << static_cast<long long>(footprint.params) << "\n"
        << "on disk:    " << memory_text(on_disk) << " of tensors as stored\n"
        << describe_memory_plan(footprint, available_memory_bytes(), true);
    return out.str();
}

}  // namespace hs
