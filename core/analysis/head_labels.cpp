#include "core/analysis/head_labels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hs {

namespace {

std::string fixed2(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::pair<std::string, double> ev(const HeadMetrics& m, Metric k) { return {metric_name(k), m[k]}; }

// A rule "value ≥ threshold" (or ≤ when `at_most`) on one metric; NaN never fires.
bool fires(double value, double threshold, bool at_most) {
    if (std::isnan(value)) return false;
    return at_most ? value <= threshold : value >= threshold;
}

HeadLabel make_label(Role role, const HeadMetrics& m, Metric tested, double threshold, bool at_most,
                     std::vector<Metric> context) {
    HeadLabel l;
    l.role = role;
    const double v = m[tested];
    l.strength = at_most ? threshold / std::max(v, 1e-9) : v / threshold;
    l.reason = std::string(metric_name(tested)) + " " + fixed2(v) + (at_most ? " ≤ " : " ≥ ") +
               fixed2(threshold);
    l.evidence.push_back(ev(m, tested));
    for (Metric c : context) l.evidence.push_back(ev(m, c));
    return l;
}

// Previous-token by peak: the share of rows peaking on i − 1 must reach prev_peak and
// prev_peak_lift × the share a uniform head would have (when that is known).
double peak_threshold(const HeadMetrics& m, const LabelThresholds& t) {
    const double uniform = m[Metric::PrevPeakUniform];
    return std::isnan(uniform) ? t.prev_peak : std::max(t.prev_peak, t.prev_peak_lift * uniform);
}

// "prev_peak 0.50 ≥ 0.40, uniform 0.08"
HeadLabel peak_label(const HeadMetrics& m, const LabelThresholds& t) {
    HeadLabel l = make_label(Role::PreviousToken, m, Metric::PrevPeak, peak_threshold(m, t), false,
                             {Metric::PrevPeakUniform, Metric::PrevToken, Metric::Self, Metric::FirstToken});
    if (!std::isnan(m[Metric::PrevPeakUniform])) l.reason += ", uniform " + fixed2(m[Metric::PrevPeakUniform]);
    return l;
}

}  // namespace

const char* role_name(Role r) {
    switch (r) {
        case Role::PreviousToken: return "previous-token";
        case Role::NextToken: return "next-token";
        case Role::Self: return "self";
        case Role::FirstTokenSink: return "first-token sink";
        case Role::SepPunct: return "[SEP]/punctuation";
        case Role::Induction: return "induction";
        case Role::Local: return "local";
        case Role::Broad: return "broad";
        case Role::Mixed: return "mixed";
    }
    return "?";
}

const char* role_description(Role r) {
    switch (r) {
        case Role::PreviousToken: return "each query mostly reads the token just before it (mean A[i,i-1] ≥ 0.4, or i-1 is the top key of ≥ 4 in 10 rows, at least 3× as often as under uniform attention)";
        case Role::NextToken: return "each query mostly reads the token just after it (mean A[i,i+1] ≥ 0.4)";
        case Role::Self: return "each query mostly reads itself (mean A[i,i] ≥ 0.4)";
        case Role::FirstTokenSink: return "attention parks on the first token / BOS (mean A[i,0] ≥ 0.5)";
        case Role::SepPunct: return "attention parks on [SEP] and punctuation (share ≥ 0.4)";
        case Role::Induction: return "on BOS + r + r (r: a random run of distinct tokens), reads the token after the earlier copy (score ≥ 0.3)";
        case Role::Local: return "no single offset dominates, but keys stay near (mean distance past the first token ≤ 2)";
        case Role::Broad: return "spreads attention almost uniformly (normalised entropy ≥ 0.8)";
        case Role::Mixed: return "no rule fires: no dominant pattern on this input";
    }
    return "?";
}

HeadLabels label_head(const HeadMetrics& m, const LabelThresholds& t) {
    HeadLabels out;
    out.layer = m.layer;
    out.head = m.head;
    const std::vector<Metric> shape = {Metric::Confidence, Metric::NormEntropy};
    // Previous-token by weight, or by where most rows peak (a diffuse head that still reads
    // i − 1 first: a uniform head peaks there in 1/k_i of its rows).
    if (fires(m[Metric::PrevToken], t.prev_token, false))
        out.all.push_back(make_label(Role::PreviousToken, m, Metric::PrevToken, t.prev_token, false,
                                     {Metric::PrevPeak, Metric::Confidence, Metric::NormEntropy}));
    else if (fires(m[Metric::PrevPeak], peak_threshold(m, t), false))
        out.all.push_back(peak_label(m, t));
    if (fires(m[Metric::NextToken], t.next_token, false))
        out.all.push_back(make_label(Role::NextToken, m, Metric::NextToken, t.next_token, false, shape));
    if (fires(m[Metric::Self], t.self, false))
        out.all.push_back(make_label(Role::Self, m, Metric::Self, t.self, false, shape));
    if (fires(m[Metric::FirstToken], t.first_token, false))
        out.all.push_back(make_label(Role::FirstTokenSink, m, Metric::FirstToken, t.first_token, false, shape));
    // [SEP] + punctuation share: a derived value, tested as one number.
    const double sep_punct = (std::isnan(m[Metric::Sep]) ? 0.0 : m[Metric::Sep]) +
                             (std::isnan(m[Metric::Punct]) ? 0.0 : m[Metric::Punct]);
    if (fires(sep_punct, t.sep_punct, false)) {
        HeadLabel l;
        l.role = Role::SepPunct;
        l.strength = sep_punct / t.sep_punct;
        l.reason = "sep + punct " + fixed2(sep_punct) + " ≥ " + fixed2(t.sep_punct);
        l.evidence = {{"sep+punct", sep_punct}, ev(m, Metric::Sep), ev(m, Metric::Punct)};
        out.all.push_back(l);
    }
    if (fires(m[Metric::Induction], t.induction, false))
        out.all.push_back(make_label(Role::Induction, m, Metric::Induction, t.induction, false,
                                     {Metric::PrevToken, Metric::DuplicateToken}));
    if (out.all.empty()) {
        // Distance past key 0: weight parked on the first token (a sink) is not "far".
        if (fires(m[Metric::DistanceNoFirst], t.local_distance, true))
            out.all.push_back(make_label(Role::Local, m, Metric::DistanceNoFirst, t.local_distance, true,
                                         {Metric::PrevToken, Metric::Self, Metric::NextToken, Metric::FirstToken}));
        if (fires(m[Metric::NormEntropy], t.broad_entropy, false))
            out.all.push_back(make_label(Role::Broad, m, Metric::NormEntropy, t.broad_entropy, false,
                                         {Metric::EffectiveTokens, Metric::Distance}));
    }
    std::stable_sort(out.all.begin(), out.all.end(),
                     [](const HeadLabel& a, const HeadLabel& b) { return a.strength > b.strength; });
    if (out.all.empty()) {
        HeadLabel l;
        l.role = Role::Mixed;
        l.reason = "no rule fires";
        for (Metric k : {Metric::PrevToken, Metric::FirstToken, Metric::Self, Metric::NormEntropy,
                         Metric::Distance, Metric::Confidence})
            l.evidence.push_back(ev(m, k));
        out.all.push_back(l);
    }
    out.primary = out.all.front();
    return out;
}

std::vector<HeadLabels> label_heads(const std::vector<HeadMetrics>& metrics, const LabelThresholds& t) {
    std::vector<HeadLabels> out;
    out.reserve(metrics.size());
    for (const HeadMetrics& m : metrics) out.push_back(label_head(m, t));
    return out;
}

std::string label_list(const HeadLabels& labels) {
    std::string s;
    for (const HeadLabel& l : labels.all) s += (s.empty() ? "" : ", ") + std::string(role_name(l.role));
    return s;
}

}  // namespace hs
