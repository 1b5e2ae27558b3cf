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
    {"distance_no_first", "mean attention distance over keys j ≥ 1: the first-token sink left out (tokens)"},
    {"confidence", "mean over rows of the largest weight"},
    {"prev_token", "mean A[i, i−1]"},
    {"prev_peak", "share of rows i ≥ 2 whose largest weight is on key i−1"},
    {"prev_peak_uniform", "prev_peak of a head attending uniformly: mean 1/(allowed keys) over those rows"},
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

// Running sums of every metric over the non-empty rows of one map A (T, S).
struct MetricSums {
    Mean entropy, norm_entropy, effective, confidence, prev, prev_peak, prev_peak_uniform, next, self, first, cls,
        sep, punct, dup;
    double distance = 0, weight = 0;                    // Σ A_ij |i − j|, Σ A_ij
    double distance_no_first = 0, weight_no_first = 0;  // the same over keys j ≥ 1

    // Row i's spread: H_i = −Σ_j A_ij ln(A_ij + ε), exp(H_i), H_i / ln k_i, max_j A_ij.
    void add_spread(const Matrix& A, int i, const AttentionMask& mask) {
        double h = 0;
        for (int j = 0; j < A.cols(); ++j) {
            const double a = A(i, j);
            if (a > 0) h -= a * std::log(a + kEntropyEpsilon);
        }
        entropy.add(h);
        effective.add(std::exp(h));
        const int k = mask.seen(i, static_cast<int>(A.cols()));
        if (k >= 2) norm_entropy.add(h / std::log(static_cast<double>(k)));
        confidence.add(A.row(i).maxCoeff());
    }

    // Row i's distances and the weight it puts on key 0 and on [CLS], [SEP], punctuation.
    void add_keys(const Matrix& A, int i, const TokenKinds& kinds) {
        double cls_w = 0, sep_w = 0, punct_w = 0;
        for (int j = 0; j < A.cols(); ++j) {
            const double a = A(i, j);
            distance += a * std::abs(i - j), weight += a;
            if (j >= 1) distance_no_first += a * std::abs(i - j), weight_no_first += a;
            if (kinds.is_cls[j]) cls_w += a;
            if (kinds.is_sep[j]) sep_w += a;
            if (kinds.is_punct[j]) punct_w += a;
        }
        cls.add(cls_w), sep.add(sep_w), punct.add(punct_w);
        first.add(A(i, 0));
    }

    // Row i's weights at fixed offsets (self-attention, T = S) and on earlier copies of its token.
    void add_offsets(const Matrix& A, int i, const TokenKinds& kinds, const AttentionMask& mask) {
        const int S = static_cast<int>(A.cols());
        if (i >= 1) prev.add(A(i, i - 1));
        // Rows i ≥ 2 only: row 1's previous key is key 0, which a first-token sink also peaks
        // on. A tie of n keys at the top counts 1/n, so a uniform row scores 1/k_i.
        if (i >= 2) {
            const float top = A.row(i).maxCoeff();
            const int ties = static_cast<int>((A.row(i).array() == top).count());
            prev_peak.add(A(i, i - 1) == top ? 1.0 / ties : 0.0);
            prev_peak_uniform.add(1.0 / std::max(1, mask.seen(i, S)));
        }
        if (i + 1 < S) next.add(A(i, i + 1));
        self.add(A(i, i));
        double dup_w = 0;
        bool has_copy = false;
        for (int j = 0; j < i; ++j) {
            const bool same = kinds.ids.empty() ? kinds.tokens[j] == kinds.tokens[i] : kinds.ids[j] == kinds.ids[i];
            if (same) dup_w += A(i, j), has_copy = true;
        }
        if (has_copy) dup.add(dup_w);
    }
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
    MetricSums sums;
    for (int i = 0; i < T; ++i) {
        if (A.row(i).cast<double>().sum() <= 0) continue;  // fully masked query: no distribution to measure
        sums.add_spread(A, i, mask);
        sums.add_keys(A, i, kinds);
        if (square) sums.add_offsets(A, i, kinds, mask);
    }
    HeadMetrics m;
    m.values.fill(kNaN);
    m[Metric::Entropy] = sums.entropy.value();
    // No row with a choice (T = 1, or every row has one key): the head spreads nothing.
    m[Metric::NormEntropy] = sums.norm_entropy.n > 0 ? sums.norm_entropy.value() : (sums.entropy.n > 0 ? 0.0 : kNaN);
    m[Metric::EffectiveTokens] = sums.effective.value();
    // |i − j| compares positions of unrelated sequences when T ≠ S (cross-attention)
    m[Metric::Distance] = square && sums.weight > 0 ? sums.distance / sums.weight : kNaN;
    m[Metric::DistanceNoFirst] = square && sums.weight_no_first > 0 ? sums.distance_no_first / sums.weight_no_first : kNaN;
    m[Metric::Confidence] = sums.confidence.value();
    m[Metric::PrevToken] = sums.prev.value();
    m[Metric::PrevPeak] = sums.prev_peak.value();
    m[Metric::PrevPeakUniform] = sums.prev_peak_uniform.value();
    m[Metric::NextToken] = sums.next.value();
    m[Metric::Self] = sums.self.value();
    m[Metric::FirstToken] = sums.first.value();
    m[Metric::Cls] = sums.cls.value();
    m[Metric::Sep] = sums.sep.value();
    m[Metric::Punct] = sums.punct.value();
    m[Metric::DuplicateToken] = sums.dup.value();
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
