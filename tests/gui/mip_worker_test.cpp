// The mip levels of a large selected map come from a thread (app/mip_worker.*), tagged
// with the texture version they belong to.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "app/mip_worker.h"
#include "core/image/box_mean.h"

namespace hs {
namespace {

TEST(MipWorker, DeliversTheMipChainOfTheNewestMapWithItsVersion) {
    MipWorker worker;
    auto first = std::make_shared<const Matrix>(Matrix::Constant(4, 4, 1.0f));
    Matrix counting(2048, 4);
    for (Eigen::Index i = 0; i < counting.size(); ++i) counting.data()[i] = static_cast<float>(i % 7);
    auto second = std::make_shared<const Matrix>(counting);
    worker.submit(MipRequest{first, 1});
    worker.submit(MipRequest{second, 2});  // the newest selection wins
    std::optional<MipResult> r;
    for (int i = 0; i < 2000 && !r; ++i) {
        r = worker.take_result();
        if (!r) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(r);
    EXPECT_EQ(r->texture_version, 2u);
    const std::vector<Matrix> expected = mip_chain(counting);
    ASSERT_EQ(r->levels.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_TRUE(r->levels[k].isApprox(expected[k])) << k;
    EXPECT_TRUE(worker.idle());
}

}  // namespace
}  // namespace hs
