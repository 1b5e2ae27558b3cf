#pragma once
// Export of the current selection through core's exporters (same LUTs as the screen).
// Figures are PNG or SVG by the path's extension (core/image/figure_file.h). Every
// function writes atomically and returns the path written; throws hs::Error.
#include <string>

#include "app/state.h"
#include "core/image/heatmap_image.h"
#include "core/model/trace.h"

namespace hs {

struct TraceView;

// The figure options of the window's state: colormap, range, the user's figure scale
// and values-in-cells choice, the given title and axis titles.
HeatmapOptions figure_options(const AppState& state, const std::string& title, const std::string& row_axis,
                              const std::string& col_axis);

// The selected head with labels, axis titles, colour bar and a title naming model, layer,
// head and text (of view.trace; a block the map budget dropped once its maps are
// recomputed). `note`, when given, receives what the figure changed ("" or the
// shrink_note of maps drawn as block means to fit).
std::string export_head_figure(const TraceView& view, const AppState& state, const std::string& path,
                               std::string* note = nullptr);
// Every layer × head of the selected map kind.
std::string export_grid_figure(const Trace& trace, const AppState& state, const std::string& path,
                               std::string* note = nullptr);
// CSV of the selected head's weights (header row of key tokens).
std::string export_head_csv(const TraceView& view, const AppState& state, const std::string& path);
// The whole trace as JSON (DESIGN §5 schema).
std::string export_trace_json(const Trace& trace, const std::string& path);
// "default · layer 0 · head 3 · "Alice helped …"" (figure_title of the selection).
std::string export_title(const Trace& trace, const AppState& state);
// File-name stems: the model's ("default", "random_d_model_8_heads_2") and the
// selection's ("<model>_L0_H3").
std::string file_stem_of(const Trace& trace);
std::string export_stem(const Trace& trace, const AppState& state);

}  // namespace hs
