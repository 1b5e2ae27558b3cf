// headscope forward MODEL --text "..." [--json FILE] [--save DIR] [--map-budget MiB]: run and
// write the trace. Maps over the budget (default 256 MiB) are recomputed layer by layer.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/open_source.h"
#include "core/error.h"
#include "core/io/model_dir.h"
#include "core/io/trace_export.h"

namespace hs {

namespace {

// A short human summary: tokens, and for each layer and head the key each query looks at most.
// Layers the map budget dropped are recomputed one at a time (only one is held at once).
void print_summary(const Trace& t, const TraceSource& source) {
    std::printf("model: %s\ntokens (%zu):", t.model_name.c_str(), t.main.tokens.size());
    for (const auto& tok : t.main.tokens) std::printf(" [%s]", tok.c_str());
    std::printf("\n");
    for (std::size_t il = 0; il < t.main.layers.size(); ++il) {
        const HeadRef block{static_cast<int>(il), 0, false, false};
        const auto start = std::chrono::steady_clock::now();
        HeadMaps recomputed;
        const auto& maps = kept_or_recomputed(source, t, block, false, recomputed).weights;
        if (!t.main.layers[il].self_attn.resident)
            std::fprintf(stderr, "layer %zu: maps recomputed in %.0f ms\n", il,
                         std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start).count());
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

// Each kept intermediate: name, shape and the first values of its first and last rows.
void print_taps(const Trace& t) {
    for (const Trace::Tapped& tap : t.taps) {
        const Matrix& m = tap.value;
        std::printf("%s (%ld × %ld):", tap.name.c_str(), static_cast<long>(m.rows()), static_cast<long>(m.cols()));
        for (const Eigen::Index r : {Eigen::Index{0}, m.rows() - 1}) {
            std::printf(" row %ld [", static_cast<long>(r));
            for (Eigen::Index j = 0; j < std::min<Eigen::Index>(m.cols(), 4); ++j)
                std::printf("%s%.4g", j ? " " : "", static_cast<double>(m(r, j)));
            std::printf("%s]", m.cols() > 4 ? " …" : "");
            if (m.rows() == 1) break;
        }
        std::printf("\n");
    }
}

// One stderr line when the map budget dropped layers: how many kept, and their bytes.
void report_resident_maps(const Trace& trace) {
    if (all_maps_resident(trace)) return;
    int kept = 0, total = 0;
    double bytes = 0.0;
    const auto add = [&](const HeadMaps& m) {
        ++total;
        if (!m.resident) return;
        ++kept;
        for (const Matrix& w : m.weights) bytes += static_cast<double>(w.size()) * sizeof(float);
        for (const Matrix& s : m.scores) bytes += static_cast<double>(s.size()) * sizeof(float);
    };
    for (const StackTrace* s : {&trace.main, trace.decoder ? &*trace.decoder : nullptr})
        if (s)
            for (const LayerTrace& lt : s->layers) {
                add(lt.self_attn);
                if (lt.cross_attn) add(*lt.cross_attn);
            }
    // Small maps in bytes or KiB: "0 MiB" read as if nothing were kept.
    char size[32];
    if (bytes < 1024) std::snprintf(size, sizeof size, "%.0f bytes", bytes);
    else if (bytes < (1 << 20)) std::snprintf(size, sizeof size, "%.1f KiB", bytes / 1024);
    else std::snprintf(size, sizeof size, "%.0f MiB", bytes / (1 << 20));
    std::fprintf(stderr,
                 "attention maps: %d of %d blocks kept in memory (%s); the others are "
                 "recomputed from the hidden states when needed\n",
                 kept, total, size);
}

constexpr std::int64_t kForwardMapBudget = std::int64_t{256} << 20;

// Recomputes every block of `trace` that the map budget dropped, layer by layer.
void fill_dropped_maps(const TraceSource& source, Trace& trace, bool scores) {
    const auto fill = [&](StackTrace& stack, bool in_decoder) {
        for (int il = 0; il < static_cast<int>(stack.layers.size()); ++il) {
            LayerTrace& lt = stack.layers[il];
            if (!lt.self_attn.resident)
                lt.self_attn = source.layer_maps(trace, HeadRef{il, 0, in_decoder, false}, scores);
            if (lt.cross_attn && !lt.cross_attn->resident)
                *lt.cross_attn = source.layer_maps(trace, HeadRef{il, 0, in_decoder, true}, scores);
        }
    };
    fill(trace.main, false);
    if (trace.decoder) fill(*trace.decoder, true);
}

// 10,000 tokens × 8 maps is 800 million numbers (~18 GB of JSON): --json refuses a trace
// over kMaxJsonNumbers instead of exhausting memory while building it.
void refuse_json_over_limit(std::size_t numbers, std::size_t tokens) {
    if (numbers <= kMaxJsonNumbers) return;
    throw Error("the trace JSON would hold " + std::to_string(numbers / 1'000'000) + " million numbers (about " +
                std::to_string(numbers * 20 / 1'000'000'000 + 1) + " GB), more than the limit of " +
                std::to_string(kMaxJsonNumbers / 1'000'000) + " million; use a shorter text (" +
                std::to_string(tokens) +
                " tokens now) or write single heads with 'headscope export --layer L --head H --csv FILE'");
}

// Before a forward that --json would refuse (a big model's takes tens of seconds), T the
// tokens the model reads of the text; the exact count is checked again after it.
void refuse_json_before_forward(const TraceSource& source, const SourceInput& input, bool scores) {
    const ModelConfig& c = source.config();
    if (!source.takes_text() || c.has_decoder_stack() || input.text.empty()) return;
    const auto t = static_cast<std::size_t>(
        std::min<long>(static_cast<long>(source.tokenize(input.text).ids.size()), c.max_len));
    refuse_json_over_limit(trace_number_count(c, t, scores), t);
}

}  // namespace

int cmd_forward(int argc, char** argv) {
    std::set<std::string> values = kInputOptions;
    values.insert({"json", "save", "detail-layer", "map-budget", "tap"});
    std::set<std::string> flags = kInputFlags;
    flags.insert({"scores", "quiet", "list-taps", "force"});
    const Args args(argc, argv, 2, values, flags);
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    if (args.flag("list-taps")) {  // the named intermediates --tap can keep
        for (const std::string& name : tap_names(source->config())) std::printf("%s\n", name.c_str());
        return 0;
    }
    const int n_layers = source->config().layers;
    const auto detail_layer = args.integer("detail-layer", 0, 1000);
    if (detail_layer && *detail_layer >= n_layers)
        throw Error("--detail-layer " + std::to_string(*detail_layer) +
                    " is out of range: the model has " + std::to_string(n_layers) + " layers (0.." +
                    std::to_string(n_layers - 1) + ")");
    if (const auto dir = args.value("save")) {
        check_can_save(*source, *dir, args.flag("force"));
        save_model_dir(*source->model(), *dir);
        std::fprintf(stderr, "wrote model directory %s\n", dir->c_str());
    }
    const SourceInput input = read_source_input(args, *source);
    TraceOptions options;
    options.scores = args.flag("scores");
    if (detail_layer) options.detail_layer = static_cast<int>(*detail_layer);
    // 256 MiB by default: the summary and --json refill dropped layers one at a time, so a
    // long text need not hold every map (12 layers × 12 heads × 2048² floats = 2.4 GB).
    options.map_budget_bytes = read_map_budget(args, kForwardMapBudget);
    if (const auto taps = args.value("tap")) options.taps = split_list(*taps);
    if (args.value("json")) refuse_json_before_forward(*source, input, options.scores);
    Trace trace = source->run(input, options);
    note_input_losses(*source, trace);
    report_resident_maps(trace);
    if (const auto path = args.value("json")) {
        refuse_json_over_limit(trace_number_count(trace, options.scores), trace.main.tokens.size());
        // Under the limit every map fits in memory: refill the blocks the budget dropped.
        fill_dropped_maps(*source, trace, options.scores);
        nlohmann::json j = trace_to_json(trace);
        write_output(*path, j.dump() + "\n");
        if (*path != "-") std::fprintf(stderr, "wrote %s\n", path->c_str());
    } else if (!args.flag("quiet")) {
        print_summary(trace, *source);
        print_taps(trace);
    }
    return 0;
}

}  // namespace hs
