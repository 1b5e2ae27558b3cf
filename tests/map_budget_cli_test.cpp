// The CLI under a small map budget (issue 6, "Memory"): `forward` and `export` give the
// same numbers whether the forward kept every map or dropped layers and recomputed them.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli_runner.h"

namespace hs::cli_test {
namespace {

const std::string kModel = "random:d_model=24,heads=3,layers=4,seed=8,mask=causal,norm=pre-ln";
const std::string kText = "the quick brown fox jumps over the lazy dog again";

RunResult run_ok(const std::vector<std::string>& args, const TempDir& dir) {
    const RunResult r = run_headscope(args, dir);
    EXPECT_TRUE(r.exited && r.status == 0) << "status " << r.status << "\n" << r.err;
    return r;
}

TEST(MapBudgetCli, ExportOfAHeadUnderZeroBudgetEqualsFullCaptureExport) {
    TempDir dir;
    for (const std::string layer : {"0", "2", "3"}) {
        SCOPED_TRACE("layer " + layer);
        const std::vector<std::string> base{"export", kModel, "--text", kText, "--layer", layer,
                                            "--head", "1", "--csv", "-"};
        std::vector<std::string> zero = base, full = base;
        zero.insert(zero.end(), {"--map-budget", "0"});
        full.insert(full.end(), {"--map-budget", "1024"});
        const std::string a = run_ok(zero, dir).out, b = run_ok(full, dir).out;
        EXPECT_GT(a.size(), 100u);
        EXPECT_EQ(a, b);
    }
}

TEST(MapBudgetCli, ForwardJsonRecomputesDroppedLayersToTheFullCaptureNumbers) {
    TempDir dir;
    const std::vector<std::string> base{"forward", kModel, "--text", kText, "--scores",
                                        "--json", "-"};
    std::vector<std::string> zero = base, full = base;
    zero.insert(zero.end(), {"--map-budget", "0"});
    full.insert(full.end(), {"--map-budget", "1024"});
    const nlohmann::json a = nlohmann::json::parse(run_ok(zero, dir).out);
    const nlohmann::json b = nlohmann::json::parse(run_ok(full, dir).out);
    ASSERT_EQ(a["layers"].size(), 4u);
    EXPECT_EQ(a["layers"][3]["heads"].size(), 3u);
    EXPECT_EQ(a, b);
}

TEST(MapBudgetCli, ForwardSummaryRecomputesDroppedLayersOneAtATime) {
    TempDir dir;
    const std::vector<std::string> base{"forward", kModel, "--text", kText};
    std::vector<std::string> zero = base, full = base;
    zero.insert(zero.end(), {"--map-budget", "0"});
    full.insert(full.end(), {"--map-budget", "1024"});
    const RunResult a = run_ok(zero, dir), b = run_ok(full, dir);
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("layer 3 head 2: most attended key per query:"), std::string::npos);
    // Layers 1..3 were dropped (layer 0 stays) and say so on stderr.
    EXPECT_NE(a.err.find("layer 3: maps recomputed in"), std::string::npos) << a.err;
    EXPECT_EQ(a.err.find("layer 0: maps recomputed"), std::string::npos) << a.err;
    EXPECT_EQ(b.err.find("recomputed"), std::string::npos) << b.err;
}

TEST(MapBudgetCli, NegativeBudgetIsAUsageError) {
    TempDir dir;
    const RunResult r =
        run_headscope({"forward", kModel, "--text", kText, "--map-budget", "-5"}, dir);
    EXPECT_TRUE(r.exited);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("--map-budget"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hs::cli_test
