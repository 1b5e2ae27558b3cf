// PlaygroundTokenizer: splitting rules, deterministic FNV-1a ids, invalid UTF-8.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/playground_tokenizer.h"
#include "tests/test_util.h"

namespace {

using hs::test::error_of;

using Strings = std::vector<std::string>;

Strings split(const std::string& text) { return hs::PlaygroundTokenizer(8192).encode(text).text; }

TEST(PlaygroundTokenizer, EveryChineseCharacterIsItsOwnToken) {
    EXPECT_EQ(split("我是秦始皇"), (Strings{"我", "是", "秦", "始", "皇"}));
}

TEST(PlaygroundTokenizer, EnglishSplitsOnWhitespaceAndSplitsOffPunctuation) {
    EXPECT_EQ(split("The cat sat on the mat."),
              (Strings{"The", "cat", "sat", "on", "the", "mat", "."}));
}

TEST(PlaygroundTokenizer, MixedScriptsAndAsciiPunctuationWithoutSpaces) {
    EXPECT_EQ(split("Hello,世界!"), (Strings{"Hello", ",", "世", "界", "!"}));
}

TEST(PlaygroundTokenizer, ChinesePunctuationIsSplitOff) {
    EXPECT_EQ(split("你好，世界。"), (Strings{"你", "好", "，", "世", "界", "。"}));
    EXPECT_EQ(split("（注）“引号”"), (Strings{"（", "注", "）", "“", "引", "号", "”"}));
}

TEST(PlaygroundTokenizer, DecimalNumbersAndThousandsStayOneToken) {
    EXPECT_EQ(split("pi is 3.14."), (Strings{"pi", "is", "3.14", "."}));
    EXPECT_EQ(split("1,000 or 2, 3"), (Strings{"1,000", "or", "2", ",", "3"}));
    EXPECT_EQ(split(".5"), (Strings{".", "5"}));
}

TEST(PlaygroundTokenizer, ApostropheInsideAWordStaysButQuotesSplit) {
    EXPECT_EQ(split("don't 'x'"), (Strings{"don't", "'", "x", "'"}));
}

TEST(PlaygroundTokenizer, EveryPunctuationCharacterIsSeparate) {
    EXPECT_EQ(split("wait...(yes)"), (Strings{"wait", ".", ".", ".", "(", "yes", ")"}));
}

TEST(PlaygroundTokenizer, NonCjkLettersStayInWords) {
    EXPECT_EQ(split("café Привет"), (Strings{"café", "Привет"}));
}

TEST(PlaygroundTokenizer, UnicodeWhitespaceSeparates) {
    // U+3000 ideographic space, U+00A0 no-break space, tab, newline.
    EXPECT_EQ(split("a\u3000b\u00A0c\td\ne"), (Strings{"a", "b", "c", "d", "e"}));
}

TEST(PlaygroundTokenizer, EmptyAndWhitespaceOnlyTextGiveNoTokens) {
    const hs::PlaygroundTokenizer tok(100);
    for (const std::string text : {"", " ", " \t\n  ", "\u3000"}) {
        SCOPED_TRACE(testing::Message() << "text=\"" << text << "\"");
        const hs::Tokens t = tok.encode(text);
        EXPECT_TRUE(t.text.empty());
        EXPECT_TRUE(t.ids.empty());
    }
}

TEST(PlaygroundTokenizer, InvalidUtf8BytesBecomeOneTokenEach) {
    // 0xFF never occurs in UTF-8; 0xE4 0xB8 is a truncated 3-byte sequence (我 is E6 88 91);
    // 0xC0 0xAF is an overlong '/'.
    EXPECT_EQ(split("ab\xFF" "cd"), (Strings{"ab", "<0xFF>", "cd"}));
    EXPECT_EQ(split("\xE4\xB8 x"), (Strings{"<0xE4>", "<0xB8>", "x"}));
    EXPECT_EQ(split("\xC0\xAF"), (Strings{"<0xC0>", "<0xAF>"}));
    // A UTF-16 surrogate encoded in UTF-8 (ED A0 80) is invalid too.
    EXPECT_EQ(split("\xED\xA0\x80"), (Strings{"<0xED>", "<0xA0>", "<0x80>"}));
}

TEST(PlaygroundTokenizer, IdIsFnv1aOfTheBytesMappedIntoOneToVocab) {
    // FNV-1a 32-bit of "a", by hand:
    //   h0 = 0x811C9DC5; h0 ^ 0x61 = 0x811C9DA4
    //   0x811C9DA4 · 0x01000193 = 0x811C9DA4·2²⁴ + 0x811C9DA4·0x193
    //                           ≡ 0xA4000000 + 0x400C292C = 0xE40C292C  (mod 2³²)
    //   0xE40C292C = 3826002220; with vocab 1000: 1 + 3826002220 mod 999 = 1 + 52 = 53.
    const hs::PlaygroundTokenizer tok(1000);
    EXPECT_EQ(3826002220u % 999u, 52u);
    EXPECT_EQ(tok.id_of("a"), 53);
    // Published FNV-1a test vector: "foobar" -> 0xBF9CF968 = 3214735720.
    const hs::PlaygroundTokenizer big(1 << 30);
    EXPECT_EQ(big.id_of("foobar"), 1 + static_cast<int>(0xBF9CF968u % ((1u << 30) - 1u)));
}

TEST(PlaygroundTokenizer, IdsAreDeterministicInRangeAndMatchIdOf) {
    const hs::PlaygroundTokenizer tok(50);
    const hs::Tokens a = tok.encode("The cat sat on the mat. 我是秦始皇 \xFF");
    const hs::Tokens b = hs::PlaygroundTokenizer(50).encode("The cat sat on the mat. 我是秦始皇 \xFF");
    ASSERT_EQ(a.ids.size(), a.text.size());
    EXPECT_EQ(a.ids, b.ids);
    for (size_t i = 0; i < a.ids.size(); ++i) {
        SCOPED_TRACE(a.text[i]);
        EXPECT_GE(a.ids[i], 1);
        EXPECT_LT(a.ids[i], 50);
        EXPECT_EQ(a.ids[i], tok.id_of(a.text[i]));
    }
    // Same token, same id, wherever it occurs; case matters.
    const hs::Tokens t = hs::PlaygroundTokenizer(1 << 20).encode("the cat the The");
    EXPECT_EQ(t.ids[0], t.ids[2]);
    EXPECT_NE(t.ids[0], t.ids[3]);
}

TEST(PlaygroundTokenizer, RejectsVocabTooSmallWithMessage) {
    EXPECT_EQ(error_of([&] { hs::PlaygroundTokenizer tok(1); }),
              "The playground tokenizer needs a vocabulary of at least 2 ids (id 0 is "
              "reserved for padding), but vocab is 1.");
}

TEST(IsCjk, CoversIdeographsKanaHangulFullwidthButNotLatin) {
    for (const char32_t cp : {U'我', U'秦', U'。', U'あ', U'カ', U'한', U'！', U'Ａ', U'\U00020000'}) {
        SCOPED_TRACE(static_cast<unsigned>(cp));
        EXPECT_TRUE(hs::is_cjk(cp));
    }
    for (const char32_t cp : {U'a', U'é', U'Я', U'—', U'1'}) {
        SCOPED_TRACE(static_cast<unsigned>(cp));
        EXPECT_FALSE(hs::is_cjk(cp));
    }
}

}  // namespace

