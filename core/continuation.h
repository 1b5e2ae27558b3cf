#pragma once
// Continuation of a source's text: "continue" in the window (greedy), `headscope generate`
// (greedy unless sampling is asked for: core/generate.h).
// Works for every source whose model is a causal decoder with a language-model head and
// whose ids read back as text (TraceSource::continuation_tokenizer): real checkpoints and
// models HeadScope trained; not playground models (hashed word ids) or worked examples.
#include <string>
#include <vector>

#include "core/generate.h"
#include "core/source.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {

// Whether continue_text can extend `source`'s text.
bool can_continue(const TraceSource& source);

struct Continuation {
    std::string text;    // what the new tokens add to the text (may start with a space)
    int generated = 0;   // how many tokens were appended (fewer than asked at BOS / EOS or max_len)
    // Why fewer than n tokens were added ("" when all were): "the model's max_len (64 tokens)"
    // or "the model chose its end-of-text token".
    std::string stopped_because;
    std::vector<std::string> unknown_words;  // the text's words read as <unk> (core unknown_words)
    ByteTokens byte_tokens;                  // the text's tokens that are raw bytes such as <0xE5>
};

// Appends up to n tokens to `text` (argmax, or drawn as `sampling` says), one forward per
// token, calling progress(i, n) before each (false cancels: throws hs::Cancelled). An
// empty text starts from BOS.
// Throws hs::Error, naming the source's kind, when !can_continue(source), and
// hs::InputError when the text is longer than the model's max_len (nothing to generate).
Continuation continue_text(const TraceSource& source, const std::string& text, int n,
                           const ProgressFn& progress = nullptr, const Sampling& sampling = {});

}  // namespace hs
