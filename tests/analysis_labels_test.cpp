// Role labels (core/analysis/head_labels.h): a hand-built trace with a previous-token head,
// a first-token head and a causal-uniform head gets those labels, with their numbers.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/head_labels.h"
#include "core/analysis/head_metrics.h"

namespace hs {
namespace {

constexpr int kT = 8;

Matrix previous_token_map() {
    Matrix A = Matrix::Zero(kT, kT);
    A(0, 0) = 1;
    for (int i = 1; i < kT; ++i) A(i, i - 1) = 1;
    return A;
}

Matrix first_token_map() {
    Matrix A = Matrix::Zero(kT, kT);
    A.col(0).setOnes();
    return A;
}

Matrix causal_uniform_map() {
    Matrix A = Matrix::Zero(kT, kT);
    for (int i = 0; i < kT; ++i)
        for (int j = 0; j <= i; ++j) A(i, j) = 1.0f / (i + 1);
    return A;
}

// One decoder layer with three heads, as a causal model's forward pass would leave it.
Trace hand_built_trace() {
    Trace t;
    t.config.arch = Arch::DecoderOnly;
    t.config.mask = MaskKind::Causal;
    t.config.heads = 3;
    t.config.layers = 1;
    t.model_name = "hand-built";
    for (int i = 0; i < kT; ++i) {
        t.main.tokens.push_back(i == 0 ? "<s>" : " w" + std::to_string(i));
        t.main.ids.push_back(i == 0 ? 1 : 100 + i);
    }
    LayerTrace layer;
    layer.self_attn.weights = {previous_token_map(), first_token_map(), causal_uniform_map()};
    t.main.layers.push_back(layer);
    return t;
}

double evidence(const HeadLabel& l, const std::string& name) {
    for (const auto& [n, v] : l.evidence)
        if (n == name) return v;
    ADD_FAILURE() << "no evidence named " << name;
    return std::numeric_limits<double>::quiet_NaN();
}

TEST(HeadLabels, HandBuiltTraceGetsPreviousTokenFirstTokenAndBroad) {
    const std::vector<HeadLabels> labels = label_heads(compute_trace_metrics(hand_built_trace()));
    ASSERT_EQ(labels.size(), 3u);
    EXPECT_EQ(labels[0].layer, 0);
    EXPECT_EQ(labels[0].head, 0);
    EXPECT_EQ(labels[0].primary.role, Role::PreviousToken);
    EXPECT_NEAR(evidence(labels[0].primary, "prev_token"), 1.0, 1e-6);
    EXPECT_EQ(labels[0].primary.reason, "prev_token 1.00 ≥ 0.40");

    EXPECT_EQ(labels[1].head, 1);
    EXPECT_EQ(labels[1].primary.role, Role::FirstTokenSink);
    EXPECT_NEAR(evidence(labels[1].primary, "first_token"), 1.0, 1e-6);
    EXPECT_EQ(labels[1].primary.reason, "first_token 1.00 ≥ 0.50");

    // causal uniform: normalised entropy 1, no offset ≥ 0.4 except by chance of short rows
    EXPECT_EQ(labels[2].primary.role, Role::Broad);
    EXPECT_NEAR(evidence(labels[2].primary, "norm_entropy"), 1.0, 1e-5);
}

TEST(HeadLabels, StrongestRoleIsPrimaryAndAllFiredRolesAreListed) {
    HeadMetrics m;
    m.values.fill(0.0);
    m[Metric::Induction] = std::numeric_limits<double>::quiet_NaN();
    m[Metric::FirstToken] = 0.9;  // 0.9 / 0.5 = 1.8
    m[Metric::PrevToken] = 0.45;  // 0.45 / 0.4 = 1.125
    m[Metric::Distance] = 5;
    m[Metric::DistanceNoFirst] = 5;
    const HeadLabels l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::FirstTokenSink);
    ASSERT_EQ(l.all.size(), 2u);
    EXPECT_EQ(l.all[1].role, Role::PreviousToken);
    EXPECT_EQ(label_list(l), "first-token sink, previous-token");
}

TEST(HeadLabels, SepAndPunctuationSharesAddUp) {
    HeadMetrics m;
    m.values.fill(0.0);
    m[Metric::Sep] = 0.25;
    m[Metric::Punct] = 0.2;
    m[Metric::Distance] = 5;
    m[Metric::DistanceNoFirst] = 5;
    const HeadLabels l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::SepPunct);
    EXPECT_NEAR(evidence(l.primary, "sep+punct"), 0.45, 1e-12);
}

