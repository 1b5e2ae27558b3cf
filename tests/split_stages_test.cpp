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
    EXPECT_EQ(static_cast<int>(gguf_pre_types().size()), pres + 1);  // and llama3, llama-bpe's other name
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
    for (const std::string& pre : gguf_pre_types()) {
        std::string joined;
        for (const std::string& p : split_in_stages(*gguf_pre_splits(pre), text)) joined += p;
        EXPECT_EQ(joined, text) << pre;
    }
}

// A tokenizer.json names its splits by their regexes: each regex llama.cpp lists for a
// pre-tokenizer type (as the generator ran them) reads back as that type's split, GPT-2's
// without its last "|\s+" as GPT-2's; another regex as none.
TEST(SplitStages, EveryRegexReadsBackAsItsPattern) {
    const nlohmann::json ref = test::json_file(kReference);
    for (const auto& [pre, regexes] : ref.at("regexes").items()) {
        const std::vector<SplitPattern> splits = gguf_pre_splits(pre).value();
        ASSERT_EQ(regexes.size(), splits.size()) << pre;
        for (std::size_t k = 0; k < splits.size(); ++k)
            EXPECT_EQ(split_pattern_of_regex(regexes[k].get<std::string>()), splits[k]) << pre << " regex " << k;
    }
    EXPECT_EQ(split_pattern_of_regex(R"(\w+)"), std::nullopt);
}

}  // namespace
}  // namespace hs
