// Ablation tab: which heads are switched off (ctrl-click thumbnails in the grid, or turn
// on "clicks ablate"), zero or mean replacement, and what changed against the plain run of
// the same input: relative hidden-state change per layer (bars), each head's map change
// (layer × head map), and for language models KL(p ‖ p') with the top-k next tokens before
// and after. "Rank heads" ablates each head alone on the analysis worker and sorts them.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/analysis_actions.h"
#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/plot_widgets.h"
#include "core/tokenize/visible_token.h"

namespace hs {
namespace {

// A worked example (fixed inputs and weights) has no heads to switch off or rank.
bool fixed_weights(const AnalysisPanelContext& ctx) { return !ctx.view.source || !ctx.view.source->takes_text(); }

void draw_controls(const AnalysisPanelContext& ctx) {
    AppState& s = ctx.state;
    if (fixed_weights(ctx)) {
        ImGui::TextDisabled("%s", tr("A worked example has fixed inputs and weights: open a model to ablate heads."));
        return;
    }
    int mode = static_cast<int>(s.ablate_mode);
    ImGui::TextUnformatted(tr("replace the head's output by"));
    ImGui::SameLine();
    bool changed = ImGui::RadioButton(tr("zero"), &mode, 0);
    ImGui::SameLine();
    changed |= ImGui::RadioButton(tr("its mean over tokens"), &mode, 1);
    if (changed) {
        s.ablate_mode = static_cast<AblationMode>(mode);
        if (!s.ablated.empty()) s.dirty = true;
    }
    same_line_if_fits(checkbox_width(tr("grid clicks ablate")));
    ImGui::Checkbox(tr("grid clicks ablate"), &s.ablate_clicks);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("or ctrl-click a thumbnail in the grid"));
    if (ImGui::Button(tr("ablate selected head"))) s.toggle_ablation(HeadRef{s.layer, s.head, false, false});
    ImGui::SameLine();
    ImGui::BeginDisabled(s.ablated.empty());
    if (ImGui::Button(tr("restore all"))) {
        s.ablated.clear();
        s.dirty = true;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextUnformatted(tr("off:"));
    for (std::size_t i = 0; i < s.ablated.size(); ++i) {
        const std::string name = "L" + std::to_string(s.ablated[i].layer) + ".H" + std::to_string(s.ablated[i].head) + " ×";
        same_line_if_fits(button_width(name.c_str()));
        ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.65f, 0.2f, 0.2f, 1.0f));
        if (ImGui::SmallButton((name + "##abl" + std::to_string(i)).c_str())) {
            s.toggle_ablation(s.ablated[i]);
            ImGui::PopStyleColor();
            break;
        }
        ImGui::PopStyleColor();
    }
    if (s.ablated.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", tr("none"));
    }
}

// Width of the next-token part: its table (the longest token, three signed numbers, cell
// padding) or its KL line, whichever is wider; 14 em of wrapped text without a next token.
float next_token_part_width(const AblationEffect& e) {
    if (!e.has_next_token) return 14.0f * ImGui::GetFontSize();
    const auto width = [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; };
    float token = width(tr("token"));
    for (const TokenChange& c : e.top_tokens) token = std::max(token, width("'" + c.text + "'"));
    const float number = std::max({width("+0.000"), width(tr("before")), width(tr("after")), width(tr("change"))});
    const float table = token + 3.0f * number + 8.0f * ImGui::GetStyle().CellPadding.x + 4.0f;
    return std::max(table, width(printf_string(tr("KL(p ‖ p') = %.5f nats"), e.kl)));
}

// 3. The next-token distribution after ablation (decoder LMs), or the last layer's change.
void draw_next_token_part(const Trace& t, const AblationEffect& e) {
    if (e.has_next_token) {
        text_prose(printf_string(tr("next token after '%s':"),
                                 t.main.tokens.empty() ? "" : visible_token(t.main.tokens.back()).c_str()));
        ImGui::TextUnformatted(printf_string(tr("KL(p ‖ p') = %.5f nats"), e.kl).c_str());
        if (ImGui::BeginTable("##topk", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                               ImGuiTableFlags_SizingFixedFit,
                              ImVec2(ImGui::GetContentRegionAvail().x, 0))) {
            ImGui::TableSetupColumn(tr("token"));
            ImGui::TableSetupColumn(tr("before"));
            ImGui::TableSetupColumn(tr("after"));
            ImGui::TableSetupColumn(tr("change"));
            ImGui::TableHeadersRow();
            for (const TokenChange& c : e.top_tokens) {
                ImGui::TableNextRow();
                ImGui::TableSetColumnIndex(0);
                ImGui::Text("'%s'", visible_token(c.text).c_str());
                ImGui::TableSetColumnIndex(1);
                ImGui::Text("%.3f", c.p_base);
                ImGui::TableSetColumnIndex(2);
                ImGui::Text("%.3f", c.p_ablated);
                ImGui::TableSetColumnIndex(3);
                // A change that rounds to 0 reads "±0.000" in neither colour, not "-0.000".
                const float d = c.p_ablated - c.p_base;
                if (std::fabs(d) < 0.0005f)
                    ImGui::TextDisabled("±0.000");
                else
                    ImGui::TextColored(d > 0 ? ImVec4(0.45f, 0.85f, 0.45f, 1) : ImVec4(1, 0.5f, 0.45f, 1), "%+.3f", d);
            }
            ImGui::EndTable();
        }
    } else {
        text_disabled_wrapped(tr("last layer's output changes by %.2f%%"), 100.0 * e.last_layer_change);
        text_disabled_wrapped("%s", tr("(next-token KL needs a decoder language model)"));
    }
}

