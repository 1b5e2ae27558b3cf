// headscope corpus [--lang en|zh|both] [--count N] [--seed S] [--held-out] [--json F]:
// sentences of the bilingual grammar (core/corpus/grammar.h) with their gold relations, of
// the patterns the default model trained on or (--held-out) of the structure families it
// never saw; printed as text with arcs, or written as a relations file for
// `headscope analyze --relations`.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/corpus/annotated_json.h"
#include "core/corpus/grammar.h"

namespace hs {

int cmd_corpus(int argc, char** argv) {
    const Args args(argc, argv, 2, {"lang", "count", "seed", "json"}, {"held-out"});
    args.expect_at_most(0);
    const std::string lang = args.value("lang").value_or("both");
    if (lang != "en" && lang != "zh" && lang != "both")
        throw UsageError{"--lang takes en, zh or both, not '" + lang + "'"};
    const long long count = args.integer("count", 1, 1000000).value_or(20);
    const auto seed = static_cast<std::uint64_t>(args.integer("seed", 0, 1LL << 62).value_or(1));
    const std::vector<corpus::AnnotatedSentence> sentences =
        args.flag("held-out") ? corpus::held_out_corpus(lang, count, seed) : corpus::grammar_corpus(lang, count, seed);
    if (const auto path = args.value("json")) {
        write_output(*path, corpus::relations_json(sentences));
        if (*path != "-") std::fprintf(stderr, "wrote %zu sentences to %s\n", sentences.size(), path->c_str());
        return 0;
    }
    for (const corpus::AnnotatedSentence& s : sentences) {
        std::printf("%s\n", corpus::text_of(s).c_str());
        for (const corpus::Arc& a : s.arcs) {
            std::string partner;
            for (int k = a.partner_begin; k < a.partner_end; ++k) partner += s.tokens[static_cast<std::size_t>(k)];
            std::printf("    %-11s %s (%d) → %s (%d)\n", corpus::relation_name(a.relation),
                        s.tokens[static_cast<std::size_t>(a.dependent)].c_str(), a.dependent, partner.c_str(), a.partner_begin);
        }
    }
    return 0;
}

}  // namespace hs
