// SentencePiece-style BPE from a Hugging Face tokenizer.json (Llama-2's layout and the
// newer Metaspace one) against SentencePiece itself: tests/gen_sentencepiece_fixtures.py
// trains a tiny BPE model with byte fallback and records python3-sentencepiece's ids.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/sentencepiece_bpe.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace hs {
namespace {

const std::string kDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/tokenizers/spm_bpe";

nlohmann::json expected() {
    return hs::test::json_file(kDir + "/expected.json");
}

class SentencePieceJson : public ::testing::TestWithParam<const char*> {};

TEST_P(SentencePieceJson, GivesSentencePiecesOwnIdsAndText) {
    const auto tokenizer = load_tokenizer_json(kDir + "/" + GetParam());
    ASSERT_NE(dynamic_cast<const SentencePieceBpe*>(tokenizer.get()), nullptr);
    int checked = 0;
    const nlohmann::json ref = expected();
    for (const auto& c : ref["cases"]) {
        const std::string text = c["text"];
        const Tokens t = tokenizer->encode(text, true);
        EXPECT_EQ(t.ids, c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(tokenizer->decode(t.ids), c["decoded"].get<std::string>()) << text;
        ++checked;
    }
    EXPECT_EQ(checked, 8);
    EXPECT_EQ(tokenizer->bos_id(), 1);
    EXPECT_EQ(tokenizer->eos_id(), 2);
    EXPECT_EQ(tokenizer->unk_id(), 0);
}

INSTANTIATE_TEST_SUITE_P(Layouts, SentencePieceJson, ::testing::Values("tokenizer.json", "tokenizer_metaspace.json"));

TEST(SentencePieceJsonTokens, ShowSpacesAndBytesReadably) {
    const auto tokenizer = load_hf_tokenizer(kDir);  // a model directory's tokenizer.json
    const Tokens t = tokenizer->encode("The cat 😀", true);
    ASSERT_GE(t.text.size(), 4u);
    EXPECT_EQ(t.text[0], "<s>");
    EXPECT_EQ(t.text[1], " The");  // "▁The"
    EXPECT_EQ(t.text.back(), "<0x80>");  // the emoji's last byte
    EXPECT_EQ(tokenizer->decode(t.ids), "The cat 😀");
    // The control piece written in the text is that token, and the text after it starts
    // a new run with its own "▁" (as llama.cpp and Hugging Face's added tokens do).
    const Tokens s = tokenizer->encode("ball</s>ball", false);
    ASSERT_EQ(s.ids.size(), 3u);
    EXPECT_EQ(s.ids[0], s.ids[2]);
    EXPECT_EQ(s.ids[1], 2);
}

TEST(SentencePieceJsonErrors, UnsupportedNormalizersAndPreTokenizersAreNamed) {
    std::ifstream in(kDir + "/tokenizer.json");
    const nlohmann::json base = nlohmann::json::parse(in);
    test::TempDir dir;
    const auto error_for = [&](const nlohmann::json& tj) {
        test::write_text(dir.file("tokenizer.json"), tj.dump());
        return test::error_of([&] { (void)load_tokenizer_json(dir.file("tokenizer.json")); });
    };
    nlohmann::json nfkc = base;
    nfkc["normalizer"] = {{"type", "NFKC"}};
    test::expect_contains(error_for(nfkc), {"normalizer 'NFKC'", "SentencePiece-style BPE"});
    nlohmann::json split = base;
    split["normalizer"] = nullptr;
    split["pre_tokenizer"] = {{"type", "Whitespace"}};
    test::expect_contains(error_for(split), {"pre-tokenizer 'Whitespace'"});
    nlohmann::json bare = base;
    bare["normalizer"] = nullptr;
    test::expect_contains(error_for(bare), {"never become"});
}

}  // namespace
}  // namespace hs
