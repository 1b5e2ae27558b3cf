#include "core/continuation.h"

#include "core/error.h"
#include "core/generate.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {

namespace {

// Why `source` cannot continue a text, or "" when it can.
std::string why_not(const TraceSource& source) {
    const Model* model = source.model();
    if (!model) return "it has no token ids";
    if (!source.continuation_tokenizer()) return "its token ids do not read back as text (a playground hashes its words)";
    const ModelConfig& c = model->config();
    if (c.arch != Arch::DecoderOnly) return "it is not a decoder-only model";
    if (c.lm_head == LmHead::None) return "it has no language-model head";
    if (c.mask != MaskKind::Causal) return "its attention is not causal";
    return "";
}

}  // namespace

bool can_continue(const TraceSource& source) { return why_not(source).empty(); }

Continuation continue_text(const TraceSource& source, const std::string& text, int n,
                           const ProgressFn& progress, const Sampling& sampling) {
    check_sampling(sampling);
    if (const std::string why = why_not(source); !why.empty())
        throw Error("'" + source.name() + "' (" + source.kind() + ") cannot continue a text: " + why +
                    " (that needs a causal decoder language model whose tokens read back as text: a llama2.c "
                    ".bin, a GPT-2 / Llama / Qwen2 directory or a model HeadScope trained)");
    const Model& model = *source.model();
    const Tokenizer& tokenizer = *source.continuation_tokenizer();
    const Tokens tokens = source.tokenize(text);
    std::vector<int> prompt = tokens.ids;
    // An empty text starts from BOS, which is then part of the prompt, not of what is added.
    if (prompt.empty() && tokenizer.bos_id() >= 0) prompt.push_back(tokenizer.bos_id());
    // A prompt the model cannot read whole leaves nothing to generate: an error (as a
    // forward gives it), not an empty continuation.
    const int max_len = model.config().max_len;
    if (static_cast<int>(prompt.size()) > max_len)
        throw InputError("the text has " + std::to_string(prompt.size()) + " tokens; this model handles at most " +
                             std::to_string(max_len),
                         static_cast<int>(prompt.size()), max_len);
    std::vector<int> ids = prompt;
    Continuation out;
    out.unknown_words = unknown_words(source, tokens.ids, tokens.text);
    out.byte_tokens = byte_tokens_of(tokens.text);
    Rng rng(sampling.seed);
    for (int i = 0; i < n; ++i) {
        if (progress && !progress(i, n)) throw Cancelled{};
        const std::vector<int> next = generate(model, tokenizer, ids, 1, sampling, rng);
        if (next.empty()) {  // BOS / EOS or the model's max_len
            out.stopped_because = static_cast<int>(ids.size()) >= max_len
                                      ? "the model's max_len (" + std::to_string(max_len) + " tokens)"
                                      : "the model chose its end-of-text token";
            break;
        }
        ids.push_back(next.front());
        ++out.generated;
    }
    // Decode prompt + continuation together (a tokenizer may treat the first piece
    // specially) and keep what the continuation added.
    const std::string before = tokenizer.decode(prompt), after = tokenizer.decode(ids);
    const std::vector<int> tail(ids.end() - out.generated, ids.end());
    out.text = after.compare(0, before.size(), before) == 0 ? after.substr(before.size()) : tokenizer.decode(tail);
    return out;
}

}  // namespace hs
