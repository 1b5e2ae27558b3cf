// Axis numbers of the charts and figures (core/image/tick_label): by hand.
#include <gtest/gtest.h>

#include "core/image/tick_label.h"

namespace hs {
namespace {

TEST(TickLabel, WholeNumbersOnAxesSpanningTenOrMore) {
    EXPECT_EQ(tick_label(1500.0, 1500.0), "1500");  // once "1.5e+03"
    EXPECT_EQ(tick_label(375.0, 1500.0), "375");
    EXPECT_EQ(tick_label(12345.0, 20000.0), "12345");
    EXPECT_EQ(tick_label(-0.2, 10.0), "0");  // no "-0"
    EXPECT_EQ(tick_label(2.5, 10.0), "2");   // %.0f rounds half to even
}

TEST(TickLabel, ThreeSignificantDigitsOnFinerAxes) {
    EXPECT_EQ(tick_label(0.25, 1.0), "0.25");
    EXPECT_EQ(tick_label(2.4761, 3.0), "2.48");
    EXPECT_EQ(tick_label(0.0, 1.0), "0");
    EXPECT_EQ(tick_label(1e-5, 1e-4), "1e-05");
}

}  // namespace
}  // namespace hs
