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

void check_ids(const ModelConfig& c, const std::vector<int>& ids, const char* what) {
    if (ids.empty()) throw InputError(std::string("the ") + what + " has no tokens");
    if (static_cast<int>(ids.size()) > c.max_len)
        throw InputError(std::string("the ") + what + " has " + std::to_string(ids.size()) +
                             " tokens; this model handles at most " + std::to_string(c.max_len),
                         static_cast<int>(ids.size()), c.max_len);
    for (int id : ids)
        if (id < 0 || id >= c.vocab)
            throw Error("token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                        std::to_string(c.vocab - 1) + ")");
}

void check_capture_size(const ModelConfig& c, const ForwardInput& in, const TraceOptions& opt) {
    if (!opt.head_weights) return;
    const double t = static_cast<double>(in.ids.size());
    const double td = c.arch == Arch::EncoderDecoder ? static_cast<double>(in.decoder_ids.size()) : 0.0;
    // self-attention T×T per layer; encoder-decoder adds decoder self Td×Td and cross Td×T.
    ensure_maps_fit(t * t + td * td + td * t, static_cast<long long>(in.ids.size()), c.layers,
                    c.heads, opt.scores);
}

std::vector<std::string> labels_or_ids(const std::vector<std::string>& tokens,
                                       const std::vector<int>& ids) {
    if (tokens.size() == ids.size()) return tokens;
    std::vector<std::string> out;
    for (int id : ids) out.push_back(std::to_string(id));
    return out;
}

// What layer `il` of a stack records, and which of its heads are ablated; steps are
// attached by the caller.
LayerCapture capture_for(const TraceOptions& opt, int il, bool in_decoder) {
    LayerCapture cap;
    cap.weights = opt.head_weights;
    cap.scores = opt.scores;
    cap.self_ablated = opt.ablated_heads(il, in_decoder, false);
    if (in_decoder) cap.cross_ablated = opt.ablated_heads(il, true, true);
    cap.ablate_mode = opt.ablate_mode;
    return cap;
}

// The masks of Model::forward. Main stack: causal unless it is the encoder of an
// encoder-decoder, plus the key padding; decoder self-attention: causal per config;
// cross-attention: the encoder's key padding.
AttentionMask main_self_mask(const ModelConfig& c, const std::vector<int>& key_padding) {
    AttentionMask m;
    m.causal = c.arch != Arch::EncoderDecoder && c.mask == MaskKind::Causal;
    m.key_padding = key_padding;
    return m;
}
AttentionMask decoder_self_mask(const ModelConfig& c) {
    AttentionMask m;
    m.causal = c.mask == MaskKind::Causal;
    return m;
}
AttentionMask cross_mask(const std::vector<int>& key_padding) {
    AttentionMask m;
    m.key_padding = key_padding;
    return m;
}

