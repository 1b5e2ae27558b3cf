// Fuzz target: a user's text file as a training corpus (core/train/text_corpus.h). The
// first byte picks the level (odd: words) and the window (2 … 17), the second the model's
// vocabulary (3 … 258); the rest is the text.
#include "core/error.h"
#include "core/train/text_corpus.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const auto level = (data[0] & 1) ? hs::train::TextLevel::Word : hs::train::TextLevel::Char;
    const int window = 2 + (data[0] >> 4), max_vocab = 3 + data[1];
    try {
        const hs::train::TextCorpus c =
            hs::train::build_text_corpus(std::string(reinterpret_cast<const char*>(data + 2), size - 2), level, max_vocab, window);
        for (const int id : c.train_ids)
            if (id < 0 || id >= static_cast<int>(c.vocab.size())) __builtin_trap();  // ids within the vocabulary
    } catch (const hs::Error&) {
    }
    return 0;
}
