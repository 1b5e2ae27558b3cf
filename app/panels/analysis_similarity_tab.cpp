// Similarity tab: the (L·H) × (L·H) Jensen–Shannon divergence between heads as a GPU
// heatmap (hover names both heads), the most redundant pairs (click selects the first
// head), and the classical-MDS layout of the heads as a scatter coloured by role.
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

void draw_mds(const AnalysisPanelContext& ctx, const Eigen::MatrixXd& xy, const std::vector<HeadLabels>& labels, int heads,
              ImVec2 size) {
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##mds", size);
    const bool hovered = ImGui::IsItemHovered();
    const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    ImDrawList* list = ImGui::GetWindowDrawList();
    const ImVec2 p1(p0.x + size.x, p0.y + size.y);
    list->AddRectFilled(p0, p1, IM_COL32(24, 26, 30, 255));
    list->AddRect(p0, p1, IM_COL32(60, 64, 72, 255));
    const int n = static_cast<int>(xy.rows());
    if (n == 0 || xy.cols() < 2) return;
    const double x0 = xy.col(0).minCoeff(), x1 = xy.col(0).maxCoeff();
    const double y0 = xy.col(1).minCoeff(), y1 = xy.col(1).maxCoeff();
    const double span = std::max({x1 - x0, y1 - y0, 1e-9});
    const float pad = 18.0f, side = std::min(size.x, size.y) - 2 * pad;
    auto at = [&](int i) {
        return ImVec2(p0.x + pad + static_cast<float>((xy(i, 0) - x0) / span) * side,
                      p0.y + pad + static_cast<float>((y1 - xy(i, 1)) / span) * side);
    };
    const ImVec2 m = ImGui::GetIO().MousePos;
    int nearest = -1;
    float best = 12.0f * 12.0f;
    for (int i = 0; i < n; ++i) {
        const ImVec2 p = at(i);
        const float d = (p.x - m.x) * (p.x - m.x) + (p.y - m.y) * (p.y - m.y);
        if (hovered && d < best) {
            best = d;
            nearest = i;
        }
        list->AddCircleFilled(p, 4.5f, role_color(labels[static_cast<std::size_t>(i)].primary.role));
    }
    // Names beside the dots where they do not cover another name or dot: right, left,
    // above or below; a head whose name has no free place is named on hover.
    std::vector<ImVec4> taken;  // x0, y0, x1, y1 of names and dots already placed
    for (int i = 0; i < n; ++i) {
        const ImVec2 p = at(i);
        taken.push_back(ImVec4(p.x - 4.5f, p.y - 4.5f, p.x + 4.5f, p.y + 4.5f));
    }
    const auto overlaps = [&](const ImVec4& r, int own_dot) {
        for (std::size_t k = 0; k < taken.size(); ++k) {
            if (static_cast<int>(k) == own_dot) continue;
            const ImVec4& t = taken[k];
            if (r.x < t.z && t.x < r.z && r.y < t.w && t.y < r.w) return true;
        }
        return false;
    };
    for (int i = 0; i < n && n <= 256; ++i) {
        const std::string name = head_name(i, heads);
        const ImVec2 ts = ImGui::CalcTextSize(name.c_str()), p = at(i);
        const ImVec2 places[] = {ImVec2(p.x + 6, p.y - ts.y * 0.5f), ImVec2(p.x - 6 - ts.x, p.y - ts.y * 0.5f),
                                 ImVec2(p.x - ts.x * 0.5f, p.y - 6 - ts.y), ImVec2(p.x - ts.x * 0.5f, p.y + 6)};
        for (const ImVec2& q : places) {
            const ImVec4 r(q.x, q.y, q.x + ts.x, q.y + ts.y);
            if (r.x < p0.x || r.z > p1.x || r.y < p0.y || r.w > p1.y || overlaps(r, i)) continue;
            list->AddText(q, IM_COL32(190, 194, 202, 255), name.c_str());
            taken.push_back(r);
            break;
        }
    }
    if (nearest >= 0) {
        list->AddCircle(at(nearest), 7.0f, IM_COL32(255, 255, 255, 255), 0, 2.0f);
        ImGui::SetTooltip("%s  %s", head_name(nearest, heads).c_str(),
                          roles_text(labels[static_cast<std::size_t>(nearest)]).c_str());
        if (clicked) {
            ctx.state.layer = nearest / heads;
            ctx.state.head = nearest % heads;
            ctx.state.map = MapKind::Self;
            ctx.analysis.selected = nearest;
        }
    }
}

}  // namespace