long long count(const Matrix& m) { return static_cast<long long>(m.size()); }
long long count(const Vector& v) { return static_cast<long long>(v.size()); }
long long count(const AttentionWeights& a) {
    return count(a.in_proj_weight) + count(a.in_proj_bias) + count(a.out_proj_weight) +
           count(a.out_proj_bias);
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

Model::Model(ModelConfig config, std::shared_ptr<ModelWeights> weights,
             std::shared_ptr<const PackedPanels> packed, std::string name)
    : config_(std::move(config)),
      weights_(std::move(weights)),
      packed_(std::move(packed)),
      name_(std::move(name)) {}

ModelWeights& Model::mutable_weights() {
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
    return Model(std::move(c), weights_, packed_, name);
}

long long Model::parameter_count() const {
    long long n = count(weights_->embed) + count(weights_->pos_embed) +
                  count(weights_->type_embed) + count(weights_->lm_head);
    if (weights_->embed_norm) n += count(*weights_->embed_norm);
    for (const auto& l : weights_->layers)
        n += count(l.self_attn) + count(l.ffn) + count(l.norm1) + count(l.norm2);
    for (const auto& l : weights_->decoder_layers)
        n += count(l.self_attn) + count(l.cross_attn) + count(l.ffn) + count(l.norm1) +
             count(l.norm2) + count(l.norm3);
    if (weights_->final_norm) n += count(*weights_->final_norm);
    if (weights_->decoder_final_norm) n += count(*weights_->decoder_final_norm);
    return n;
}

Matrix embed_tokens(const Model& model, const std::vector<int>& ids) {
    const ModelConfig& c = model.config();
    const ModelWeights& w = model.weights();
    const int T = static_cast<int>(ids.size());
    // x: (T, D) = embed[ids] + positions (+ type_embed[0]), then the embedding norm
    Matrix x(T, c.d_model);
    for (int t = 0; t < T; ++t) x.row(t) = w.embed.row(ids[t]);
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

// Resident flags for the main layers, then the decoder layers (see plan_resident_blocks).
std::vector<bool> plan_model_blocks(const ModelConfig& c, const ForwardInput& in,
                                    const TraceOptions& opt) {
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    const double t = static_cast<double>(in.ids.size());
    const double td = static_cast<double>(in.decoder_ids.size());
    std::vector<double> bytes(c.layers, map_block_bytes(t * t, c.heads, opt.scores));
    if (enc_dec)  // decoder self Td×Td + cross Td×T
        bytes.resize(2 * c.layers, map_block_bytes(td * td + td * t, c.heads, opt.scores));
    if (!opt.head_weights) return std::vector<bool>(bytes.size(), true);  // nothing captured
    const int wanted = opt.resident_layer + (enc_dec && opt.resident_in_decoder ? c.layers : 0);
    return plan_resident_blocks(bytes, static_cast<double>(opt.map_budget_bytes), wanted);
}

// logits: (V) = W_head · h_last, W_head = lm_head (V, D) or the tied token embedding.
// Reading W_head (154 MB for GPT-2's 50257 × 768) bounds this, so it is split over the
// thread pool by vocabulary blocks (matmul_nt) rather than one thread's GEMV.
Vector lm_logits(const ModelConfig& c, const ModelWeights& w, const Matrix& final) {
    const Matrix& head = c.lm_head == LmHead::Separate ? w.lm_head : w.embed;
    Matrix logits(1, head.rows());
    matmul_nt(final.bottomRows(1), head, nullptr, logits);
    return logits.row(0).transpose();
}

}  // namespace

std::vector<WeightRows> linear_weights(const ModelWeights& weights) {
    std::vector<WeightRows> list;
    const auto self_attention = [&](const AttentionWeights& a) {
        list.push_back(WeightRows::of(a.in_proj_weight));
        list.push_back(WeightRows::of(a.out_proj_weight));
    };
    const auto cross_attention = [&](const AttentionWeights& a) {
        const int I = a.inner(), Ikv = a.kv_inner();
        list.push_back(WeightRows::of(a.in_proj_weight, 0, I));
        list.push_back(WeightRows::of(a.in_proj_weight, I, 2 * Ikv));
        list.push_back(WeightRows::of(a.out_proj_weight));
    };
    const auto ffn = [&](const FeedForwardWeights& f) {
        list.push_back(WeightRows::of(f.linear1_weight));
        list.push_back(WeightRows::of(f.linear2_weight));
        if (f.gated()) list.push_back(WeightRows::of(f.gate_weight));
    };
    for (const auto& l : weights.layers) {
        self_attention(l.self_attn);
        ffn(l.ffn);
    }
    for (const auto& l : weights.decoder_layers) {
        self_attention(l.self_attn);
        cross_attention(l.cross_attn);
        ffn(l.ffn);
    }
    return list;
}

void settle_maps(const TraceOptions& opt, const HeadRef& block, bool keep, HeadMaps& maps) {
    if (opt.on_maps && opt.head_weights) opt.on_maps(block, maps);
    if (keep) return;
    maps.weights = {};
    maps.scores = {};
    maps.resident = false;
}

namespace {

// `in` with each token list cut to max_len when in.keep_first asks for it; `dropped` and
// `dropped_decoder` receive how many tokens of the main (encoder) and the decoder text
// were left out.
ForwardInput first_tokens(const ForwardInput& in, int max_len, int& dropped, int& dropped_decoder) {
    ForwardInput out = in;
    dropped = dropped_decoder = 0;
    if (!in.keep_first) return out;
    const auto cut = [&](std::vector<int>& ids, std::vector<std::string>& tokens) {
        const int extra = static_cast<int>(ids.size()) - max_len;
        if (extra <= 0) return 0;
        ids.resize(static_cast<std::size_t>(max_len));
        if (tokens.size() > ids.size()) tokens.resize(ids.size());
        return extra;
    };
    dropped = cut(out.ids, out.tokens);
    dropped_decoder = cut(out.decoder_ids, out.decoder_tokens);
    std::erase_if(out.key_padding, [&](int p) { return p >= max_len; });
    return out;
}

}  // namespace

Trace Model::forward(const ForwardInput& full_input, const TraceOptions& options,
                     const ProgressFn& progress) const {
    const ModelConfig& c = config_;
    int dropped_tokens = 0, dropped_decoder_tokens = 0;
    const ForwardInput in = first_tokens(full_input, c.max_len, dropped_tokens, dropped_decoder_tokens);
    // score cells: L · H · (T² + Td² + Td·T) (decoder self and cross for encoder-decoder)
    const double t = double(in.ids.size()), td = double(in.decoder_ids.size());
    const TraceOptions opt = with_scores_limit(
        options, double(c.layers) * c.heads * (t * t + (c.arch == Arch::EncoderDecoder ? td * td + td * t : 0.0)));
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    check_ids(c, in.ids, enc_dec ? "encoder text" : "text");
    if (enc_dec) check_ids(c, in.decoder_ids, "decoder text");
    for (int p : in.key_padding)
        if (p < 0 || p >= static_cast<int>(in.ids.size()))
            throw Error("key padding position " + std::to_string(p) + " is outside the " +
                        std::to_string(in.ids.size()) + " tokens");

    check_ablation(opt.ablate, c.layers, c.heads, enc_dec);
    check_capture_size(c, in, opt);

    check_tap_patterns(opt.taps, c, std::max(in.ids.size(), in.decoder_ids.size()));

    Trace trace;
    trace.config = c;
    trace.model_name = name_;
    trace.dropped_tokens = dropped_tokens;
    trace.dropped_decoder_tokens = dropped_decoder_tokens;
    trace.key_padding = in.key_padding;
    trace.ablate = opt.ablate;
    trace.ablate_mode = opt.ablate_mode;
    // Which blocks keep their maps (TraceOptions::map_budget_bytes). A dropped block
    // computes its maps only when on_maps wants to see them.
    const std::vector<bool> resident = plan_model_blocks(c, in, opt);
    const auto limit_capture = [&](LayerCapture& cap, int block) {
        if (resident[block] || opt.on_maps) return;
        cap.weights = false;
        cap.scores = false;
    };
    const int total = c.layers * (enc_dec ? 2 : 1);
    int done = 0;
    auto report = [&] {
        ++done;
        if (progress && !progress(done, total)) throw Cancelled{};
    };
    auto want_steps = [&](bool in_decoder, int il, bool cross) {
        return opt.detail_layer == il && opt.detail_in_decoder == in_decoder &&
               opt.detail_cross == cross;
    };
    // Named intermediates (taps.h): to on_tap, and copied when a kept pattern matches.
    TapFn tap_fn;
    if (opt.on_tap || !opt.taps.empty())
        tap_fn = [&](const std::string& name, const Eigen::Ref<const Matrix>& value) {
            if (opt.on_tap) opt.on_tap(name, value);
            for (const std::string& pattern : opt.taps)
                if (tap_matches(pattern, name)) {
                    trace.taps.push_back({name, Matrix(value)});
                    break;
                }
        };
    const TapFn* tap = tap_fn ? &tap_fn : nullptr;
    const auto emit = [&](const std::string& name, const Eigen::Ref<const Matrix>& value) {
        if (tap) (*tap)(name, value);
    };
    const std::string main_prefix = enc_dec ? "encoder." : "";
    const auto tap_layer = [&](LayerCapture& cap, const std::string& stack, int il) {
        cap.tap = tap;
        if (tap) cap.tap_prefix = stack + "layers." + std::to_string(il) + ".";
    };

    // Main stack (the encoder of an encoder-decoder).
    StackTrace& main = trace.main;
    main.ids = in.ids;
    main.tokens = labels_or_ids(in.tokens, in.ids);
    Matrix x = embed_tokens(*this, in.ids);
    main.input = x;
    emit(main_prefix + "embed", x);
    const AttentionMask self_mask = main_self_mask(c, in.key_padding);
    const std::optional<Rotary> rope = rotary_for(c, static_cast<int>(in.ids.size()));
    for (int il = 0; il < c.layers; ++il) {
        LayerTrace lt;
        LayerCapture cap = capture_for(opt, il, false);
        if (rope) cap.self_rope = &*rope;
        limit_capture(cap, il);
        tap_layer(cap, main_prefix, il);
        if (want_steps(false, il, false)) {
            trace.steps.emplace();
            cap.self_steps = &*trace.steps;
            trace.steps_layer = il;
        }
        x = encoder_layer(weights_->layers[il], c, x, self_mask, cap, lt);
        settle_maps(opt, HeadRef{il, 0, false, false}, resident[il], lt.self_attn);
        if (opt.hidden_states) lt.output = x;
        main.layers.push_back(std::move(lt));
        report();
    }
    if (weights_->final_norm) {
        x = apply_norm(x, *weights_->final_norm, c.norm_kind, c.norm_eps);
        emit(main_prefix + "norm", x);
    }
    main.final_output = x;
    if (!enc_dec) {
        if (c.lm_head != LmHead::None) {  // texts are filled in by whoever holds the tokenizer
            trace.next_token_logits = lm_logits(c, *weights_, main.final_output);
            trace.next_tokens = top_k(trace.next_token_logits, 5);
            emit("logits", trace.next_token_logits.transpose());
        }
        return trace;
    }

    // Decoder stack: masked self-attention, cross-attention over the encoder output.
    const Matrix memory = std::move(x);
    StackTrace& dec = trace.decoder.emplace();
    dec.ids = in.decoder_ids;
    dec.tokens = labels_or_ids(in.decoder_tokens, in.decoder_ids);
    Matrix y = embed_tokens(*this, in.decoder_ids);
    dec.input = y;
    emit("decoder.embed", y);
    const AttentionMask dec_mask = decoder_self_mask(c);
    const AttentionMask enc_mask = cross_mask(in.key_padding);
    const std::optional<Rotary> dec_rope = rotary_for(c, static_cast<int>(in.decoder_ids.size()));
    for (int il = 0; il < c.layers; ++il) {
        LayerTrace lt;
        LayerCapture cap = capture_for(opt, il, true);
        if (dec_rope) cap.self_rope = &*dec_rope;
        limit_capture(cap, c.layers + il);
        tap_layer(cap, "decoder.", il);
        if (want_steps(true, il, false) || want_steps(true, il, true)) {
            trace.steps.emplace();
            (opt.detail_cross ? cap.cross_steps : cap.self_steps) = &*trace.steps;
            trace.steps_layer = il;
            trace.steps_in_decoder = true;
            trace.steps_cross = opt.detail_cross;
        }
        y = decoder_layer(weights_->decoder_layers[il], c, y, memory, dec_mask, enc_mask, cap, lt);
        settle_maps(opt, HeadRef{il, 0, true, false}, resident[c.layers + il], lt.self_attn);
        settle_maps(opt, HeadRef{il, 0, true, true}, resident[c.layers + il], *lt.cross_attn);
        if (opt.hidden_states) lt.output = y;
        dec.layers.push_back(std::move(lt));
        report();
    }
    if (weights_->decoder_final_norm) {
        y = apply_norm(y, *weights_->decoder_final_norm, c.norm_kind, c.norm_eps);
        emit("decoder.norm", y);
    }
    dec.final_output = y;
    if (c.lm_head != LmHead::None) {
        trace.next_token_logits = lm_logits(c, *weights_, dec.final_output);
        trace.next_tokens = top_k(trace.next_token_logits, 5);
        emit("logits", trace.next_token_logits.transpose());
    }
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

HeadMaps recompute_layer_maps(const Model& model, const Trace& trace, const HeadRef& block,
                              bool scores) {
    const ModelConfig& c = model.config();
    const ModelWeights& w = model.weights();
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    if (block.in_decoder && !enc_dec)
        throw Error("this model has no decoder stack (it is " + to_string(c.arch) + ")");
    if (block.cross && !block.in_decoder)
        throw Error("cross-attention lives in the decoder stack of an encoder-decoder");
    const Matrix& x = layer_input(trace, block.layer, block.in_decoder);  // (T, D), range-checked
    if (x.cols() != c.d_model)
        throw Error("the trace's hidden states have " + std::to_string(x.cols()) +
                    " columns but this model's d_model is " + std::to_string(c.d_model) +
                    ": the trace comes from another model");
    // The forward's own layer function on the stored layer input, with the trace's
    // ablation: the same maps by construction (stopped before the feed-forward).
    TraceOptions opt;
    opt.scores = scores;
    opt.ablate = trace.ablate;
    opt.ablate_mode = trace.ablate_mode;
    LayerCapture cap = capture_for(opt, block.layer, block.in_decoder);
    cap.maps_only = true;
    const std::optional<Rotary> rope = rotary_for(c, static_cast<int>(x.rows()));
    if (rope) cap.self_rope = &*rope;
    LayerTrace lt;
    if (!block.in_decoder) {
        encoder_layer(w.layers[block.layer], c, x, main_self_mask(c, trace.key_padding), cap, lt);
        return std::move(lt.self_attn);
    }
    // memory: (T_enc, D) = the encoder's final output.
    const Matrix& memory = trace.main.final_output;
    if (memory.rows() != static_cast<Eigen::Index>(trace.main.ids.size()))
        throw Error("cannot recompute cross-attention: the trace holds no encoder output");
    decoder_layer(w.decoder_layers[block.layer], c, x, memory, decoder_self_mask(c),
                  cross_mask(trace.key_padding), cap, lt);
    return block.cross ? std::move(*lt.cross_attn) : std::move(lt.self_attn);
}

}  // namespace hs
