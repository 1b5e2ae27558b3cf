#include "app/exporter.h"

#include "app/trace_view.h"
#include "core/io/atomic_file.h"
#include "core/error.h"
#include "core/image/heatmap_image.h"
#include "core/image/png.h"
#include "core/io/trace_export.h"

namespace hs {
namespace {

HeatmapOptions options_for(const AppState& state, const std::string& title) {
    HeatmapOptions o;
    o.colormap = state.colormap;
    o.scale = state.scale;
    o.auto_range = state.auto_range;
    o.title = title;
    return o;
}

const char* map_name(MapKind kind) {
    switch (kind) {
        case MapKind::Self: return "self-attention";
        case MapKind::DecoderSelf: return "decoder self-attention";
        case MapKind::DecoderCross: return "cross-attention";
    }
    return "";
}

}  // namespace

std::string export_title(const Trace& trace, const AppState& state) {
    return trace.model_name + "  " + map_name(state.map) + "  layer " +
           std::to_string(state.layer) + "  head " + std::to_string(state.head);
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

std::string export_head_png(const TraceView& view, const AppState& state, const std::string& path,
                            std::string* note) {
    const Matrix& m = selected_weights(view, state);
    const Trace& trace = *view.trace;
    const HeatmapOptions options = options_for(state, export_title(trace, state));
    const HeatmapImage img =
        render_heatmap(m, query_stack(trace, state.map)->tokens, key_stack(trace, state.map)->tokens, options);
    if (note) *note = shrink_note(img.layout, options);
    write_png(path, img.image);
    return path;
}

std::string export_grid_png(const Trace& trace, const AppState& state, const std::string& path,
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
    const std::string title = trace.model_name + "  " + map_name(state.map) + "  all layers x heads";
    const HeatmapOptions options = options_for(state, title);
    const GridImage img =
        render_grid(maps, query_stack(trace, state.map)->tokens, key_stack(trace, state.map)->tokens, options);
    if (note) *note = shrink_note(img.layout, options);
    write_png(path, img.image);
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
