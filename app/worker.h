#pragma once
// Background compute: one thread opens the model (cached while the argument stays the
// same), optionally continues the text greedily, and runs TraceSource::run for the newest
// request; a newer submit cancels the running one (its ProgressFn returns false ->
// hs::Cancelled). Loading a model is cancelled only when the newer request names another
// model (typing while a 124M checkpoint loads keeps the load going). The UI polls for
// finished results and never waits on the thread.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/latest_wins.h"
#include "app/model_info.h"
#include "core/analysis/ablation.h"
#include "core/image/token_words.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/tokenize/byte_fallback.h"
#include "core/image/matrix_summary.h"
#include "core/model/trace.h"
#include "core/worked_example.h"

namespace hs {

struct ComputeRequest {
    std::string model_arg;  // open_source() argument; ignored when `example` is set
    // A playground model: its config, which the worker builds (open_playground) instead of
    // parsing model_arg (then its spec, naming the model and keying the cache) back.
    std::optional<ModelConfig> playground;
    std::shared_ptr<const WorkedExample> example;  // edited worked example to run
    SourceInput input;
    TraceOptions options;
    // Decoder LMs: append up to this many greedy tokens to input.text first (0: none).
    int continue_tokens = 0;
    // `open` hands back the source on screen (not a model opened now: a text it cannot
    // read is an input error, not a reason to run its own example).
    bool shown_source = false;
    // Set: builds the source (on the worker) instead of open_source(model_arg); model_arg
    // still names it and keys the cache. A trained snapshot's model comes this way.
    std::function<std::shared_ptr<const TraceSource>()> open;
    // The sample sentences of the input panel: the result says which of them the model
    // reads whole (reads_whole_text), worked out once per model.
    std::shared_ptr<const std::vector<std::string>> sample_texts;
};

// Thumbnails of every map, box-averaged down to at most kThumbMax per side, computed
// on the worker so that the UI thread only uploads them. [l][h]: (≤ kThumbMax, ≤ kThumbMax).
struct TraceThumbnails {
    static constexpr int kThumbMax = 256;
    std::vector<std::vector<Matrix>> self, decoder_self, decoder_cross;
    // The grid's auto range of each kind: the lowest low and highest (robust) high of the
    // thumbnails themselves (box means, for a map longer than kThumbMax).
    float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {1.0f, 1.0f, 1.0f};
};

struct ComputeResult {
    std::uint64_t generation = 0;
    std::shared_ptr<const Trace> trace;          // null on error
    std::shared_ptr<const TraceThumbnails> thumbnails;
    // ‖h_t‖ of the main stack's and (encoder-decoder) the decoder's hidden states.
    std::shared_ptr<const HiddenNorms> main_norms, decoder_norms;
    // How labels name the main stack's and the decoder's tokens (pieces, words).
    std::shared_ptr<const TokenWords> main_words, decoder_words;
    // Colour ranges and mip levels of the matrices the Pipeline and Layers tabs draw.
    std::shared_ptr<const MatrixSummaries> summaries;
    std::string error;                           // hs::Error message, empty on success
    bool input_error = false;                    // the error is the text's (hs::InputError)
    ByteTokens byte_tokens;                      // main-stack tokens that are raw bytes ("<0xE5>")
    std::vector<std::string> unknown_words;      // main-stack words read as <unk> (core unknown_words)
    std::shared_ptr<const std::vector<bool>> samples_read;  // [i]: the model reads sample i whole
    int input_tokens = 0, input_max_len = 0;     // a text over max_len: its size, the limit
    std::string source_kind;                     // "playground", …
    long long parameter_count = 0;
    double milliseconds = 0.0;       // whole job (load + continuation + forward)
    double load_ms = 0.0;            // how long opening the (possibly cached) model took
    double forward_ms = 0.0;         // TraceSource::run alone
    std::string model_arg;           // what was opened
    // The opened source, shared with the analysis worker (induction, corpus, rank heads);
    // null for edited worked examples.
    std::shared_ptr<const TraceSource> source;
    // options.ablate non-empty: the same input without ablation, and what changed.
    std::shared_ptr<const Trace> base_trace;
    std::shared_ptr<const AblationEffect> effect;
    SourceInput input;               // what the trace was computed for (after continuation)
    ModelInfo info;
    // The trace ran on another text than the window's, which the window adopts with a
    // notice (English; the notice line translates it, app/i18n): "continue" appended tokens
    // to the request text, or a model just opened read none of it and ran on an example of
    // its own (TraceSource::example_text).
    struct AdoptedText {
        std::string text;
        std::string notice;
    };
    std::optional<AdoptedText> adopt_text;
    // The first layers of a big model's first trace, sent while the others run (the trace
    // is of a model of that many layers: no final output, no predictions); the whole
    // trace follows as a result of the same generation.
    bool partial = false;
};

// The most bytes of attention maps the app keeps per trace (issue 6): 12 layers × 12 heads
// × 2048² floats are 2.4 GB; over this, layers other than the selected one are kept in
// order while they fit, the rest shown as thumbnails and recomputed when selected
// (LayerMapsWorker). A request's own smaller TraceOptions::map_budget_bytes wins.
constexpr std::int64_t kAppMapBudgetBytes = std::int64_t{512} << 20;

// What the running job is doing (progress overlay).
enum class WorkerPhase { Idle, Loading, Generating, Forward };

// Box average of m down to at most max_side rows and columns (unchanged when smaller).
Matrix downsample_map(const Matrix& m, int max_side);

// When the first trace of a model opened by a request arrives layer by layer
// (Worker::take_partial): its first layers once its forward has run `first_seconds`, then
// the layers done every `every_seconds` at most. {0, 0}: after every layer.
struct PartialTiming {
    double first_seconds = 0.25, every_seconds = 1.5;
};

class Worker {
public:
    explicit Worker(PartialTiming partial_timing = {});
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Queues the request, replacing any queued one and cancelling the running one.
    std::uint64_t submit(ComputeRequest request);
    // The newest finished result not yet taken (stale generations are dropped).
    std::optional<ComputeResult> take_result();
    // The newest partial result (ComputeResult::partial) of the newest request, until its
    // whole result is taken: the first trace of a model opened by that request arrives
    // this way, layer by layer (PartialTiming).
    std::optional<ComputeResult> take_partial();

