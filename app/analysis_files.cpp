#include "app/analysis_files.h"

#include <cstdio>
#include <limits>

#include "app/analysis_actions.h"
#include "app/i18n/i18n.h"
#include "core/analysis/analysis_export.h"
#include "core/error.h"
#include "app/exporter.h"
#include "core/image/figure_file.h"
#include "core/io/atomic_file.h"
#include "core/io/file_names.h"

namespace hs {
namespace {

// Analysis plots keep their own range (metrics are not weights in [0, 1]).
HeatmapOptions options(const AnalysisContext& ctx, const std::string& title, const std::string& row_axis,
                       const std::string& col_axis) {
    HeatmapOptions o = figure_options(ctx.state, title, row_axis, col_axis);
    o.scale = ColorScale{};
    o.auto_range = true;
    return o;
}

// "<model> · " of the figures' titles ("" without a trace).
std::string model_part(const AnalysisContext& ctx) {
    return ctx.view.trace ? figure_model_name(ctx.view.trace->model_name) + " · " : "";
}

const TraceAnalysis& need_analysis(const AnalysisContext& ctx) {
    if (!ctx.analysis.analysis || !ctx.analysis.analysed_trace)
        throw Error("nothing to export: press Analyze first.");
    return *ctx.analysis.analysis;
}

std::vector<std::string> numbered(const char* prefix, int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
    return out;
}

}  // namespace

std::string export_path(const std::string& export_dir, const std::string& stem, const std::string& ext) {
    return unused_path(export_dir, stem, ext);
}

Matrix metric_matrix(const std::vector<HeadMetrics>& metrics, int layers, int heads, Metric metric) {
    Matrix m = Matrix::Constant(layers, heads, std::numeric_limits<float>::quiet_NaN());
    for (const HeadMetrics& h : metrics)
        if (h.layer < layers && h.head < heads) m(h.layer, h.head) = static_cast<float>(h[metric]);
    return m;
}

std::string export_metrics_csv(const AnalysisContext& ctx, const std::string& path) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        write_file_atomic(path, corpus_csv(*a.corpus, a.corpus_labels));
        return path;
    }
    const TraceAnalysis& t = need_analysis(ctx);
    write_file_atomic(path, metrics_csv(t.metrics, t.labels));
    return path;
}

std::string export_analysis_json(const AnalysisContext& ctx, const std::string& path) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        const std::string model = ctx.view.trace ? ctx.view.trace->model_name : "";
        write_file_atomic(path, corpus_to_json(model, *a.corpus, a.corpus_labels).dump(2) + "\n");
        return path;
    }
    const TraceAnalysis& t = need_analysis(ctx);
    write_file_atomic(path, analysis_to_json(*a.analysed_trace, t).dump(2) + "\n");
    return path;
}

std::string export_metric_figure(const AnalysisContext& ctx, Metric metric, const std::string& path) {
    const std::vector<HeadMetrics> metrics = shown_metrics(ctx.analysis);
    const int layers = shown_layers(ctx.analysis), heads = shown_heads(ctx.analysis);
    if (metrics.empty() || layers == 0 || heads == 0) throw Error("nothing to export: press Analyze first.");
    const Matrix m = metric_matrix(metrics, layers, heads, metric);
    // Figures from the window speak the interface language (the CLI's stay English).
    char what[128];
    std::snprintf(what, sizeof what, tr("%s per head"), tr(metric_name(metric)));
    HeatmapOptions o = options(ctx, model_part(ctx) + what, tr("layer"), tr("head"));
    o.target_map_px = 512;
    write_heatmap_figure(path, m, numbered("L", layers), numbered("H", heads), o);
    return path;
}

std::string export_jsd_figure(const AnalysisContext& ctx, const std::string& path) {
    const AnalysisView& a = ctx.analysis;
    const bool corpus = a.table_source == MetricsSource::Corpus && a.corpus;
    const Eigen::MatrixXd& jsd = corpus ? a.corpus->mean_jsd : need_analysis(ctx).jsd;
    const int heads = shown_heads(ctx.analysis);
    std::vector<std::string> names;
    for (int n = 0; n < static_cast<int>(jsd.rows()); ++n) names.push_back(head_name(n, heads));
    write_heatmap_figure(path, jsd.cast<float>(), names, names,
                         options(ctx, model_part(ctx) + tr("head similarity (JSD, nats)"), tr("head"), tr("head")));
    return path;
}

std::string export_rollout_figure(const AnalysisContext& ctx, const std::string& path) {
    const TraceAnalysis& t = need_analysis(ctx);
    const std::vector<std::string>& tokens = ctx.analysis.analysed_trace->main.tokens;
    const std::string title = figure_title(ctx.analysis.analysed_trace->model_name, tr("attention rollout R"), "");
    write_heatmap_figure(path, t.rollout.joint, tokens, tokens, options(ctx, title, tr("query"), tr("key")));
    return path;
}

}  // namespace hs
