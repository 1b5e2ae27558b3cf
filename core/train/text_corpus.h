#pragma once
// A user's text as a training task: split into characters (Unicode code points) or words
// (runs of non-space characters), the most frequent ones numbered from 2 (0 = BOS,
// 1 = <unk> for the rest), the first 90 % of the token stream for training and the last
// 10 % held out. An example is BOS + a window of the training split at a seeded position;
// held-out example k is the k-th window of the held-out split (wrapping around).
//   vocab = min(model vocab, distinct tokens + 2); ties in frequency go to the earlier
//   first occurrence, so the numbering is a function of the text alone.
#include <cstdint>
#include <string>
#include <vector>

namespace hs::train {

enum class TextLevel { Char, Word };

struct TextCorpus {
    std::string source;             // the file it was read from ("" for a string)
    TextLevel level = TextLevel::Char;
    std::vector<std::string> vocab;  // id → display string; [0] "<bos>", [1] "<unk>"
    std::vector<int> train_ids, held_ids;
    std::uint64_t fingerprint = 0;  // FNV-1a of the text (a resumed run checks it)
    long long unknown = 0;          // tokens beyond the vocabulary, read as <unk>
    long long tokens = 0;           // tokens of the whole text
    int distinct = 0;               // different tokens in it
};

// "" when the vocabulary holds every token of the text; else what it misses and the vocab
// that would hold them all, e.g. "the vocabulary (vocab=32) holds 30 of the text's 812
// different characters: 59 % of its 12000 characters are read as <unk>, which the model
// learns to predict instead; vocab=814 in the spec holds them all".
std::string vocabulary_note(const TextCorpus& corpus);

TextLevel parse_text_level(const std::string& name);  // "char" or "word"
std::string to_string(TextLevel level);

// Throws hs::Error when the text is empty or too short for `window` tokens in each
// split, or max_vocab < 3.
TextCorpus build_text_corpus(const std::string& text, TextLevel level, int max_vocab, int window);
// build_text_corpus of a regular file (read_file: at most 64 MiB; a FIFO or device is
// refused), `source` set to its absolute path.
TextCorpus read_text_corpus(const std::string& path, TextLevel level, int max_vocab, int window);

std::uint64_t text_fingerprint(const std::string& text);

// The ids of `text` in the corpus's numbering (tokens it does not hold: 1, <unk>), split
// at its level, with their display strings; no BOS.
void encode_with_corpus(const TextCorpus& corpus, const std::string& text, std::vector<int>& ids,
                        std::vector<std::string>& tokens);

}  // namespace hs::train
