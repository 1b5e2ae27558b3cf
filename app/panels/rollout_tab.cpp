// Rollout tab (Abnar & Zuidema): R = Â_L ⋯ Â_1 with Â_l = rownorm(mean_h A_l + I) as a
// heatmap over tokens, and per-token bars: R's last row for causal models (what the
// next-token prediction draws on), the mean row otherwise. Hover for the numbers.
#include <algorithm>
#include <cstdio>

#include "app/analysis_actions.h"
#include "app/analysis_files.h"
#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "app/panels/widgets.h"

namespace hs {
namespace {

}  // namespace

void draw_rollout_tab(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    if (!a.analysis || !a.analysed_trace) {
        ImGui::TextDisabled("%s", tr("No analysis yet: press Analyze."));
        return;
    }
    const Rollout& r = a.analysis->rollout;
    const std::vector<std::string>& tokens = a.analysed_trace->main.tokens;
    const int T = static_cast<int>(r.joint.rows());
    if (T == 0 || static_cast<int>(tokens.size()) != T) return;
    const bool last = r.bars.size() == r.last_row.size() && r.last_row.size() > 0 && r.bars.isApprox(r.last_row);
    if (ImGui::Button("PNG##rollout"))
        try_action(ctx.analysis.error, [&] { a.set_status(wrote_status(export_rollout_figure(ctx, export_path(ctx.state.export_dir, "rollout", "png")))); });
    ImGui::SameLine();
    if (ImGui::Button("SVG##rollout"))
        try_action(ctx.analysis.error, [&] { a.set_status(wrote_status(export_rollout_figure(ctx, export_path(ctx.state.export_dir, "rollout", "svg")))); });
    // Below the buttons, not beside them: wrapped from beside them, its lines ran past the
    // panel (core's line breaker measures from the panel's left edge).
    text_disabled_wrapped("%s", tr("R = Â_L ⋯ Â_1, Â_l = rownorm(mean_h A_l + I): how much of input token j flows into "
                                   "position i"));
    a.rollout_map.sync(std::to_string(a.analysed_generation), r.joint);
    ColorScale scale;
    scale.lo = 0.0f;
    scale.hi = std::max(a.rollout_map.hi, 1e-6f);
    // The map on top (square cells), the per-token bars under it across the full width.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float fs = ImGui::GetFontSize();
    const float side = std::max(fs * 6, std::min(avail.x - fs * 10, avail.y * 0.6f));
    auto label = [&](int i) { return token_label(tokens[static_cast<std::size_t>(i)], 8); };
    const PlotHover h = draw_matrix_plot(ctx.canvas, "##rollout", a.rollout_map, T, T, ImVec2(side + fs * 10, side),
                                         ctx.state.colormap, scale, label, nullptr);
    if (h.row >= 0)
        ImGui::SetTooltip(tr("position %d '%s' draws %.4f from input token %d '%s'"), h.row,
                          tokens[static_cast<std::size_t>(h.row)].c_str(), r.joint(h.row, h.col), h.col,
                          tokens[static_cast<std::size_t>(h.col)].c_str());
    ImGui::TextUnformatted(last ? tr("per token: R's last row (what the next-token prediction draws on)")
                                : tr("per token: mean of R's rows (average flow from each input token)"));
    std::vector<double> bars(r.bars.data(), r.bars.data() + r.bars.size());
    double lo = 0, hi = 0;
    finite_range(bars, lo, hi);
    const PlotHover hb = draw_bar_chart("##rollout_bars", bars, nullptr,
                                        ImVec2(ImGui::GetContentRegionAvail().x,
                                               std::max(fs * 5, ImGui::GetContentRegionAvail().y - 4.0f)),
                                        0.0, std::max(hi * 1.05, 1e-9), label);
    if (hb.col >= 0)
        ImGui::SetTooltip(tr("token %d '%s': %.4f"), hb.col, tokens[static_cast<std::size_t>(hb.col)].c_str(),
                          bars[static_cast<std::size_t>(hb.col)]);
}

}  // namespace hs
