#pragma once
// The Pipeline's step-by-step view of one attention block, as a recorder (recorder.h) of the
// forward that also fills the heatmaps: every AttentionSteps matrix is a value that
// multi_head_attention computed, not a second computation.
#include <optional>

#include "core/kernels/attend.h"
#include "core/kernels/attention_mask.h"
#include "core/model/attention.h"
#include "core/model/recorder.h"
#include "core/model/trace.h"
#include "core/model/weights.h"

namespace hs {

class StepsRecorder final : public Recorder {
public:
    // The block at `block` (its stack, layer and name "attn" or "cross"), with the weights,
    // head split, mask and score scale and soft-cap it runs with; the weights must outlive
    // the recorder.
    StepsRecorder(const AttentionWeights& weights, const HeadSplit& split, const AttentionMask& mask,
                  kernels::ScoreMath score, TapPoint block);
    bool wants(const TapPoint& point) const override;
    void record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) override;
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override;

    // The steps, once the block's output was recorded; empty before.
    std::optional<AttentionSteps>& steps() { return steps_; }

private:
    bool here(const TapPoint& point) const;
    void finish(const Eigen::Ref<const Matrix>& output);

    const AttentionWeights& w_;
    HeadSplit split_;
    AttentionMask mask_;
    kernels::ScoreMath score_;
    TapPoint block_;
    // What the block showed so far, until its output completes the steps.
    Matrix x_query_, x_memory_, qkv_, q_, k_, v_, heads_, concat_;
    std::vector<Matrix> weights_, scores_;
    bool cross_ = false;
    std::optional<AttentionSteps> steps_;
};

}  // namespace hs
