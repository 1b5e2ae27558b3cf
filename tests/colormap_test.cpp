// Colormap LUTs against matplotlib's published float tables, and the ColorScale rule.
#include <limits>
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/image/colormap.h"
#include "tests/test_util.h"

namespace {

// matplotlib's published float RGB -> 8 bits by rounding (the generator's rule).
hs::Rgb8 from_float(double r, double g, double b) {
    auto q = [](double v) { return static_cast<std::uint8_t>(std::lround(v * 255.0)); };
    return hs::Rgb8{q(r), q(g), q(b)};
}

// Rec. 709 relative luminance of an 8-bit colour.
double luminance(hs::Rgb8 c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

void expect_rgb(hs::Rgb8 got, hs::Rgb8 want) {
    EXPECT_EQ(got.r, want.r);
    EXPECT_EQ(got.g, want.g);
    EXPECT_EQ(got.b, want.b);
}

}  // namespace

TEST(ColormapLut, ViridisMatchesPublishedEntries) {
    // matplotlib _cm_listed._viridis_data[0], [128], [255].
    const auto& lut = hs::colormap_lut(hs::Colormap::Viridis);
    expect_rgb(lut[0], from_float(0.267004, 0.004874, 0.329415));
    expect_rgb(lut[0], hs::Rgb8{68, 1, 84});
    expect_rgb(lut[128], from_float(0.127568, 0.566949, 0.550556));
    expect_rgb(lut[255], from_float(0.993248, 0.906157, 0.143936));
    expect_rgb(lut[255], hs::Rgb8{253, 231, 37});
}

TEST(ColormapLut, MagmaAndInfernoMatchPublishedEndpoints) {
    const auto& magma = hs::colormap_lut(hs::Colormap::Magma);
    const auto& inferno = hs::colormap_lut(hs::Colormap::Inferno);
    expect_rgb(magma[0], from_float(0.001462, 0.000466, 0.013866));
    expect_rgb(magma[255], from_float(0.987053, 0.991438, 0.749504));
    expect_rgb(inferno[0], from_float(0.001462, 0.000466, 0.013866));
    expect_rgb(inferno[255], from_float(0.988362, 0.998364, 0.644924));
}

TEST(ColormapLut, GreysRunsFromWhiteToBlackMonotonically) {
    const auto& lut = hs::colormap_lut(hs::Colormap::Greys);
    expect_rgb(lut[0], hs::Rgb8{255, 255, 255});
    expect_rgb(lut[255], hs::Rgb8{0, 0, 0});
    for (int i = 0; i < 256; ++i) {
        SCOPED_TRACE(testing::Message() << "i=" << i);
        EXPECT_EQ(lut[i].r, lut[i].g);  // a grey is a grey
        EXPECT_EQ(lut[i].g, lut[i].b);
        if (i > 0) {
            EXPECT_LE(lut[i].r, lut[i - 1].r);
        }
    }
}

TEST(ColormapLut, ViridisLuminanceIncreases) {
    // Perceptually uniform: luma never drops by more than rounding noise, and every
    // 16-step span is clearly brighter.
    const auto& lut = hs::colormap_lut(hs::Colormap::Viridis);
    for (int i = 1; i < 256; ++i) EXPECT_GT(luminance(lut[i]), luminance(lut[i - 1]) - 0.5) << i;
    for (int i = 16; i < 256; ++i) EXPECT_GT(luminance(lut[i]), luminance(lut[i - 16]) + 5.0) << i;
}

TEST(ColormapLut, RedBlueIsBlueLowWhiteMiddleRedHigh) {
    // matplotlib RdBu_r: RdBu's last colour (0.0196, 0.1882, 0.3804) first,
    // its first colour (0.4039, 0, 0.1216) last.
    const auto& lut = hs::colormap_lut(hs::Colormap::RedBlue);
    expect_rgb(lut[0], from_float(0.019607843137, 0.188235294118, 0.380392156863));
    expect_rgb(lut[255], from_float(0.403921568627, 0.0, 0.121568627451));
    EXPECT_GT(lut[0].b, lut[0].r);
    EXPECT_GT(lut[255].r, lut[255].b);
    for (int i : {127, 128}) {
        EXPECT_GE(lut[i].r, 240) << i;
        EXPECT_GE(lut[i].g, 240) << i;
        EXPECT_GE(lut[i].b, 240) << i;
    }
}

TEST(ColormapNames, RoundTripAndRejectUnknownWithChoices) {
    for (hs::Colormap c : hs::all_colormaps()) EXPECT_EQ(hs::parse_colormap(hs::to_string(c)), c);
    EXPECT_EQ(hs::parse_colormap("Viridis"), hs::Colormap::Viridis);
    EXPECT_EQ(hs::all_colormaps().size(), 5u);
    EXPECT_EQ(hs::test::error_of([] { hs::parse_colormap("jet"); }),
              "unknown colormap \"jet\"; choose one of: viridis, magma, inferno, greys, redblue");
}

TEST(ColorScale, LinearMapsRangeAndClamps) {
    const hs::ColorScale s{.lo = 2.0f, .hi = 6.0f};
    EXPECT_FLOAT_EQ(s.normalized(2.0f), 0.0f);
    EXPECT_FLOAT_EQ(s.normalized(3.0f), 0.25f);
    EXPECT_FLOAT_EQ(s.normalized(6.0f), 1.0f);
    EXPECT_FLOAT_EQ(s.normalized(-100.0f), 0.0f);
    EXPECT_FLOAT_EQ(s.normalized(100.0f), 1.0f);
    EXPECT_FLOAT_EQ(s.normalized(INFINITY), 1.0f);
    EXPECT_FLOAT_EQ(s.normalized(NAN), 0.0f);
}

TEST(ColorScale, GammaRaisesToPower) {
    const hs::ColorScale s{.lo = 0.0f, .hi = 1.0f, .gamma = 0.5f};
    EXPECT_NEAR(s.normalized(0.25f), 0.5f, 1e-6f);  // 0.25^0.5
    const hs::ColorScale s2{.lo = 0.0f, .hi = 1.0f, .gamma = 2.0f};
    EXPECT_NEAR(s2.normalized(0.5f), 0.25f, 1e-6f);
    const hs::ColorScale bad{.lo = 0.0f, .hi = 1.0f, .gamma = 0.0f};  // treated as 1
    EXPECT_NEAR(bad.normalized(0.3f), 0.3f, 1e-6f);
}

TEST(ColorScale, LogEmphasisesSmallWeights) {
    const hs::ColorScale s{.lo = 0.0f, .hi = 1.0f, .log = true};
    EXPECT_NEAR(s.normalized(0.0f), 0.0f, 1e-6f);
    EXPECT_NEAR(s.normalized(1.0f), 1.0f, 1e-6f);
    // log(1 + 999·0.01) / log(1000) = log(10.99) / log(1000)
    EXPECT_NEAR(s.normalized(0.01f), std::log(10.99) / std::log(1000.0), 1e-5);
}

TEST(ColorScale, EqualBoundsAreSafeStep) {
    const hs::ColorScale s{.lo = 0.5f, .hi = 0.5f};
    EXPECT_FLOAT_EQ(s.normalized(0.5f), 0.0f);
    EXPECT_FLOAT_EQ(s.normalized(0.4f), 0.0f);
    EXPECT_FLOAT_EQ(s.normalized(0.6f), 1.0f);
    EXPECT_FALSE(std::isnan(s.normalized(0.5f)));
}

TEST(ColorScale, IndexRoundsHalfUpAndColorizeUsesLut) {
    const hs::ColorScale s;  // [0, 1]
    EXPECT_EQ(hs::colormap_index(0.0f, s), 0);
    EXPECT_EQ(hs::colormap_index(1.0f, s), 255);
    EXPECT_EQ(hs::colormap_index(2.0f, s), 255);
    EXPECT_EQ(hs::colormap_index(10.4f / 255.0f, s), 10);   // floor(10.4 + 0.5)
    EXPECT_EQ(hs::colormap_index(10.6f / 255.0f, s), 11);
    EXPECT_EQ(hs::colorize(0.5f, hs::Colormap::Viridis, s),
              hs::colormap_lut(hs::Colormap::Viridis)[128]);  // floor(127.5 + 0.5)
}

// A masked score (−∞) is drawn grey in every colormap, never as the lowest value's colour
// (RedBlue's strong blue read as "strongly negative"); +∞ and finite values keep the LUT.
TEST(ColorScale, MinusInfinityIsGreyInEveryColormap) {
    const hs::ColorScale s{.lo = -4.0f, .hi = 4.0f};
    const float minus_inf = -std::numeric_limits<float>::infinity();
    for (hs::Colormap c : hs::all_colormaps()) {
        EXPECT_EQ(hs::colorize(minus_inf, c, s), (hs::Rgb8{96, 96, 104})) << hs::to_string(c);
        EXPECT_EQ(hs::colorize(-4.0f, c, s), hs::colormap_lut(c)[0]) << hs::to_string(c);
        EXPECT_EQ(hs::colorize(std::numeric_limits<float>::infinity(), c, s), hs::colormap_lut(c)[255]);
    }
    EXPECT_NE(hs::colormap_lut(hs::Colormap::RedBlue)[0], (hs::Rgb8{96, 96, 104}));
}
