// headscope generate MODEL [--text "…"] [--tokens N]: greedy continuation of a decoder
// language model (no text: start from BOS); prints the continuation only.
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/model/generate.h"
#include "core/source.h"

namespace hs {

int cmd_generate(int argc, char** argv) {
    const Args args(argc, argv, 2, {"text", "text-file", "tokens"}, {});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const Model* lm = source->model();
    if (!lm || !source->tokenizer() || lm->config().lm_head == LmHead::None ||
        lm->config().arch != Arch::DecoderOnly)
        throw Error("generate needs a decoder language model (a llama2.c .bin, a GPT-2 / Llama / "
                    "Qwen2 directory, or a decoder with an LM head); '" + source->name() +
                    "' is a " + source->kind());
    const Model& model = *lm;
    const Tokenizer& tokenizer = *source->tokenizer();
    const int n = static_cast<int>(args.integer("tokens", 0, model.config().max_len).value_or(32));
    std::string text = args.value_or("text", "");
    if (const auto f = args.value("text-file")) text = read_text_file(*f);

    const Tokens prompt = source->tokenize(text);
    const std::vector<int> generated = generate(model, tokenizer, prompt.ids, n);
    // Decode prompt + continuation together (a tokenizer may treat the first piece
    // specially) and print what the continuation added.
    std::vector<int> all = prompt.ids;
    all.insert(all.end(), generated.begin(), generated.end());
    const std::string before = tokenizer.decode(prompt.ids);
    const std::string after = tokenizer.decode(all);
    const std::string continuation = after.compare(0, before.size(), before) == 0
                                         ? after.substr(before.size())
                                         : tokenizer.decode(generated);
    std::printf("%s\n", continuation.c_str());
    return 0;
}

}  // namespace hs
