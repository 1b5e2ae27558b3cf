// SentencePiece's own tokenizer.model files through libsentencepiece (core/tokenize/
// sentencepiece_model.h): the ids python3-sentencepiece gives (tests/gen_sentencepiece_fixtures.py)
// for a BPE and a Unigram model, and the same ids as HeadScope's own SentencePiece BPE
// reading that BPE vocabulary from tokenizer.json.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/open_source.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/sentencepiece_model.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace hs {
namespace {

const std::string kTokenizers = std::string(HEADSCOPE_FIXTURES_DIR) + "/tokenizers";

nlohmann::json expected(const std::string& dir) {
    return hs::test::json_file(kTokenizers + "/" + dir + "/expected.json");
}

void expect_reference_ids(const Tokenizer& tokenizer, const std::string& dir, std::size_t cases) {
    const nlohmann::json ref = expected(dir);
    ASSERT_EQ(ref["cases"].size(), cases);
    for (const auto& c : ref["cases"]) {
        const std::string text = c["text"];
        const Tokens t = tokenizer.encode(text, true);
        EXPECT_EQ(t.ids, c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(tokenizer.decode(t.ids), c["decoded"].get<std::string>()) << text;
    }
}

TEST(SentencePieceModelFile, BpeGivesSentencePiecesIdsAndAgreesWithOurOwnBpe) {
    const SentencePieceModel model(kTokenizers + "/spm_bpe/tokenizer.model");
    EXPECT_EQ(model.vocab_size(), 400);
    EXPECT_EQ(model.bos_id(), 1);
    EXPECT_EQ(model.eos_id(), 2);
    EXPECT_EQ(model.unk_id(), 0);
    expect_reference_ids(model, "spm_bpe", 8);
    const auto ours = load_tokenizer_json(kTokenizers + "/spm_bpe/tokenizer.json");
    for (const std::string text : {"The cat sat on the mat.", "她喜欢在公园里玩。", " a  b ", "Émile 😀"})
        EXPECT_EQ(model.encode(text).ids, ours->encode(text).ids) << text;
    const Tokens t = model.encode("The cat 😀");
    EXPECT_EQ(t.text[1], " The");
    EXPECT_EQ(t.text.back(), "<0x80>");
}

TEST(SentencePieceModelFile, UnigramWithNfkcNormalizationGivesSentencePiecesIds) {
    const SentencePieceModel model(kTokenizers + "/spm_unigram/tokenizer.model");
    expect_reference_ids(model, "spm_unigram", 10);
}

TEST(SentencePieceModelFile, ADirectoryWithOnlyTokenizerModelAndTokenizeFindIt) {
    test::TempDir dir;
    std::filesystem::copy_file(kTokenizers + "/spm_unigram/tokenizer.model", dir.file("tokenizer.model"));
    const auto tokenizer = load_hf_tokenizer(dir.str());
    EXPECT_EQ(tokenizer->vocab_size(), 100);
    const auto alone = open_tokenizer_file(dir.file("tokenizer.model"));
    ASSERT_NE(alone, nullptr);
    EXPECT_EQ(alone->encode("many spaces").ids, tokenizer->encode("many spaces").ids);
}

TEST(SentencePieceModelFile, FilesThatAreNoModelAreNamed) {
    test::TempDir dir;
    test::write_text(dir.file("tokenizer.model"), "this is not a protobuf");
    test::expect_error([&] { SentencePieceModel m(dir.file("tokenizer.model")); },
                       {"SentencePiece model '", "tokenizer.model' cannot be read"});
    test::expect_error([&] { SentencePieceModel m(dir.str()); }, {"directory"});
    // The fuzzer's finding: a zero-length piece makes the library fail while it builds the
    // Unigram trie (0.1.x throws "zero-length key", 0.2.x returns "piece must not include
    // null character"); either way it is an hs::Error naming the file like the rest.
    test::expect_error(
        [] { SentencePieceModel m(HEADSCOPE_FIXTURES_DIR "/../fuzz/seeds/sentencepiece_model/zero_length_piece.model"); },
        {"zero_length_piece.model' cannot be read"});
    test::expect_error([&] { SentencePieceModel m(dir.file("missing.model")); }, {"missing.model"});
}

}  // namespace
}  // namespace hs
