// headscope generate MODEL [--text "…"] [--tokens N]: greedy continuation of a decoder
// language model (no text: start from BOS); prints the continuation only.
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/pretrained/generate.h"
#include "core/pretrained/pretrained_source.h"

namespace hs {

int cmd_generate(int argc, char** argv) {
    const Args args(argc, argv, 2, {"text", "text-file", "tokens"}, {});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const auto* pretrained = dynamic_cast<const PretrainedSource*>(source.get());
    if (!pretrained)
        throw Error("generate needs a pretrained language model (a llama2.c .bin or a " +
                    std::string("Hugging Face directory); '") + source->name() + "' is a " +
                    source->kind());
    const TransformerModel& model = pretrained->transformer();
    const int n = static_cast<int>(args.integer("tokens", 0, model.config().max_len).value_or(32));
    std::string text = args.value_or("text", "");
    if (const auto f = args.value("text-file")) text = read_file(*f);

    const Tokens prompt = pretrained->tokenize(text);
    const std::vector<int> generated = generate(model, pretrained->tokenizer(), prompt.ids, n);
    // Decode prompt + continuation together (a tokenizer may treat the first piece
    // specially) and print what the continuation added.
    std::vector<int> all = prompt.ids;
    all.insert(all.end(), generated.begin(), generated.end());
    const std::string before = pretrained->tokenizer().decode(prompt.ids);
    const std::string after = pretrained->tokenizer().decode(all);
    const std::string continuation = after.compare(0, before.size(), before) == 0
                                         ? after.substr(before.size())
                                         : pretrained->tokenizer().decode(generated);
    std::printf("%s\n", continuation.c_str());
    return 0;
}

}  // namespace hs
