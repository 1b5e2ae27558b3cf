// tokenizer.json byte-level BPE (Qwen2 / Llama-3 / GPT-2 layouts) and the model-directory
// factory, against hand-checked ids.
//
// Fixture vocabulary (qwen2_tiny and llama3_tiny share it; tokens in byte-symbol form,
// Ġ = space 0x20, Ċ = newline 0x0A, "Ã©" = the bytes C3 A9 of "é"):
//   0 h 1 e 2 l 3 o 4 Ġ 5 w 6 r 7 d 8 1 9 2 10 3 11 ! 12 he 13 ll 14 hell 15 hello
//   16 Ġw 17 or 18 Ġwor 19 ld 20 Ġworld 21 12 22 Ċ 23 ĊĊ 24 ' 25 s 26 S 27 Ã 28 © 29 Ã©
//   30 lo; added: 31 <|endoftext|> 32 <|im_start|> (llama3_tiny also 33 <|begin_of_text|>
//   34 <|end_of_text|>)
// Merges by rank: 0 h+e 1 l+l 2 he+ll 3 hell+o 4 Ġ+w 5 o+r 6 Ġw+or 7 l+d 8 Ġwor+ld
//   9 1+2 10 Ċ+Ċ 11 Ã+©
// Worked examples used below:
//   "hello":  h e l l o -> (r0) he l l o -> (r1) he ll o -> (r2) hell o -> (r3) hello = 15
//   " world": Ġ w o r l d -> (r4) Ġw o r l d -> (r5) Ġw or l d -> (r6) Ġwor l d
//             -> (r7) Ġwor ld -> (r8) Ġworld = 20
//   "world":  w o r l d -> (r5) w or l d -> (r7) w or ld; no rank for (w, or) -> 5 17 19
//   "123" as one piece: 1 2 3 -> (r9) 12 3 -> 21 10
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/pretokenize.h"
#include "tests/json_fixture.h"
#include "tests/test_util.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Ids = std::vector<int>;
using hs::test::expect_error;

const std::string kDir = std::string(HEADSCOPE_FIXTURES_DIR) + "/tokenizers";

const hs::Tokenizer& qwen() {
    static const auto tok = hs::load_hf_tokenizer(kDir + "/qwen2_tiny");
    return *tok;
}

const hs::Tokenizer& llama3() {
    static const auto tok = hs::load_hf_tokenizer(kDir + "/llama3_tiny");
    return *tok;
}

struct Case {
    std::string text;
    Ids ids;
};

}  // namespace

TEST(HfBpeTokenizer, Qwen2HandCheckedIds) {
    const Case cases[] = {
        {"hello world", {15, 20}},
        // \p{N} takes one digit at a time, so the merge 1+2 never applies
        {"123", {8, 9, 10}},
        // \s*[\r\n]+ keeps both newlines in one piece: Ċ Ċ -> (r10) ĊĊ = 23; then "world"
        {"hello\n\nworld", {15, 23, 5, 17, 19}},
        // added tokens are cut out before pre-tokenisation
        {"<|im_start|>hello<|endoftext|>", {32, 15, 31}},
        // "hé" is one letter piece: h Ã © -> (r11) h Ã© = 0 29
        {"hé", {0, 29}},
        // contraction: "he" then "'s" = ' s (no merge) -> 12 24 25; (?i:…) also takes "'S"
        {"he's", {12, 24, 25}},
        {"he'S", {12, 24, 26}},
        // "!" joins the following letters ([^\r\n\p{L}\p{N}]?\p{L}+) but has no merge
        {"!hello", {11, 15}},
        // "lo" is in the vocabulary but no merge builds it (ignore_merges is false)
        {"lo", {2, 3}},
        {"", {}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << "text=" << json(c.text).dump());
        EXPECT_EQ(qwen().encode(c.text, true).ids, c.ids);  // Qwen2 adds nothing
    }
}

