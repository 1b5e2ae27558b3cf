#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/kernels/memory_policy.h"

namespace hs {
namespace {

#if defined(__GLIBC__)
// Without the policy glibc serves a 20 MiB block with mmap and unmaps it on free (the
// next model's weights then fault in fresh pages); with it the block comes from the heap
// and its bytes stay there, free for reuse, until release_free_memory().
TEST(MemoryPolicy, KeepsAFreed20MiBBlockInTheHeapUntilReleased) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer replaces glibc's malloc: mallopt and mallinfo2 do not apply";
#endif
    keep_freed_memory();
    constexpr std::size_t kBytes = 20u << 20;
    const struct mallinfo2 before = mallinfo2();
    char* block = static_cast<char*>(std::malloc(kBytes));
    ASSERT_NE(block, nullptr);
    std::memset(block, 1, kBytes);
    // The block escapes to the optimiser: g++ 16 otherwise removes the malloc/memset/free
    // triple as dead (glibc then never sees the block).
    __asm__ volatile("" : : "r"(block) : "memory");
    const struct mallinfo2 held = mallinfo2();
    EXPECT_GE(held.uordblks, before.uordblks + kBytes) << "the block was not allocated from the heap";
    EXPECT_EQ(held.hblkhd, before.hblkhd) << "the block was mmapped";
    std::free(block);
    const struct mallinfo2 after = mallinfo2();
    EXPECT_GE(after.fordblks, kBytes) << "the freed block left the heap";
    EXPECT_TRUE(release_free_memory());
    EXPECT_LT(mallinfo2().fordblks, after.fordblks);
}
#endif

}  // namespace
}  // namespace hs
