#include "app/worker.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>

#include "core/continuation.h"
#include "core/error.h"
#include "core/image/box_mean.h"
#include "core/kernels/parallel.h"
#include "core/model/recorder.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {

Matrix downsample_map(const Matrix& m, int max_side) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    if (rows <= max_side && cols <= max_side) return m;
    return box_mean(m, std::min(rows, max_side), std::min(cols, max_side));
}

namespace {

// Adds the thumbnails of one block's maps (as a forward computes them, before a block
// the map budget drops is freed) and widens its kind's range by the thumbnails' ranges
// (the maps' `ranges` when no map was downsampled).
void add_block_thumbs(TraceThumbnails& thumbs, std::vector<bool>& seen, const HeadRef& block,
                      const std::vector<Matrix>& weights, const std::vector<MapRange>& ranges) {
    const int kind = block.in_decoder ? (block.cross ? 2 : 1) : 0;
    std::vector<std::vector<Matrix>>& rows =
        kind == 0 ? thumbs.self : kind == 1 ? thumbs.decoder_self : thumbs.decoder_cross;
    if (static_cast<int>(rows.size()) <= block.layer) rows.resize(block.layer + 1);
    std::vector<Matrix>& heads = rows[block.layer];
    heads.clear();
    bool downsampled = false;
    for (const Matrix& w : weights) {
        heads.push_back(downsample_map(w, TraceThumbnails::kThumbMax));
        downsampled = downsampled || heads.back().size() != w.size();
    }
    // A thumbnail of a long map holds means of up to ⌈T/256⌉ × ⌈S/256⌉ weights, far below the
    // map's own peaks: its range comes from its own values, or the grid would draw flat.
    const std::vector<MapRange> own = downsampled ? map_ranges(heads) : std::vector<MapRange>{};
    const std::vector<MapRange>& shown = downsampled ? own : ranges;
    for (std::size_t h = 0; h < weights.size(); ++h) {
        if (weights[h].size() == 0) continue;
        thumbs.lo[kind] = seen[kind] ? std::min(thumbs.lo[kind], shown[h].lo) : shown[h].lo;
        thumbs.hi[kind] = seen[kind] ? std::max(thumbs.hi[kind], shown[h].hi) : shown[h].hi;
        seen[kind] = true;
    }
}

}  // namespace

Worker::Worker(PartialTiming partial_timing)
    : partial_timing_(partial_timing),
      jobs_([this](const ComputeRequest& request, const JobControl& control) -> std::optional<ComputeResult> {
          ComputeResult result = compute(request, control);
          phase_ = static_cast<int>(WorkerPhase::Idle);
          // Cancelled, superseded or stopped by cancel(): nothing to deliver.
          if (result.generation == 0 || !control.wanted()) return std::nullopt;
          return result;
      }) {}

Worker::~Worker() { load_cancel_ = true; }  // a load in progress stops; jobs_ joins its thread

std::uint64_t Worker::submit(ComputeRequest request) {
    {
        std::lock_guard<std::mutex> lock(loading_mutex_);
        if (busy() && phase() == WorkerPhase::Loading && request.model_arg != loading_arg_) load_cancel_ = true;
    }
    return jobs_.submit(std::move(request));
}

void Worker::cancel() {
    load_cancel_ = true;
    jobs_.cancel();
    std::lock_guard<std::mutex> lock(partial_mutex_);
    partial_.reset();
}

