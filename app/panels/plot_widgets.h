#pragma once
// Plots for the Analysis window, without ImPlot (none in Debian): matrices are textures
// drawn by HeatmapRenderer (GPU, core's LUTs); 1-D plots (bars, lines) are a few
// ImDrawList rectangles and polylines. Each returns what the pointer is over, so the
// caller writes the hover readout.
#include <functional>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/analysis_view.h"
#include "app/gl/heatmap_renderer.h"
#include "core/analysis/head_labels.h"

namespace hs {

// Colour of a role's chip (distinct hues; mixed is grey).
ImU32 role_color(Role role);
// A small filled rounded rectangle with the role name, inline (advances the cursor).
void role_chip(Role role);
// Why a role fired ("prev_token 0.62 ≥ 0.40"), the metric named in the interface language.
std::string reason_text(const std::string& reason);
// The chip of a head's primary label; hovering it shows `where` the label was measured and
// the rule that fired ("prev_peak 0.52 ≥ 0.40, uniform 0.10").
void label_chip(const HeadLabels& labels, const char* where);

struct PlotHover {
    int row = -1, col = -1;  // cell / bar under the pointer, −1 when none
    bool clicked = false;    // left click on it this frame
};

// Label of row / column i of a matrix plot ("" draws nothing).
using AxisLabel = std::function<std::string(int)>;

// What a matrix plot draws with: the GPU heatmap renderer, at the UI's scale.
struct PlotCanvas {
    HeatmapRenderer& renderer;
    float ui_scale = 1.0f;
};

// The (rows, cols) matrix in `tex` drawn into a box of `size` (square cells when
// `square`), with row labels left, column labels above (every k-th so they never
// overlap), a colour bar right, and a white frame around the hovered cell.
PlotHover draw_matrix_plot(const PlotCanvas& canvas, const char* id, const KeyedTexture& tex, int rows, int cols,
                           ImVec2 size, Colormap cmap, const ColorScale& scale, const AxisLabel& row_label,
                           const AxisLabel& col_label, bool square = true);

// Vertical bars (NaN values skipped) from `base` (0; a log chart's floor) with optional ±
// error whiskers, a line at the base, a
// value axis from `lo` to `hi` and x labels under the bars (thinned so none overlap); bar i coloured
// colors[i] when given. Returns the bar under the pointer in `col`.
PlotHover draw_bar_chart(const char* id, const std::vector<double>& values, const std::vector<double>* errors,
                         ImVec2 size, double lo, double hi, const AxisLabel& x_label,
                         const std::vector<ImU32>* colors = nullptr, double base = 0.0);

// A threshold drawn across a chart: a dashed line at `value`, `label` above its right end.
struct ChartLine {
    double value = 0.0;
    std::string label;
};

// The induction score from which a head counts as an induction head (its role label's
// threshold, LabelThresholds::induction), as the training and experiment charts draw it.
ChartLine induction_head_line();

// Lines over x = 0..n−1 (one per series, NaNs break the line) with dots at the points, and
// `threshold` when given; returns the x under the pointer in `col` and the nearest series in `row`.
PlotHover draw_line_chart(const char* id, const std::vector<std::vector<double>>& series,
                          const std::vector<ImU32>& colors, ImVec2 size, double lo, double hi,
                          const AxisLabel& x_label, const ChartLine* threshold = nullptr);

// Min and max of the finite values (lo = hi = 0 when none).
void finite_range(const std::vector<double>& v, double& lo, double& hi);
// A palette colour for series i (distinct hues).
ImU32 series_color(int i);

}  // namespace hs
