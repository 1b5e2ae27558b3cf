// headscope generate MODEL [--text "…"] [--tokens N] [--temperature T --top-k K --top-p P
// --seed S]: continuation of a decoder language model (core/continuation.h; greedy unless
// --temperature > 0; no text: start from BOS); prints the continuation only.
#include <cstdio>
#include <limits>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/continuation.h"
#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/open_source.h"
#include "core/source.h"

namespace hs {

namespace {

// A floating-point option's value, or `fallback` when it is not given.
float number_option(const Args& args, const char* name, float fallback) {
    const auto v = args.value(name);
    if (!v) return fallback;
    try {
        std::size_t used = 0;
        const float x = std::stof(*v, &used);
        if (used == v->size()) return x;
    } catch (const std::exception&) {
    }
    throw UsageError{std::string("--") + name + " takes a number, got '" + *v + "'"};
}

}  // namespace

int cmd_generate(int argc, char** argv) {
    const Args args(argc, argv, 2, {"text", "text-file", "tokens", "temperature", "top-k", "top-p", "seed"}, {});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const int n = static_cast<int>(args.integer("tokens", 0, source->config().max_len).value_or(32));
    const std::string text = input_text(args);
    Sampling sampling;
    sampling.temperature = number_option(args, "temperature", 0.0f);
    sampling.top_k = static_cast<int>(args.integer("top-k", 0, 1 << 30).value_or(0));
    sampling.top_p = number_option(args, "top-p", 1.0f);
    sampling.seed = static_cast<std::uint64_t>(args.integer("seed", 0, std::numeric_limits<long long>::max()).value_or(0));
    const bool sampled_options = args.value("top-k") || args.value("top-p") || args.value("seed");
    if (sampled_options && sampling.greedy())
        throw UsageError{"--top-k, --top-p and --seed shape sampling: give a --temperature above 0 too"};
    try {
        check_sampling(sampling);
    } catch (const Error& e) {
        throw UsageError{e.what()};
    }
    const Continuation c = continue_text(*source, text, n, nullptr, sampling);
    note_unread_text(*source, c.unknown_words, c.byte_tokens);
    if (!c.stopped_because.empty())
        std::fprintf(stderr, "note: generated %d of the %d tokens asked for: %s\n", c.generated, n,
                     c.stopped_because.c_str());
    std::printf("%s\n", c.text.c_str());
    return 0;
}

}  // namespace hs
