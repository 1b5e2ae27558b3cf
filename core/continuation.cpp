#include "core/continuation.h"

#include "core/error.h"
#include "core/model/generate.h"

namespace hs {

bool can_continue(const TraceSource& source) {
    const Model* model = source.model();
    if (!model || !source.continuation_tokenizer()) return false;
    const ModelConfig& c = model->config();
    return c.lm_head != LmHead::None && c.arch == Arch::DecoderOnly && c.mask == MaskKind::Causal;
}

Continuation continue_text(const TraceSource& source, const std::string& text, int n,
                           const ProgressFn& progress) {
    if (!can_continue(source))
        throw Error("continuing a text needs a causal decoder language model whose tokens read back as "
                    "text (a llama2.c .bin, a GPT-2 / Llama / Qwen2 directory or a model HeadScope "
                    "trained); '" + source.name() + "' is a " + source.kind());
    const Model& model = *source.model();
    const Tokenizer& tokenizer = *source.continuation_tokenizer();
    const std::vector<int> prompt = source.tokenize(text).ids;
    std::vector<int> ids = prompt;
    Continuation out;
    for (int i = 0; i < n; ++i) {
        if (progress && !progress(i, n)) throw Cancelled{};
        const std::vector<int> next = generate(model, tokenizer, ids, 1);
        if (next.empty()) break;  // BOS / EOS or the model's max_len
        if (ids.empty()) ids.push_back(tokenizer.bos_id());  // generate started from BOS
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