std::optional<ComputeResult> Worker::take_result() {
    std::optional<ComputeResult> result = jobs_.take_result();
    if (result) {
        std::lock_guard<std::mutex> lock(partial_mutex_);
        whole_taken_ = std::max(whole_taken_, result->generation);
        partial_.reset();
    }
    return result;
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

// Thumbnails and colour ranges of every block, taken as the forward computes each one
// (issue 6: blocks over the map budget are freed right after), so the grid covers every
// layer; one scan of each map serves the thumbnails' range and the heatmap's. A recorder
// of the forward (core/model/recorder.h): it asks for every block's weights and reads the
// scores of the blocks whose scores the trace keeps.
struct Worker::MapCollector final : Recorder {
    struct BlockRanges {
        HeadRef block;
        std::vector<MapRange> weights, scores;
    };
    std::shared_ptr<TraceThumbnails> thumbs = std::make_shared<TraceThumbnails>();
    std::vector<bool> seen = std::vector<bool>(3, false);
    std::vector<BlockRanges> block_ranges;
    bool head_weights = true;  // TraceOptions::head_weights
    bool from_forward = false;

    bool wants(const TapPoint& point) const override {
        return head_weights && point.layer >= 0 && point.part() == "weights";
    }
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override {
        if (point.layer < 0 || (point.part() == "weights" && !wants(point))) return;
        from_forward = true;
        const HeadRef block{point.layer, 0, point.in_decoder(), point.block() == "cross"};
        if (block_ranges.empty() || !(block_ranges.back().block == block)) block_ranges.push_back({block, {}, {}});
        BlockRanges& ranges = block_ranges.back();
        if (point.part() == "scores") {
            ranges.scores = map_ranges(maps);
        } else if (point.part() == "weights") {
            ranges.weights = map_ranges(maps);
            add_block_thumbs(*thumbs, seen, block, maps, ranges.weights);
        }
    }
    // The ranges into the blocks the trace kept; a worked example's trace (no forward
    // callbacks: every map is in it) gets its ranges and thumbnails here.
    void finish(Trace& trace) {
        if (from_forward) {
            for (BlockRanges& r : block_ranges) {
                HeadMaps& m = maps_of(trace, r.block);
                if (!m.resident) continue;  // dropped: its ranges come with its recomputation
                m.weight_ranges = std::move(r.weights);
                if (!m.scores.empty()) m.score_ranges = std::move(r.scores);
            }
            return;
        }
        fill_map_ranges(trace);
        const auto add = [&](const HeadRef& block, const HeadMaps& maps) {
            add_block_thumbs(*thumbs, seen, block, maps.weights, maps.weight_ranges);
        };
        for (int l = 0; l < static_cast<int>(trace.main.layers.size()); ++l)
            add(HeadRef{l, 0, false, false}, trace.main.layers[static_cast<std::size_t>(l)].self_attn);
        const int decoder_layers = trace.decoder ? static_cast<int>(trace.decoder->layers.size()) : 0;
        for (int l = 0; l < decoder_layers; ++l) {
            const LayerTrace& lt = trace.decoder->layers[static_cast<std::size_t>(l)];
            add(HeadRef{l, 0, true, false}, lt.self_attn);
            if (lt.cross_attn) add(HeadRef{l, 0, true, true}, *lt.cross_attn);
        }
    }
    // The ranges and thumbnails of the main stack's first `layers` layers, copied into
    // `first` (a trace of those layers, from first_layers) while the forward goes on.
    std::shared_ptr<const TraceThumbnails> copy_first(Trace& first, int layers) const {
        for (const BlockRanges& r : block_ranges) {
            if (r.block.in_decoder || r.block.layer >= layers) continue;
            HeadMaps& m = first.main.layers[static_cast<std::size_t>(r.block.layer)].self_attn;
            if (!m.resident) continue;
            m.weight_ranges = r.weights;
            if (!m.scores.empty()) m.score_ranges = r.scores;
        }
        auto out = std::make_shared<TraceThumbnails>();
        out->self.assign(thumbs->self.begin(), thumbs->self.begin() + std::min<std::ptrdiff_t>(layers, std::ssize(thumbs->self)));
        std::copy(std::begin(thumbs->lo), std::end(thumbs->lo), std::begin(out->lo));
        std::copy(std::begin(thumbs->hi), std::end(thumbs->hi), std::begin(out->hi));
        return out;
    }
};

namespace {

// The attention maps a partial result copies; the later layers' blocks go without theirs
// (HeadMaps::resident false: the window recomputes the one selected, as for the blocks
// the map budget drops), so that sending the first layers costs little memory.
constexpr std::int64_t kPartialMapBytes = std::int64_t{64} << 20;

// The main stack's first `layers` layers of a trace being computed, as the trace of a
// model of that many layers (no final output, no predictions), with the Pipeline's steps
// once their layer has run.
Trace first_layers(const Trace& so_far, int layers) {
    Trace first;
    first.config = so_far.config;
    first.config.layers = layers;
    first.model_name = so_far.model_name;
    first.dropped_tokens = so_far.dropped_tokens;
    first.key_padding = so_far.key_padding;
    first.ablate = so_far.ablate;
    first.ablate_mode = so_far.ablate_mode;
    first.main.tokens = so_far.main.tokens;
    first.main.ids = so_far.main.ids;
    first.main.input = so_far.main.input;
    std::int64_t map_bytes = 0;
    for (int il = 0; il < layers; ++il) {
        const LayerTrace& from = so_far.main.layers[static_cast<std::size_t>(il)];
        std::int64_t bytes = 0;
        for (const std::vector<Matrix>* maps : {&from.self_attn.weights, &from.self_attn.scores})
            for (const Matrix& m : *maps) bytes += static_cast<std::int64_t>(m.size()) * 4;
        if (map_bytes + bytes <= kPartialMapBytes || il == 0) {
            first.main.layers.push_back(from);
            map_bytes += bytes;
            continue;
        }
        LayerTrace& to = first.main.layers.emplace_back();
        to.output = from.output;
        to.self_attn.resident = false;
    }
    if (so_far.steps && so_far.steps_layer < layers && !so_far.steps_in_decoder) {  // the Pipeline's block ran
        first.steps = so_far.steps;  // shared: the steps of an 8B layer are ~170 MB
        first.steps_layer = so_far.steps_layer;
    }
    return first;
}

}  // namespace

std::optional<ComputeResult> Worker::take_partial() {
    std::lock_guard<std::mutex> lock(partial_mutex_);
    std::optional<ComputeResult> out = std::move(partial_);
    partial_.reset();
    if (out && (out->generation != latest_generation() || out->generation <= whole_taken_)) return std::nullopt;
    return out;
}

void Worker::publish_partial(const ComputeRequest& request, const Trace& so_far, int done, const MapCollector& maps,
                             const JobControl& control) {
    const std::uint64_t generation = control.generation();
    ComputeResult partial;
    partial.generation = generation;
    partial.partial = true;
    partial.model_arg = request.model_arg;
    partial.input = request.input;
    partial.load_ms = cached_load_ms_;
    partial.source = cached_source_;
    partial.source_kind = cached_source_->kind();
    partial.parameter_count = cached_source_->parameter_count();
    partial.info = cached_info_;
    Trace first = first_layers(so_far, done);
    partial.thumbnails = maps.copy_first(first, done);
    partial.byte_tokens = byte_tokens_of(first.main.tokens);
    partial.main_norms = std::make_shared<const HiddenNorms>(hidden_norms(first.main));
    partial.main_words = std::make_shared<const TokenWords>(token_words(first.main.tokens));
    partial.trace = std::make_shared<const Trace>(std::move(first));
    partial.summaries = std::make_shared<const MatrixSummaries>(summarize_shown_matrices(*partial.trace));
    std::lock_guard<std::mutex> lock(partial_mutex_);
    if (control.wanted()) partial_ = std::move(partial);  // cancel() clears partial_ after it stops wanting the job
}

ComputeResult Worker::compute(const ComputeRequest& request, const JobControl& control) {
    ComputeResult result;
    result.generation = control.generation();
    result.model_arg = request.model_arg;
    const auto t0 = Clock::now();
    const ProgressFn progress = [&control](int done, int total) { return control.report(done, total); };
    MapCollector maps;
    TraceOptions options = request.options;
    maps.head_weights = options.head_weights;
    options.recorder = &maps;
    options.map_budget_bytes = std::min(options.map_budget_bytes, kAppMapBudgetBytes);
    // The ablation comparison reads every map of both runs: keep them all (up to the
    // 8 GB capture limit) rather than compare a partial set.
    if (!options.ablate.empty()) options.map_budget_bytes = std::numeric_limits<std::int64_t>::max();
    try {
        Trace trace;
        if (request.example) {
            trace = request.example->run();
            result.source_kind = "worked example";
            result.info = describe_example(*request.example);
        } else {
            const bool opened_now = open_model(request, control);
            result.load_ms = cached_load_ms_;
            if (!control.wanted()) return ComputeResult{};
            // The first trace of a model opened now arrives layer by layer when its layers
            // take long (a big model): PartialTiming.
            Clock::time_point last_sent = Clock::now();
            bool sent = false;
            if (opened_now && request.continue_tokens == 0 && request.options.ablate.empty())
                options.on_main_layer = [&](const Trace& so_far, int done) {
                    const double wait = sent ? partial_timing_.every_seconds : partial_timing_.first_seconds;
                    if (done >= so_far.config.layers || ms_since(last_sent) < wait * 1000.0) return;
                    publish_partial(request, so_far, done, maps, control);
                    last_sent = Clock::now();
                    sent = true;
                };
            trace = run_model(request, options, opened_now, progress, result);
            note_samples_read(request, result);
            if (!request.options.ablate.empty()) add_ablation_effect(request, options, trace, progress, result);
            result.source = cached_source_;
            result.source_kind = cached_source_->kind();
            result.parameter_count = cached_source_->parameter_count();
            result.info = cached_info_;
        }
        compare_with_the_article(request, trace, result);
        maps.finish(trace);
        result.byte_tokens = byte_tokens_of(trace.main.tokens);
        result.main_norms = std::make_shared<const HiddenNorms>(hidden_norms(trace.main));
        if (trace.decoder) result.decoder_norms = std::make_shared<const HiddenNorms>(hidden_norms(*trace.decoder));
        result.main_words = std::make_shared<const TokenWords>(token_words(trace.main.tokens));
        if (trace.decoder) result.decoder_words = std::make_shared<const TokenWords>(token_words(trace.decoder->tokens));
        result.trace = std::make_shared<const Trace>(std::move(trace));
        // After the move: summaries are keyed by the matrices' addresses in the shared trace.
        result.summaries = std::make_shared<const MatrixSummaries>(summarize_shown_matrices(*result.trace));
        result.thumbnails = std::move(maps.thumbs);
    } catch (const Cancelled&) {
        std::lock_guard<std::mutex> lock(partial_mutex_);
        partial_.reset();  // a cancelled job delivers nothing, not even its first layers
        return ComputeResult{};
    } catch (const InputError& e) {
        result.error = e.what();
        result.input_error = true;
        result.input_tokens = e.tokens;
        result.input_max_len = e.max_len;
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    result.milliseconds = ms_since(t0);
    return result;
}

bool Worker::open_model(const ComputeRequest& request, const JobControl& control) {
    if (cached_source_ && cached_arg_ == request.model_arg) return false;
    // A playground edit keeps the previous playground model until the new one is built, so
    // a heads-only edit reuses its weights (open_playground compares the configs); any other
    // model is released first, so two large ones never coexist.
    std::shared_ptr<const TraceSource> previous;
    if (request.playground && cached_source_ && cached_source_->kind() == "playground") previous = cached_source_;
    cached_source_.reset();
    cached_arg_.clear();
    {
        std::lock_guard<std::mutex> lock(loading_mutex_);
        loading_arg_ = request.model_arg;
        load_cancel_ = false;
        phase_ = static_cast<int>(WorkerPhase::Loading);
    }
    // Loading survives newer requests for the same model (load_cancel_ stays false).
    const ProgressFn load_progress = [this, &control](int done, int total) {
        control.report(done, total);
        return !load_cancel_.load();
    };
    const auto t_load = Clock::now();
    cached_source_ = request.open         ? request.open()
                     : request.playground ? open_playground(*request.playground, previous.get())
                                          : open_source(request.model_arg, load_progress);
    cached_info_ = describe_model(*cached_source_);
    cached_arg_ = request.model_arg;  // last: a model whose opening threw is not cached
    cached_load_ms_ = ms_since(t_load);
    return !request.shown_source;  // a model opened now, not the one on screen handed back
}

Trace Worker::run_model(const ComputeRequest& request, const TraceOptions& options, bool opened_now,
                        const ProgressFn& progress, ComputeResult& result) {
    SourceInput input = request.input;
    if (request.continue_tokens > 0) {
        phase_ = static_cast<int>(WorkerPhase::Generating);
        const Continuation c = continue_text(*cached_source_, input.text, request.continue_tokens, progress);
        input.text += c.text;
        const std::string appended = std::to_string(c.generated);
        result.adopt_text = ComputeResult::AdoptedText{
            input.text, c.stopped_because.empty() ? "Appended " + appended + " tokens."
                                                  : "Appended " + appended + " of " +
                                                        std::to_string(request.continue_tokens) +
                                                        " tokens: " + c.stopped_because + "."};
    }
    phase_ = static_cast<int>(WorkerPhase::Forward);
    progress(0, 0);
    const auto t_forward = Clock::now();
    Trace trace;
    try {
        trace = cached_source_->run(input, options, progress);
    } catch (const InputError&) {
        // A model just opened that reads none of the window's text (a task model reads
        // "<bos> #5 …"): it opens on an example of its own, which becomes the text.
        const std::string example = cached_source_->example_text();
        if (!opened_now || example.empty() || request.continue_tokens > 0 || input.text == example) throw;
        input.text = example;
        trace = cached_source_->run(input, options, progress);
        result.adopt_text = ComputeResult::AdoptedText{
            example, "This model does not read the text typed before: it opens on an example of its task."};
    }
    result.forward_ms = ms_since(t_forward);
    result.input = input;
    result.unknown_words = unknown_words(*cached_source_, trace.main);
    return trace;
}

// Which sample sentences the model reads whole, worked out once per model.
void Worker::note_samples_read(const ComputeRequest& request, ComputeResult& result) {
    if (request.sample_texts && samples_read_by_.lock() != cached_source_) {
        auto read = std::make_shared<std::vector<bool>>();
        for (const std::string& text : *request.sample_texts) read->push_back(reads_whole_text(*cached_source_, text));
        samples_read_ = std::move(read);
        samples_read_by_ = cached_source_;
    }
    result.samples_read = samples_read_;
}

// The ablated run against the plain one (same capture options, no ablation), whose trace
// is kept while only the ablated heads change.
void Worker::add_ablation_effect(const ComputeRequest& request, const TraceOptions& options, const Trace& trace,
                                 const ProgressFn& progress, ComputeResult& result) {
    TraceOptions plain = options;
    plain.ablate.clear();
    plain.recorder = nullptr;
    const SourceInput& input = result.input;
    const std::string key = request.model_arg + '\x1f' + input.text + '\x1f' + input.decoder_text + '\x1f' +
                            std::to_string(plain.scores) + '\x1f' + std::to_string(plain.detail_layer) +
                            std::to_string(plain.detail_in_decoder) + std::to_string(plain.detail_cross);
    if (!base_trace_ || base_key_ != key) {
        base_trace_.reset();
        base_trace_ = std::make_shared<const Trace>(cached_source_->run(input, plain, progress));
        base_key_ = key;
    }
    result.base_trace = base_trace_;
    AblationEffect effect = compare_traces(*base_trace_, trace, 5);
    effect.heads = request.options.ablate;
    effect.mode = request.options.ablate_mode;
    result.effect = std::make_shared<const AblationEffect>(std::move(effect));
}

// A worked example's printed numbers beside ours; an example whose cells the user edited
// is not compared (its numbers are no longer the ones the article computed from).
void Worker::compare_with_the_article(const ComputeRequest& request, const Trace& trace, ComputeResult& result) {
    const WorkedExample* example = request.example ? request.example.get() : nullptr;
    if (!example && result.source) example = result.source->worked_example();
    if (example && request.example && !example->article.empty()) {
        result.info.article_error = kEditedExampleNotCompared;
    } else if (example) {
        try {
            result.info.article = compare_with_article(*example, trace);
        } catch (const Error& e) {
            result.info.article_error = e.what();
        }
    }
}

}  // namespace hs