TEST(ByteFallback, ByteTokensAreCountedExactly) {
    EXPECT_TRUE(hs::is_byte_token("<0xE5>"));
    EXPECT_TRUE(hs::is_byte_token("<0x0a>"));
    EXPECT_FALSE(hs::is_byte_token("<0xG5>"));
    EXPECT_FALSE(hs::is_byte_token("<0xE5"));
    EXPECT_FALSE(hs::is_byte_token("<s>"));
    EXPECT_FALSE(hs::is_byte_token("x<0xE5>"));
    // "小明 ok" on stories260K: ▁, three bytes per character, ▁o, k.
    const hs::ByteTokens bytes =
        hs::byte_tokens_of({"<s>", " ", "<0xE5>", "<0xB0>", "<0x8F>", "<0xE6>", "<0x98>", "<0x8E>", " o", "k"});
    EXPECT_EQ(bytes.count, 6);
    EXPECT_EQ(bytes.first, "<0xE5>");
    // "ü" (U+00FC, bytes C3 BC): the note names a byte the text has, not an example.
    EXPECT_EQ(hs::byte_tokens_of({"<s>", " ", "<0xC3>", "<0xBC>"}).first, "<0xC3>");
    EXPECT_EQ(hs::byte_tokens_of({"<s>", " cat"}).count, 0);
}
