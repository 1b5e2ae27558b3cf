// core/io/memory_budget.h: a real model that cannot fit is refused before its weights are
// read, with both sizes named.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/io/memory_budget.h"
#include "tests/test_util.h"

namespace hs {
namespace {

// 8 B parameters need 8e9 · 8 bytes = 59.6 GiB once open; 24 GiB available refuses them,
// 64 GiB does not; an unknown amount (−1) never refuses.
TEST(MemoryBudget, AModelLargerThanTheAvailableMemoryIsRefusedWithBothSizes) {
    constexpr long long kGiB = 1024LL * 1024 * 1024;
    test::expect_error([] { ensure_weights_fit(8e9, 24 * kGiB, "GGUF file 'm.gguf'"); },
                       {"GGUF file 'm.gguf' has 8000 million parameters: about 59.6 GiB once open",
                        "this machine has 24.0 GiB available"});
    EXPECT_NO_THROW(ensure_weights_fit(8e9, 64 * kGiB, "m"));
    EXPECT_NO_THROW(ensure_weights_fit(8e9, -1, "m"));
    EXPECT_NO_THROW(ensure_weights_fit(1e6, 8 * 1024 * 1024, "m"));  // exactly 8 MB: fits
    EXPECT_THROW(ensure_weights_fit(1e6 + 1, 8'000'000, "m"), Error);
}

// This machine's MemAvailable: a positive number of bytes on Linux.
TEST(MemoryBudget, AvailableMemoryIsReadFromProcMeminfo) { EXPECT_GT(available_memory_bytes(), 0); }

}  // namespace
}  // namespace hs
