// The thread pool, the parallel GEMM and the fast multi-head path (core/kernels/parallel.h,
// attend_heads) against plain loops.
#include <atomic>
#include <stdexcept>
#include <vector>

#include <cmath>

#include <gtest/gtest.h>

#include "core/kernels/attend.h"
#include "core/model/attention.h"
#include "core/error.h"
#include "core/kernels/parallel.h"

namespace hs {
namespace {

TEST(ParallelFor, RunsEveryIndexExactlyOnce) {
    for (int n : {0, 1, 2, 7, 1000}) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        std::vector<std::atomic<int>> hits(n);
        parallel_for(n, [&](int i) { hits[i].fetch_add(1); });
        for (int i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "index " << i;
    }
}

TEST(ParallelFor, NestedCallsRunAndExceptionsReachTheCaller) {
    std::atomic<int> total{0};
    parallel_for(4, [&](int) { parallel_for(5, [&](int j) { total.fetch_add(j); }); });
    EXPECT_EQ(total.load(), 4 * (0 + 1 + 2 + 3 + 4));
    EXPECT_THROW(parallel_for(8,
                              [](int i) {
                                  if (i == 5) throw std::runtime_error("task 5 failed");
                              }),
                 std::runtime_error);
}

TEST(MatmulNt, MatchesLoopsWithBiasForSmallAndSplitShapes) {
    struct Case {
        int M, N, K;
    };
    for (const Case& c : {Case{3, 5, 4}, Case{64, 200, 128}, Case{130, 770, 96}}) {
        SCOPED_TRACE(testing::Message() << "M=" << c.M << " N=" << c.N << " K=" << c.K);
        const Matrix a = Matrix::Random(c.M, c.K), b = Matrix::Random(c.N, c.K);
        const Vector bias = Vector::Random(c.N);
        Matrix got(c.M, c.N);
        matmul_nt(a, b, &bias, got);
        double worst = 0;
        for (int i = 0; i < c.M; ++i)
            for (int j = 0; j < c.N; ++j) {
                double ref = bias(j);
                for (int k = 0; k < c.K; ++k) ref += double(a(i, k)) * b(j, k);
                worst = std::max(worst, std::abs(ref - got(i, j)));
            }
        EXPECT_LT(worst, 1e-4);
    }
}

TEST(MatmulNt, RejectsMismatchedShapesWithBothShapesNamed) {
    const Matrix a(4, 3), b(5, 2);
    Matrix c(4, 5);
    try {
        matmul_nt(a, b, nullptr, c);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "matmul_nt: cannot multiply (4 × 3) by the transpose of (5 × 2) into (4 × 5)");
    }
}

// One attend_heads call against a one-head reference written out here (serial, explicit
// mask and softmax in double): T queries, S keys, H query heads sharing Hkv K/V heads.
// keep_scores = false leaves the scores out, so a causal row block sees only the keys up
// to its last row (fewer than S, a partial last 64-key panel).
void expect_heads_match_reference(int T, int S, int H, int Hkv, int Dh, bool causal, bool keep_scores) {
    const Matrix q = Matrix::Random(T, H * Dh), k = Matrix::Random(S, Hkv * Dh), v = Matrix::Random(S, Hkv * Dh);
    AttentionMask mask;
    mask.causal = causal;
    mask.key_padding = {0, 77};
    Matrix concat(T, H * Dh);
    std::vector<Matrix> weights, scores;
    kernels::attend_heads(q, k, v, H, Hkv, {0.25f}, mask, concat, &weights, keep_scores ? &scores : nullptr);
    ASSERT_EQ(weights.size(), size_t(H));
    for (int h = 0; h < H; ++h) {
        const int g = h / (H / Hkv);
        // scaled = Q_h K_gᵀ · 0.25; A = softmax over the allowed keys; out = A V_g
        const Matrix ref_scaled = q.middleCols(h * Dh, Dh) * k.middleCols(g * Dh, Dh).transpose() * 0.25f;
        Matrix ref_a = Matrix::Zero(T, S);
        for (int i = 0; i < T; ++i) {
            double top = -1e300, sum = 0;
            for (int j = 0; j < S; ++j)
                if (mask.allowed(i, j)) top = std::max(top, double(ref_scaled(i, j)));
            for (int j = 0; j < S; ++j)
                if (mask.allowed(i, j)) sum += std::exp(double(ref_scaled(i, j)) - top);
            for (int j = 0; j < S; ++j)
                if (mask.allowed(i, j))
                    ref_a(i, j) = static_cast<float>(std::exp(double(ref_scaled(i, j)) - top) / sum);
        }
        const Matrix ref_out = ref_a * v.middleCols(g * Dh, Dh);
        EXPECT_LT((weights[h] - ref_a).cwiseAbs().maxCoeff(), 1e-6f) << "head " << h;
        if (keep_scores) {
            EXPECT_LT((scores[h] - ref_scaled).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
        }
        EXPECT_LT((concat.middleCols(h * Dh, Dh) - ref_out).cwiseAbs().maxCoeff(), 1e-5f);
        EXPECT_EQ(weights[h](3, 77), 0.0f);  // padded key: exactly zero
        if (causal) {
            EXPECT_EQ(weights[h](3, 4), 0.0f);  // future key: exactly zero
        }
    }
}

// Grouped K/V heads, causal + padded keys, row blocks (150 keys: two full 64-key panels and
// a partial one).
TEST(AttendHeads, MatchesOneHeadReferenceWithCausalPaddingAndSharedKv) {
    for (bool causal : {false, true}) {
        SCOPED_TRACE(causal ? "causal" : "full");
        expect_heads_match_reference(150, 150, 4, 2, 16, causal, true);
    }
}

// Without the scores a causal block skips the keys none of its rows sees: its keys and
// values are laid out for fewer keys than the map has columns. Dh 20: no whole vector.
TEST(AttendHeads, CausalBlocksWithoutScoresAndAnOddHeadSize) {
    expect_heads_match_reference(150, 150, 4, 2, 20, true, false);
    expect_heads_match_reference(150, 150, 4, 4, 20, false, false);
}

// Cross-attention: more keys than queries, neither a multiple of 64.
TEST(AttendHeads, MoreKeysThanQueries) {
    expect_heads_match_reference(70, 130, 4, 2, 20, false, true);
}

}  // namespace
}  // namespace hs
