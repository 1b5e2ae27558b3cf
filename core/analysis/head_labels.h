#pragma once
// Role labels from head metrics, with documented thresholds (docs/ANALYSIS.md). A head
// gets every specific role whose rule fires; its primary label is the specific role whose
// value exceeds its threshold by the largest factor. "local" and "broad" are given only
// when no specific role fires; "mixed" when nothing fires at all.
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/head_metrics.h"

namespace hs {

enum class Role { PreviousToken, NextToken, Self, FirstTokenSink, SepPunct, Induction, Local, Broad, Mixed };

struct LabelThresholds {
    double prev_token = 0.4;      // mean A[i, i−1] ≥, or
    double prev_peak = 0.4;       // share of rows peaking on key i−1 ≥, and
    double prev_peak_lift = 3.0;  //   ≥ this × that share for uniform attention (prev_peak_uniform)
    double next_token = 0.4;      // mean A[i, i+1] ≥
    double self = 0.4;            // mean A[i, i] ≥
    double first_token = 0.5;     // mean attention on key 0 ≥
    double sep_punct = 0.4;       // mean attention on [SEP] + punctuation keys ≥
    double induction = 0.3;       // induction score ≥ (only when it was computed)
    double local_distance = 2.0;  // mean attention distance past key 0 ≤ (tokens)
    double broad_entropy = 0.8;   // normalised entropy ≥
};

struct HeadLabel {
    Role role = Role::Mixed;
    // The numbers behind the label: (metric name, value), first the one the rule tests.
    std::vector<std::pair<std::string, double>> evidence;
    std::string reason;  // "prev_token 0.62 ≥ 0.40"
    double strength = 0;  // value / threshold (threshold / value for local); orders roles
};

struct HeadLabels {
    int layer = 0;
    int head = 0;
    HeadLabel primary;
    std::vector<HeadLabel> all;  // every role that fired, strongest first (just primary for mixed)
};

const char* role_name(Role r);         // "previous-token", "first-token sink", …
const char* role_description(Role r);  // one line for the legend, naming the rule

HeadLabels label_head(const HeadMetrics& metrics, const LabelThresholds& thresholds = {});
std::vector<HeadLabels> label_heads(const std::vector<HeadMetrics>& metrics,
                                    const LabelThresholds& thresholds = {});

// "previous-token, first-token sink" (all roles, strongest first).
std::string label_list(const HeadLabels& labels);

}  // namespace hs
