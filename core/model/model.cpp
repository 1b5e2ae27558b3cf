#include "core/model/model.h"

#include <algorithm>

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/model/layers.h"
#include "core/model/rope.h"

namespace hs {

namespace {


long long count(const Matrix& m) { return static_cast<long long>(m.size()); }
long long count(const Vector& v) { return static_cast<long long>(v.size()); }
long long count(const StoredMatrix* m) { return m ? static_cast<long long>(m->rows) * m->cols : 0; }
long long count(const AttentionWeights& a) {
    return count(a.in_proj_weight) + count(a.in_proj_bias) + count(a.out_proj_weight) +
           count(a.out_proj_bias) + count(a.q_norm) + count(a.k_norm);
}
long long count(const FeedForwardWeights& f) {
    return count(f.linear1_weight) + count(f.linear1_bias) + count(f.linear2_weight) +
           count(f.linear2_bias) + count(f.gate_weight) + count(f.gate_bias);
}
long long count(const LayerNormWeights& n) { return count(n.weight) + count(n.bias); }

}  // namespace

// The captured maps are f32 (T, S) per head and layer: weights, and scores when asked.
// A long text on a model with a large max_len would otherwise allocate tens of GB (and get
// the process killed) before any message could be shown.
void ensure_maps_fit(double cells_per_head, long long tokens, int layers, int heads, bool scores) {
    constexpr double kMaxCaptureBytes = 8.0 * (1LL << 30);
    const double maps = static_cast<double>(layers) * heads * (scores ? 2.0 : 1.0);
    const double bytes = cells_per_head * maps * sizeof(float);
    if (bytes <= kMaxCaptureBytes) return;
    const auto gb = [](double b) { return std::to_string(static_cast<long long>(b / (1LL << 30) + 0.5)); };
    throw Error("the attention maps of " + std::to_string(tokens) + " tokens need " + gb(bytes) +
                " GB (" + std::to_string(layers) + " layers × " + std::to_string(heads) +
                " heads of " + std::to_string(tokens) + "×" + std::to_string(tokens) +
                " floats), more than the " + gb(kMaxCaptureBytes) +
                " GB limit; use a shorter text or fewer layers or heads");
}

Model::Model(ModelConfig config, ModelWeights weights, std::string name)
    : config_(std::move(config)),
      weights_(std::make_shared<ModelWeights>(std::move(weights))),
      // The weights are final from here on: registered with the packed-weight cache, whose
      // products pack them (core/kernels/packed_cache.h).
      packed_(std::make_shared<const PackedPanels>(weights_, linear_weights(*weights_))),
      name_(std::move(name)) {}

Model Model::random(const ModelConfig& config) {
    ensure_valid(config);
    return Model(config, init_weights(config), to_playground_spec(config));
}

Model::Model(ModelConfig config, ModelWeights outside, std::shared_ptr<const LayerSource> layers, std::string name)
    : config_(std::move(config)),
      weights_(std::make_shared<ModelWeights>(std::move(outside))),
      packed_(std::make_shared<const PackedPanels>(weights_, linear_weights(*weights_))),
      layer_source_(std::move(layers)),
      name_(std::move(name)) {
    if (config_.arch == Arch::EncoderDecoder || !weights_->layers.empty() || !layer_source_ ||
        layer_source_->layers() != config_.layers)
        throw Error("a model read layer by layer has one stack, all of whose layers come from its file");
}

Model::Model(ModelConfig config, std::shared_ptr<ModelWeights> weights,
             std::shared_ptr<const PackedPanels> packed, std::shared_ptr<const LayerSource> layers, std::string name)
    : config_(std::move(config)),
      weights_(std::move(weights)),
      packed_(std::move(packed)),
      layer_source_(std::move(layers)),
      name_(std::move(name)) {}

const ModelWeights& Model::weights() const {
    if (layer_source_)
        throw Error("'" + name_ + "' is read from its file one layer at a time (it does not fit in memory as f32), " +
                    "so it cannot be saved, edited or trained");
    return *weights_;
}

const EncoderLayerWeights& Model::layer(int il, EncoderLayerWeights& slot) const {
    if (!layer_source_) return weights_->layers.at(static_cast<std::size_t>(il));
    layer_source_->read_layer(il, slot);
    return slot;
}

const EncoderLayerWeights& Model::layer_for_products(int il, ProductsLayer& slot) const {
    return main_stack_layer(*weights_, layer_source_.get(), il, slot);
}

ModelWeights& Model::mutable_weights() {
    (void)weights();  // throws for a model read layer by layer
    packed_.reset();  // the caller may edit a matrix: its packed copy would be stale
    if (weights_.use_count() > 1) weights_ = std::make_shared<ModelWeights>(*weights_);
    return *weights_;
}

Model Model::with_heads(int heads) const {
    if (!config_.heads_only_split())
        throw Error("the head count of this model cannot change without new weights: its "
                    "key/value heads or head size are fixed");
    ModelConfig c = config_;
    c.heads = heads;
    ensure_valid(c);
    const std::string name = name_ == to_playground_spec(config_) ? to_playground_spec(c) : name_;
    return Model(std::move(c), weights_, packed_, layer_source_, name);
}

long long Model::parameter_count() const {
    long long n = count(weights_->embed) + count(weights_->pos_embed) + count(weights_->type_embed) +
                  count(weights_->lm_head) + count(weights_->embed_stored) + count(weights_->lm_head_stored);
    if (weights_->embed_norm) n += count(*weights_->embed_norm);
    for (const auto& l : weights_->layers) {
        n += count(l.self_attn) + count(l.ffn) + count(l.norm1) + count(l.norm2);
        for (const auto* norm : {&l.post_attn_norm, &l.post_ffn_norm})
            if (*norm) n += count(**norm);
    }
    for (const auto& l : weights_->decoder_layers)
        n += count(l.self_attn) + count(l.cross_attn) + count(l.ffn) + count(l.norm1) +
             count(l.norm2) + count(l.norm3);
    if (weights_->final_norm) n += count(*weights_->final_norm);
    if (weights_->decoder_final_norm) n += count(*weights_->decoder_final_norm);
    if (layer_source_) n += static_cast<long long>(layer_source_->footprint().stack_params);
    return n;
}

double Model::f32_weight_bytes() const {
    const double all = static_cast<double>(parameter_count());
    if (!layer_source_) return 4.0 * all;
    // outside the layers but the embedding and head (left in the file), and at most one
    // layer f32 at a time (the Pipeline's)
    const WeightFootprint& f = layer_source_->footprint();
    return 4.0 * (all - f.stack_params - f.embed_head_params + f.layer_params);
}

Matrix embed_tokens(const Model& model, const std::vector<int>& ids) {
    return embed_tokens(model.config(), model.resident_weights(), ids);
}

Matrix embed_tokens(const ModelConfig& c, const ModelWeights& w, const std::vector<int>& ids) {
    const int T = static_cast<int>(ids.size());
    // x: (T, D) = embed[ids] (× √D: Gemma) + positions (+ type_embed[0]), then the embedding norm
    Matrix x(T, c.d_model);
    if (w.embed_stored) {  // each token's row read and converted from the file
        std::vector<std::uint8_t> row_bytes;
        for (int t = 0; t < T; ++t)
            w.embed_stored->rows_in_memory(ids[t], 1, row_bytes, /*use_map=*/false).convert(0, 1, 0, c.d_model, x.row(t).data(), c.d_model);
    } else {
        for (int t = 0; t < T; ++t) x.row(t) = w.embed.row(ids[t]);
    }
    if (c.embed_scale) x *= std::sqrt(static_cast<float>(c.d_model));
    if (c.pe == PosEncoding::Sinusoidal) x += sinusoidal_positions(T, c.d_model);
    if (c.pe == PosEncoding::Learned) x += w.pos_embed.topRows(T);
    if (w.type_embed.rows() > 0) x.rowwise() += w.type_embed.row(0);  // segment 0
    if (w.embed_norm) x = apply_norm(x, *w.embed_norm, c.norm_kind, c.norm_eps);
    return x;
}

std::vector<Trace::NextToken> top_k(const Vector& logits, int k) {
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
    std::vector<Trace::NextToken> out;
    for (int j = 0; j < k; ++j) {
        Trace::NextToken p;
        p.id = order[j];
        p.prob = static_cast<float>(std::exp(static_cast<double>(logits(order[j])) - z_max) / sum);
        out.push_back(p);
    }
    return out;
}

double map_block_bytes(double cells_per_head, int heads, bool scores) {
    return cells_per_head * heads * (scores ? 2.0 : 1.0) * sizeof(float);
}

namespace {

void append_self_attention(const AttentionWeights& a, std::vector<WeightRows>& list) {
    list.push_back(WeightRows::of(a.in_proj_weight));
    list.push_back(WeightRows::of(a.out_proj_weight));
}

void append_feed_forward(const FeedForwardWeights& f, std::vector<WeightRows>& list) {
    list.push_back(WeightRows::of(f.linear1_weight));
    list.push_back(WeightRows::of(f.linear2_weight));
    if (f.gated()) list.push_back(WeightRows::of(f.gate_weight));
}

}  // namespace

void append_linear_weights(const EncoderLayerWeights& layer, std::vector<WeightRows>& list) {
    append_self_attention(layer.self_attn, list);
    append_feed_forward(layer.ffn, list);
}

std::vector<WeightRows> linear_weights(const ModelWeights& weights) {
    std::vector<WeightRows> list;
    const auto cross_attention = [&](const AttentionWeights& a) {
        const int I = a.inner(), Ikv = a.kv_inner();
        list.push_back(WeightRows::of(a.in_proj_weight, 0, I));
        list.push_back(WeightRows::of(a.in_proj_weight, I, 2 * Ikv));
        list.push_back(WeightRows::of(a.out_proj_weight));
    };
    for (const auto& l : weights.layers) append_linear_weights(l, list);
    for (const auto& l : weights.decoder_layers) {
        append_self_attention(l.self_attn, list);
        cross_attention(l.cross_attn);
        append_feed_forward(l.ffn, list);
    }
    return list;
}

const Matrix& lm_head_weight(const ModelConfig& c, const ModelWeights& w) {
    return c.lm_head == LmHead::Separate ? w.lm_head : w.embed;
}

Trace Model::forward(const ForwardInput& input, const TraceOptions& options,
                     const ProgressFn& progress) const {
    Trace trace = run_forward(config_, *weights_, layer_source_.get(), input, options, progress);
    trace.model_name = name_;
    return trace;
}

Vector Model::next_token_logits(const ForwardInput& input) const {
    if (config_.lm_head == LmHead::None)
        throw Error("'" + name_ + "' has no language-model head, so it cannot predict next tokens");
    TraceOptions nothing;
    nothing.head_weights = false;
    nothing.hidden_states = false;
    return forward(input, nothing).next_token_logits;
}

}  // namespace hs
