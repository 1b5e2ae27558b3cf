// The byte-level BPE pre-tokenizers' regex splits (core/tokenize/split_stages.h) against
// Python's `regex` module running the regexes themselves (tests/gen_pre_split_fixtures.py
// → tests/fixtures/tokenizers/pre_splits.json), for every llama.cpp pre-tokenizer type
// HeadScope reads, on English, Chinese, Korean, Greek, Cyrillic, full-width, code, emoji,
// odd whitespace and numerals of other scripts.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/tokenize/split_stages.h"
#include "tests/json_fixture.h"

namespace hs {
namespace {

const std::string kReference = std::string(HEADSCOPE_FIXTURES_DIR) + "/tokenizers/pre_splits.json";

TEST(SplitStages, EveryGgufPreTokenizerSplitsAsTheRegexesDo) {
    const nlohmann::json ref = test::json_file(kReference);
    const auto texts = ref.at("texts").get<std::vector<std::string>>();
    ASSERT_GE(texts.size(), 20u);
    int pres = 0;
    for (const auto& [pre, want] : ref.at("pieces").items()) {
        const std::optional<std::vector<SplitPattern>> splits = gguf_pre_splits(pre);
        ASSERT_TRUE(splits.has_value()) << pre;
        for (std::size_t i = 0; i < texts.size(); ++i)
            EXPECT_EQ(split_in_stages(*splits, texts[i]), want.at(i).get<std::vector<std::string>>())
                << pre << " on \"" << texts[i] << "\"";
        ++pres;
    }
    EXPECT_EQ(pres, 10);
    EXPECT_EQ(gguf_pre_names(),
              "default, gpt-2, llama-bpe, llama3, qwen2, deepseek-llm, deepseek-coder, falcon, mpt, starcoder, refact");
    EXPECT_FALSE(gguf_pre_splits("bloom").has_value());
}

// Hand-worked: the matches and the text between them, in order.
TEST(SplitStages, AnIsolatedSplitKeepsTheTextBetweenMatches) {
    using V = std::vector<std::string>;
    EXPECT_EQ(split_isolated(SplitPattern::ThreeDigits, "a1234567b"), (V{"a", "123", "456", "7b"}));
    EXPECT_EQ(split_isolated(SplitPattern::Digit, "x12"), (V{"x", "1", "2"}));
    EXPECT_EQ(split_isolated(SplitPattern::TrailingSpace, "a b  "), (V{"a b", "  "}));
    EXPECT_EQ(split_isolated(SplitPattern::SpacedLetters, "  ab, c"), (V{" ", " ab", ",", " c"}));
    // U+3000 is both \s and in DeepSeek's punctuation class: the run starts on it. (The
    // class's ASCII ranges !-/ and :-~ hold the letters too; digits and space are out.)
    EXPECT_EQ(split_isolated(SplitPattern::AsciiAndCjkPunctuation, "1\u3000\u30002"), (V{"1", "\u3000\u3000", "2"}));
    EXPECT_EQ(split_isolated(SplitPattern::AsciiAndCjkPunctuation, "1 ab"), (V{"1", " ab"}));
    EXPECT_EQ(split_isolated(SplitPattern::CjkAndHangul, ""), V{});
}

// Bytes that are not UTF-8 are in no class and stay in the pieces, which still make up
// the text.
TEST(SplitStages, BytesThatAreNotUtf8AreKept) {
    const std::string text = "ab\xff\xfe 12\xc3";
    for (const auto& pre : {"default", "deepseek-llm", "deepseek-coder", "falcon", "starcoder"}) {
        std::string joined;
        for (const std::string& p : split_in_stages(*gguf_pre_splits(pre), text)) joined += p;
        EXPECT_EQ(joined, text) << pre;
    }
}

// A tokenizer.json names its splits by their regexes: each pattern's regex reads back as
// that pattern, and GPT-2's without its last "|\s+" as GPT-2's.
TEST(SplitStages, EveryRegexReadsBackAsItsPattern) {
    for (const auto& pre : {"default", "deepseek-llm", "deepseek-coder", "falcon", "starcoder", "qwen2", "llama-bpe"})
    {
        const std::vector<SplitPattern> splits = gguf_pre_splits(pre).value();
        for (const SplitPattern p : splits) EXPECT_EQ(split_pattern_of_regex(split_regex(p)), p) << pre;
    }
    EXPECT_EQ(split_pattern_of_regex(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))"),
              SplitPattern::Gpt2);
    EXPECT_EQ(split_pattern_of_regex(R"(\w+)"), std::nullopt);
}

}  // namespace
}  // namespace hs
