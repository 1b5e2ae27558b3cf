// kernels::stream_copy (core/kernels/stream_copy.h), the copy of an attention block's rows
// into its map with non-temporal stores: every count from empty to past several vectors,
// at every start of the destination within a 64-byte line (the plain head before the
// first aligned float, the streamed middle, the plain tail), the source off by one more;
// exact floats (NaN and −0 included), and nothing written outside the destination.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernels/stream_copy.h"
#include "core/tensor.h"
#include "tests/simd_levels.h"

namespace hs {
namespace {

class StreamCopy : public test::AtSimdLevel {};
HEADSCOPE_AT_EVERY_SIMD_LEVEL(StreamCopy);

TEST_P(StreamCopy, CopiesEveryFloatAtEveryAlignmentAndNothingElse) {
    constexpr float kGuard = 12345.0f;
    Vector src(200);  // 64-byte aligned (EIGEN_MAX_ALIGN_BYTES=64)
    for (Eigen::Index i = 0; i < src.size(); ++i) src[i] = 0.25f * static_cast<float>(i) - 7.0f;
    src[5] = std::numeric_limits<float>::quiet_NaN();
    src[6] = -0.0f;
    for (int offset = 0; offset < 16; ++offset)
        for (const long count : {0L, 1L, 3L, 15L, 16L, 17L, 31L, 64L, 100L, 150L}) {
            SCOPED_TRACE("offset " + std::to_string(offset) + " count " + std::to_string(count));
            Vector dst = Vector::Constant(200, kGuard);
            kernels::stream_copy(src.data() + 1, count, dst.data() + offset);
            for (long i = 0; i < dst.size(); ++i) {
                const bool inside = i >= offset && i < offset + count;
                const float want = inside ? src[i - offset + 1] : kGuard;
                // Bit for bit: a NaN is copied as the same NaN, −0 stays −0.
                EXPECT_EQ(std::bit_cast<std::uint32_t>(dst[i]), std::bit_cast<std::uint32_t>(want)) << "at " << i;
            }
        }
}

}  // namespace
}  // namespace hs
