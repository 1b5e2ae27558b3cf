#include "core/model/model.h"

#include <algorithm>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/kernels/parallel.h"
#include "core/kernels/softmax.h"
#include "core/model/attention_as_f32.h"
#include "core/model/layers.h"
#include "core/model/model_masks.h"
#include "core/model/recorder.h"
#include "core/model/rope.h"
#include "core/model/steps_recorder.h"
#include "core/model/trace_recorder.h"

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

// What layer `il` of a stack runs with besides its weights: its place for the recorder
// and its ablated heads.
LayerContext context_for(const TraceOptions& opt, Recorder* recorder, const char* stack, int il, bool in_decoder) {
    LayerContext context;
    context.recorder = recorder;
    context.stack = stack;
    context.layer = il;
    context.self_ablated = opt.ablated_heads(il, in_decoder, false);
    if (in_decoder) context.cross_ablated = opt.ablated_heads(il, true, true);
    context.ablate_mode = opt.ablate_mode;
    return context;
}

kernels::ScoreMath score_math(const ModelConfig& c) { return {c.score_scale(), c.attn_softcap}; }

// The Pipeline's recorder of the detail block (TraceOptions::detail_layer): a main-stack
// layer's self-attention, or a decoder layer's self- or cross-attention; none when the
// options name no block of this model.
std::optional<StepsRecorder> steps_recorder_for(const ModelConfig& c, const ModelWeights& w,
                                                const AttentionWeights* main_detail, const TraceOptions& opt,
                                                const std::vector<int>& key_padding) {
    const int il = opt.detail_layer;
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    if (il < 0 || il >= c.layers || (opt.detail_in_decoder && !enc_dec) || (opt.detail_cross && !opt.detail_in_decoder))
        return std::nullopt;
    const HeadSplit split{c.heads, c.kv_head_count(), nullptr};
    if (!opt.detail_in_decoder)
        return std::optional<StepsRecorder>(std::in_place, *main_detail, split,
                                            main_self_mask(c, key_padding, il), score_math(c),
                                            TapPoint{enc_dec ? "encoder." : "", il, "attn"});
    const DecoderLayerWeights& layer = w.decoder_layers[il];
    return std::optional<StepsRecorder>(std::in_place, opt.detail_cross ? layer.cross_attn : layer.self_attn, split,
                                        opt.detail_cross ? cross_mask(key_padding) : decoder_self_mask(c, il),
                                        score_math(c),
                                        TapPoint{"decoder.", il, opt.detail_cross ? "cross" : "attn"});
}

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

// Gemma 2: every row of logits (·, V) ← cap · tanh(logits / cap), cap = logit_softcap.
void soft_cap_logits(const ModelConfig& c, Matrix& logits) {
    if (c.logit_softcap <= 0.0f) return;
    for (Eigen::Index t = 0; t < logits.rows(); ++t)
        kernels::softcap_row(logits.row(t).data(), int(logits.cols()), c.logit_softcap);
}

// logits: (rows, V) = h · W_headᵀ, W_head = lm_head (V, D) or the tied token embedding,
// f32 or left in the file (a model read layer by layer: converted a panel at a time).
// Reading W_head (154 MB for GPT-2's 50257 × 768) bounds this, so it is split over the
// thread pool by vocabulary blocks (matmul_nt), each block read once as it lies (in the
// file's map).
// Gemma 2's soft-cap then bounds them (soft_cap_logits).
void head_logits(const ModelConfig& c, const ModelWeights& w, const Eigen::Ref<const Matrix>& h, Matrix& logits) {
    if (const StoredMatrix* stored = c.lm_head == LmHead::Separate ? w.lm_head_stored : w.embed_stored) {
        logits.resize(h.rows(), stored->rows);
        matmul_nt(h, *stored, nullptr, logits);
        stored->release_mapped_pages();  // a file larger than memory: the head's mapped pages let go
    } else {
        const Matrix& head = lm_head_weight(c, w);
        logits.resize(h.rows(), head.rows());
        matmul_nt(h, head, nullptr, logits);
    }
    soft_cap_logits(c, logits);
}