void draw_similarity_tab(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    const std::vector<HeadLabels>* labels = shown_labels(ctx.analysis);
    const bool corpus = a.table_source == MetricsSource::Corpus && a.corpus;
    if (!labels || (!corpus && !a.analysis)) {
        ImGui::TextDisabled("%s", tr("No analysis yet: press Analyze."));
        return;
    }
    const Eigen::MatrixXd& jsd = corpus ? a.corpus->mean_jsd : a.analysis->jsd;
    const int heads = shown_heads(ctx.analysis), n = static_cast<int>(jsd.rows());
    if (n == 0) return;
    const std::vector<HeadPair> pairs = corpus ? a.corpus_pairs : a.analysis->redundant;
    const float fs = ImGui::GetFontSize();
    if (ImGui::Button("PNG##jsd"))
        try_action(ctx.analysis.error, [&] { a.set_status(wrote_status(export_jsd_figure(ctx, export_path(ctx.state.export_dir, "head_similarity", "png")))); });
    ImGui::SameLine();
    if (ImGui::Button("SVG##jsd"))
        try_action(ctx.analysis.error, [&] { a.set_status(wrote_status(export_jsd_figure(ctx, export_path(ctx.state.export_dir, "head_similarity", "svg")))); });
    ImGui::SameLine();
    text_disabled_wrapped(tr("JSD between heads' rows, averaged over queries (0 = identical, ln 2 = disjoint)%s"),
                          corpus ? tr("; mean over the corpus") : "");
    const std::string key = std::to_string(a.analysed_generation) + "/" + std::to_string(corpus) + "/" +
                            std::to_string(a.corpus ? a.corpus->analysed : 0) + "/" + std::to_string(n);
    a.jsd_map.sync(key, jsd.cast<float>());
    ColorScale scale;
    scale.lo = a.jsd_map.lo;
    scale.hi = a.jsd_map.hi;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float map_side = std::min(avail.x * 0.55f, avail.y * 0.62f);
    ImGui::BeginGroup();
    const PlotHover h = draw_matrix_plot(ctx.canvas, "##jsd", a.jsd_map, n, n, ImVec2(map_side + fs * 6, map_side),
                                         ctx.state.colormap, scale,
                                         [heads](int i) { return head_name(i, heads); },
                                         [heads](int j) { return head_name(j, heads); });
    if (h.row >= 0)
        ImGui::SetTooltip(tr("%s (%s) vs %s (%s)\nJSD %.4f nats"), head_name(h.row, heads).c_str(),
                          tr(role_name((*labels)[static_cast<std::size_t>(h.row)].primary.role)),
                          head_name(h.col, heads).c_str(),
                          tr(role_name((*labels)[static_cast<std::size_t>(h.col)].primary.role)), jsd(h.row, h.col));
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(tr("Most redundant pairs"));
    if (ImGui::BeginTable("##pairs", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY,
                          ImVec2(ImGui::GetContentRegionAvail().x, map_side))) {
        ImGui::TableSetupColumn(tr("head a"));
        ImGui::TableSetupColumn(tr("head b"));
        ImGui::TableSetupColumn("JSD");
        ImGui::TableHeadersRow();
        for (const HeadPair& p : pairs) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            const std::string an = head_name(p.a, heads), bn = head_name(p.b, heads);
            if (ImGui::Selectable((an + "##" + bn).c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
                ctx.state.layer = p.a / heads;
                ctx.state.head = p.a % heads;
                ctx.state.map = MapKind::Self;
                a.selected = p.a;
            }
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(bn.c_str());
            ImGui::TableSetColumnIndex(2);
            ImGui::Text("%.4f", p.jsd);
        }
        ImGui::EndTable();
    }
    ImGui::EndGroup();
    const Eigen::MatrixXd& mds = corpus ? a.corpus_mds : a.analysis->mds;
    ImGui::Checkbox(tr("MDS layout of heads (classical MDS of √JSD; close = similar)"), &a.show_mds);
    if (a.show_mds) {
        const float side = std::max(fs * 6, ImGui::GetContentRegionAvail().y - 4.0f);
        draw_mds(ctx, mds, *labels, heads, ImVec2(std::min(ImGui::GetContentRegionAvail().x, side * 2.2f), side));
    }
}

}  // namespace hs