void draw_effect(const AnalysisPanelContext& ctx, const AblationEffect& e, float height) {
    const Trace& t = *ctx.view.trace;
    // The two plots share what the next-token part leaves when each still gets 10 em; in a
    // narrower panel the next-token part goes below them. Headings wrap inside their column.
    const float fs = ImGui::GetFontSize();
    const float third = next_token_part_width(e);
    const float plots = ImGui::GetContentRegionAvail().x - third - 2.0f * ImGui::GetStyle().ItemSpacing.x;
    const int columns = plots >= 20.0f * fs ? 3 : 2;
    if (!ImGui::BeginTable("##effect", columns, ImGuiTableFlags_SizingStretchSame)) return;
    if (columns == 3) {
        // The map of every head gets twice the bars' width (a model's heads outnumber its layers).
        ImGui::TableSetupColumn("##hidden", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("##maps", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("##next", ImGuiTableColumnFlags_WidthFixed, third);
    }
    // 1. Hidden-state change per layer.
    ImGui::TableNextColumn();
    text_prose(tr("hidden-state change per layer  ‖h'−h‖/‖h‖"));
    double lo = 0, hi = 0;
    finite_range(e.hidden_change, lo, hi);
    const PlotHover hb = draw_bar_chart("##hidden_change", e.hidden_change, nullptr, ImVec2(ImGui::GetContentRegionAvail().x, height), 0.0,
                                        std::max(hi * 1.1, 1e-6), [](int i) { return "L" + std::to_string(i); });
    if (hb.col >= 0)
        ImGui::SetTooltip(tr("layer %d output changes by %.2f%%"), hb.col,
                          100.0 * e.hidden_change[static_cast<std::size_t>(hb.col)]);
    // 2. Map change of every head (what the later layers' maps did).
    ImGui::TableNextColumn();
    text_prose(tr("attention map change per head  mean |A'−A|"));
    const int layers = static_cast<int>(e.map_change.size());
    const int heads = layers ? static_cast<int>(e.map_change.front().size()) : 0;
    if (layers && heads) {
        Matrix m(layers, heads);
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h)
                m(l, h) = static_cast<float>(e.map_change[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)]);
        ctx.analysis.effect_map.sync(std::to_string(ctx.view.generation), m);
        ColorScale scale;
        scale.lo = 0.0f;
        scale.hi = std::max(ctx.analysis.effect_map.hi, 1e-6f);
        // Cells fill the plot's width and the bars' height (not square: 4 layers × 8 heads in a
        // square-celled plot came out 85 × 40 px at 1280×720), up to twice as tall as wide.
        const float width = ImGui::GetContentRegionAvail().x;
        const PlotHover hm = draw_matrix_plot(ctx.canvas, "##map_change", ctx.analysis.effect_map, layers, heads,
                                              ImVec2(width, std::min(height, width * 2.0f * layers / heads)),
                                              Colormap::Magma, scale, [](int i) { return "L" + std::to_string(i); },
                                              [](int j) { return "H" + std::to_string(j); }, false);
        if (hm.row >= 0) {
            ImGui::SetTooltip(tr("L%d.H%d map changes by %.4f on average per entry%s"), hm.row, hm.col, m(hm.row, hm.col),
                              ctx.state.is_ablated(hm.row, hm.col) ? tr(" (ablated: its map is still computed)") : "");
            if (hm.clicked) {
                ctx.state.layer = hm.row;
                ctx.state.head = hm.col;
            }
        }
    }
    // 3. Beside the plots, or under them at the panel's full width when it is too narrow.
    if (columns == 3) {
        ImGui::TableNextColumn();
        draw_next_token_part(t, e);
    }
    ImGui::EndTable();
    if (columns == 2) draw_next_token_part(t, e);
}