// logits: (V) for the last position, h_last · W_headᵀ.
Vector lm_logits(const ModelConfig& c, const ModelWeights& w, const Matrix& final) {
    Matrix logits;
    head_logits(c, w, final.bottomRows(1), logits);
    return logits.row(0).transpose();
}


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

// One run of the forward: what every stack reads, the recorders it shows its values to,
// and the trace it fills.
struct Run {
    const ModelConfig& c;
    const ModelWeights& w;    // all weights, or all but the main layers when `layers` is set
    const ForwardInput& in;
    const TraceOptions& opt;
    const ProgressFn& progress;
    Trace& trace;
    Recorder& recorder;       // options.recorder, the detail block's steps, the trace's own
    int done = 0, total = 0;  // layers run, of all stacks
    const LayerSource* layers = nullptr;  // the main stack's layers, when not in w
    ProductsLayer layer_slot;             // the one layer read from `layers`
    StepsRecorder* steps = nullptr;       // the Pipeline's block, when the options name one

    // The Pipeline's steps into the trace as soon as their block has run, so that the
    // partial traces of a big model (TraceOptions::on_main_layer) carry them.
    void take_steps() {
        if (!steps || !steps->steps() || trace.steps) return;
        trace.steps = std::make_shared<const AttentionSteps>(std::move(*steps->steps()));
        steps->steps().reset();
        trace.steps_layer = opt.detail_layer;
        trace.steps_in_decoder = opt.detail_in_decoder;
        trace.steps_cross = opt.detail_cross;
    }

    // A value outside the layers ("embed", "norm_in", "norm", "logits").
    void record(const char* stack, const char* name, const Eigen::Ref<const Matrix>& value) const {
        recorder.record(TapPoint{stack, -1, name}, value);
    }
    void report() {
        ++done;
        if (progress && !progress(done, total)) throw Cancelled{};
    }
    // Layer il's context, its self-attention turned by its layer's rotation of `rope`.
    LayerContext context(const char* stack, int il, bool in_decoder, const StackRotary& rope) const {
        LayerContext context = context_for(opt, &recorder, stack, il, in_decoder);
        if (const std::optional<Rotary>& layer_rope = rope.of_layer(c, il)) context.self_rope = &*layer_rope;
        return context;
    }
    // The final norm of a stack, when the model has one: "<stack>norm_in", "<stack>norm".
    void final_norm(const std::optional<LayerNormWeights>& norm, const char* stack, Matrix& x) const {
        if (!norm) return;
        record(stack, "norm_in", x);
        x = apply_norm(x, *norm, c.norm_kind, c.norm_eps);
        record(stack, "norm", x);
    }
    // The LM head after the stack that predicts: the last position's logits and their
    // top 5, or (TraceOptions::all_logits) every position's.
    void lm_head(const Matrix& final) {
        if (c.lm_head == LmHead::None) return;
        if (opt.all_logits) {
            head_logits(c, w, final, trace.logits);  // (T, V)
            trace.next_token_logits = trace.logits.bottomRows(1).transpose();
        } else {
            trace.next_token_logits = lm_logits(c, w, final);
        }
        trace.next_tokens = top_k(trace.next_token_logits, 5);  // texts: whoever holds the tokenizer
        record("", "logits", trace.next_token_logits.transpose());
    }
};

// The main stack (the encoder of an encoder-decoder): returns its final output (T, D).
Matrix run_main_stack(Run& r) {
    const ModelConfig& c = r.c;
    const char* stack = c.arch == Arch::EncoderDecoder ? "encoder." : "";
    StackTrace& main = r.trace.main;
    main.ids = r.in.ids;
    main.tokens = labels_or_ids(r.in.tokens, r.in.ids);
    Matrix x = r.in.embeddings.size() ? r.in.embeddings : embed_tokens(c, r.w, r.in.ids);
    r.record(stack, "embed", x);
    const StackRotary rope = stack_rotary(c, static_cast<int>(r.in.ids.size()));
    for (int il = 0; il < c.layers; ++il) {
        x = encoder_layer(main_stack_layer(r.w, r.layers, il, r.layer_slot), c, x, main_self_mask(c, r.in.key_padding, il),
                          r.context(stack, il, false, rope));
        r.report();
        r.take_steps();
        if (r.opt.on_main_layer) r.opt.on_main_layer(r.trace, il + 1);
    }
    r.final_norm(r.w.final_norm, stack, x);
    main.final_output = x;
    return x;
}

