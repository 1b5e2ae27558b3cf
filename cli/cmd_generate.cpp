// headscope generate MODEL [--text "…"] [--tokens N]: greedy continuation of a decoder
// language model (core/continuation.h; no text: start from BOS); prints the continuation only.
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/continuation.h"
#include "core/io/atomic_file.h"
#include "core/open_source.h"
#include "core/source.h"

namespace hs {

int cmd_generate(int argc, char** argv) {
    const Args args(argc, argv, 2, {"text", "text-file", "tokens"}, {});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const int n = static_cast<int>(args.integer("tokens", 0, source->config().max_len).value_or(32));
    const std::string text = input_text(args);
    const Continuation c = continue_text(*source, text, n);
    note_unread_text(*source, c.unknown_words, c.byte_tokens);
    if (!c.stopped_because.empty())
        std::fprintf(stderr, "note: generated %d of the %d tokens asked for: %s\n", c.generated, n,
                     c.stopped_because.c_str());
    std::printf("%s\n", c.text.c_str());
    return 0;
}

}  // namespace hs
