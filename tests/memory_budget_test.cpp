// core/io/memory_budget.h: a real model opens in memory when its f32 weights and packed
// copies fit, layer by layer from its file when only that fits, and is refused with the
// sizes named when neither does. Sizes below are worked by hand from the formulas there.
#include <cstdlib>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/io/memory_budget.h"
#include "tests/test_util.h"

namespace hs {
namespace {

constexpr long long kGiB = 1024LL * 1024 * 1024;

// Llama-3-8B's shape in bf16: 8.03e9 parameters, 218,112,000 in each of 32 layers
// (4096·(4096 + 2·1024 + 4096) + 3·4096·14336 + 2·4096), 2 bytes each as stored.
WeightFootprint llama3_8b_bf16() {
    WeightFootprint f;
    f.layer_params = 218112000.0;
    f.layer_stored_bytes = 2 * f.layer_params;
    f.stack_params = 32 * f.layer_params;
    f.embed_head_params = 2 * 128256.0 * 4096;  // the embedding and the separate head
    f.params = 32 * f.layer_params + f.embed_head_params + 4096;  // + the final norm
    return f;
}

// In memory: 8.03e9 · 8 B = 59.8 GiB. Layer by layer (the embedding and head left in the
// file): the final norm 4096 · 4 B + one layer 218,112,000 · (4 + 2) B
// = 1,308,688,384 B = 1.2 GiB.
TEST(MemoryBudget, ALargeModelOpensLayerByLayerWhenOnlyThatFits) {
    const WeightFootprint f = llama3_8b_bf16();
    EXPECT_NEAR(in_memory_bytes(f), 8.0 * 8030261248.0, 1.0);
    EXPECT_NEAR(per_layer_bytes(f), 1308688384.0, 1.0);
    EXPECT_EQ(plan_weight_residency(f, 64 * kGiB, true, "m"), WeightResidency::InMemory);
    EXPECT_EQ(plan_weight_residency(f, 24 * kGiB, true, "m"), WeightResidency::PerLayer);
    EXPECT_EQ(plan_weight_residency(f, -1, true, "m"), WeightResidency::InMemory);  // unknown: try
    test::expect_error([&] { (void)plan_weight_residency(f, kGiB, true, "GGUF file 'm.gguf'"); },
                       {"GGUF file 'm.gguf' has 8030 million parameters: about 59.8 GiB once open "
                        "(f32 weights and their packed copies), 1.2 GiB even read one layer at a time, "
                        "but this machine has 1.0 GiB available"});
    // A reader that cannot read layers on demand: memory only.
    test::expect_error([&] { (void)plan_weight_residency(f, 24 * kGiB, false, "the model in d"); },
                       {"about 59.8 GiB once open (f32 weights and their packed copies), but this machine has 24.0 GiB"});
}

TEST(MemoryBudget, ExactlyEnoughFits) {
    WeightFootprint f;
    f.params = 1e6;
    EXPECT_EQ(plan_weight_residency(f, 8'000'000, false, "m"), WeightResidency::InMemory);
    EXPECT_THROW((void)plan_weight_residency(f, 7'999'999, false, "m"), Error);
    EXPECT_EQ(choose_weight_residency(f, 8'000'000, false), WeightResidency::InMemory);
    EXPECT_EQ(choose_weight_residency(f, 7'999'999, false), std::nullopt);
}

TEST(MemoryBudget, InspectSaysHowTheModelWouldOpen) {
    const WeightFootprint f = llama3_8b_bf16();
    EXPECT_EQ(describe_memory_plan(f, 24 * kGiB, true),
              "memory:     59.8 GiB once open (f32 weights and their packed copies), 1.2 GiB read one layer at a time\n"
              "this machine: 24.0 GiB available: opens reading one layer at a time\n");
    EXPECT_NE(describe_memory_plan(f, 64 * kGiB, true).find("64.0 GiB available: opens in memory"), std::string::npos);
    EXPECT_NE(describe_memory_plan(f, kGiB, true).find("1.0 GiB available: does not open"), std::string::npos);
    EXPECT_NE(describe_memory_plan(f, -1, true).find("available memory unknown"), std::string::npos);
}

TEST(MemoryBudget, SizesAreReadWithTheirUnits) {
    EXPECT_EQ(parse_memory_size("8G"), 8 * kGiB);
    EXPECT_EQ(parse_memory_size("512M"), 512LL << 20);
    EXPECT_EQ(parse_memory_size("64k"), 64LL << 10);
    EXPECT_EQ(parse_memory_size("1024"), 1024);
    for (const char* bad : {"", "0", "-1", "8GB", "G", "1.5G", " 8G", "99999999999999999G"})
        EXPECT_EQ(parse_memory_size(bad), -1) << bad;
    EXPECT_EQ(memory_text(7.0 * (1 << 20)), "7.0 MiB");
    EXPECT_EQ(memory_text(612.4 * (1 << 20)), "612 MiB");
    EXPECT_EQ(memory_text(14.94 * kGiB), "14.9 GiB");
}

// HEADSCOPE_MEMORY_LIMIT lowers what this machine offers (to try a smaller machine); it
// never raises it, and a value that is not a size is named. The rule is checked on fixed
// MemAvailable values: the machine's own changes between two reads while other tests run.
TEST(MemoryBudget, TheLimitVariableLowersTheAvailableMemory) {
    EXPECT_EQ(limit_available_memory(5 * kGiB, nullptr), 5 * kGiB);
    EXPECT_EQ(limit_available_memory(5 * kGiB, ""), 5 * kGiB);
    EXPECT_EQ(limit_available_memory(5 * kGiB, "1M"), 1 << 20);
    EXPECT_EQ(limit_available_memory(5 * kGiB, "1000000G"), 5 * kGiB);
    EXPECT_EQ(limit_available_memory(-1, "8G"), 8 * kGiB);
    EXPECT_EQ(limit_available_memory(-1, nullptr), -1);
    test::expect_error([] { (void)limit_available_memory(5 * kGiB, "lots"); },
                       {"HEADSCOPE_MEMORY_LIMIT 'lots' is not a size"});
    // and the process reads the variable: 1 MiB is below any machine's MemAvailable
    ASSERT_GT(available_memory_bytes(), 1 << 20);
    ::setenv("HEADSCOPE_MEMORY_LIMIT", "1M", 1);
    EXPECT_EQ(available_memory_bytes(), 1 << 20);
    ::setenv("HEADSCOPE_MEMORY_LIMIT", "lots", 1);
    test::expect_error([] { (void)available_memory_bytes(); }, {"HEADSCOPE_MEMORY_LIMIT 'lots' is not a size"});
    ::unsetenv("HEADSCOPE_MEMORY_LIMIT");
}

}  // namespace
}  // namespace hs