// The decoder stack of an encoder-decoder: masked self-attention, then cross-attention
// over `memory` (T_enc, D), the encoder's final output.
void run_decoder_stack(Run& r, const Matrix& memory) {
    const ModelConfig& c = r.c;
    StackTrace& dec = *r.trace.decoder;
    dec.ids = r.in.decoder_ids;
    dec.tokens = labels_or_ids(r.in.decoder_tokens, r.in.decoder_ids);
    Matrix y = embed_tokens(c, r.w, r.in.decoder_ids);
    r.record("decoder.", "embed", y);
    const StackRotary rope = stack_rotary(c, static_cast<int>(r.in.decoder_ids.size()));
    for (int il = 0; il < c.layers; ++il) {
        y = decoder_layer(r.w.decoder_layers[il], c, y, memory, decoder_self_mask(c, il), cross_mask(r.in.key_padding),
                          r.context("decoder.", il, true, rope));
        r.report();
    }
    r.final_norm(r.w.decoder_final_norm, "decoder.", y);
    dec.final_output = y;
}

// The trace's stacks with a LayerTrace per layer (cross-attention maps in the decoder's),
// for the trace's recorder to fill.
void make_stacks(const ModelConfig& c, Trace& trace) {
    trace.main.layers.resize(static_cast<std::size_t>(c.layers));
    if (c.arch != Arch::EncoderDecoder) return;
    trace.decoder.emplace().layers.resize(static_cast<std::size_t>(c.layers));
    for (LayerTrace& lt : trace.decoder->layers) lt.cross_attn.emplace();
}

// Throws hs::Error for what the forward cannot run: ids outside the vocabulary or past
// max_len, key padding outside the text, ablation of heads the model lacks, maps or taps
// too large to keep.
void check_input(const ModelConfig& c, const ForwardInput& in, const TraceOptions& opt) {
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    check_ids(c, in.ids, enc_dec ? "encoder text" : "text");
    if (enc_dec) check_ids(c, in.decoder_ids, "decoder text");
    for (int p : in.key_padding)
        if (p < 0 || p >= static_cast<int>(in.ids.size()))
            throw Error("key padding position " + std::to_string(p) + " is outside the " +
                        std::to_string(in.ids.size()) + " tokens");
    if (in.embeddings.size() && (in.embeddings.rows() != static_cast<Eigen::Index>(in.ids.size()) ||
                                 in.embeddings.cols() != c.d_model))
        throw Error("the given embeddings are " + std::to_string(in.embeddings.rows()) + "×" +
                    std::to_string(in.embeddings.cols()) + ", but the text has " + std::to_string(in.ids.size()) +
                    " tokens and d_model is " + std::to_string(c.d_model));
    check_ablation(opt.ablate, c.layers, c.heads, enc_dec);
    check_capture_size(c, in, opt);
    check_tap_patterns(opt.taps, c, std::max(in.ids.size(), in.decoder_ids.size()));
}

}  // namespace

Trace run_forward(const ModelConfig& c, const ModelWeights& w, const ForwardInput& full_input,
                  const TraceOptions& options, const ProgressFn& progress) {
    return run_forward(c, w, nullptr, full_input, options, progress);
}

