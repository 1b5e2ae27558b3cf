#pragma once
// multi_head_attention with what a test reads from one call: the output, every head's
// weights and scaled scores (a MapsKeeper recorder) and, when asked, the Pipeline's steps
// (a StepsRecorder) — the recorders the forward itself uses.
#include <utility>
#include <vector>

#include "core/model/attention.h"
#include "core/model/recorder.h"
#include "core/model/steps_recorder.h"

namespace hs {

struct AttentionRun : AttentionResult {
    std::vector<Matrix> scores;  // H × (T, S) = Q_h K_gᵀ · scale (1/√Dh unless options say)
};

// options.recorder is replaced by the test's recorders; `steps`, when non-null, receives
// every intermediate of the call; `scores`: keep the scaled scores too (without them a
// causal row's unseen keys are skipped, a path of its own).
inline AttentionRun run_attention(const AttentionWeights& w, const Matrix& x_query, const Matrix& x_memory,
                                  AttentionOptions options = {}, AttentionSteps* steps = nullptr,
                                  bool scores = false) {
    MapsKeeper maps(scores, options.at.name);
    const float scale = resolved_score_scale(options.score_scale, w.inner() / split_of(w, options.split).heads);
    StepsRecorder step_recorder(w, options.split, options.mask, {scale, options.softcap}, options.at);
    Recorders recorders({steps ? &step_recorder : nullptr, &maps});
    options.recorder = &recorders;
    AttentionRun run;
    run.output = multi_head_attention(w, x_query, x_memory, options);
    run.weights = std::move(maps.weights);
    run.scores = std::move(maps.scores);
    if (steps) *steps = std::move(*step_recorder.steps());
    return run;
}

}  // namespace hs
