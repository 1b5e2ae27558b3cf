#pragma once
// BERT WordPiece tokenizer (vocab.txt, options from tokenizer_config.json), as Hugging
// Face's BertTokenizer computes it:
//   1. special tokens present in the vocabulary ([CLS] [SEP] [UNK] [PAD] [MASK]) are cut
//      out of the text first, exactly and case-sensitively;
//   2. BasicTokenizer: drop NUL, U+FFFD, invalid UTF-8 bytes and control characters
//      (categories Cc/Cf/Co except \t \n \r); whitespace (\t \n \r and Zs) -> ' '; spaces
//      around every CJK ideograph (the CJK Unified Ideographs blocks and extensions,
//      compatibility ideographs; not kana or Hangul); split on spaces; per word
//      lower-case (if lower_case) and strip accents (NFD, drop Mn; if strip_accents,
//      which defaults to lower_case); then each punctuation character (ASCII
//      !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~ or category P) becomes its own word;
//   3. WordPiece: greedy longest-match-first from the left, continuation pieces carry
//      the "##" prefix; a word longer than 100 code points or with an unmatchable part
//      becomes [UNK] as a whole;
//   4. add_special: [CLS] … [SEP].
// Unicode data: unicode_classes.h (generated from Python's unicodedata).
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace hs {

struct WordPieceOptions {
    bool lower_case = true;                 // do_lower_case (uncased models)
    std::optional<bool> strip_accents;      // unset: follows lower_case
    bool tokenize_chinese_chars = true;
    std::string unk_token = "[UNK]";
    std::string cls_token = "[CLS]";
    std::string sep_token = "[SEP]";
    std::string continuing_prefix = "##";
    size_t max_input_chars_per_word = 100;
};

// do_lower_case / strip_accents / tokenize_chinese_chars / unk_token / cls_token /
// sep_token from a tokenizer_config.json; a missing file gives the (uncased) defaults.
WordPieceOptions read_wordpiece_options(const std::string& tokenizer_config_path);
// One token per line, id = line number from 0 (a trailing '\r' is dropped).
std::vector<std::string> read_vocab_txt(const std::string& path);

// Step 2 alone: the words WordPiece then splits.
std::vector<std::string> bert_basic_tokenize(const std::string& text, const WordPieceOptions& options);

class WordPieceTokenizer : public Tokenizer {
public:
    // vocab[id] = token. Throws hs::Error when the unknown token is not in it.
    WordPieceTokenizer(std::vector<std::string> vocab, WordPieceOptions options);

    Tokens encode(const std::string& text, bool add_special = true) const override;
    // Tokens joined by spaces, "##" pieces glued to the previous one, [CLS]/[SEP]/[PAD]
    // dropped.
    std::string decode(const std::vector<int>& ids) const override;
    std::string display(int id) const override;  // the vocabulary string ("##ing" stays)
    int vocab_size() const override { return static_cast<int>(vocab_.size()); }
    int unk_id() const override { return unk_id_; }

    int id_of(const std::string& token) const;  // -1 when absent

private:
    void wordpiece(const std::string& word, std::vector<int>& ids) const;

    std::vector<std::string> vocab_;
    std::unordered_map<std::string, int> ids_;
    WordPieceOptions options_;
    std::vector<std::string> never_split_;  // special tokens present in the vocabulary
    int unk_id_, cls_id_, sep_id_, pad_id_;
};

}  // namespace hs
