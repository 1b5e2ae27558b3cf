#include "app/analysis_files.h"

#include <limits>

#include "app/analysis_actions.h"
#include "core/analysis/analysis_export.h"
#include "core/error.h"
#include "core/image/heatmap_image.h"
#include "core/image/png.h"
#include "core/io/atomic_file.h"

namespace hs {
namespace {

HeatmapOptions options(const AppContext& ctx, const std::string& title) {
    HeatmapOptions o;
    o.colormap = ctx.state.colormap;
    o.auto_range = true;
    o.title = title;
    return o;
}

const TraceAnalysis& need_analysis(const AppContext& ctx) {
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

std::string export_path(const AppContext& ctx, const std::string& name) {
    const std::string& dir = ctx.export_status.directory;
    return dir.empty() ? name : dir + "/" + name;
}

Matrix metric_matrix(const std::vector<HeadMetrics>& metrics, int layers, int heads, Metric metric) {
    Matrix m = Matrix::Constant(layers, heads, std::numeric_limits<float>::quiet_NaN());
    for (const HeadMetrics& h : metrics)
        if (h.layer < layers && h.head < heads) m(h.layer, h.head) = static_cast<float>(h[metric]);
    return m;
}

std::string export_metrics_csv(const AppContext& ctx, const std::string& path) {
    const AnalysisView& a = ctx.analysis;
    if (a.table_source == MetricsSource::Corpus && a.corpus) {
        write_file_atomic(path, corpus_csv(*a.corpus, a.corpus_labels));
        return path;
    }
    const TraceAnalysis& t = need_analysis(ctx);
    write_file_atomic(path, metrics_csv(t.metrics, t.labels));
    return path;
}

std::string export_analysis_json(const AppContext& ctx, const std::string& path) {
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

std::string export_metric_png(const AppContext& ctx, Metric metric, const std::string& path) {
    const std::vector<HeadMetrics> metrics = shown_metrics(ctx);
    const int layers = shown_layers(ctx), heads = shown_heads(ctx);
    if (metrics.empty() || layers == 0 || heads == 0) throw Error("nothing to export: press Analyze first.");
    const Matrix m = metric_matrix(metrics, layers, heads, metric);
    const std::string model = ctx.view.trace ? ctx.view.trace->model_name + "  " : "";
    HeatmapOptions o = options(ctx, model + metric_name(metric) + " per head (layer x head)");
    o.target_map_px = 512;
    write_png(path, render_heatmap(m, numbered("L", layers), numbered("H", heads), o).image);
    return path;
}

std::string export_jsd_png(const AppContext& ctx, const std::string& path) {
    const AnalysisView& a = ctx.analysis;
    const bool corpus = a.table_source == MetricsSource::Corpus && a.corpus;
    const Eigen::MatrixXd& jsd = corpus ? a.corpus->mean_jsd : need_analysis(ctx).jsd;
    const int heads = shown_heads(ctx);
    std::vector<std::string> names;
    for (int n = 0; n < static_cast<int>(jsd.rows()); ++n) names.push_back(head_name(n, heads));
    const std::string model = ctx.view.trace ? ctx.view.trace->model_name + "  " : "";
    write_png(path, render_heatmap(jsd.cast<float>(), names, names, options(ctx, model + "head similarity (JSD, nats)")).image);
    return path;
}

std::string export_rollout_png(const AppContext& ctx, const std::string& path) {
    const TraceAnalysis& t = need_analysis(ctx);
    const std::vector<std::string>& tokens = ctx.analysis.analysed_trace->main.tokens;
    const std::string model = ctx.analysis.analysed_trace->model_name + "  ";
    write_png(path, render_heatmap(t.rollout.joint, tokens, tokens, options(ctx, model + "attention rollout R")).image);
    return path;
}

}  // namespace hs