Trace run_forward(const ModelConfig& c, const ModelWeights& w, const LayerSource* layers,
                  const ForwardInput& full_input, const TraceOptions& options, const ProgressFn& progress) {
    Trace trace;
    const ForwardInput in = first_tokens(full_input, c.max_len, trace.dropped_tokens, trace.dropped_decoder_tokens);
    const bool enc_dec = c.arch == Arch::EncoderDecoder;
    // score cells: L · H · (T² + Td² + Td·T) (decoder self and cross for encoder-decoder)
    const double t = double(in.ids.size()), td = double(in.decoder_ids.size());
    const TraceOptions opt =
        with_scores_limit(options, double(c.layers) * c.heads * (t * t + (enc_dec ? td * td + td * t : 0.0)));
    check_input(c, in, opt);
    trace.config = c;
    trace.key_padding = in.key_padding;
    trace.ablate = opt.ablate;
    trace.ablate_mode = opt.ablate_mode;
    make_stacks(c, trace);
    // The stream's recorders, in order: the caller's, the Pipeline's steps, then the trace's
    // own, which keeps (moves) the maps of the blocks the budget keeps.
    // The Pipeline's block reads its weights as the layers run: of a layer read from the
    // file, its attention weights are read once more for it, as f32 (the steps show W_in
    // and W_o), and kept for the whole forward; its feed-forward stays in the file.
    std::optional<AttentionWeights> detail_read;
    const bool main_detail = opt.detail_layer >= 0 && opt.detail_layer < c.layers && !opt.detail_in_decoder;
    if (main_detail && layers) {
        ProductsLayer slot;
        detail_read = attention_as_f32(layers->read_layer_for_products(opt.detail_layer, slot).self_attn);
    }
    const AttentionWeights* detail_attn =
        !main_detail ? nullptr : layers ? &*detail_read : &w.layers[opt.detail_layer].self_attn;
    std::optional<StepsRecorder> steps = steps_recorder_for(c, w, detail_attn, opt, in.key_padding);
    TraceRecorder keep(trace, opt, plan_model_blocks(c, in, opt));
    Recorders recorders({opt.recorder, steps ? &*steps : nullptr, &keep});
    Run run{c, w, in, opt, progress, trace, recorders, 0, c.layers * (enc_dec ? 2 : 1), layers, {},
            steps ? &*steps : nullptr};
    const Matrix final = run_main_stack(run);
    if (enc_dec) run_decoder_stack(run, final);
    run.lm_head(enc_dec ? trace.decoder->final_output : final);
    run.take_steps();  // a decoder block's
    return trace;
}

HeadMaps recompute_layer_maps(const Model& model, const Trace& trace, const HeadRef& block,
                              bool scores) {
    const ModelConfig& c = model.config();
    const ModelWeights& w = model.resident_weights();
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
    opt.ablate = trace.ablate;
    opt.ablate_mode = trace.ablate_mode;
    MapsKeeper maps(scores, block.cross ? "cross" : "attn");
    const char* stack = block.in_decoder ? "decoder." : enc_dec ? "encoder." : "";
    LayerContext context = context_for(opt, &maps, stack, block.layer, block.in_decoder);
    context.maps_only = true;
    const StackRotary rope = stack_rotary(c, static_cast<int>(x.rows()));
    if (const std::optional<Rotary>& layer_rope = rope.of_layer(c, block.layer)) context.self_rope = &*layer_rope;
    const auto kept = [&maps] {
        HeadMaps out;
        out.weights = std::move(maps.weights);
        out.scores = std::move(maps.scores);
        return out;
    };
    if (!block.in_decoder) {
        ProductsLayer slot;
        encoder_layer(model.layer_for_products(block.layer, slot), c, x, main_self_mask(c, trace.key_padding, block.layer), context);
        return kept();
    }
    // memory: (T_enc, D) = the encoder's final output.
    const Matrix& memory = trace.main.final_output;
    if (memory.rows() != static_cast<Eigen::Index>(trace.main.ids.size()))
        throw Error("cannot recompute cross-attention: the trace holds no encoder output");
    decoder_layer(w.decoder_layers[block.layer], c, x, memory, decoder_self_mask(c, block.layer),
                  cross_mask(trace.key_padding),
                  context);
    return kept();
}

}  // namespace hs
