// Forward pass of pretrained transformers. Shape letters as in transformer.h: T tokens,
// D d_model, H query heads, Hkv key/value heads, Dh head size, F d_ff, V vocab.
//
//   x: (T, D) = tok_embed[ids] (+ pos_embed[0..T) + type_embed[0]) (→ embedding norm)
//   per layer (pre-norm):  x = x + attn(norm1(x));  x = x + mlp(norm2(x))
//             (post-norm): x = norm1(x + attn(x));  x = norm2(x + mlp(x))
//   attn: [Q|K|V] = x·[W_q; W_k; W_v]ᵀ (+ b), RoPE on Q and K, grouped-query attention,
//         out = concat·W_oᵀ (+ b_o)
//   final = final_norm(x); logits (V) = lm_head · final[T−1]
#include "core/pretrained/transformer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/attention.h"
#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/pretrained/gqa_attention.h"
#include "core/pretrained/ops.h"
#include "core/pretrained/rope.h"

namespace hs {

namespace {

// Stacks K or V head blocks so that block h is the KV head query head h reads:
// (R, Hkv·Dh) -> (R, H·Dh). Used only for the step-by-step capture.
Matrix repeat_kv_cols(const Matrix& m, int heads, int kv_heads, int Dh) {
    Matrix out(m.rows(), static_cast<Eigen::Index>(heads) * Dh);
    for (int h = 0; h < heads; ++h)
        out.middleCols(h * Dh, Dh) = m.middleCols(kv_head_of(h, heads, kv_heads) * Dh, Dh);
    return out;
}

// Same for the rows of a (Hkv·Dh, D) weight or a (Hkv·Dh) bias.
Matrix repeat_kv_rows(const Matrix& m, int heads, int kv_heads, int Dh) {
    Matrix out(static_cast<Eigen::Index>(heads) * Dh, m.cols());
    for (int h = 0; h < heads; ++h)
        out.middleRows(h * Dh, Dh) = m.middleRows(kv_head_of(h, heads, kv_heads) * Dh, Dh);
    return out;
}

Vector bias_or_zero(const Vector& b, Eigen::Index n) {
    return b.size() ? b : Vector(Vector::Zero(n));
}

// What one forward call records; null members mean "do not capture".
struct Capture {
    const TraceOptions* options = nullptr;
    Trace* trace = nullptr;
};

// Self-attention sub-layer of layer `il` on its (already normed, if pre-norm) input.
// Returns (T, D); records head maps into `layer_trace` and every step into `steps`.
Matrix attention_block(const TransformerConfig& c, const TransformerLayerWeights& w,
                       const Matrix& x, const RopeTable* rope, bool want_weights,
                       bool want_scores, LayerTrace* layer_trace, AttentionSteps* steps,
                       const std::vector<int>& ablated, AblationMode ablate_mode) {
    const int T = static_cast<int>(x.rows()), H = c.heads, Hkv = c.kv_heads, Dh = c.head_dim;
    const int n_q = H * Dh, n_kv = Hkv * Dh;
    // qkv: (T, (H + 2·Hkv)·Dh) = [x·W_qᵀ | x·W_kᵀ | x·W_vᵀ] (+ biases). Three GEMMs into
    // the column blocks of one buffer: the loader keeps W_q, W_k, W_v apart (the app shows
    // them), and fusing them here would duplicate every attention weight in memory.
    // Each GEMM is split over the thread pool by column blocks (matmul_nt).
    Matrix qkv(T, n_q + 2 * n_kv);
    const auto bias = [](const Vector& b) { return b.size() ? &b : nullptr; };
    matmul_nt(x, w.wq, bias(w.bq), qkv.leftCols(n_q));
    matmul_nt(x, w.wk, bias(w.bk), qkv.middleCols(n_q, n_kv));
    matmul_nt(x, w.wv, bias(w.bv), qkv.rightCols(n_kv));

    Matrix q = qkv.leftCols(n_q);            // (T, H·Dh)
    Matrix k = qkv.middleCols(n_q, n_kv);    // (T, Hkv·Dh)
    const Matrix v = qkv.rightCols(n_kv);    // (T, Hkv·Dh)
    if (rope) {  // positions enter only through the rotation of Q and K
        apply_rope(q, H, *rope, c.rope_layout);
        apply_rope(k, Hkv, *rope, c.rope_layout);
    }
    GqaResult r = gqa_attention(q, k, v, H, Hkv, c.causal, want_weights, want_scores, steps,
                                ablated, ablate_mode);
    // out: (T, D) = concat · W_oᵀ + b_o
    Matrix out = linear(r.concat, w.wo, w.bo);
    if (layer_trace) {
        layer_trace->self_attn.weights = std::move(r.weights);
        layer_trace->self_attn.scores = std::move(r.scores);
    }
    if (steps) {
        // The playground's fused view with K/V repeated per query head:
        // W_in: (3·H·Dh, D) = [W_q; W_k(rep); W_v(rep)], qkv: (T, 3·H·Dh) before RoPE;
        // q, k: after RoPE (what the scores use), v: repeated.
        const int D = static_cast<int>(x.cols());
        steps->x_query = x;
        steps->x_memory = x;
        steps->w_in.resize(3 * n_q, D);
        steps->w_in.topRows(n_q) = w.wq;
        steps->w_in.middleRows(n_q, n_q) = repeat_kv_rows(w.wk, H, Hkv, Dh);
        steps->w_in.bottomRows(n_q) = repeat_kv_rows(w.wv, H, Hkv, Dh);
        steps->b_in.resize(3 * n_q);
        steps->b_in.head(n_q) = bias_or_zero(w.bq, n_q);
        steps->b_in.segment(n_q, n_q) = repeat_kv_rows(bias_or_zero(w.bk, n_kv), H, Hkv, Dh);
        steps->b_in.tail(n_q) = repeat_kv_rows(bias_or_zero(w.bv, n_kv), H, Hkv, Dh);
        steps->qkv.resize(T, 3 * n_q);
        steps->qkv.leftCols(n_q) = qkv.leftCols(n_q);
        steps->qkv.middleCols(n_q, n_q) =
            repeat_kv_cols(qkv.middleCols(n_q, n_kv), H, Hkv, Dh);
        steps->qkv.rightCols(n_q) = repeat_kv_cols(v, H, Hkv, Dh);
        steps->q = q;
        steps->k = repeat_kv_cols(k, H, Hkv, Dh);
        steps->v = repeat_kv_cols(v, H, Hkv, Dh);
        steps->w_out = w.wo;
        steps->b_out = bias_or_zero(w.bo, w.wo.rows());
        steps->output = out;
    }
    return out;
}

void check_ids(const TransformerConfig& c, const std::vector<int>& ids) {
    if (ids.empty()) throw Error("no tokens to run: the text is empty");
    if (static_cast<int>(ids.size()) > c.max_len)
        throw Error(std::to_string(ids.size()) + " tokens are more than this model's maximum of " +
                    std::to_string(c.max_len) + " positions");
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= c.vocab)
            throw Error("token id " + std::to_string(ids[i]) + " at position " +
                        std::to_string(i) + " is outside the vocabulary of " +
                        std::to_string(c.vocab) + " tokens");
}

// Embeddings → layers → final norm; returns the final hidden states (T, D). With a
// capture, fills trace.main (input, per-layer maps and outputs) and trace.steps.
Matrix run_stack(const TransformerConfig& c, const TransformerWeights& w,
                 const std::vector<int>& ids, const Capture& cap, const ProgressFn& progress) {
    check_ids(c, ids);
    const int T = static_cast<int>(ids.size()), L = c.layers;
    TraceOptions no_capture;
    no_capture.head_weights = false;
    no_capture.hidden_states = false;
    const TraceOptions& opt = cap.options ? *cap.options : no_capture;
    if (opt.head_weights)  // refuse before allocating maps that cannot fit
        ensure_maps_fit(double(T) * T, T, L, c.heads, opt.scores);

    // x: (T, D) = tok_embed[ids] (+ pos_embed[t]) (+ type_embed[0])
    Matrix x(T, c.d_model);
    for (int t = 0; t < T; ++t) x.row(t) = w.tok_embed.row(ids[t]);
    if (c.positions == PositionKind::Learned) x += w.pos_embed.topRows(T);
    if (w.type_embed.rows() > 0) x.rowwise() += w.type_embed.row(0);  // segment 0
    if (c.embedding_norm)
        x = apply_norm(x, w.emb_norm_w, w.emb_norm_b, c.norm, c.norm_eps);
    if (cap.trace) {
        cap.trace->main.input = x;
        cap.trace->main.layers.resize(L);
    }
    // Which layers keep their maps (TraceOptions::map_budget_bytes); a dropped layer
    // computes its maps only when on_maps wants to see them.
    std::vector<bool> resident(L, true);
    if (cap.trace && opt.head_weights)
        resident = plan_resident_blocks(
            std::vector<double>(L, map_block_bytes(double(T) * T, c.heads, opt.scores)),
            static_cast<double>(opt.map_budget_bytes), opt.resident_layer);

    RopeTable rope;
    if (c.positions == PositionKind::Rotary) rope = make_rope_table(T, c.head_dim, c.rope_theta);
    const RopeTable* rope_ptr = c.positions == PositionKind::Rotary ? &rope : nullptr;

    for (int il = 0; il < L; ++il) {
        const TransformerLayerWeights& lw = w.layers[il];
        LayerTrace* lt = cap.trace ? &cap.trace->main.layers[il] : nullptr;
        AttentionSteps* steps = nullptr;
        if (cap.trace && opt.detail_layer == il) {
            cap.trace->steps.emplace();
            cap.trace->steps_layer = il;
            steps = &*cap.trace->steps;
        }
        const std::vector<int> ablated = opt.ablated_heads(il, false, false);
        const bool compute_maps = opt.head_weights && (resident[il] || opt.on_maps);
        const bool compute_scores = opt.scores && compute_maps;
        if (c.pre_norm) {
            // x = x + attn(norm1(x)); x = x + mlp(norm2(x))
            const Matrix inp_sa = apply_norm(x, lw.attn_norm_w, lw.attn_norm_b, c.norm, c.norm_eps);
            x += attention_block(c, lw, inp_sa, rope_ptr, compute_maps, compute_scores, lt, steps,
                                 ablated, opt.ablate_mode);
            const Matrix inp_ff = apply_norm(x, lw.mlp_norm_w, lw.mlp_norm_b, c.norm, c.norm_eps);
            x += mlp_forward(inp_ff, lw, c.mlp);
        } else {
            // x = norm1(x + attn(x)); x = norm2(x + mlp(x))
            x += attention_block(c, lw, x, rope_ptr, compute_maps, compute_scores, lt, steps,
                                 ablated, opt.ablate_mode);
            x = apply_norm(x, lw.attn_norm_w, lw.attn_norm_b, c.norm, c.norm_eps);
            x += mlp_forward(x, lw, c.mlp);
            x = apply_norm(x, lw.mlp_norm_w, lw.mlp_norm_b, c.norm, c.norm_eps);
        }
        if (lt) settle_maps(opt, HeadRef{il, 0, false, false}, resident[il], lt->self_attn);
        if (lt && opt.hidden_states) lt->output = x;
        if (progress && !progress(il + 1, L)) throw Cancelled{};
    }
    if (c.final_norm) x = apply_norm(x, w.final_norm_w, w.final_norm_b, c.norm, c.norm_eps);
    return x;
}

// logits: (V) = W_head · h, W_head = lm_head (V, D) or the tied token embedding.
Vector lm_logits(const TransformerWeights& w, const Matrix& final) {
    const Matrix& head = w.lm_head.rows() > 0 ? w.lm_head : w.tok_embed;
    return head * final.row(final.rows() - 1).transpose();
}

long long size_of(const Matrix& m) { return static_cast<long long>(m.size()); }
long long size_of(const Vector& v) { return static_cast<long long>(v.size()); }

void check_model(const TransformerConfig& c, const TransformerWeights& w) {
    const auto fail = [&](const std::string& what) {
        throw Error("pretrained model (" + c.family + "): " + what);
    };
    if (c.heads < 1 || c.kv_heads < 1 || c.heads % c.kv_heads != 0)
        fail(std::to_string(c.heads) + " query heads cannot share " + std::to_string(c.kv_heads) +
             " key/value heads evenly");
    if (c.head_dim < 1) fail("head size " + std::to_string(c.head_dim) + " is not positive");
    if (static_cast<int>(w.layers.size()) != c.layers)
        fail("the config has " + std::to_string(c.layers) + " layers but the weights have " +
             std::to_string(w.layers.size()));
    if (w.tok_embed.rows() != c.vocab || w.tok_embed.cols() != c.d_model)
        fail("token embedding is (" + std::to_string(w.tok_embed.rows()) + ", " +
             std::to_string(w.tok_embed.cols()) + "), expected (" + std::to_string(c.vocab) +
             ", " + std::to_string(c.d_model) + ")");
    for (int il = 0; il < c.layers; ++il) {
        const auto& l = w.layers[il];
        if (l.wq.rows() != c.heads * c.head_dim || l.wk.rows() != c.kv_heads * c.head_dim ||
            l.wv.rows() != c.kv_heads * c.head_dim || l.wq.cols() != c.d_model ||
            l.wo.rows() != c.d_model || l.wo.cols() != c.heads * c.head_dim)
            fail("layer " + std::to_string(il) + " attention weights do not match " +
                 std::to_string(c.heads) + " heads, " + std::to_string(c.kv_heads) +
                 " key/value heads of size " + std::to_string(c.head_dim) + " and d_model " +
                 std::to_string(c.d_model));
    }
    if (c.positions == PositionKind::Learned && w.pos_embed.rows() < c.max_len)
        fail("the position table has " + std::to_string(w.pos_embed.rows()) + " rows for " +
             std::to_string(c.max_len) + " positions");
    if (c.positions == PositionKind::Rotary && c.head_dim % 2 != 0)
        fail("rotary embeddings need an even head size, got " + std::to_string(c.head_dim));
}

}  // namespace

