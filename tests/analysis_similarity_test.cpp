// Head similarity (JSD matrix, redundant pairs, MDS) and attention rollout.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/head_similarity.h"
#include "core/analysis/rollout.h"
#include "core/open_source.h"
#include "core/source.h"
#include "tests/test_util.h"

namespace hs {
namespace {

Matrix one_hot_rows(int n, int col) {
    Matrix A = Matrix::Zero(n, n);
    A.col(col).setOnes();
    return A;
}

TEST(HeadSimilarity, IdenticalHeadsHaveZeroDivergence) {
    Matrix A(3, 3);
    A << 1, 0, 0, 0.3f, 0.7f, 0, 0.2f, 0.3f, 0.5f;
    EXPECT_NEAR(head_jsd(A, A), 0.0, 1e-12);
}

TEST(HeadSimilarity, DisjointOneHotsHaveDivergenceLn2) {
    EXPECT_NEAR(head_jsd(one_hot_rows(4, 0), one_hot_rows(4, 3)), std::log(2.0), 1e-9);
}

TEST(HeadSimilarity, RowDivergencesAreAveraged) {
    // Row 0 identical (0); row 1: P = (1, 0), Q = (½, ½), M = (¾, ¼):
    // JSD = ½·ln(1/¾) + ½·(½ ln(½/¾) + ½ ln(½/¼))
    Matrix P(2, 2), Q(2, 2);
    P << 1, 0, 1, 0;
    Q << 1, 0, 0.5f, 0.5f;
    const double row1 = 0.5 * std::log(4.0 / 3.0) +
                        0.5 * (0.5 * std::log(2.0 / 3.0) + 0.5 * std::log(2.0));
    EXPECT_NEAR(head_jsd(P, Q), row1 / 2, 1e-7);
}

TEST(HeadSimilarity, RejectsMapsOfDifferentShapes) {
    test::expect_error([] { head_jsd(Matrix::Identity(3, 3), Matrix::Identity(4, 4)); },
                       {"different shapes", "3×3", "4×4"});
}

TEST(HeadSimilarity, MatrixIsSymmetricAndPairsAreSortedByDivergence) {
    const Matrix a = one_hot_rows(4, 0), b = one_hot_rows(4, 0), c = Matrix::Constant(4, 4, 0.25f);
    const Eigen::MatrixXd d = jsd_matrix({&a, &b, &c});
    ASSERT_EQ(d.rows(), 3);
    EXPECT_EQ(d.diagonal().cwiseAbs().maxCoeff(), 0.0);
    EXPECT_NEAR((d - d.transpose()).cwiseAbs().maxCoeff(), 0.0, 1e-15);
    const std::vector<HeadPair> pairs = most_redundant_pairs(d, 2);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].a, 0);
    EXPECT_EQ(pairs[0].b, 1);
    EXPECT_NEAR(pairs[0].jsd, 0.0, 1e-12);
    EXPECT_LE(pairs[0].jsd, pairs[1].jsd);
}

TEST(HeadSimilarity, MdsRecoversEuclideanDistances) {
    // Points (0,0), (3,0), (0,4): squared distances 9, 16, 25 given as the "JSD" (= d²).
    Eigen::MatrixXd d2(3, 3);
    d2 << 0, 9, 16, 9, 0, 25, 16, 25, 0;
    const Eigen::MatrixXd xy = mds_layout(d2);
    ASSERT_EQ(xy.rows(), 3);
    ASSERT_EQ(xy.cols(), 2);
    EXPECT_NEAR((xy.row(0) - xy.row(1)).norm(), 3.0, 1e-9);
    EXPECT_NEAR((xy.row(0) - xy.row(2)).norm(), 4.0, 1e-9);
    EXPECT_NEAR((xy.row(1) - xy.row(2)).norm(), 5.0, 1e-9);
}

Trace trace_of(const std::vector<std::vector<Matrix>>& layers, bool causal) {
    Trace t;
    t.config.arch = causal ? Arch::DecoderOnly : Arch::EncoderOnly;
    t.config.mask = causal ? MaskKind::Causal : MaskKind::None;
    for (const auto& maps : layers) {
        LayerTrace l;
        l.self_attn.weights = maps;
        t.main.layers.push_back(l);
    }
    return t;
}

TEST(Rollout, IdentityAttentionRollsOutToIdentity) {
    const Matrix I = Matrix::Identity(5, 5);
    const Rollout r = attention_rollout(trace_of({{I, I}, {I, I}, {I}}, false));
    EXPECT_NEAR((r.joint - Matrix::Identity(5, 5)).cwiseAbs().maxCoeff(), 0.0f, 1e-7f);
    EXPECT_NEAR(r.bars.sum(), 1.0f, 1e-6f);  // mean row of I: 1/5 each
    EXPECT_NEAR(r.bars(2), 0.2f, 1e-7f);
}

TEST(Rollout, TwoLayersMatchTheHandProduct) {
    // A = [[1,0],[½,½]] → Â = rownorm(A + I) = [[1,0],[¼,¾]]; R = Â·Â = [[1,0],[7/16, 9/16]]
    Matrix A(2, 2);
    A << 1, 0, 0.5f, 0.5f;
    const Rollout r = attention_rollout(trace_of({{A}, {A}}, true));
    EXPECT_NEAR(r.joint(0, 0), 1.0f, 1e-7f);
    EXPECT_NEAR(r.joint(0, 1), 0.0f, 1e-7f);
    EXPECT_NEAR(r.joint(1, 0), 7.0f / 16, 1e-7f);
    EXPECT_NEAR(r.joint(1, 1), 9.0f / 16, 1e-7f);
    EXPECT_NEAR(r.bars(0), 7.0f / 16, 1e-7f);  // causal: the last row
    EXPECT_NEAR(r.mean_row(0), (1 + 7.0f / 16) / 2, 1e-7f);
    // one layer only
    const Rollout first = attention_rollout(trace_of({{A}, {A}}, true), 0);
    EXPECT_NEAR(first.joint(1, 0), 0.25f, 1e-7f);
}

TEST(Rollout, HeadsAreAveragedBeforeTheResidual) {
    // mean of identity and "all on key 0" = [[1,0],[½,½]], the same as the map above
    Matrix A(2, 2);
    A << 1, 0, 1, 0;
    const Rollout r = attention_rollout(trace_of({{Matrix::Identity(2, 2), A}}, true));
    EXPECT_NEAR(r.joint(1, 0), 0.25f, 1e-7f);
    EXPECT_NEAR(r.joint(1, 1), 0.75f, 1e-7f);
}

TEST(Rollout, RowsSumToOneOnARealForwardPass) {
    const auto source = open_source("random:d_model=32,heads=4,layers=3,seed=11,arch=decoder");
    SourceInput in;
    in.text = "the cat sat on the mat because it was warm";
    const Rollout r = attention_rollout(source->run(in, TraceOptions{}));
    ASSERT_EQ(r.joint.rows(), 10);
    for (Eigen::Index i = 0; i < r.joint.rows(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_NEAR(r.joint.row(i).sum(), 1.0f, 1e-5f);
        EXPECT_GE(r.joint.row(i).minCoeff(), 0.0f);
        // causal: nothing flows from later tokens
        for (Eigen::Index j = i + 1; j < r.joint.cols(); ++j) EXPECT_EQ(r.joint(i, j), 0.0f);
    }
}

TEST(Rollout, RejectsATraceWithoutHeadWeights) {
    Trace t;
    t.model_name = "empty";
    test::expect_error([&] { attention_rollout(t); }, {"'empty'", "no per-head attention weights"});
}

}  // namespace
}  // namespace hs
