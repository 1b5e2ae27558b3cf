#include "core/analysis/head_metrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/model/model_masks.h"
#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct MetricInfo {
    const char* name;
    const char* description;
};

constexpr MetricInfo kMetricInfo[kMetricCount] = {
    {"entropy", "mean row entropy −Σ_j A_ij ln A_ij (nats)"},
    {"norm_entropy", "row entropy / ln(#allowed keys), rows with ≥ 2 allowed keys (0..1)"},
    {"effective_tokens", "mean exp(row entropy): how many keys a query effectively reads"},
    {"distance", "mean attention distance Σ A_ij |i−j| / Σ A_ij (tokens)"},
    {"confidence", "mean over rows of the largest weight"},
    {"prev_token", "mean A[i, i−1]"},
    {"next_token", "mean A[i, i+1]"},
    {"self", "mean A[i, i]"},
    {"first_token", "mean attention on key 0 (BOS / [CLS])"},
    {"cls", "mean attention on [CLS] keys"},
    {"sep", "mean attention on [SEP] keys"},
    {"punct", "mean attention on punctuation keys"},
    {"duplicate_token", "mean attention from a token to its earlier copies"},
    {"induction", "mean A[i, i−m+1] over the second copy of BOS + r + r"},
};

bool is_punct_cp(char32_t cp) {
    if (cp < 0x80) return cp > 0x20 && cp < 0x7f && !std::isalnum(static_cast<int>(cp));
    return unicode::is_punctuation(cp);
}

// k_i: keys row i may see under the mask (S keys, j ≤ i when causal, minus padding).

// Mean of the values added; NaN when nothing was added (the metric is undefined).
struct Mean {
    double sum = 0;
    int n = 0;
    void add(double v) { sum += v, ++n; }
    double value() const { return n > 0 ? sum / n : kNaN; }
};

}  // namespace

const char* metric_name(Metric m) { return kMetricInfo[static_cast<int>(m)].name; }
const char* metric_description(Metric m) { return kMetricInfo[static_cast<int>(m)].description; }

std::array<Metric, kMetricCount> all_metrics() {
    std::array<Metric, kMetricCount> out{};
    for (int i = 0; i < kMetricCount; ++i) out[i] = static_cast<Metric>(i);
    return out;
}

bool is_punctuation_token(const std::string& token) {
    bool any = false;
    for (const unicode::Utf8Unit& u : unicode::decode_utf8(token)) {
        if (!u.valid) return false;
        if (unicode::is_white_space(u.cp)) continue;
        if (!is_punct_cp(u.cp)) return false;
        any = true;
    }
    return any;
}

TokenKinds classify_tokens(const std::vector<std::string>& tokens, const std::vector<int>& ids) {
    TokenKinds k;
    k.tokens = tokens;
    if (ids.size() == tokens.size()) k.ids = ids;
    for (const std::string& t : tokens) {
        k.is_cls.push_back(t == "[CLS]");
        k.is_sep.push_back(t == "[SEP]");
        k.is_punct.push_back(is_punctuation_token(t));
    }
    return k;
}

HeadMetrics compute_head_metrics(const Matrix& A, const TokenKinds& kinds, const AttentionMask& mask) {
    const int T = static_cast<int>(A.rows());
    const int S = static_cast<int>(A.cols());
    if (static_cast<int>(kinds.tokens.size()) != S)
        throw Error("the attention map has " + std::to_string(S) + " keys but " +
                    std::to_string(kinds.tokens.size()) + " token strings were given");
    const bool square = T == S;
    Mean entropy, norm_entropy, effective, confidence, prev, next, self, first, cls, sep, punct, dup;
    double weighted_distance = 0, total_weight = 0;
    for (int i = 0; i < T; ++i) {
        const auto row = A.row(i);
        const double row_sum = row.cast<double>().sum();
        if (row_sum <= 0) continue;  // fully masked query: no distribution to measure
        // H_i = −Σ_j A_ij ln(A_ij + ε)
        double h = 0;
        for (int j = 0; j < S; ++j) {
            const double a = row(j);
            if (a > 0) h -= a * std::log(a + kEntropyEpsilon);
        }
        entropy.add(h);
        effective.add(std::exp(h));
        const int k = mask.seen(i, S);
        if (k >= 2) norm_entropy.add(h / std::log(static_cast<double>(k)));
        confidence.add(row.maxCoeff());
        double cls_w = 0, sep_w = 0, punct_w = 0;
        for (int j = 0; j < S; ++j) {
            const double a = row(j);
            weighted_distance += a * std::abs(i - j);
            total_weight += a;
            if (kinds.is_cls[j]) cls_w += a;
            if (kinds.is_sep[j]) sep_w += a;
            if (kinds.is_punct[j]) punct_w += a;
        }
        cls.add(cls_w), sep.add(sep_w), punct.add(punct_w);
        first.add(row(0));
        if (!square) continue;
        if (i >= 1) prev.add(row(i - 1));
        if (i + 1 < S) next.add(row(i + 1));
        self.add(row(i));
        // duplicate token: weight on earlier keys carrying the same token as query i
        double dup_w = 0;
        bool has_copy = false;
        for (int j = 0; j < i; ++j) {
            const bool same = kinds.ids.empty() ? kinds.tokens[j] == kinds.tokens[i]
                                                : kinds.ids[j] == kinds.ids[i];
            if (same) dup_w += row(j), has_copy = true;
        }
        if (has_copy) dup.add(dup_w);
    }
    HeadMetrics m;
    m.values.fill(kNaN);
    m[Metric::Entropy] = entropy.value();
    // No row with a choice (T = 1, or every row has one key): the head spreads nothing.
    m[Metric::NormEntropy] = norm_entropy.n > 0 ? norm_entropy.value() : (entropy.n > 0 ? 0.0 : kNaN);
    m[Metric::EffectiveTokens] = effective.value();
    // |i − j| compares positions of unrelated sequences when T ≠ S (cross-attention)
    m[Metric::Distance] = square && total_weight > 0 ? weighted_distance / total_weight : kNaN;
    m[Metric::Confidence] = confidence.value();
    m[Metric::PrevToken] = prev.value();
    m[Metric::NextToken] = next.value();
    m[Metric::Self] = self.value();
    m[Metric::FirstToken] = first.value();
    m[Metric::Cls] = cls.value();
    m[Metric::Sep] = sep.value();
    m[Metric::Punct] = punct.value();
    m[Metric::DuplicateToken] = dup.value();
    return m;
}

AttentionMask mask_of(const Trace& trace, int layer) {
    return main_self_mask(trace.config, trace.key_padding, layer);
}

std::vector<HeadMetrics> compute_trace_metrics(const Trace& trace) {
    const StackTrace& stack = trace.main;
    if (stack.layers.empty() || stack.layers[0].self_attn.weights.empty())
        throw Error("the trace of '" + trace.model_name +
                    "' has no per-head attention weights to analyse (run with head weights on)");
    const TokenKinds kinds = classify_tokens(stack.tokens, stack.ids);
    std::vector<HeadMetrics> out;
    for (int il = 0; il < static_cast<int>(stack.layers.size()); ++il) {
        const AttentionMask mask = mask_of(trace, il);
        const auto& maps = stack.layers[il].self_attn.weights;
        for (int h = 0; h < static_cast<int>(maps.size()); ++h) {
            HeadMetrics m = compute_head_metrics(maps[h], kinds, mask);
            m.layer = il;
            m.head = h;
            out.push_back(m);
        }
    }
    return out;
}

}  // namespace hs