TEST(HfBpeTokenizer, DisplayShowsSpacesBytesAndSpecialTokens) {
    const hs::Tokens t = qwen().encode("<|im_start|>hé world", false);
    EXPECT_EQ(t.ids, (Ids{32, 0, 29, 20}));
    EXPECT_EQ(t.text, (std::vector<std::string>{"<|im_start|>", "h", "é", " world"}));
    EXPECT_EQ(qwen().display(23), "\n\n");
    EXPECT_EQ(qwen().display(27), "<0xC3>");  // a lone lead byte
    EXPECT_EQ(qwen().decode({32, 15, 20}), "<|im_start|>hello world");
    EXPECT_EQ(qwen().decode({27}), "\xEF\xBF\xBD");  // U+FFFD for the broken byte
}

TEST(HfBpeTokenizer, Qwen2SizesAndSpecialIds) {
    EXPECT_EQ(qwen().vocab_size(), 33);
    EXPECT_EQ(qwen().bos_id(), 31);  // no BOS configured: <|endoftext|> as GPT-2 does
    EXPECT_EQ(qwen().eos_id(), 31);
}

TEST(HfBpeTokenizer, Llama3TemplateDigitsAndIgnoreMerges) {
    // Template adds <|begin_of_text|> = 33. \p{N}{1,3}: "1231" -> "123" "1";
    // "123" -> (r9) 12 3.
    EXPECT_EQ(llama3().encode("1231", true).ids, (Ids{33, 21, 10, 8}));
    EXPECT_EQ(llama3().encode("1231", false).ids, (Ids{21, 10, 8}));
    // ignore_merges: the piece "lo" is a vocabulary token and is taken whole.
    EXPECT_EQ(llama3().encode("lo", false).ids, (Ids{30}));
    EXPECT_EQ(llama3().bos_id(), 33);
    EXPECT_EQ(llama3().eos_id(), 34);  // eos_token {"content": "<|end_of_text|>"} in the config
    EXPECT_EQ(llama3().vocab_size(), 35);
}

