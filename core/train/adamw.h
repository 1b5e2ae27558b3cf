#pragma once
// AdamW (Loshchilov & Hutter 2019; torch.optim.AdamW) with a learning-rate schedule and
// gradient clipping, over a whole ModelWeights:
//   lr_t   linear warm-up over `warmup_steps` to `lr`, then cosine decay to
//          lr · min_lr_ratio at `total_steps` (constant after)
//   clip   g ← g · min(1, clip_norm / (‖g‖ + 1e-6))  over all parameters (clip_norm 0:
//          none), as torch.nn.utils.clip_grad_norm_
//   m ← β1 m + (1 − β1) g;  v ← β2 v + (1 − β2) g²
//   p ← p − lr_t · wd · p   (matrices only: Parameter::decays)
//   p ← p − lr_t · (m / (1 − β1^t)) / (√(v / (1 − β2^t)) + eps)
// Deterministic: no randomness, and the same order of operations on any thread count.
#include "core/model/weights.h"

namespace hs::train {

struct AdamWOptions {
    float lr = 1e-3f;
    float beta1 = 0.9f, beta2 = 0.95f;
    float eps = 1e-8f;
    float weight_decay = 0.01f;
    int warmup_steps = 0;
    int total_steps = 0;        // 0: no decay after warm-up
    float min_lr_ratio = 0.1f;  // the cosine ends at lr · min_lr_ratio
    float clip_norm = 1.0f;     // 0: no clipping
};

// Throws hs::Error naming the setting unless 0 < lr ≤ 10, 0 ≤ β1, β2 < 1, eps > 0,
// 0 ≤ weight_decay < 1, warm-up and total steps ≥ 0, 0 ≤ min_lr_ratio ≤ 1, clip_norm ≥ 0
// (all finite).
void check_adamw(const AdamWOptions& options);
// The schedule's learning rate for step t = 1, 2, … (the step about to be taken).
float learning_rate_at(int step, const AdamWOptions& options);

class AdamW {
public:
    AdamW(const ModelWeights& shapes, AdamWOptions options);
    // One step: clips `grads` in place, updates `weights`. Returns ‖g‖ before clipping.
    double step(ModelWeights& weights, ModelWeights& grads);
    int steps_taken() const { return t_; }
    const AdamWOptions& options() const { return options_; }
    // The moments, laid out as the weights (checkpoints save and restore them).
    ModelWeights& first_moment() { return m_; }
    ModelWeights& second_moment() { return v_; }
    const ModelWeights& first_moment() const { return m_; }
    const ModelWeights& second_moment() const { return v_; }
    void set_steps_taken(int t) { t_ = t; }

private:
    AdamWOptions options_;
    ModelWeights m_, v_;
    int t_ = 0;
};

}  // namespace hs::train
