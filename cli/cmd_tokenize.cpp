// headscope tokenize MODEL (--text T | --text-file F) [--no-special] [--pieces] [--json F]:
// the ids a model's tokenizer gives a text, on one line. MODEL may also be a tokenizer-only
// file (a GGUF file, vocab-only included, or a tokenizer.json): no weights are read.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/open_source.h"
#include "core/source.h"

namespace hs {

namespace {

// A piece as a JSON string: quoted, so spaces and empty pieces stay visible on one line.
std::string json_quoted(const std::string& piece) {
    return nlohmann::json(piece).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int cmd_tokenize(int argc, char** argv) {
    const Args args(argc, argv, 2, {"text", "text-file", "json"}, {"no-special", "pieces"});
    args.expect_at_most(1);
    if (!args.value("text") && !args.value("text-file"))
        throw UsageError{"give the text to tokenize with --text or --text-file"};
    const std::string model_arg = args.positional(0, "MODEL");
    if (const auto json = args.value("json")) check_output_path(*json);
    const std::string text = input_text(args);
    const bool special = !args.flag("no-special");

    Tokens tokens;
    if (const auto tokenizer = open_tokenizer_file(model_arg)) {
        tokens = tokenizer->encode(text, special);
    } else {
        const auto source = open_source(model_arg);
        if (const Tokenizer* t = source->tokenizer())
            tokens = t->encode(text, special);
        else if (!special)
            throw Error("'" + model_arg + "' has no special tokens to leave out (--no-special)");
        else
            tokens = source->tokenize(text);
    }

    std::string line;
    for (std::size_t i = 0; i < tokens.ids.size(); ++i)
        line += (i ? " " : "") + (args.flag("pieces") ? json_quoted(tokens.text[i]) : std::to_string(tokens.ids[i]));
    std::printf("%s\n", line.c_str());
    if (const auto json = args.value("json")) {
        const nlohmann::json out = {{"text", text}, {"ids", tokens.ids}, {"pieces", tokens.text}};
        write_output(*json, out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    return 0;
}

}  // namespace hs