TEST(HfBpeTokenizer, ByteLevelPreTokenizerUsesGpt2Regex) {
    json tj = hs::test::json_file(kDir + "/qwen2_tiny/tokenizer.json");
    tj["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    const hs::HfBpeTokenizer gpt2_style(tj, json(), "in-memory");
    // " ?\p{N}+" keeps "123" whole -> 12 3; newlines: \s+(?!\S) takes the first "\n",
    // \s+ the second -> Ċ Ċ as two pieces (22 22), unlike Qwen2's single ĊĊ.
    EXPECT_EQ(gpt2_style.encode("123", false).ids, (Ids{21, 10}));
    EXPECT_EQ(gpt2_style.encode("hello\n\nworld", false).ids, (Ids{15, 22, 22, 5, 17, 19}));
    // add_prefix_space: "hello" is encoded as " hello": Ġ h e l l o -> Ġ hello (no Ġ+h merge)
    tj["pre_tokenizer"]["add_prefix_space"] = true;
    const hs::HfBpeTokenizer prefixed(tj, json(), "in-memory");
    EXPECT_EQ(prefixed.encode("hello", false).ids, (Ids{4, 15}));
}

TEST(HfBpeTokenizer, UnknownByteAfterMergesIsAnError) {
    // 🙂's bytes have no tokens in the tiny vocabulary.
    expect_error([] { qwen().encode("\xF0\x9F\x99\x82", false); }, {"not in the vocabulary"});
    expect_error([] { qwen().decode({99}); }, {"Token id 99"});
}

TEST(HfBpeTokenizer, UnsupportedPartsAreNamed) {
    const json base = hs::test::json_file(kDir + "/qwen2_tiny/tokenizer.json");
    {
        json tj = base;
        tj["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "▁"}};
        expect_error([&] { hs::HfBpeTokenizer t(tj, json(), "x.json"); }, {"'Metaspace'"});
    }
    {
        json tj = base;
        tj["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\w+";
        expect_error([&] { hs::HfBpeTokenizer t(tj, json(), "x.json"); }, {"\\w+", "GPT-2, Qwen2, Llama-3"});
    }
    {
        json tj = base;
        tj["model"]["byte_fallback"] = true;
        expect_error([&] { hs::HfBpeTokenizer t(tj, json(), "x.json"); }, {"byte_fallback"});
    }
    {
        json tj = base;
        tj["normalizer"] = {{"type", "Lowercase"}};
        expect_error([&] { hs::HfBpeTokenizer t(tj, json(), "x.json"); }, {"'Lowercase'"});
    }
    {
        json tj = base;
        tj["model"] = {{"type", "Unigram"}, {"vocab", json::array()}};
        const hs::test::TempDir dir;
        const std::string path = dir.file("tokenizer.json");
        std::ofstream(path) << tj.dump();
        expect_error([&] { hs::load_tokenizer_json(path); }, {"model type 'Unigram'", path});
    }
}

// Ids that would size a table of billions of strings, or overflow int, are refused by
// value before anything is allocated (issue 12: 9.4 GB for a 1.7 KB file).
TEST(HfBpeTokenizer, HugeOrNegativeIdsAreRefusedBeforeAllocating) {
    const json base = hs::test::json_file(kDir + "/qwen2_tiny/tokenizer.json");
    for (const long long id : {300000000LL, 2147483647LL, 4294967296LL}) {
        json tj = base;
        tj["model"]["vocab"]["zzz"] = id;
        expect_error([&] { hs::HfBpeTokenizer t(tj, json(), "x.json"); },
                     {"the id of vocabulary token 'zzz' is " + std::to_string(id), "beyond the 4194304 ids"});
        json added = base;
        added["added_tokens"] = json::array({{{"content", "<big>"}, {"id", id}}});
        expect_error([&] { hs::HfBpeTokenizer t(added, json(), "x.json"); }, {"the id of an added token is"});
    }
    json tj = base;
    tj["model"]["vocab"]["zzz"] = -1;
    expect_error([&] { hs::HfBpeTokenizer t(tj, json(), "x.json"); }, {"'zzz' is negative (-1)"});
}

// A field missing where Hugging Face always writes one is a sentence naming the file, not
// nlohmann's bare exception.
TEST(HfBpeTokenizer, AMissingFieldNamesTheFile) {
    json tj = hs::test::json_file(kDir + "/qwen2_tiny/tokenizer.json");
    tj["added_tokens"] = json::array({{{"content", "<x>"}}});  // no "id"
    const hs::test::TempDir dir;
    const std::string path = dir.file("tokenizer.json");
    std::ofstream(path) << tj.dump();
    expect_error([&] { hs::load_tokenizer_json(path); }, {"tokenizer.json '" + path + "' is not as Hugging Face writes it"});
}

TEST(Llama3Pretokenize, FollowsRegexAlternativesInOrder) {
    struct Split {
        std::string text;
        int digits;
        std::vector<std::string> pieces;
    };
    const Split cases[] = {
        {"Hello world", 1, {"Hello", " world"}},
        {"12345", 1, {"1", "2", "3", "4", "5"}},
        {"12345", 3, {"123", "45"}},
        // punctuation (and any non-letter, non-newline char) prefixes a letter run
        {"!hello", 1, {"!hello"}},
        {"\thello", 1, {"\thello"}},
        {"\nhello", 1, {"\n", "hello"}},
        // case-insensitive contractions
        {"I'M", 1, {"I", "'M"}},
        // " ?[^\s\p{L}\p{N}]+[\r\n]*" keeps trailing newlines with punctuation
        {"end.\n\nNext", 1, {"end", ".\n\n", "Next"}},
        // \s*[\r\n]+ stops at the last newline; the space before "x" joins it
        {"a \n\n x", 1, {"a", " \n\n", " x"}},
        {"a   b", 1, {"a", "  ", " b"}},
        {"trailing  ", 1, {"trailing", "  "}},
        {"中文，你好", 1, {"中文", "，你好"}},
    };
    for (const Split& c : cases) {
        SCOPED_TRACE(testing::Message() << "text=" << json(c.text).dump() << " digits=" << c.digits);
        EXPECT_EQ(hs::llama3_pretokenize(c.text, c.digits), c.pieces);
    }
}

TEST(LoadHfTokenizer, PicksFilesInOrder) {
    // vocab.json + merges.txt -> GPT-2 BPE (the real GPT-2 files under HF's names)
    const hs::test::TempDir tmp;
    const std::string gpt2_dir = tmp.str();
    fs::copy_file(kDir + "/gpt2/encoder.json", gpt2_dir + "/vocab.json");
    fs::copy_file(kDir + "/gpt2/vocab.bpe", gpt2_dir + "/merges.txt");
    const auto gpt2 = hs::load_hf_tokenizer(gpt2_dir);
    EXPECT_EQ(gpt2->vocab_size(), 50257);
    EXPECT_EQ(gpt2->encode("Hello world").ids, (Ids{15496, 995}));
    // vocab.txt -> WordPiece with [CLS] … [SEP] (5 = "the" in wordpiece_uncased)
    EXPECT_EQ(hs::load_hf_tokenizer(kDir + "/wordpiece_uncased")->encode("The").ids, (Ids{2, 5, 3}));
    // tokenizer.json wins over the others
    EXPECT_EQ(qwen().encode("hello").ids, (Ids{15}));
}

TEST(LoadHfTokenizer, MissingFilesAreListed) {
    const hs::test::TempDir empty_dir, half_dir;
    const std::string empty = empty_dir.str();
    expect_error([&] { hs::load_hf_tokenizer(empty); },
                 {empty, "tokenizer.json", "vocab.json + merges.txt", "vocab.txt"});
    const std::string half = half_dir.str();
    std::ofstream(half + "/vocab.json") << "{}";
    expect_error([&] { hs::load_hf_tokenizer(half); }, {"merges.txt is missing"});
}

TEST(Pretokenize, MatchesJavaScriptRegexOnReferenceStrings) {
    // pretokenize_reference.json: the GPT-2 strings plus 300 random ones, split by
    // Node's RegExp (u flag) under the three patterns (tests/gen_gpt2_tokenizer_reference.js).
    const json cases = hs::test::json_file(kDir + "/pretokenize_reference.json").at("cases");
    ASSERT_GE(cases.size(), 500u);
    int mismatches = 0;
    for (const json& c : cases) {
        const std::string text = c.at("text");
        SCOPED_TRACE(testing::Message() << "text=" << json(text).dump());
        const auto gpt2 = hs::gpt2_pretokenize(text);
        const auto qwen2 = hs::llama3_pretokenize(text, 1);
        const auto llama3 = hs::llama3_pretokenize(text, 3);
        const auto want = [&](const char* key) { return c.at(key).get<std::vector<std::string>>(); };
        EXPECT_EQ(gpt2, want("gpt2"));
        EXPECT_EQ(qwen2, want("qwen2"));
        EXPECT_EQ(llama3, want("llama3"));
        if (gpt2 != want("gpt2") || qwen2 != want("qwen2") || llama3 != want("llama3")) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(HfBpeTokenizer, Gpt2TokenizerJsonMatchesJavaScriptReference) {
    // GPT-2's tokenizer.json layout (ByteLevel pre-tokenizer, "a b" merges, <|endoftext|>
    // as an added token) built from the real GPT-2 vocabulary; the reference ids of
    // gpt2_reference.json must come out, except where the input spells <|endoftext|>,
    // which tokenizer.json matches as the added token 50256.
    json merges = json::array();
    for (const auto& [a, b] : hs::read_merges_txt(kDir + "/gpt2/vocab.bpe")) merges.push_back(a + " " + b);
    const json tj = {
        {"added_tokens", {{{"id", 50256}, {"content", "<|endoftext|>"}, {"special", true}}}},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
        {"post_processor", {{"type", "ByteLevel"}}},
        {"model", {{"type", "BPE"}, {"vocab", hs::test::json_file(kDir + "/gpt2/encoder.json")}, {"merges", merges}}}};
    const hs::HfBpeTokenizer tok(tj, json(), "gpt2 tokenizer.json");
    EXPECT_EQ(tok.vocab_size(), 50257);
    int compared = 0;
    const json cases = hs::test::json_file(kDir + "/gpt2_reference.json").at("cases");
    for (const json& c : cases) {
        const std::string text = c.at("text");
        if (text.find("<|endoftext|>") != std::string::npos) continue;
        SCOPED_TRACE(testing::Message() << "text=" << json(text).dump());
        EXPECT_EQ(tok.encode(text).ids, c.at("ids").get<Ids>());
        ++compared;
    }
    EXPECT_GE(compared, 270);
    // "foo<|endoftext|>bar": foo = 21943, bar = 5657 in GPT-2's encoder.json.
    EXPECT_EQ(tok.encode("foo<|endoftext|>bar").ids, (Ids{21943, 50256, 5657}));
}
