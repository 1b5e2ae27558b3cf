// Plots tab: a layer × head map of any metric (GPU texture through the colormap), the
// entropy and attention distance per layer (mean, min and max over heads), and one bar per
// head for any metric (± std in corpus mode, coloured by role). Hover for the numbers,
// click a cell or bar to select that head; PNG / CSV export through core.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/analysis_actions.h"
#include "app/analysis_files.h"
#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "core/analysis/analysis_export.h"

namespace hs {
namespace {

// The head's roles as label_list writes them, in the interface language.
std::string roles_text(const HeadLabels& labels) {
    std::string s;
    for (const HeadLabel& l : labels.all) s += (s.empty() ? "" : ", ") + std::string(tr(role_name(l.role)));
    return s;
}

// A metric's description; in Chinese also its name as the CSV and JSON write it.
void metric_tooltip(Metric m) {
    if (ui_lang() == UiLang::English) ImGui::SetTooltip("%s", metric_description(m));
    else ImGui::SetTooltip("%s\n(%s)", tr(metric_description(m)), metric_name(m));
}

bool metric_combo(const char* id, int* metric) {
    bool changed = false;
    if (ImGui::BeginCombo(id, tr(metric_name(static_cast<Metric>(*metric))))) {
        for (Metric m : all_metrics()) {
            const int k = static_cast<int>(m);
            if (ImGui::Selectable(tr(metric_name(m)), k == *metric)) {
                *metric = k;
                changed = true;
            }
            if (ImGui::IsItemHovered()) metric_tooltip(m);
        }
        ImGui::EndCombo();
    }
    return changed;
}

void select_head(const AnalysisPanelContext& ctx, int layer, int head, int heads) {
    ctx.state.layer = layer;
    ctx.state.head = head;
    ctx.state.map = MapKind::Self;
    ctx.analysis.selected = layer * heads + head;
}

// Mean, min and max over heads of one metric, per layer.
std::vector<std::vector<double>> per_layer(const Matrix& m) {
    std::vector<std::vector<double>> s(3, std::vector<double>(static_cast<std::size_t>(m.rows()), NAN));
    for (int l = 0; l < m.rows(); ++l) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        int n = 0;
        for (int h = 0; h < m.cols(); ++h) {
            const double v = m(l, h);
            if (!std::isfinite(v)) continue;
            sum += v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            ++n;
        }
        if (n == 0) continue;
        s[0][static_cast<std::size_t>(l)] = sum / n;
        s[1][static_cast<std::size_t>(l)] = lo;
        s[2][static_cast<std::size_t>(l)] = hi;
    }
    return s;
}

void layer_chart(const char* id, const char* title, const Matrix& m, ImVec2 size) {
    const std::vector<std::vector<double>> s = per_layer(m);
    double lo = 0, hi = 0;
    std::vector<double> all;
    for (const auto& v : s) all.insert(all.end(), v.begin(), v.end());
    finite_range(all, lo, hi);
    lo = std::min(lo, 0.0);
    ImGui::BeginGroup();
    ImGui::TextUnformatted(title);
    const std::vector<ImU32> colors = {IM_COL32(240, 240, 240, 255), IM_COL32(90, 150, 230, 255),
                                       IM_COL32(240, 120, 60, 255)};
    const PlotHover h = draw_line_chart(id, s, colors, size, lo, hi * 1.05, [](int i) { return "L" + std::to_string(i); });
    if (h.col >= 0)
        ImGui::SetTooltip(tr("layer %d: mean %.3f  min %.3f  max %.3f over heads"), h.col, s[0][static_cast<std::size_t>(h.col)],
                          s[1][static_cast<std::size_t>(h.col)], s[2][static_cast<std::size_t>(h.col)]);
    // Legend: each line's colour beside its name.
    const char* names[] = {tr("mean"), tr("min"), tr("max")};
    const float fs = ImGui::GetFontSize();
    for (int k = 0; k < 3; ++k) {
        if (k) same_line_if_fits(fs * 1.4f + ImGui::CalcTextSize(names[k]).x);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(fs * 1.4f, fs));
        ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, at.y + fs * 0.55f), ImVec2(at.x + fs * 1.2f, at.y + fs * 0.55f),
                                            colors[static_cast<std::size_t>(k)], 2.5f);
        ImGui::SameLine(0.0f, 2.0f);
        ImGui::TextUnformatted(names[k]);
    }
    same_line_if_fits(ImGui::CalcTextSize(tr("over the heads of each layer")).x);
    ImGui::TextDisabled("%s", tr("over the heads of each layer"));
    ImGui::EndGroup();
}

}  // namespace