TransformerModel::TransformerModel(TransformerConfig config, TransformerWeights weights,
                                   std::string name)
    : config_(std::move(config)), weights_(std::move(weights)), name_(std::move(name)) {
    check_model(config_, weights_);
}

long long TransformerModel::parameter_count() const {
    const TransformerWeights& w = weights_;
    long long n = size_of(w.tok_embed) + size_of(w.pos_embed) + size_of(w.type_embed) +
                  size_of(w.emb_norm_w) + size_of(w.emb_norm_b) + size_of(w.final_norm_w) +
                  size_of(w.final_norm_b) + size_of(w.lm_head);
    for (const auto& l : w.layers)
        n += size_of(l.wq) + size_of(l.wk) + size_of(l.wv) + size_of(l.bq) + size_of(l.bk) +
             size_of(l.bv) + size_of(l.wo) + size_of(l.bo) + size_of(l.attn_norm_w) +
             size_of(l.attn_norm_b) + size_of(l.mlp_norm_w) + size_of(l.mlp_norm_b) +
             size_of(l.w_up) + size_of(l.b_up) + size_of(l.w_gate) + size_of(l.w_down) +
             size_of(l.b_down);
    return n;
}

Trace TransformerModel::forward(const std::vector<int>& ids,
                                const std::vector<std::string>& tokens,
                                const TraceOptions& options, const ProgressFn& progress) const {
    if (!tokens.empty() && tokens.size() != ids.size())
        throw Error(std::to_string(tokens.size()) + " token strings were given for " +
                    std::to_string(ids.size()) + " token ids");
    if (options.detail_layer >= config_.layers)
        throw Error("detail layer " + std::to_string(options.detail_layer) +
                    " is out of range: the model has " + std::to_string(config_.layers) +
                    " layers");
    check_ablation(options.ablate, config_.layers, config_.heads, false);
    Trace trace;
    trace.config = nearest_model_config(config_);
    trace.model_name = name_;
    trace.kv_heads = config_.kv_heads;
    trace.ablate = options.ablate;
    trace.ablate_mode = options.ablate_mode;
    trace.main.ids = ids;
    if (tokens.empty())
        for (int id : ids) trace.main.tokens.push_back(std::to_string(id));
    else
        trace.main.tokens = tokens;
    // score cells: L · H · T²
    const TraceOptions opt = with_scores_limit(
        options, double(config_.layers) * config_.heads * double(ids.size()) * double(ids.size()));
    trace.main.final_output = run_stack(config_, weights_, ids, Capture{&opt, &trace}, progress);
    if (config_.has_lm_head) {  // texts are filled in by whoever holds the tokenizer
        trace.next_token_logits = lm_logits(weights_, trace.main.final_output);
        trace.next_tokens = top_k(trace.next_token_logits, 5);
    }
    return trace;
}