void draw_ranking(const AnalysisPanelContext& ctx) {
    AnalysisView& a = ctx.analysis;
    ImGui::BeginDisabled(fixed_weights(ctx) || !ctx.view.trace);
    if (ImGui::Button(tr("Rank heads"))) try_action(ctx.analysis.error, [&] { request_rank_heads(ctx); });
    ImGui::EndDisabled();
    ImGui::SameLine();
    text_disabled_wrapped(tr("ablate each head alone (%s) and sort by its effect on this input"),
                          tr(to_string(ctx.state.ablate_mode)));
    if (!a.ranking) return;
    const HeadRanking& r = *a.ranking;
    const int heads = ctx.view.trace ? heads_in(*ctx.view.trace, MapKind::Self) : 1;
    // Wrapped: at 1280×720 the line ran past the panel's edge mid-word.
    ImGui::TextWrapped(tr("ranked by %s (%s ablation) on \"%s\""),
                r.measure == "kl" ? tr("KL of the next-token distribution") : tr("last layer's relative change"),
                tr(to_string(a.ranking_mode)), short_label(a.ranking_text, 40).c_str());
    // The measure's short name: the KL divergence of the next-token distribution, or the
    // last layer's relative change ‖h'−h‖/‖h‖.
    const char* measure = r.measure == "kl" ? "KL" : "‖h'−h‖/‖h‖";
    // On a log scale (the default) the bars are log₁₀ of the effect, from half the smallest
    // positive effect (at least 10⁻⁴ of the largest) up: a KL of 10.2 beside 0.01s flattened
    // them all on a linear one.
    ImGui::Checkbox(tr("log scale"), &ctx.analysis.ranking_log);
    std::vector<double> values;
    for (const RankedHead& h : r.heads) values.push_back(h.effect);
    double lo = 0, hi = 0;
    finite_range(values, lo, hi);
    double bar_lo = 0.0, bar_hi = std::max(hi * 1.05, 1e-9);
    if (ctx.analysis.ranking_log && hi > 0.0) {
        double smallest = hi;  // the smallest positive effect
        for (double v : values)
            if (v > 0.0 && std::isfinite(v)) smallest = std::min(smallest, v);
        const double floor = std::min(std::max(hi * 1e-4, smallest * 0.5), hi * 0.5);
        for (double& v : values) v = std::log10(std::max(v, floor));
        bar_lo = std::log10(floor);
        bar_hi = std::log10(hi) + 0.05 * (std::log10(hi) - bar_lo);
        ImGui::SameLine();
        ImGui::TextDisabled(tr("bars: log₁₀ %s"), measure);
    }
    const float avail_y = ImGui::GetContentRegionAvail().y;
    const PlotHover hb = draw_bar_chart("##ranking", values, nullptr, ImVec2(ImGui::GetContentRegionAvail().x * 0.55f,
                                                                           std::max(80.0f, avail_y - 4.0f)),
                                        bar_lo, bar_hi, [&](int i) {
                                            const HeadRef& h = r.heads[static_cast<std::size_t>(i)].head;
                                            return "L" + std::to_string(h.layer) + ".H" + std::to_string(h.head);
                                        },
                                        nullptr, bar_lo);
    if (hb.col >= 0) {
        const RankedHead& h = r.heads[static_cast<std::size_t>(hb.col)];
        ImGui::SetTooltip(tr("#%d  L%d.H%d  %s %.3g (click: ablate it)"), hb.col + 1, h.head.layer, h.head.head,
                          measure, h.effect);
        if (hb.clicked) ctx.state.toggle_ablation(h.head);
    }
    ImGui::SameLine();
    if (ImGui::BeginTable("##ranked", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                          ImVec2(0, std::max(80.0f, avail_y - 4.0f)))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        // The head column fits "L11.H15 (off)" (zh "（已关闭）" was cut); the measure takes the rest.
        const std::string widest_head = "L00.H00 " + std::string(tr("(off)"));
        ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("000").x);
        ImGui::TableSetupColumn(tr("head"), ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize(widest_head.c_str()).x);
        ImGui::TableSetupColumn(measure, ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (std::size_t i = 0; i < r.heads.size(); ++i) {
            const RankedHead& h = r.heads[i];
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::Text("%zu", i + 1);
            ImGui::TableSetColumnIndex(1);
            const std::string name = "L" + std::to_string(h.head.layer) + ".H" + std::to_string(h.head.head) +
                                     (ctx.state.is_ablated(h.head.layer, h.head.head) ? " " + std::string(tr("(off)")) : "");
            if (ImGui::Selectable((name + "##rank" + std::to_string(i)).c_str(), false,
                                  ImGuiSelectableFlags_SpanAllColumns)) {
                ctx.state.layer = h.head.layer;
                ctx.state.head = h.head.head;
                ctx.analysis.selected = h.head.layer * heads + h.head.head;
            }
            ImGui::TableSetColumnIndex(2);
            ImGui::Text("%.3g", h.effect);  // 3 significant digits: 0.00002 read as nothing
        }
        ImGui::EndTable();
    }
}

}  // namespace

void draw_ablation_tab(const AnalysisPanelContext& ctx) {
    draw_controls(ctx);
    if (fixed_weights(ctx)) return;  // the controls' line says why: no hint, no Rank heads
    ImGui::Separator();
    const float fs = ImGui::GetFontSize();
    const float effect_h = std::max(fs * 8, ImGui::GetContentRegionAvail().y * 0.38f);
    if (ctx.view.effect && ctx.view.trace) {
        draw_effect(ctx, *ctx.view.effect, effect_h);
    } else {
        text_disabled_wrapped("%s", tr("No head is switched off. Ctrl-click thumbnails in the grid (or tick \"grid "
                                       "clicks ablate\"); the trace recomputes with those heads zeroed before W_o."));
    }
    ImGui::Separator();
    draw_ranking(ctx);
}

}  // namespace hs
