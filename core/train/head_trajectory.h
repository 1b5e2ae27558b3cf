#pragma once
// What each head of a model in training does, measured at a step on two fixed probes:
//   - the task's first kLabelExamples held-out examples: every metric of
//     core/analysis/head_metrics.h (entropy, distance, previous-token, first-token,
//     duplicate-token, …), each the mean over the examples where it is defined;
//   - BOS + r + r, r = m distinct symbols (m = min(12, symbols, (max_len − 1)/2)): the
//     induction score of core/analysis/induction.h (Olsson et al.: attention from the
//     second copy to the token after the previous occurrence).
// and the role each head would be labelled with (core/analysis/head_labels.h), the heads'
// similarity (Jensen–Shannon divergence between their maps of the first held-out example,
// core/analysis/head_similarity.h) and the induction probe's attention maps, which the
// Train view draws. A list of them over training is the heads' trajectory (Train view,
// `headscope train --snapshots`).
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_labels.h"
#include "core/analysis/head_metrics.h"
#include "core/tensor.h"
#include "core/train/trainer.h"

namespace hs::train {

// Held-out examples the metrics and labels average over: one example of the induction task
// has ~25 queries, too few for a stable previous-token share.
constexpr int kLabelExamples = 8;

struct HeadSnapshot {
    int step = 0;
    double held_out_loss = 0.0;
    std::vector<HeadMetrics> metrics;  // layer-major, Metric::Induction filled
    std::vector<HeadLabels> labels;    // same order
    Eigen::MatrixXd similarity;        // (L·H, L·H) JSD between heads, layer-major
    std::vector<Matrix> probe_maps;    // L·H × (T, T): attention on BOS + r + r, layer-major
                                       // (encoder–decoder: cross-attention, (Td, S))
    // Self-attention probes (not cross): every metric of each head on BOS + r + r, the maps
    // the Train view draws, and the role it has there: the induction circuit's first layer
    // is measured where its second layer is, as Olsson et al. (2022) score both.
    std::vector<HeadMetrics> probe_metrics;
    std::vector<HeadLabels> probe_labels;
    std::vector<std::string> probe_tokens;        // the maps' key tokens ("#7")
    std::vector<std::string> probe_query_tokens;  // their query tokens when not the keys'
    bool probe_is_cross = false;                  // the maps are cross-attention
    // The model at this step, for the main views (trained_source.h); TrainingRun keeps
    // them within a memory budget and drops every other one beyond it (null then).
    std::shared_ptr<const ModelWeights> weights;
};

HeadSnapshot measure_heads(const Trainer& trainer, int held_out_examples = 64);

// step, held_out_loss, layer, head, every metric by name, role (primary label on the
// held-out examples), probe_role (on BOS + r + r; empty without a self-attention probe): one
// row per head and snapshot.
std::string trajectories_csv(const std::vector<HeadSnapshot>& snapshots);

// The highest induction score of any head in a snapshot (0 when none was computed).
double best_induction(const HeadSnapshot& snapshot);

}  // namespace hs::train
