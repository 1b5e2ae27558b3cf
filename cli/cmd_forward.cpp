// headscope forward MODEL --text "..." [--json FILE] [--save DIR]: run and write the trace.
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/io/model_dir.h"
#include "core/io/trace_export.h"

namespace hs {

namespace {

// A short human summary: tokens, and for each layer and head the key each query looks at most.
void print_summary(const Trace& t) {
    std::printf("model: %s\ntokens (%zu):", t.model_name.c_str(), t.main.tokens.size());
    for (const auto& tok : t.main.tokens) std::printf(" [%s]", tok.c_str());
    std::printf("\n");
    for (std::size_t il = 0; il < t.main.layers.size(); ++il) {
        const auto& maps = t.main.layers[il].self_attn.weights;
        for (std::size_t h = 0; h < maps.size(); ++h) {
            std::printf("layer %zu head %zu: most attended key per query:", il, h);
            for (Eigen::Index i = 0; i < maps[h].rows(); ++i) {
                Eigen::Index j = 0;
                maps[h].row(i).maxCoeff(&j);
                std::printf(" %ld", static_cast<long>(j));
            }
            std::printf("\n");
        }
    }
}

}  // namespace

int cmd_forward(int argc, char** argv) {
    std::set<std::string> values = kInputOptions;
    values.insert({"json", "save", "detail-layer"});
    const Args args(argc, argv, 2, values, {"scores", "quiet"});
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const int n_layers = source->config().layers;
    const auto detail_layer = args.integer("detail-layer", 0, 1000);
    if (detail_layer && *detail_layer >= n_layers)
        throw Error("--detail-layer " + std::to_string(*detail_layer) +
                    " is out of range: the model has " + std::to_string(n_layers) + " layers (0.." +
                    std::to_string(n_layers - 1) + ")");
    if (const auto dir = args.value("save")) {
        if (!source->model()) throw Error("--save needs a playground model or model directory");
        save_model_dir(*source->model(), *dir);
        std::fprintf(stderr, "wrote model directory %s\n", dir->c_str());
    }
    const SourceInput input = read_source_input(args, *source);
    TraceOptions options;
    options.scores = args.flag("scores");
    if (detail_layer) options.detail_layer = static_cast<int>(*detail_layer);
    const Trace trace = source->run(input, options);
    if (const auto path = args.value("json")) {
        // 10,000 tokens × 8 maps is 800 million numbers (~18 GB of JSON): refuse instead
        // of exhausting memory while building it.
        const std::size_t numbers = trace_number_count(trace);
        if (numbers > kMaxJsonNumbers)
            throw Error("the trace JSON would hold " + std::to_string(numbers / 1'000'000) +
                        " million numbers (about " +
                        std::to_string(numbers * 20 / 1'000'000'000 + 1) +
                        " GB), more than the limit of " +
                        std::to_string(kMaxJsonNumbers / 1'000'000) + " million; use a shorter text (" +
                        std::to_string(trace.main.tokens.size()) +
                        " tokens now) or write single heads with 'headscope export --layer L "
                        "--head H --csv FILE'");
        nlohmann::json j = trace_to_json(trace);
        write_output(*path, j.dump() + "\n");
        if (*path != "-") std::fprintf(stderr, "wrote %s\n", path->c_str());
    } else if (!args.flag("quiet")) {
        print_summary(trace);
    }
    return 0;
}

}  // namespace hs