    bool busy() const { return jobs_.busy(); }
    // Nothing queued, running or waiting to be taken.
    bool idle() const { return jobs_.idle(); }
    // Seconds the current job has been running (0 when idle).
    double busy_seconds() const { return jobs_.busy_seconds(); }
    // Progress of the running job: layers done / total (0/0 when unknown).
    int progress_done() const { return jobs_.progress_done(); }
    int progress_total() const { return jobs_.progress_total(); }
    WorkerPhase phase() const { return static_cast<WorkerPhase>(phase_.load()); }
    // Drops the queued request and cancels the running one (load included); nothing of
    // either is delivered.
    void cancel();
    std::uint64_t latest_generation() const { return jobs_.latest_generation(); }

private:
    // One request: the model (opened or taken from the cache), its run, what the result
    // brings beside the trace (thumbnails, ranges, norms, summaries, ablation, article).
    ComputeResult compute(const ComputeRequest& request, const JobControl& control);
    // Opens request's model unless it is the cached one; whether this request opened it.
    bool open_model(const ComputeRequest& request, const JobControl& control);
    // Continues the text (decoder LMs) and runs the cached model; fills the result's input,
    // timing, adopted text and unknown words.
    Trace run_model(const ComputeRequest& request, const TraceOptions& options, bool opened_now,
                    const ProgressFn& progress, ComputeResult& result);
    void note_samples_read(const ComputeRequest& request, ComputeResult& result);
    void add_ablation_effect(const ComputeRequest& request, const TraceOptions& options, const Trace& trace,
                             const ProgressFn& progress, ComputeResult& result);
    static void compare_with_the_article(const ComputeRequest& request, const Trace& trace, ComputeResult& result);
    struct MapCollector;
    // The job's result so far after `done` layers of `so_far` (on the worker thread).
    void publish_partial(const ComputeRequest& request, const Trace& so_far, int done, const MapCollector& maps,
                         const JobControl& control);
    PartialTiming partial_timing_;
    std::mutex partial_mutex_;
    std::optional<ComputeResult> partial_;    // guarded by partial_mutex_
    std::uint64_t whole_taken_ = 0;           // generation of the last whole result taken; guarded too

    std::atomic<int> phase_{0};
    std::atomic<bool> load_cancel_{false};   // the model being loaded is no longer wanted
    std::mutex loading_mutex_;
    std::string loading_arg_;                // guarded by loading_mutex_
    // Cache (worker thread only): the last opened source, reused while model_arg stays the same.
    std::string cached_arg_;
    std::shared_ptr<const TraceSource> cached_source_;
    std::weak_ptr<const TraceSource> samples_read_by_;  // the source samples_read_ was worked out for
    std::shared_ptr<const std::vector<bool>> samples_read_;
    double cached_load_ms_ = 0.0;
    ModelInfo cached_info_;  // describe_model(*cached_source_), once per model opened
    // The plain (unablated) trace of the last ablated request, reused while only the
    // ablated heads change: key = model, input and capture options.
    std::string base_key_;
    std::shared_ptr<const Trace> base_trace_;
    // Declared last: its thread starts only after every member above is constructed.
    LatestWins<ComputeRequest, ComputeResult> jobs_;
};

}  // namespace hs
