// BERT WordPiece against hand-checked ids. Vocabulary: tests/fixtures/tokenizers/
// wordpiece_uncased/vocab.txt, id = line number from 0:
//   0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK] 5 the 6 cafe 7 play 8 ##ing 9 ##ed 10 un
//   11 ##aff 12 ##able 13 , 14 . 15 ! 16 ' 17 s 18 我 19 是 20 中 21 hello 22 world
//   23 resume 24 ##s 25 a 26 ##a 27 naive 28 zurich 29 $ 30 5 31 ##0 32 straße 33 it
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/wordpiece.h"
#include "tests/test_util.h"

namespace {

const std::string kDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/tokenizers";

const hs::WordPieceTokenizer& uncased() {
    static const hs::WordPieceTokenizer tok(hs::read_vocab_txt(kDir + "/wordpiece_uncased/vocab.txt"),
                                            hs::WordPieceOptions{});
    return tok;
}

struct Case {
    std::string text;
    std::vector<int> ids;  // without [CLS]/[SEP]
};

}  // namespace

TEST(WordPieceTokenizer, HandCheckedIdsUncased) {
    const Case cases[] = {
        // lower-case, punctuation split: hello , world !
        {"Hello, World!", {21, 13, 22, 15}},
        // greedy longest match: "un" (no "unaff"), then "##aff", "##able"
        {"unaffable", {10, 11, 12}},
        // play + ##ing, play + ##ed
        {"Playing played", {7, 8, 7, 9}},
        // accents stripped after lower-casing: café -> cafe; Résumés -> resumes -> resume ##s
        {"Café Résumés", {6, 23, 24}},
        // ï (U+00EF) -> i; Ü (U+00DC) lower-cases to ü, then -> u
        {"naïve ZÜRICH", {27, 28}},
        // a combining acute accent (U+0301, Mn) typed separately is dropped too
        {"cafe\xCC\x81", {6}},
        // ß has no decomposition and stays: straße
        {"STRASSE Straße", {1, 32}},
        // every CJK ideograph is its own word; 国 is not in the vocabulary -> [UNK]
        {"我是中国", {18, 19, 20, 1}},
        // a word with no matching first piece is [UNK] as a whole
        {"xyz the", {1, 5}},
        // "$50": $ is punctuation for BERT (ASCII non-alphanumeric); 50 -> 5 ##0
        {"$50", {29, 30, 31}},
        // the apostrophe splits: it ' s
        {"it's", {33, 16, 17}},
        // tab, no-break space and ideographic space separate words; U+0001 (Cc) is dropped
        // without separating anything, so "the\x01the" is the unknown word "thethe"
        {"\x01the\tthe\xC2\xA0the\xE3\x80\x80the the\x01the", {5, 5, 5, 5, 1}},
        // special tokens are cut out before lower-casing and punctuation splitting
        {"[MASK] the", {4, 5}},
        {"", {}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << "text=" << nlohmann::json(c.text).dump());
        EXPECT_EQ(uncased().encode(c.text, false).ids, c.ids);
    }
}

TEST(WordPieceTokenizer, AddsClsAndSepAndShowsPieces) {
    const hs::Tokens t = uncased().encode("Playing!", true);
    EXPECT_EQ(t.ids, (std::vector<int>{2, 7, 8, 15, 3}));
    EXPECT_EQ(t.text, (std::vector<std::string>{"[CLS]", "play", "##ing", "!", "[SEP]"}));
    EXPECT_EQ(uncased().decode(t.ids), "playing !");
}

TEST(WordPieceTokenizer, WordsLongerThan100CharactersAreUnknown) {
    // "a" + "##a"×99 covers a 100-character word; at 101 the whole word is [UNK].
    const std::vector<int> hundred = uncased().encode(std::string(100, 'a'), false).ids;
    ASSERT_EQ(hundred.size(), 100u);
    EXPECT_EQ(hundred.front(), 25);
    EXPECT_EQ(hundred.back(), 26);
    EXPECT_EQ(uncased().encode(std::string(101, 'a'), false).ids, std::vector<int>{1});
}

TEST(WordPieceTokenizer, CasedConfigKeepsCaseAndAccents) {
    // wordpiece_cased: 5 Hello 6 hello 7 Café 8 cafe 9 . ; tokenizer_config.json says
    // do_lower_case false, so strip_accents (unset) follows it and stays off.
    const auto tok = hs::load_hf_tokenizer(kDir + "/wordpiece_cased");
    EXPECT_EQ(tok->encode("Hello Café.", false).ids, (std::vector<int>{5, 7, 9}));
    EXPECT_EQ(tok->encode("hello cafe", true).ids, (std::vector<int>{2, 6, 8, 3}));
}

TEST(WordPieceTokenizer, StripAccentsWithoutLowerCasing) {
    hs::WordPieceOptions o;
    o.lower_case = false;
    o.strip_accents = true;
    EXPECT_EQ(hs::bert_basic_tokenize("Café Ångström", o), (std::vector<std::string>{"Cafe", "Angstrom"}));
    o.strip_accents = false;
    o.lower_case = true;
    EXPECT_EQ(hs::bert_basic_tokenize("Café", o), (std::vector<std::string>{"café"}));
}

TEST(WordPieceTokenizer, BasicTokenizerSplitsCjkButNotKana) {
    // Kana and Hangul are not "Chinese characters" for BERT: they stay in one word.
    EXPECT_EQ(hs::bert_basic_tokenize("日本語カタカナ", hs::WordPieceOptions{}),
              (std::vector<std::string>{"日", "本", "語", "カタカナ"}));
}

TEST(WordPieceTokenizer, MissingUnknownTokenIsAnError) {
    hs::test::expect_error([] { hs::WordPieceTokenizer tok({"a", "b"}, hs::WordPieceOptions{}); },
                           {"[UNK]"});
}

TEST(WordPieceTokenizer, LoadsFromWordPieceTokenizerJson) {
    // The same vocabulary as a tokenizer.json (what bert-base-uncased ships) gives the
    // same ids as vocab.txt.
    nlohmann::json vocab = nlohmann::json::object();
    const std::vector<std::string> lines = hs::read_vocab_txt(kDir + "/wordpiece_uncased/vocab.txt");
    for (size_t i = 0; i < lines.size(); ++i) vocab[lines[i]] = i;
    const nlohmann::json tj = {
        {"normalizer", {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
                        {"strip_accents", nullptr}, {"lowercase", true}}},
        {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
        {"model", {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
                   {"max_input_chars_per_word", 100}, {"vocab", vocab}}}};
    const hs::test::TempDir dir;
    const std::string path = dir.file("tokenizer.json");
    std::ofstream(path) << tj.dump();
    const auto tok = hs::load_tokenizer_json(path);
    EXPECT_EQ(tok->encode("Café unaffable 我", true).ids, (std::vector<int>{2, 6, 10, 11, 12, 18, 3}));
}