Vector TransformerModel::next_token_logits(const std::vector<int>& ids) const {
    if (!config_.has_lm_head)
        throw Error("'" + name_ + "' (" + config_.family +
                    ") has no language-model head, so it cannot predict next tokens");
    const Matrix final = run_stack(config_, weights_, ids, Capture{}, nullptr);
    return lm_logits(weights_, final);
}

HeadMaps TransformerModel::layer_maps(const Trace& trace, int layer, bool scores) const {
    const TransformerConfig& c = config_;
    const Matrix& x = layer_input(trace, layer, false);  // (T, D), range-checked
    if (x.cols() != c.d_model)
        throw Error("the trace's hidden states have " + std::to_string(x.cols()) +
                    " columns but this model's d_model is " + std::to_string(c.d_model) +
                    ": the trace comes from another model");
    const TransformerLayerWeights& lw = weights_.layers[layer];
    RopeTable rope;
    if (c.positions == PositionKind::Rotary)
        rope = make_rope_table(static_cast<int>(x.rows()), c.head_dim, c.rope_theta);
    const RopeTable* rope_ptr = c.positions == PositionKind::Rotary ? &rope : nullptr;
    TraceOptions ablation;
    ablation.ablate = trace.ablate;
    // pre-norm: maps of attn(norm1(x)); post-norm: maps of attn(x)
    const Matrix inp_sa =
        c.pre_norm ? apply_norm(x, lw.attn_norm_w, lw.attn_norm_b, c.norm, c.norm_eps) : x;
    LayerTrace lt;
    attention_block(c, lw, inp_sa, rope_ptr, true, scores, &lt, nullptr,
                    ablation.ablated_heads(layer, false, false), trace.ablate_mode);
    return std::move(lt.self_attn);
}

