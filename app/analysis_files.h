#pragma once
// Analysis exports through core (same LUTs as the screen): the metrics table as CSV
// (core/analysis/analysis_export.h), the analysis as JSON, and the plotted matrices as
// labelled figures, PNG or SVG by the path's extension (core/image/figure_file.h). Each writes atomically, returns the path and
// throws hs::Error when there is nothing to export or the file cannot be written.
#include <string>

#include "app/analysis_actions.h"
#include "core/analysis/head_metrics.h"
#include "core/tensor.h"

namespace hs {

// The table shown in the Heads tab (the text's metrics, or the corpus means ± std).
std::string export_metrics_csv(const AnalysisContext& ctx, const std::string& path);
// analysis_to_json / corpus_to_json of what is shown.
std::string export_analysis_json(const AnalysisContext& ctx, const std::string& path);
// (L, H) map of one metric, rows "L0…", columns "H0…".
std::string export_metric_figure(const AnalysisContext& ctx, Metric metric, const std::string& path);
// (N, N) JSD between heads, labelled "L.H".
std::string export_jsd_figure(const AnalysisContext& ctx, const std::string& path);
// (T, T) rollout R with token labels.
std::string export_rollout_figure(const AnalysisContext& ctx, const std::string& path);

// The (L, H) matrix of a metric over the shown table (NaN where undefined).
Matrix metric_matrix(const std::vector<HeadMetrics>& metrics, int layers, int heads, Metric metric);
// A new file in the export folder (AppState::export_dir, created when missing):
// "<dir>/<stem>.<ext>", or "<stem>-2.<ext>", … when taken, so nothing is overwritten.
std::string export_path(const std::string& export_dir, const std::string& stem, const std::string& ext);

}  // namespace hs
