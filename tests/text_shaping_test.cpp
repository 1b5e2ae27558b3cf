// Text in exported figures: bidi levels and run order (UAX #9, hand-applied), Arabic
// joined in visual order, emoji sequences as one colour glyph.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/image/bidi.h"
#include "core/image/font.h"
#include "core/image/text_shaping.h"
#include "core/image/utf8.h"

namespace hs {
namespace {

const std::string kNoto = "/usr/share/fonts/truetype/noto/";
const std::string kArabicFace = kNoto + "NotoSansArabic-Regular.ttf";
const std::string kEmojiFace = kNoto + "NotoColorEmoji.ttf";
const std::string kDejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

std::vector<std::unique_ptr<FontFace>> open_faces(const std::vector<std::string>& paths) {
    std::vector<std::unique_ptr<FontFace>> faces;
    for (const std::string& p : paths)
        if (auto face = FontFace::open({p, 0})) faces.push_back(std::move(face));
    return faces;
}

TEST(Bidi, LevelsFollowTheStrongCharacters) {
    // "abc مرحبا": a left-to-right paragraph (its first strong letter is Latin); the space
    // between an L and an R takes the paragraph's level (rule N2), the Arabic word level 1.
    EXPECT_EQ(bidi_levels(utf8_to_codepoints("abc مرحبا")), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 1}));
    // An Arabic-first paragraph is right to left; Latin inside it goes up to level 2.
    EXPECT_EQ(bidi_levels(utf8_to_codepoints("مر ab")), (std::vector<int>{1, 1, 1, 2, 2}));
    EXPECT_TRUE(bidi_levels(U"").empty());
}

TEST(Bidi, RunsAreReversedFromTheHighestLevelDown) {
    // L2 on levels 0 1 2 1 0: level 2 reverses run 2 alone, level 1 reverses runs 1–3.
    EXPECT_EQ(visual_run_order({0, 1, 2, 1, 0}), (std::vector<int>{0, 3, 2, 1, 4}));
    // A right-to-left line 1 2 1: run 1 alone, then all three.
    EXPECT_EQ(visual_run_order({1, 2, 1}), (std::vector<int>{2, 1, 0}));
    EXPECT_EQ(visual_run_order({0, 0}), (std::vector<int>{0, 1}));  // nothing to reverse
}

TEST(TextShaping, ArabicIsJoinedAndDrawnRightToLeft) {
    const auto faces = open_faces({kArabicFace});
    if (faces.empty()) GTEST_SKIP() << "fonts-noto-core is not installed";
    // مرحبا = meem reh hah beh alef. Joining (Unicode's ArabicShaping): meem joins the reh
    // after it (initial), reh does not join forward (final), hah starts again (initial),
    // beh joins both sides (medial), alef ends (final). Drawn right to left, the leftmost
    // glyph is the last letter: the presentation forms U+FE8E U+FE92 U+FEA3 U+FEAE U+FEE3.
    const ShapedLine line = shape_line(faces, utf8_to_codepoints("مرحبا"), 24);
    std::vector<std::string> names;
    for (const PlacedGlyph& g : line.glyphs) names.push_back(faces[0]->glyph_name(g.glyph));
    EXPECT_EQ(names, (std::vector<std::string>{"uniFE8E", "uniFE92", "uniFEA3", "uniFEAE", "uniFEE3"}));
    for (std::size_t i = 1; i < line.glyphs.size(); ++i) EXPECT_GT(line.glyphs[i].x, line.glyphs[i - 1].x);
}

TEST(TextShaping, MixedScriptsKeepTheirOwnFacesAndDirections) {
    const auto faces = open_faces({kDejaVu, kArabicFace});
    if (faces.size() < 2) GTEST_SKIP() << "DejaVu Sans or fonts-noto-core is not installed";
    const ShapedLine line = shape_line(faces, utf8_to_codepoints("abc مرحبا"), 24);
    ASSERT_EQ(line.glyphs.size(), 9u);
    // "abc " from DejaVu first (left to right), then the joined Arabic word, alef leftmost
    // (DejaVu Sans has Arabic letters too, so the word may come from either face).
    std::vector<std::string> names;
    for (const PlacedGlyph& g : line.glyphs) names.push_back(faces[static_cast<std::size_t>(g.face)]->glyph_name(g.glyph));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(line.glyphs[static_cast<std::size_t>(i)].face, 0) << i;
    EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "space", "uniFE8E", "uniFE92", "uniFEA3", "uniFEAE",
                                               "uniFEE3"}));
    for (std::size_t i = 1; i < line.glyphs.size(); ++i) EXPECT_GT(line.glyphs[i].x, line.glyphs[i - 1].x);
}