TEST(HeadLabels, LocalAndBroadOnlyWithoutASpecificRole) {
    HeadMetrics m;
    m.values.fill(0.0);
    m[Metric::Distance] = 4;           // far only because of the weight parked on key 0
    m[Metric::DistanceNoFirst] = 1.5;  // the local rule leaves that sink out
    m[Metric::PrevToken] = 0.3;
    m[Metric::Self] = 0.3;
    EXPECT_EQ(label_head(m).primary.role, Role::Local);
    m[Metric::Self] = 0.5;  // now a self head: local is not added
    const HeadLabels l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::Self);
    EXPECT_EQ(l.all.size(), 1u);
}

TEST(HeadLabels, ADiffuseHeadIsPreviousTokenWhenItsRowsPeakOnTheKeyBeforeWellAboveUniform) {
    HeadMetrics m;
    m.values.fill(0.0);
    m[Metric::Distance] = 5;
    m[Metric::DistanceNoFirst] = 5;
    m[Metric::PrevToken] = 0.3;  // under 0.4 by weight
    m[Metric::PrevPeak] = 0.5;
    m[Metric::PrevPeakUniform] = 0.08;  // threshold max(0.4, 3 · 0.08) = 0.4
    HeadLabels l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::PreviousToken);
    EXPECT_EQ(l.primary.reason, "prev_peak 0.50 ≥ 0.40, uniform 0.08");
    EXPECT_NEAR(l.primary.strength, 0.5 / 0.4, 1e-12);
    EXPECT_NEAR(evidence(l.primary, "prev_peak_uniform"), 0.08, 1e-12);
    m[Metric::PrevPeakUniform] = 0.2;  // short rows: threshold 3 · 0.2 = 0.6
    l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::Mixed);
    m[Metric::PrevPeak] = 0.61;
    EXPECT_EQ(label_head(m).primary.role, Role::PreviousToken);
    m[Metric::PrevPeakUniform] = std::numeric_limits<double>::quiet_NaN();  // unknown: 0.4 alone
    m[Metric::PrevPeak] = 0.39;
    EXPECT_EQ(label_head(m).primary.role, Role::Mixed);
    m[Metric::PrevPeak] = 0.4;
    l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::PreviousToken);
    EXPECT_EQ(l.primary.reason, "prev_peak 0.40 ≥ 0.40");  // no uniform share to name
}

TEST(HeadLabels, NothingFiringIsMixedAndUndefinedValuesNeverFire) {
    HeadMetrics m;
    m.values.fill(std::numeric_limits<double>::quiet_NaN());
    const HeadLabels l = label_head(m);
    EXPECT_EQ(l.primary.role, Role::Mixed);
    EXPECT_EQ(l.primary.reason, "no rule fires");
    EXPECT_FALSE(l.primary.evidence.empty());
}

TEST(HeadLabels, InductionFiresFromItsScore) {
    HeadMetrics m;
    m.values.fill(0.0);
    m[Metric::Distance] = 5;
    m[Metric::DistanceNoFirst] = 5;
    m[Metric::Induction] = 0.6;
    EXPECT_EQ(label_head(m).primary.role, Role::Induction);
    LabelThresholds strict;
    strict.induction = 0.7;
    EXPECT_EQ(label_head(m, strict).primary.role, Role::Mixed);
}

}  // namespace
}  // namespace hs