void draw_plots_tab(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    const std::vector<HeadMetrics> metrics = shown_metrics(ctx.analysis);
    const std::vector<HeadLabels>* labels = shown_labels(ctx.analysis);
    const int layers = shown_layers(ctx.analysis), heads = shown_heads(ctx.analysis);
    if (metrics.empty() || !labels || layers == 0 || heads == 0) {
        ImGui::TextDisabled("%s", tr("No analysis yet: press Analyze."));
        return;
    }
    const bool corpus = a.table_source == MetricsSource::Corpus && a.corpus;
    const float fs = ImGui::GetFontSize();
    // 1. Layer × head map of the chosen metric.
    ImGui::SetNextItemWidth(170.0f * ctx.canvas.ui_scale);
    metric_combo(tr("map##metric"), &a.plot_metric);
    const Metric pm = static_cast<Metric>(a.plot_metric);
    ImGui::SameLine();
    for (const char* ext : {"png", "svg"}) {
        if (ext[0] == 's') ImGui::SameLine();
        if (ImGui::Button(ext[0] == 'p' ? "PNG##map" : "SVG##map"))
            try_action(ctx.analysis.error, [&] {
                a.set_status(wrote_status(export_metric_figure(ctx, pm, export_path(ctx.state.export_dir, std::string("metric_") + metric_name(pm), ext))));
            });
    }
    ImGui::SameLine();
    if (ImGui::Button("CSV##table"))
        try_action(ctx.analysis.error, [&] { a.set_status(wrote_status(export_metrics_csv(ctx, export_path(ctx.state.export_dir, "head_metrics", "csv")))); });
    ImGui::SameLine();
    if (ImGui::Button("JSON##analysis"))
        try_action(ctx.analysis.error, [&] { a.set_status(wrote_status(export_analysis_json(ctx, export_path(ctx.state.export_dir, "analysis", "json")))); });
    const Matrix m = metric_matrix(metrics, layers, heads, pm);
    const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(labels)) + "/" +
                            std::to_string(a.analysed_generation) + "/" + std::to_string(corpus) + "/" +
                            std::to_string(a.plot_metric) + "/" + std::to_string(a.corpus ? a.corpus->analysed : 0);
    a.metric_map.sync(key, m);
    ColorScale scale;
    scale.lo = a.metric_map.lo;
    scale.hi = a.metric_map.hi;
    const float avail_w = ImGui::GetContentRegionAvail().x;
    const float map_h = std::min(ImGui::GetContentRegionAvail().y * 0.42f, avail_w * 0.5f * layers / heads + fs * 2);
    ImGui::BeginGroup();
    const PlotHover hm = draw_matrix_plot(ctx.canvas, "##metric_map", a.metric_map, layers, heads,
                                          ImVec2(avail_w * 0.5f, std::max(map_h, fs * 6)), ctx.state.colormap, scale,
                                          [](int i) { return "L" + std::to_string(i); },
                                          [](int j) { return "H" + std::to_string(j); });
    if (hm.row >= 0) {
        const int n = hm.row * heads + hm.col;
        ImGui::SetTooltip(tr("L%d.H%d  %s = %.4f\nrole: %s"), hm.row, hm.col, tr(metric_name(pm)), m(hm.row, hm.col),
                          roles_text((*labels)[static_cast<std::size_t>(n)]).c_str());
        if (hm.clicked) select_head(ctx, hm.row, hm.col, heads);
    }
    ImGui::EndGroup();
    // 2. Entropy and distance per layer.
    ImGui::SameLine();
    ImGui::BeginGroup();
    const float chart_w = ImGui::GetContentRegionAvail().x;
    const float chart_h = std::max(fs * 5, (std::max(map_h, fs * 6) - fs * 4) * 0.5f);
    layer_chart("##entropy_layers", tr("entropy per layer (nats)"), metric_matrix(metrics, layers, heads, Metric::Entropy),
                ImVec2(chart_w, chart_h));
    layer_chart("##distance_layers", tr("mean attention distance per layer (tokens)"),
                metric_matrix(metrics, layers, heads, Metric::Distance), ImVec2(chart_w, chart_h));
    ImGui::EndGroup();
    // 3. One bar per head.
    ImGui::Separator();
    ImGui::SetNextItemWidth(170.0f * ctx.canvas.ui_scale);
    metric_combo(tr("bars##metric"), &a.bar_metric);
    const Metric bm = static_cast<Metric>(a.bar_metric);
    ImGui::SameLine();
    ImGui::TextDisabled(tr("one bar per head, coloured by role%s"), corpus ? tr(", whiskers ± std over sentences") : "");
    std::vector<double> values, errors;
    std::vector<ImU32> colors;
    for (std::size_t n = 0; n < metrics.size(); ++n) {
        values.push_back(metrics[n][bm]);
        errors.push_back(corpus ? a.corpus->heads[n][bm].std : NAN);
        colors.push_back(role_color((*labels)[n].primary.role));
    }
    double lo = 0, hi = 0;
    finite_range(values, lo, hi);
    if (corpus)
        for (std::size_t n = 0; n < values.size(); ++n)
            if (std::isfinite(errors[n])) hi = std::max(hi, values[n] + errors[n]);
    lo = std::min(lo, 0.0);
    const PlotHover hb = draw_bar_chart("##metric_bars", values, corpus ? &errors : nullptr,
                                        ImVec2(ImGui::GetContentRegionAvail().x,
                                               std::max(fs * 6, ImGui::GetContentRegionAvail().y - fs * 0.5f)),
                                        lo, hi * 1.05, [heads](int n) { return head_name(n, heads); }, &colors);
    if (hb.col >= 0) {
        const HeadMetrics& h = metrics[static_cast<std::size_t>(hb.col)];
        if (corpus)
            ImGui::SetTooltip("L%d.H%d  %s = %.4f ± %.4f  (%s)", h.layer, h.head, tr(metric_name(bm)), h[bm],
                              errors[static_cast<std::size_t>(hb.col)],
                              roles_text((*labels)[static_cast<std::size_t>(hb.col)]).c_str());
        else
            ImGui::SetTooltip("L%d.H%d  %s = %.4f  (%s)", h.layer, h.head, tr(metric_name(bm)), h[bm],
                              roles_text((*labels)[static_cast<std::size_t>(hb.col)]).c_str());
        if (hb.clicked) select_head(ctx, h.layer, h.head, heads);
    }
}

}  // namespace hs
