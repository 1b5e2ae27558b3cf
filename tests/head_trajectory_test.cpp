// Heads measured during training (core/train/head_trajectory.*): every head gets every
// metric on the task's held-out examples and every metric, the induction score and a role on
// BOS + r + r; the CSV has a row per head and snapshot.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/induction.h"
#include "core/model/model.h"
#include "core/train/head_trajectory.h"
#include "core/train/trainer.h"

namespace hs {
namespace {

ModelConfig tiny() {
    ModelConfig c = ModelConfig::defaults_for(Arch::DecoderOnly);
    c.d_model = 16;
    c.heads = 2;
    c.layers = 2;
    c.d_ff = 32;
    c.vocab = 20;
    c.max_len = 64;
    c.norm = NormPlacement::PreLN;
    c.mask = MaskKind::Causal;
    c.lm_head = LmHead::Tied;
    return c;
}

TEST(HeadTrajectory, EveryHeadHasItsMetricsInductionScoreAndRole) {
    const ModelConfig c = tiny();
    train::TrainOptions o;
    o.batch = 2;
    train::Trainer t(c, init_weights(c), train::parse_task("induction", c.vocab), o);
    t.step();
    const train::HeadSnapshot s = train::measure_heads(t, 4);
    EXPECT_EQ(s.step, 1);
    EXPECT_NEAR(s.held_out_loss, t.held_out_loss(4), 1e-12);
    ASSERT_EQ(s.metrics.size(), 4u);
    ASSERT_EQ(s.labels.size(), 4u);
    for (std::size_t i = 0; i < s.metrics.size(); ++i) {
        EXPECT_EQ(s.metrics[i].layer, static_cast<int>(i) / 2);
        EXPECT_EQ(s.metrics[i].head, static_cast<int>(i) % 2);
        const double ind = s.metrics[i][Metric::Induction];
        ASSERT_TRUE(std::isfinite(ind));
        EXPECT_GE(ind, 0.0);
        EXPECT_LE(ind, 1.0);
        EXPECT_TRUE(std::isfinite(s.metrics[i][Metric::Entropy]));
    }
    // The probe: every metric of each head on BOS + r + r, the same induction score, a role.
    ASSERT_EQ(s.probe_metrics.size(), 4u);
    ASSERT_EQ(s.probe_labels.size(), 4u);
    for (std::size_t i = 0; i < s.probe_metrics.size(); ++i) {
        EXPECT_EQ(s.probe_metrics[i][Metric::Induction], s.metrics[i][Metric::Induction]);
        EXPECT_TRUE(std::isfinite(s.probe_metrics[i][Metric::PrevPeakUniform]));
        EXPECT_EQ(s.probe_labels[i].layer, static_cast<int>(i) / 2);
    }
    EXPECT_DOUBLE_EQ(train::best_induction(s), std::max({s.metrics[0][Metric::Induction], s.metrics[1][Metric::Induction],
                                                         s.metrics[2][Metric::Induction], s.metrics[3][Metric::Induction]}));
}

TEST(HeadTrajectory, TheCsvHasARowPerHeadAndSnapshotWithEveryMetric) {
    train::HeadSnapshot a;
    a.step = 10;
    a.held_out_loss = 1.5;
    HeadMetrics m;
    m.layer = 1;
    m.head = 3;
    m.values.fill(std::nan(""));
    m[Metric::PrevToken] = 0.25;
    a.metrics = {m};
    a.labels = {HeadLabels{}};  // mixed
    train::HeadSnapshot b = a;  // a self-attention probe, where the head is previous-token
    b.probe_labels = {HeadLabels{}};
    b.probe_labels[0].primary.role = Role::PreviousToken;
    const std::string csv = train::trajectories_csv({a, b});
    std::istringstream in(csv);
    std::string header, row;
    std::getline(in, header);
    EXPECT_EQ(header.substr(0, 28), "step,held_out_loss,layer,hea");
    EXPECT_NE(header.find(",prev_token,"), std::string::npos);
    EXPECT_EQ(header.substr(header.size() - 16), ",role,probe_role");
    std::vector<std::string> rows;
    while (std::getline(in, row)) {
        EXPECT_EQ(row.substr(0, 19), "10,1.500000,1,3,,,,") << row;
        EXPECT_NE(row.find(",0.250000,"), std::string::npos) << row;
        rows.push_back(row);
    }
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].substr(rows[0].size() - 7), ",mixed,");
    EXPECT_EQ(rows[1].substr(rows[1].size() - 21), ",mixed,previous-token");
}

}  // namespace
}  // namespace hs
