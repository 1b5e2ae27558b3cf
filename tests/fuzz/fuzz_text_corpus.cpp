// Fuzz target: a user's text file as a training corpus (core/train/text_corpus.h). The
// first byte picks the level (odd: words) and the window (2 … 17), the second the model's
// vocabulary (3 … 258); the rest is the text. The same text is then read as a trained
// model's input (core/train/trained_source.h): through the corpus's vocabulary, and as
// the synthetic tasks' symbols.
#include "core/error.h"
#include "core/train/text_corpus.h"
#include "core/train/trained_source.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const auto level = (data[0] & 1) ? hs::train::TextLevel::Word : hs::train::TextLevel::Char;
    const int window = 2 + (data[0] >> 4), max_vocab = 3 + data[1];
    const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
    const auto within = [](const std::vector<int>& ids, std::size_t vocab) {
        for (const int id : ids)
            if (id < 0 || static_cast<std::size_t>(id) >= vocab) __builtin_trap();  // ids within the vocabulary
    };
    try {
        auto c = std::make_shared<const hs::train::TextCorpus>(hs::train::build_text_corpus(text, level, max_vocab, window));
        within(c->train_ids, c->vocab.size());
        const hs::Tokens t = hs::train::encode_task_text(hs::train::text_task(c, window), text);
        if (t.ids.size() != t.text.size()) __builtin_trap();
        within(t.ids, c->vocab.size());
    } catch (const hs::Error&) {
    }
    try {
        const hs::Tokens t = hs::train::encode_task_text(hs::train::parse_task("copy", max_vocab), text);
        within(t.ids, static_cast<std::size_t>(max_vocab));
    } catch (const hs::Error&) {
    }
    return 0;
}
