// Font: system font discovery, UTF-8 text masks, CJK glyphs, missing fonts.
#include <gtest/gtest.h>

#include "core/image/font.h"
#include "core/image/utf8.h"

namespace {

int ink(const hs::AlphaMask& m) {
    int n = 0;
    for (std::uint8_t a : m.alpha) n += a > 128;
    return n;
}

}  // namespace

TEST(Utf8, DecodesMultiByteAndReplacesMalformed) {
    EXPECT_EQ(hs::utf8_to_codepoints("a秦\xF0\x9F\x98\x80"), (std::u32string{U'a', U'秦', U'\U0001F600'}));
    EXPECT_EQ(hs::utf8_to_codepoints("\x80x"), (std::u32string{0xFFFD, U'x'}));
    EXPECT_EQ(hs::utf8_to_codepoints("\xE7\xA7"), (std::u32string{0xFFFD}));    // truncated
    EXPECT_EQ(hs::utf8_to_codepoints("\xC0\xAF"), (std::u32string{0xFFFD}));    // overlong '/'
    EXPECT_EQ(hs::codepoints_to_utf8(U"秦…"), "秦…");
}

TEST(Font, SystemDefaultLoadsAFace) {
    const hs::Font& font = hs::Font::system_default();
    if (!font.available()) GTEST_SKIP() << "no system font installed";
    EXPECT_FALSE(font.loaded_paths().empty());
    EXPECT_TRUE(font.has_glyph(U'A'));
}

TEST(Font, RendersLatinTextWithInk) {
    const hs::Font& font = hs::Font::system_default();
    if (!font.available()) GTEST_SKIP() << "no system font installed";
    const hs::AlphaMask mask = font.render_text("Hello", 16);
    EXPECT_EQ(mask.height, 17);
    EXPECT_GT(mask.width, 20);
    EXPECT_GT(mask.baseline, 8);
    EXPECT_GT(ink(mask), 30);
    // Longer text is wider; the cache returns identical masks.
    EXPECT_GT(font.text_width("Hello world", 16), mask.width);
    EXPECT_EQ(font.render_text("Hello", 16).alpha, mask.alpha);
}

TEST(Font, RendersChineseGlyph) {
    const hs::Font& font = hs::Font::system_default();
    if (!font.has_glyph(U'秦')) GTEST_SKIP() << "no CJK font installed";
    const hs::AlphaMask mask = font.render_text("秦", 24);
    EXPECT_GT(mask.width, 12);
    EXPECT_GT(ink(mask), 40);  // a dense ideograph, not an empty box
}

TEST(Font, MissingFilesGiveAnUnavailableFontThatRendersNothing) {
    const hs::Font font({{"/nonexistent/a.ttf", 0}, {"/etc/hostname", 0}});
    EXPECT_FALSE(font.available());
    EXPECT_FALSE(font.has_glyph(U'A'));
    const hs::AlphaMask mask = font.render_text("Hello", 16);
    EXPECT_EQ(mask.width, 0);
    EXPECT_TRUE(mask.alpha.empty());
}