TEST(TextShaping, AnEmojiSequenceIsOneGlyphInItsOwnColours) {
    if (!std::filesystem::exists(kEmojiFace)) GTEST_SKIP() << "fonts-noto-color-emoji is not installed";
    const Font font({{kEmojiFace, 0}});
    ASSERT_TRUE(font.available());
    const auto faces = open_faces({kEmojiFace});
    // 👨‍👩‍👧 (man ZWJ woman ZWJ girl) is one family glyph; 👍🏽 one thumb in a skin tone,
    // another glyph than the plain 👍.
    EXPECT_EQ(shape_line(faces, utf8_to_codepoints("👨‍👩‍👧"), 32).glyphs.size(), 1u);
    const ShapedLine toned = shape_line(faces, utf8_to_codepoints("👍🏽"), 32);
    const ShapedLine plain = shape_line(faces, utf8_to_codepoints("👍"), 32);
    ASSERT_EQ(toned.glyphs.size(), 1u);
    ASSERT_EQ(plain.glyphs.size(), 1u);
    EXPECT_NE(toned.glyphs[0].glyph, plain.glyphs[0].glyph);
    // 😀 is yellow: its mask carries colours, with yellow pixels (high red and green, low blue).
    const AlphaMask mask = font.render_text("😀", 32);
    ASSERT_EQ(mask.rgba.size(), mask.alpha.size() * 4);
    int yellow = 0;
    for (std::size_t i = 0; i < mask.alpha.size(); ++i) {
        const std::uint8_t* p = &mask.rgba[i * 4];
        if (p[3] > 200 && p[0] > 200 && p[1] > 150 && p[2] < 100) ++yellow;
    }
    EXPECT_GT(yellow, 100) << "of " << mask.width << "×" << mask.height;
    // Drawn in black text colour on white, the yellow stays yellow.
    RgbImage image(mask.width, mask.height);
    image.blend_mask(mask, 0, 0, Rgb8{0, 0, 0});
    int drawn_yellow = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const Rgb8 c = image.at(x, y);
            drawn_yellow += c.r > 200 && c.g > 150 && c.b < 100;
        }
    EXPECT_GT(drawn_yellow, 100);
}

TEST(TextShaping, EmojiComeFromTheColourFaceDigitsFromTheTextFace) {
    const auto faces = open_faces({kDejaVu, kEmojiFace});
    if (faces.size() < 2) GTEST_SKIP() << "DejaVu Sans or fonts-noto-color-emoji is not installed";
    // DejaVu Sans has a black 😀 of its own, and Noto Color Emoji has the digits (keycap bases).
    const ShapedLine line = shape_line(faces, utf8_to_codepoints("1😀"), 32);
    ASSERT_EQ(line.glyphs.size(), 2u);
    EXPECT_EQ(line.glyphs[0].face, 0);
    EXPECT_EQ(line.glyphs[1].face, 1);
    // ☺ (U+263A) stays a text character unless VS16 asks for the emoji.
    EXPECT_EQ(shape_line(faces, utf8_to_codepoints("☺"), 32).glyphs[0].face, 0);
    EXPECT_EQ(shape_line(faces, utf8_to_codepoints("☺\uFE0F"), 32).glyphs[0].face, 1);
}

// What a PNG would draw as boxes: 猫 is not in DejaVu Sans; its combining acute and a ZWJ
// are drawn with the letter before them and not counted; each character is named once.
TEST(FontCoverage, MissingCharactersAreTheOnesNoFaceHas) {
    const Font dejavu({{kDejaVu, 0}});
    if (!dejavu.available()) GTEST_SKIP() << "DejaVu Sans is not installed";
    EXPECT_EQ(dejavu.missing_characters("abc \u732B e\u0301 a\u200Db \u732B\t"), std::u32string(U"\u732B"));
    EXPECT_EQ(dejavu.missing_characters("plain text"), std::u32string());
    EXPECT_EQ(Font({}).missing_characters("ab"), std::u32string(U"ab"));
}

}  // namespace
}  // namespace hs
