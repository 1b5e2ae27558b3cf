#pragma once
// Per-head attention metrics (issue 5). One head's map is A (T, S): rows = queries i,
// cols = keys j, each row sums to 1 over its allowed keys, or is all zero when every key
// is masked ("empty row"). Unless stated otherwise a metric is the mean over the
// non-empty rows; offsets are key − query (previous token: j = i − 1). The math, the
// smoothing and every convention are written out in docs/ANALYSIS.md.
#include <array>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/model/attention.h"
#include "core/model/trace.h"

namespace hs {

enum class Metric {
    Entropy,            // (1/n) Σ_i −Σ_j A_ij ln(A_ij + ε)                   nats
    NormEntropy,        // mean_i H_i / ln(k_i), k_i = allowed keys of row i, rows k_i ≥ 2
    EffectiveTokens,    // mean_i exp(H_i)
    Distance,           // Σ_ij A_ij |i − j| / Σ_ij A_ij                       tokens
    DistanceNoFirst,    // Σ_i Σ_{j≥1} A_ij |i − j| / Σ_i Σ_{j≥1} A_ij: key 0 (a sink) left out
    Confidence,         // mean_i max_j A_ij
    PrevToken,          // mean A[i, i−1] over rows i ≥ 1
    PrevPeak,           // share of rows i ≥ 2 whose largest weight is on key i−1 (a tie of n: 1/n)
    PrevPeakUniform,    // what PrevPeak would be for uniform attention: mean 1/k_i over those rows
    NextToken,          // mean A[i, i+1] over rows i ≤ T−2
    Self,               // mean A[i, i]
    FirstToken,         // mean A[i, 0] (BOS for decoder LMs, [CLS] for BERT)
    Cls,                // mean_i Σ_{j: token j = "[CLS]"} A_ij
    Sep,                // mean_i Σ_{j: token j = "[SEP]"} A_ij
    Punct,              // mean_i Σ_{j: token j is punctuation} A_ij
    DuplicateToken,     // mean over queries with an earlier copy of Σ_{j<i, id_j = id_i} A_ij
    Induction,          // mean A[i, i−m+1] over the second copy of BOS + r + r
    Count
};
constexpr int kMetricCount = static_cast<int>(Metric::Count);

// Short column name ("entropy", "norm_entropy", "prev_token", …) and a one-line meaning.
const char* metric_name(Metric m);
const char* metric_description(Metric m);
// All metrics in column order.
std::array<Metric, kMetricCount> all_metrics();

// Smoothing of the entropy: H_i = −Σ_j A_ij ln(A_ij + ε), so 0·ln 0 counts as 0.
constexpr double kEntropyEpsilon = 1e-12;

struct HeadMetrics {
    int layer = 0;
    int head = 0;
    // NaN where a metric is undefined (no row qualifies, induction not computed).
    std::array<double, kMetricCount> values{};
    double operator[](Metric m) const { return values[static_cast<int>(m)]; }
    double& operator[](Metric m) { return values[static_cast<int>(m)]; }
};

// Which keys a query may see is core's AttentionMask (core/attention.h): row i allows keys
// j ≤ i when causal (all keys otherwise), minus the key_padding positions. Used for the
// normalised entropy and prev_peak_uniform.

// Per key position, what kind of token it is (from display strings and ids).
struct TokenKinds {
    std::vector<std::string> tokens;  // S display strings
    std::vector<int> ids;             // S ids (empty: compare display strings)
    std::vector<char> is_cls, is_sep, is_punct;
};
TokenKinds classify_tokens(const std::vector<std::string>& tokens, const std::vector<int>& ids);

// True when the display string, ignoring spaces, is non-empty and made only of ASCII
// punctuation or CJK / general punctuation (，。、！？：；“”‘’（）《》「」…—).
bool is_punctuation_token(const std::string& token);

// Metrics of one head's map A (T, S) for a self-attention block (T = S; for T ≠ S the
// positional metrics are NaN). Induction is left NaN (see induction.h).
HeadMetrics compute_head_metrics(const Matrix& A, const TokenKinds& kinds, const AttentionMask& mask);

// The mask of the main stack's layer `layer` in a trace: causal for decoder-only models
// (and pretrained decoder LMs), the layer's window, plus trace.key_padding.
AttentionMask mask_of(const Trace& trace, int layer);

// Every head of the main stack's self-attention, layer-major (index = layer·H + head).
// Throws hs::Error when the trace carries no per-head weights.
std::vector<HeadMetrics> compute_trace_metrics(const Trace& trace);

}  // namespace hs
