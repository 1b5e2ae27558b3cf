// headscope export MODEL --text "..." --layer L --head H [--png F] [--svg F] [--csv F] [--json F]
// headscope export MODEL --text "..." --grid [--png F] [--svg F]   (all layers × heads)
// Options: --decoder (decoder stack), --cross (cross-attention maps), --colormap NAME,
//          --map-budget MiB (maps kept besides the exported layer; default 0 for one head),
//          --gamma G, --log, --auto-range, --scale 1|2|4 (figure size), --no-values
//          (no numbers in the cells). Nothing is written when any output cannot be.
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/open_source.h"
#include "core/error.h"
#include "core/image/font.h"
#include "core/image/heatmap_image.h"
#include "core/image/png.h"
#include "core/image/utf8.h"
#include "core/io/trace_export.h"

namespace hs {

namespace {

struct MapSelection {
    const StackTrace* stack = nullptr;  // query tokens
    const StackTrace* keys = nullptr;   // key tokens (the encoder for cross-attention)
    bool cross = false;
};

MapSelection select_maps(const Trace& t, bool decoder, bool cross) {
    if (cross && !decoder && t.decoder) decoder = true;  // cross-attention lives in the decoder
    if (cross && !t.decoder)
        throw Error("this model has no cross-attention (it is " + to_string(t.config.arch) + ")");
    if (decoder) check_has_decoder_stack(t);
    MapSelection s;
    s.stack = decoder ? &*t.decoder : &t.main;
    s.keys = cross ? &t.main : s.stack;
    s.cross = cross;
    return s;
}

std::string title_of(const Trace& t, const MapSelection& s, const std::string& what, const std::string& text) {
    return figure_title(t.model_name, (s.cross ? "cross-attention " : "") + what, text);
}

// The figure file formats asked for: PNG and/or SVG of the same figure.
template <typename Figure>
void write_figures(const std::optional<std::string>& png, const std::optional<std::string>& svg,
                   const Figure& render_png, const std::function<std::string()>& render_svg) {
    if (png) render_png(*png);
    if (svg) {
        write_output(*svg, render_svg());
        std::fprintf(stderr, "wrote %s\n", svg->c_str());
    }
}

// The figure's look from --colormap, --gamma, --log, --auto-range, --scale, --no-values.
HeatmapOptions heatmap_options_of(const Args& args) {
    HeatmapOptions options;
    if (const auto c = args.value("colormap")) options.colormap = parse_colormap(*c);
    if (const auto g = args.value("gamma")) {
        // The whole value must be a positive finite number ("2x", "0", "-1", "nan" are not).
        float gamma = 0.0f;
        std::size_t used = 0;
        try {
            gamma = std::stof(*g, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != g->size() || !std::isfinite(gamma) || gamma <= 0.0f)
            throw UsageError{"--gamma needs a positive number such as 0.5 or 2, got '" + *g + "'"};
        options.scale.gamma = gamma;
    }
    options.scale.log = args.flag("log");
    options.auto_range = args.flag("auto-range");
    const long long scale = args.integer("scale", 1, 4).value_or(1);
    if (scale == 3) throw UsageError{"--scale takes 1, 2 or 4, got 3"};
    options.figure_scale = static_cast<int>(scale);
    options.cell_values = !args.flag("no-values");
    return options;
}

// Usage errors of what to export and where: an output, figures only for --grid, a PNG file
// (not stdout), and --layer with --head or --grid.
void check_export_outputs(const Args& args, bool grid) {
    const auto png = args.value("png"), svg = args.value("svg"), csv = args.value("csv"), json = args.value("json");
    if (!png && !svg && !csv && !json) throw UsageError{"say where to write: --png, --svg, --csv or --json FILE"};
    if (grid && (csv || json)) throw UsageError{"--grid writes figures only (--png FILE, --svg FILE)"};
    if (png && *png == "-") throw UsageError{"--png needs a file name (--svg, --csv and --json can be '-' for stdout)"};
    if (grid && (args.value("layer") || args.value("head")))
        throw UsageError{"--grid draws every layer and head; --layer L --head H exports one map (without --grid)"};
    if (!grid && (!args.value("layer") || !args.value("head")))
        throw UsageError{"give --layer L and --head H, or --grid for all of them"};
}

// A PNG draws a character no installed font has as a box: names them, and what to install.
// (An SVG leaves the fonts to its viewer.)
void note_missing_characters(const std::vector<std::string>& queries, const std::vector<std::string>& keys,
                             const std::string& title) {
    const Font& font = Font::system_default();
    if (!font.available()) return;
    std::string all = title;  // one text, each label on a line of its own (a line break draws nothing)
    for (const auto* tokens : {&queries, &keys})
        for (const std::string& token : *tokens) all += "\n" + token;
    const std::u32string missing = font.missing_characters(all);
    if (missing.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 8; ++i) {
        char code[16];
        std::snprintf(code, sizeof code, "U+%04X ", static_cast<unsigned>(missing[i]));
        list += (i ? ", " : "") + std::string(code) + codepoints_to_utf8(missing.substr(i, 1));
    }
    if (missing.size() > 8) list += " and " + std::to_string(missing.size() - 8) + " more";
    std::fprintf(stderr,
                 "note: no installed font has %s: the PNG draws a box for each (fonts-noto-core and "
                 "fonts-noto-color-emoji cover most scripts; HEADSCOPE_FONT=FILE adds a font)\n",
                 list.c_str());
}

}  // namespace

// Says so when the maps were drawn as block means to fit the image (shrink_note).
void print_note(const std::string& note) {
    if (!note.empty()) std::fprintf(stderr, "note: %s; --csv and --json keep every value\n", note.c_str());
}

int cmd_export(int argc, char** argv) {
    std::set<std::string> values = kInputOptions;
    values.insert({"layer", "head", "png", "svg", "csv", "json", "colormap", "gamma", "map-budget", "scale"});
    std::set<std::string> flags = kInputFlags;
    flags.insert({"grid", "decoder", "cross", "log", "auto-range", "no-values"});
    const Args args(argc, argv, 2, values, flags);
    args.expect_at_most(1);
    const auto source = open_source(args.positional(0, "MODEL"));
    const bool grid = args.flag("grid");
    const auto png = args.value("png"), svg = args.value("svg"), csv = args.value("csv"), json = args.value("json");
    check_export_outputs(args, grid);

    HeatmapOptions options = heatmap_options_of(args);
    // Every output checked first: one that cannot be written fails the export before any is.
    check_output_paths(args, {"png", "svg", "csv", "json"});

    const SourceInput input = read_source_input(args, *source);
    // One head needs only its own layer's maps: by default (budget 0) the forward keeps
    // that layer alone, so a long text costs one layer of maps, not L of them.
    TraceOptions run_options;
    const auto layer_arg = args.integer("layer", -1, 1 << 20);
    run_options.map_budget_bytes = read_map_budget(args, grid ? run_options.map_budget_bytes : 0);
    run_options.resident_layer = grid ? 0 : static_cast<int>(*layer_arg);
    run_options.resident_in_decoder = args.flag("decoder") || args.flag("cross");
    const Trace trace = source->run(input, run_options);
    note_input_losses(*source, trace);
    const MapSelection sel = select_maps(trace, args.flag("decoder"), args.flag("cross"));
    const HeadRef block_of_layer{0, 0, sel.stack != &trace.main, sel.cross};
    const auto& q_tokens = sel.stack->tokens;
    const auto& k_tokens = sel.keys->tokens;
    set_attention_axis_titles(options, sel.cross);
    const std::string& title_text = sel.stack == &trace.main ? input.text : input.decoder_text;

    if (grid) {
        // The grid draws every map at full resolution: dropped layers are recomputed.
        std::vector<std::vector<Matrix>> maps;
        for (int il = 0; il < static_cast<int>(sel.stack->layers.size()); ++il) {
            HeadRef block = block_of_layer;
            block.layer = il;
            HeadMaps recomputed;
            maps.push_back(kept_or_recomputed(*source, trace, block, false, recomputed).weights);
        }
        options.title = title_of(trace, sel, "all layers × heads", title_text);
        write_figures(
            png,
            svg,
            [&](const std::string& path) {
                const GridImage image = render_grid(maps, q_tokens, k_tokens, options);
                print_note(shrink_note(image.layout, options));
                note_missing_characters(q_tokens, k_tokens, options.title);
                write_png(path, image.image);
                std::fprintf(stderr, "wrote %s (%d×%d, %zu layers × %zu heads)\n", path.c_str(),
                             image.image.width(), image.image.height(), maps.size(),
                             maps.empty() ? size_t{0} : maps[0].size());
            },
            [&] { return render_grid_svg(maps, q_tokens, k_tokens, options).svg; });
        return 0;
    }

    const int layer = static_cast<int>(*layer_arg);
    const int head = static_cast<int>(*args.integer("head", -1, 1 << 20));
    check_layer_head(trace, layer, head, sel.stack != &trace.main, sel.cross);
    // Resident unless --map-budget asked otherwise; then its layer is recomputed.
    HeadRef block = block_of_layer;
    block.layer = layer;
    HeadMaps recomputed;
    const Matrix& weights = kept_or_recomputed(*source, trace, block, false, recomputed).weights[head];
    const std::string what = "layer " + std::to_string(layer) + " · head " + std::to_string(head);
    options.title = title_of(trace, sel, what, title_text);
    write_figures(
        png,
        svg,
        [&](const std::string& path) {
            const HeatmapImage image = render_heatmap(weights, q_tokens, k_tokens, options);
            print_note(shrink_note(image.layout, options));
            note_missing_characters(q_tokens, k_tokens, options.title);
            write_png(path, image.image);
            std::fprintf(stderr, "wrote %s (%d×%d)\n", path.c_str(), image.image.width(), image.image.height());
        },
        [&] { return render_heatmap_svg(weights, q_tokens, k_tokens, options).svg; });
    if (csv) {
        write_output(*csv, weights_to_csv(weights, q_tokens, k_tokens));
        if (*csv != "-") std::fprintf(stderr, "wrote %s\n", csv->c_str());
    }
    if (json) {
        const nlohmann::json j{{"model", trace.model_name},
                               {"layer", layer},
                               {"head", head},
                               {"block", sel.cross ? "cross" : "self"},
                               {"query_tokens", q_tokens},
                               {"key_tokens", k_tokens},
                               {"weights", matrix_to_json(weights)}};
        write_output(*json, j.dump() + "\n");
        if (*json != "-") std::fprintf(stderr, "wrote %s\n", json->c_str());
    }
    return 0;
}

}  // namespace hs
