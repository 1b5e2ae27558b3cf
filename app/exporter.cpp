#include "app/exporter.h"

#include <cstdio>

#include "app/i18n/i18n.h"
#include "app/trace_view.h"
#include "core/io/atomic_file.h"
#include "core/error.h"
#include "core/image/figure_file.h"
#include "core/io/file_names.h"
#include "core/io/trace_export.h"

namespace hs {
namespace {

// "" for the encoder's (or a decoder-only model's) self-attention: the usual case.
// Figures from the window speak the interface language (the CLI's stay English).
std::string map_prefix(MapKind kind) {
    switch (kind) {
        case MapKind::Self: return "";
        case MapKind::DecoderSelf: return std::string(tr("decoder self-attention")) + " · ";
        case MapKind::DecoderCross: return std::string(tr("cross-attention")) + " · ";
    }
    return "";
}

// The text whose tokens are the map's queries.
const std::string& query_text(const AppState& state) {
    return state.map != MapKind::Self && !state.decoder_text.empty() ? state.decoder_text : state.text;
}

// figure_options for a map of the selected kind: its axis titles from core.
HeatmapOptions map_figure_options(const AppState& state, const std::string& title) {
    HeatmapOptions o = figure_options(state, title, "", "");
    set_attention_axis_titles(o, state.map == MapKind::DecoderCross);
    o.row_axis_title = tr(o.row_axis_title.c_str());
    o.col_axis_title = tr(o.col_axis_title.c_str());
    return o;
}

}  // namespace

HeatmapOptions figure_options(const AppState& state, const std::string& title, const std::string& row_axis,
                              const std::string& col_axis) {
    HeatmapOptions o;
    o.colormap = state.colormap;
    o.scale = state.scale;
    o.auto_range = state.auto_range;
    o.title = title;
    o.row_axis_title = row_axis;
    o.col_axis_title = col_axis;
    o.cell_values = state.figure_values;
    o.figure_scale = state.figure_scale;
    return o;
}

std::string export_title(const Trace& trace, const AppState& state) {
    char what[96];
    std::snprintf(what, sizeof what, tr("layer %d · head %d"), state.layer, state.head);
    return figure_title(trace.model_name, map_prefix(state.map) + what, query_text(state));
}

std::string file_stem_of(const Trace& trace) {
    return file_stem(figure_model_name(trace.model_name));
}

std::string export_stem(const Trace& trace, const AppState& state) {
    return file_stem_of(trace) + "_L" + std::to_string(state.layer) + "_H" + std::to_string(state.head);
}

namespace {

// The selected head's weights, or an error naming what is missing.
const Matrix& selected_weights(const TraceView& view, const AppState& state) {
    const Matrix* m = view.trace ? view.selected_map(state, false) : nullptr;
    if (!m) throw Error("cannot export: the trace has no layer " + std::to_string(state.layer) +
                        " head " + std::to_string(state.head) + ".");
    return *m;
}

}  // namespace

std::string export_head_figure(const TraceView& view, const AppState& state, const std::string& path,
                               std::string* note) {
    const Matrix& m = selected_weights(view, state);
    const Trace& trace = *view.trace;
    const HeatmapOptions options =
        map_figure_options(state, export_title(trace, state));
    write_heatmap_figure(path, m, query_stack(trace, state.map)->tokens, key_stack(trace, state.map)->tokens, options,
                         note);
    return path;
}

std::string export_grid_figure(const Trace& trace, const AppState& state, const std::string& path,
                               std::string* note) {
    const std::vector<LayerTrace>* layers = layers_of(trace, state.map);
    if (!layers || layers->empty()) throw Error("cannot export: the trace has no layers.");
    std::vector<std::vector<Matrix>> maps;
    for (int l = 0; l < static_cast<int>(layers->size()); ++l) {
        const HeadMaps* hm = stored_head_maps(trace, state.map, l);
        if (!hm) throw Error("cannot export: layer " + std::to_string(l) + " has no maps.");
        if (!hm->resident)  // issue 6: dropped by the map budget (long input)
            throw Error("cannot export the grid: the input is so long that layer " + std::to_string(l) +
                        "'s maps were not kept in memory; export single heads, or use 'headscope export --grid'.");
        maps.push_back(hm->weights);
    }
    const std::string title =
        figure_title(trace.model_name, map_prefix(state.map) + tr("all layers × heads"), query_text(state));
    const HeatmapOptions options = map_figure_options(state, title);
    write_grid_figure(path, maps, query_stack(trace, state.map)->tokens, key_stack(trace, state.map)->tokens, options,
                      note);
    return path;
}

std::string export_head_csv(const TraceView& view, const AppState& state, const std::string& path) {
    const Matrix& m = selected_weights(view, state);
    const Trace& trace = *view.trace;
    write_file_atomic(path, weights_to_csv(m, query_stack(trace, state.map)->tokens,
                                           key_stack(trace, state.map)->tokens));
    return path;
}

std::string export_trace_json(const Trace& trace, const std::string& path) {
    if (!all_maps_resident(trace))  // issue 6: some layers' maps were dropped (long input)
        throw Error("cannot export the trace JSON: the input is so long that only some layers' maps were kept in memory; use 'headscope forward --json' (it recomputes them layer by layer).");
    write_file_atomic(path, trace_to_json(trace).dump() + "\n");
    return path;
}

}  // namespace hs
