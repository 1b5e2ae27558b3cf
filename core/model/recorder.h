#pragma once
// The forward's one channel for what it computes (DESIGN §1, §7). Every op hands each named
// intermediate (core/model/taps.h) to a Recorder as it makes it. The Trace's maps, hidden
// states and kept taps (trace_recorder.h), the Pipeline's AttentionSteps
// (steps_recorder.h), training's saved activations (core/train/activations.h) and the app's
// thumbnails are all recorders on this one stream; "how does X reach the Trace?" has one
// answer.
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace hs {

// Where a value was made: the stack's prefix ("", "encoder.", "decoder."), the layer (−1
// outside a layer: embed, norm_in, norm, logits) and the name within it ("attn.q",
// "ffn_in", "out", "embed"). Names within a layer are short (≤ 15 characters), so a point
// costs no allocation.
struct TapPoint {
    const char* stack = "";
    int layer = -1;
    std::string name;

    // The full tap name of taps.h: "decoder.layers.3.attn.q", "norm", "logits".
    std::string full_name() const;
    bool in_decoder() const { return std::string_view(stack) == "decoder."; }
    // Attention blocks: "attn" or "cross" (the part of the name before the first '.' or
    // '_'), and the name after it ("q", "weights").
    std::string_view block() const;
    std::string_view part() const;
};

// Values the forward makes only when a recorder wants them, because they cost work or
// memory the forward otherwise skips (they are not in tap_names):
//   <block>.weights   H × (T, S) A_h, one map per head (record_maps)
//   <block>.scores    H × (T, S) pre-mask scores Q_h K_gᵀ · scale, soft-capped if the model
//                     caps them (record_maps)
//   <block>.qkv       self: [Q|K|V] (T, I + 2·Ikv) before any rotation; cross: Q (T, I)
//   <block>.heads     (T, I) [head_1 | … | head_H] before any ablation
//   <block>.memory    (S, D) what cross-attention's keys and values come from
// (<block> is "attn" or "cross").
bool is_on_demand(const TapPoint& point);

class Recorder {
public:
    virtual ~Recorder() = default;
    // Whether to make an on-demand value (is_on_demand) at `point`. Every other value is
    // recorded whether or not anyone wants it.
    virtual bool wants(const TapPoint& point) const;
    // One named value; `value` is valid only during the call (it may live in scratch that
    // the next step reuses).
    virtual void record(const TapPoint& point, const Eigen::Ref<const Matrix>& value);
    // One attention block's per-head maps, H × (T, S), at "<block>.weights" or
    // "<block>.scores", to look at (a recorder that keeps them copies them).
    virtual void record_maps(const TapPoint& point, const std::vector<Matrix>& maps);
    // The same maps handed over: the recorder may move them out. The forward hands each
    // block's maps to one recorder; Recorders shows them to the others first and hands
    // them to the last one that wants them. By default: record_maps.
    virtual void take_maps(const TapPoint& point, std::vector<Matrix>& maps);
};

// Shows the stream to several recorders, in order; null entries are skipped.
class Recorders final : public Recorder {
public:
    explicit Recorders(std::vector<Recorder*> list);
    bool wants(const TapPoint& point) const override;
    void record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) override;
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override;
    void take_maps(const TapPoint& point, std::vector<Matrix>& maps) override;

private:
    std::vector<Recorder*> list_;
};

// Keeps the per-head maps of attention blocks named `block` ("attn" or "cross"): the last
// such block's weights, and its scores when asked. What recompute_layer_maps, the benchmarks and
// tests use to read one block's maps outside a Trace.
class MapsKeeper final : public Recorder {
public:
    explicit MapsKeeper(bool scores = false, std::string block = "attn");
    bool wants(const TapPoint& point) const override;
    void record_maps(const TapPoint& point, const std::vector<Matrix>& maps) override;
    void take_maps(const TapPoint& point, std::vector<Matrix>& maps) override;

    std::vector<Matrix> weights;  // H × (T, S)
    std::vector<Matrix> scores;   // H × (T, S), when constructed with scores

private:
    bool keep_scores_;
    std::string block_;
};

}  // namespace hs