ModelConfig nearest_model_config(const TransformerConfig& c) {
    ModelConfig m;
    m.arch = c.causal ? Arch::DecoderOnly : Arch::EncoderOnly;
    m.d_model = c.d_model;
    m.heads = c.heads;
    m.layers = c.layers;
    m.d_ff = c.d_ff;
    m.vocab = c.vocab;
    m.max_len = c.max_len;
    m.pe = c.positions == PositionKind::Learned ? PosEncoding::Learned : PosEncoding::None;
    m.norm = c.pre_norm ? NormPlacement::PreLN : NormPlacement::PostLN;
    m.activation = Activation::GELU;  // nearest of ReLU / GELU for GELU and SwiGLU (SiLU) MLPs
    m.mask = c.causal ? MaskKind::Causal : MaskKind::None;
    m.norm_eps = c.norm_eps;
    return m;
}

std::vector<TokenProb> top_k(const Vector& logits, int k) {
    const int V = static_cast<int>(logits.size());
    k = std::max(0, std::min(k, V));
    if (k == 0) return {};
    // p_i = exp(z_i − max z) / Σ_j exp(z_j − max z), in double
    const double z_max = logits.maxCoeff();
    double sum = 0;
    for (int i = 0; i < V; ++i) sum += std::exp(static_cast<double>(logits(i)) - z_max);
    std::vector<int> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return logits(a) > logits(b) || (logits(a) == logits(b) && a < b);
    });
    std::vector<TokenProb> out;
    for (int j = 0; j < k; ++j) {
        TokenProb p;
        p.id = order[j];
        p.prob = static_cast<float>(std::exp(static_cast<double>(logits(order[j])) - z_max) / sum);
        out.push_back(p);
    }
    return out;
}

}  // namespace hs
