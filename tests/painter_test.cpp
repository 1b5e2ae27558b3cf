// Vertical (rotated) labels: Latin text turns 90° CCW, CJK text stacks upright.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/image/font.h"
#include "core/image/painter.h"

namespace hs {
namespace {

// The ink of an image drawn black on white: (x, y) of every pixel that is not white.
struct Ink {
    int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;  // bounding box, inclusive
    std::vector<std::uint8_t> dark;                     // (height, width) 1 where inked
    int width = 0;
    bool operator==(const Ink& o) const { return crop() == o.crop(); }
    std::vector<std::uint8_t> crop() const {
        std::vector<std::uint8_t> out;
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) out.push_back(dark[static_cast<std::size_t>(y) * width + x]);
        return out;
    }
};

// Ink of rows [row0, row1) of image.
Ink ink_of(const RgbImage& image, int row0, int row1) {
    Ink ink;
    ink.width = image.width();
    ink.dark.assign(static_cast<std::size_t>(image.width()) * image.height(), 0);
    for (int y = row0; y < row1; ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.bytes()[(static_cast<std::size_t>(y) * image.width() + x) * 3] < 255) {
                ink.dark[static_cast<std::size_t>(y) * image.width() + x] = 1;
                ink.x0 = std::min(ink.x0, x), ink.x1 = std::max(ink.x1, x);
                ink.y0 = std::min(ink.y0, y), ink.y1 = std::max(ink.y1, y);
            }
    return ink;
}

constexpr Rgb8 kBlack{0, 0, 0};

TEST(PainterVerticalLabels, CjkCharactersStackUprightInTheRotatedFootprint) {
    const Font& font = Font::system_default();
    if (!font.has_glyph(U'张') || !font.has_glyph(U'伟')) GTEST_SKIP() << "no CJK font on this machine";
    const int px = 24, x = 20, bottom = 200;
    const int a = font.text_width("张", px), b = font.text_width("伟", px);

    RgbImage stacked(80, 240);
    RasterPainter(stacked, &font).text("张伟", x, bottom, px, kBlack, TextAnchor::Start, true);
    // The same characters drawn alone, upright, at the top of the image: the stacked label's
    // first slot (rows bottom − a − b … bottom − b) must hold the upright 张, not a turned one.
    RgbImage upright(80, 240), turned(80, 240);
    RasterPainter(upright, &font).text("张", x, 0, px, kBlack, TextAnchor::Start, false);
    turned.blend_mask_rotated_ccw(font.render_text("张", px), x, 100, kBlack);  // as Latin labels turn

    const Ink first = ink_of(stacked, bottom - a - b, bottom - b);
    const Ink second = ink_of(stacked, bottom - b, bottom + 1);
    ASSERT_GE(first.x1, 0);
    ASSERT_GE(second.x1, 0);
    EXPECT_EQ(first, ink_of(upright, 0, 100));
    EXPECT_FALSE(first == ink_of(turned, 0, 240));
    EXPECT_LT(first.y1, second.y0);  // 张 above 伟: read top to bottom
    // Within the rotated footprint: px + 1 wide from x, ending at the anchor.
    const Ink all = ink_of(stacked, 0, 240);
    EXPECT_GE(all.x0, x);
    EXPECT_LE(all.x1, x + px);
    EXPECT_LE(all.y1, bottom);
    EXPECT_GE(all.y0, bottom - a - b - 1);
}

TEST(PainterVerticalLabels, OnlyAllCjkTextStacks) {
    EXPECT_TRUE(stacks_upright("张伟"));
    EXPECT_TRUE(stacks_upright("。"));
    EXPECT_TRUE(stacks_upright("こんにちは"));
    EXPECT_FALSE(stacks_upright("girl"));
    EXPECT_FALSE(stacks_upright("A张"));  // mixed: the whole line turns, as Latin text does
    EXPECT_FALSE(stacks_upright(""));
}

TEST(PainterVerticalLabels, SlotsFollowTheAnchorAlongTheLine) {
    // Without a font each character is px tall: 3 characters of 10 px.
    const std::vector<StackedCharacter> start = stacked_characters("一二三", 100, 10, TextAnchor::Start, nullptr);
    ASSERT_EQ(start.size(), 3u);
    EXPECT_EQ(start[0].text, "一");
    EXPECT_EQ(start[2].text, "三");
    EXPECT_EQ(start[0].top, 70);  // ends at y = 100
    EXPECT_EQ(start[1].top, 80);
    EXPECT_EQ(start[2].top, 90);
    EXPECT_EQ(start[2].advance, 10);
    EXPECT_EQ(stacked_characters("一二三", 100, 10, TextAnchor::Middle, nullptr)[0].top, 85);
    EXPECT_EQ(stacked_characters("一二三", 100, 10, TextAnchor::End, nullptr)[0].top, 100);
}

TEST(PainterVerticalLabels, SvgWritesOneUprightTextPerCjkCharacter) {
    SvgPainter svg(100, 300, nullptr);
    svg.text("张伟", 10, 200, 20, kBlack, TextAnchor::Start, true);
    svg.text("girl", 40, 200, 20, kBlack, TextAnchor::Start, true);
    const std::string doc = svg.finish();
    // Without a font: ascent 16 (4/5 of 20), slots 20 tall ending at 200, so 张's slot is
    // 160–180 and its baseline 160 + (20 − 21) / 2 + 16 = 176; x is the footprint's middle.
    EXPECT_NE(doc.find("text-anchor=\"middle\" x=\"20\" y=\"176\">张</text>"), std::string::npos) << doc;
    EXPECT_NE(doc.find("text-anchor=\"middle\" x=\"20\" y=\"196\">伟</text>"), std::string::npos) << doc;
    EXPECT_EQ(doc.find("张伟"), std::string::npos);
    EXPECT_NE(doc.find("rotate(-90)\">girl</text>"), std::string::npos) << doc;
}

}  // namespace
}  // namespace hs
