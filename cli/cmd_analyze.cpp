// headscope analyze MODEL (--text "…" | --text-file F) [--csv F] [--json F] [--corpus]:
// per-head metrics, role labels, redundant pairs (and rollout in the JSON) for one text,
// or with --corpus aggregated (mean ± std) over many sentences: the lines of --text-file,
// or the English samples of assets/samples.json when no text is given.
// With --relations FILE (a relations file: headscope corpus --json), each head's accuracy
// at pointing from a dependent to its gold partner, per relation, against three
// baselines (fixed offset, fixed position, nearest candidate word) and whether it is
// claimed (core/analysis/relation_probe.h); --csv writes every head's.
#include <cmath>
#include <cstdio>

#include <unistd.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/open_source.h"
#include "core/analysis/analysis_export.h"
#include "core/analysis/corpus.h"
#include "core/analysis/relation_probe.h"
#include "core/corpus/annotated_json.h"
#include "core/analysis/trace_analysis.h"
#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/assets.h"

namespace hs {

namespace {

void print_table(const std::vector<HeadMetrics>& metrics, const std::vector<HeadLabels>& labels) {
    std::printf("%-6s %-18s %7s %7s %7s %7s %7s %7s %7s %7s\n", "head", "label", "prev", "self",
                "first", "punct", "normH", "dist", "conf", "induct");
    for (std::size_t k = 0; k < metrics.size(); ++k) {
        const HeadMetrics& m = metrics[k];
        const std::string name = std::to_string(m.layer) + "." + std::to_string(m.head);
        std::printf("%-6s %-18s", name.c_str(), role_name(labels[k].primary.role));
        for (Metric c : {Metric::PrevToken, Metric::Self, Metric::FirstToken, Metric::Punct,
                         Metric::NormEntropy, Metric::Distance, Metric::Confidence, Metric::Induction})
            std::isnan(m[c]) ? std::printf(" %7s", "-") : std::printf(" %7.3f", m[c]);
        std::printf("   %s\n", labels[k].primary.reason.c_str());
    }
}

void print_pairs(const std::vector<HeadPair>& pairs, int heads) {
    std::printf("most redundant pairs (Jensen-Shannon divergence, nats):\n");
    for (const HeadPair& p : pairs)
        std::printf("  %s ~ %s  %.4f\n", head_name(p.a, heads).c_str(), head_name(p.b, heads).c_str(), p.jsd);
}

void write_named(const std::string& path, const std::string& bytes) {
    write_output(path, bytes);
    if (path != "-") std::fprintf(stderr, "wrote %s\n", path.c_str());
}

int analyze_relations(const TraceSource& source, const std::string& file, const Args& args, bool quiet) {
    const std::vector<corpus::AnnotatedSentence> sentences =
        corpus::parse_relations_json(read_text_file(file), file);
    const bool terminal = !quiet && isatty(2);  // a progress line only where it redraws in place
    std::vector<std::string> skipped;
    const std::vector<RelationRun> runs = probe_relations_by_language(source, sentences, skipped, [&](int done, int total) {
        if (terminal && done % 25 == 0) std::fprintf(stderr, "\rprobed %d/%d sentences", done, total);
        return true;
    });
    if (terminal) std::fprintf(stderr, "\n");
    for (const std::string& s : skipped) std::fprintf(stderr, "skipped %s\n", s.c_str());
    if (const auto path = args.value("csv")) write_named(*path, relations_csv(runs));
    if (quiet) return 0;
    for (const RelationRun& run : runs) {
        std::printf("model: %s, language %s: %d sentences\n", source.name().c_str(), run.lang.c_str(), run.analysed);
        if (run.merged > 0)
            std::printf("(%d of them read in pieces: probed on word-word maps, attention to a word the sum over its\n"
                        " pieces and from a word the mean, as Clark et al. 2019 do)\n",
                        run.merged);
        std::printf("%-12s %5s  %-6s %8s  %-16s %-16s %9s  %-20s %7s  %s\n", "relation", "arcs", "best", "accuracy",
                    "offset", "position", "candidate", "best baseline", "margin", "claim");
        for (const RelationScore& s : run.scores) {
            const std::string best = head_name(s.best_head, run.heads);
            char offset[32], position[32], candidate[16] = "-";
            std::snprintf(offset, sizeof offset, "%.3f (-%d)", s.offset_accuracy, s.offset_baseline);
            std::snprintf(position, sizeof position, "%.3f (@%d)", s.position_accuracy, s.position_baseline);
            if (s.has_candidate_baseline) std::snprintf(candidate, sizeof candidate, "%.3f", s.candidate_accuracy);
            std::printf("%-12s %5d  %-6s %8.3f  %-16s %-16s %9s  %-20s %+7.3f  %s\n", corpus::relation_name(s.relation),
                        s.arcs, best.c_str(), s.best_accuracy, offset, position, candidate,
                        s.best_baseline_text().c_str(), s.margin(), s.claimed() ? "claimed" : "-");
        }
    }
    return 0;
}

}  // namespace

int cmd_analyze(int argc, char** argv) {
    const Args args(argc, argv, 2,
                    {"text", "text-file", "csv", "json", "induction-len", "seed", "pairs", "relations"},
                    {"corpus", "no-induction", "quiet", "keep-first"});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const bool quiet = args.flag("quiet") || args.value("csv") == "-" || args.value("json") == "-";
    check_output_paths(args, {"csv", "json"});
    if (args.flag("keep-first") && (args.flag("corpus") || args.value("relations")))
        throw UsageError{"--keep-first cuts the --text; corpus and relation sentences longer than the model reads "
                         "are skipped and counted"};
    if (const auto file = args.value("relations")) {
        for (const char* other : {"text", "text-file", "json"})
            if (args.value(other)) throw UsageError{std::string("--relations reads its sentences from the file; --") + other + " does not go with it"};
        if (args.flag("corpus")) throw UsageError{"--relations reads its sentences from the file; --corpus does not go with it"};
        return analyze_relations(*source, *file, args, quiet);
    }
    AnalysisOptions options;
    options.induction = !args.flag("no-induction") && supports_induction(*source);
    options.induction_options.m = static_cast<int>(args.integer("induction-len", 2, 100000).value_or(24));
    options.induction_options.seed = static_cast<std::uint64_t>(args.integer("seed", 0, 1LL << 62).value_or(1));
    options.redundant_pairs = static_cast<int>(args.integer("pairs", 0, 1000000).value_or(10));

    if (args.flag("corpus")) {
        std::vector<std::string> sentences;
        if (args.value("text") && args.value("text-file"))
            throw UsageError{"give the sentences with --text-file, or one with --text, not both"};
        if (const auto f = args.value("text-file")) sentences = split_lines(read_text_file(*f));
        else if (const auto t = args.value("text")) sentences = {*t};
        else sentences = load_sample_texts(assets_dir() + "/samples.json", "en");
        if (sentences.empty()) throw Error("the corpus has no non-empty lines");
        CorpusOptions corpus_options;
        corpus_options.induction = options.induction;
        corpus_options.induction_options = options.induction_options;
        int last_reported = -1;
        const bool terminal = !quiet && isatty(2);  // a progress line only where it redraws in place
        const CorpusResult corpus = analyze_corpus(*source, sentences, corpus_options, [&](int done, int total) {
            if (done != last_reported && terminal) std::fprintf(stderr, "\ranalysed %d/%d sentences", done, total);
            last_reported = done;
            return true;
        });
        if (terminal) std::fprintf(stderr, "\n");
        for (const std::string& s : corpus.skipped) std::fprintf(stderr, "skipped %s\n", s.c_str());
        std::vector<HeadMetrics> means;
        for (const HeadStats& h : corpus.heads) means.push_back(h.means());
        const std::vector<HeadLabels> labels = label_heads(means, options.thresholds);
        if (const auto path = args.value("csv")) write_named(*path, corpus_csv(corpus, labels));
        if (const auto path = args.value("json"))
            write_named(*path, corpus_to_json(source->name(), corpus, labels, options.redundant_pairs).dump() + "\n");
        if (!quiet) {
            std::printf("model: %s, %d of %d sentences (means over sentences)\n", source->name().c_str(),
                        corpus.analysed, corpus.total);
            print_table(means, labels);
            print_pairs(most_redundant_pairs(corpus.mean_jsd, options.redundant_pairs),
                        corpus.heads.empty() ? 0 : source->config().heads);
        }
        return 0;
    }

    const SourceInput input = read_source_input(args, *source);
    TraceOptions trace_options;
    trace_options.hidden_states = false;
    const Trace trace = source->run(input, trace_options);
    note_input_losses(*source, trace);
    const TraceAnalysis analysis = analyze_trace(trace, source.get(), options);
    if (const auto path = args.value("csv")) write_named(*path, metrics_csv(analysis.metrics, analysis.labels));
    if (const auto path = args.value("json")) write_named(*path, analysis_to_json(trace, analysis).dump() + "\n");
    if (!quiet) {
        std::printf("model: %s\ntokens (%zu):", trace.model_name.c_str(), trace.main.tokens.size());
        for (const auto& tok : trace.main.tokens) std::printf(" [%s]", tok.c_str());
        std::printf("\n");
        print_table(analysis.metrics, analysis.labels);
        print_pairs(analysis.redundant, analysis.heads);
    }
    return 0;
}

}  // namespace hs
