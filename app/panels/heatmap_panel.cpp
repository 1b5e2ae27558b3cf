// Heatmap panel: the selected layer/head large, token labels on both axes, hover
// readout (query, key, weight, scaled score), wheel zoom about the cursor, drag to pan,
// arrow keys step heads (←/→) and layers (↑/↓); small maps show each weight in its cell. Drawn as one textured quad (GPU), so a
// 4096-token map costs the same per frame as an 8-token one.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/analysis_actions.h"
#include "app/fonts.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"
#include "core/image/heatmap_image.h"
#include "core/image/label_thinning.h"
#include "core/model/model_masks.h"

namespace hs {
namespace {

const char* kMapNames[] = {"self-attention", "decoder self-attention", "cross-attention"};  // tr() where shown

// The colour-scale controls: scores, auto range, range, gamma, log, reset view. In the
// toolbar they follow the selection and flow across the panel (`stacked` false); in a
// short panel they open from a button, a few to a line. have_scores: the selected block
// kept its scores (the checkbox is off without them).
void draw_scale_controls(const HeatmapPanelContext& ctx, bool stacked, bool have_scores) {
    AppState& s = ctx.state;
    const float w = 110.0f * ctx.ui_scale;
    const auto beside = [stacked](float width) {
        if (!stacked) same_line_if_fits(width);
    };
    beside(checkbox_width(tr("scores###scores")));
    ImGui::BeginDisabled(!have_scores);
    ImGui::Checkbox(tr("scores###scores"), &s.show_scores);
    ImGui::EndDisabled();
    if (stacked) ImGui::SameLine();
    ImGui::Checkbox(tr("auto range###auto_range"), &s.auto_range);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(tr("colours span the map's minimum to the value %.1f%% of its cells do not exceed,\n"
                             "so a few weights near 1 do not darken a long text's map"),
                          99.9);
    if (s.auto_range && ctx.view.main_max > ctx.view.main_hi) {
        char top[64];
        std::snprintf(top, sizeof top, tr("top %.3g (max %.3g)"), ctx.view.main_hi, ctx.view.main_max);
        beside(ImGui::CalcTextSize(top).x);
        ImGui::TextDisabled("%s", top);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(tr("cells above %.4g share the top colour; untick auto range for a fixed 0…1"), ctx.view.main_hi);
    }
    beside(labeled_width(w * 1.3f, tr("range###range")));
    ImGui::BeginDisabled(s.auto_range);
    ImGui::SetNextItemWidth(w * 1.3f);
    float range[2] = {s.scale.lo, s.scale.hi};
    if (ImGui::DragFloat2(tr("range###range"), range, 0.005f, 0.0f, 1.0f, "%.3f")) {
        s.scale.lo = range[0];
        s.scale.hi = range[1];
    }
    ImGui::EndDisabled();
    beside(labeled_width(w * 0.7f, "gamma"));
    ImGui::SetNextItemWidth(w * 0.7f);
    ImGui::DragFloat("gamma", &s.scale.gamma, 0.01f, 0.1f, 5.0f, "%.2f");
    if (stacked) ImGui::SameLine();
    else same_line_if_fits(checkbox_width(tr("log###log")));
    ImGui::Checkbox(tr("log###log"), &s.scale.log);
    beside(button_width(tr("reset view")));
    if (ImGui::Button(tr("reset view"))) ctx.heatmap.uv = UvRect{};
}

// Layer, head, which map (with a decoder) and colormap; then the colour-scale controls,
// behind a "colour scale" button when the map had too little room (the Analysis view's
// Heatmap at 1280×720: their three rows left the map ~50 px; see update_scale_placement).
void draw_toolbar(const HeatmapPanelContext& ctx, const Trace& t) {
    AppState& s = ctx.state;
    const std::vector<LayerTrace>* layers = layers_of(t, s.map);
    const int n_layers = layers ? static_cast<int>(layers->size()) : 0;
    const int n_heads = heads_in(t, s.map);
    const float w = 110.0f * ctx.ui_scale;
    // With few values the grab is half the slider: a see-through grab keeps "1 (0–1)" readable.
    ImGui::PushStyleColor(ImGuiCol_SliderGrab, ImVec4(0.26f, 0.59f, 0.98f, 0.35f));
    ImGui::PushStyleColor(ImGuiCol_SliderGrabActive, ImVec4(0.26f, 0.59f, 0.98f, 0.55f));
    // The sliders' formats: "%d (0–11)", the index from 0 and the range it takes (the last
    // index filled in here, the value by ImGui): "3 of 8" read as the third of eight.
    char layer_format[64], head_format[64];
    std::snprintf(layer_format, sizeof layer_format, tr("%%d (0–%d)"), std::max(0, n_layers - 1));
    std::snprintf(head_format, sizeof head_format, tr("%%d (0–%d)"), std::max(0, n_heads - 1));
    ImGui::SetNextItemWidth(w);
    if (ImGui::SliderInt(tr("layer###layer"), &s.layer, 0, std::max(0, n_layers - 1), layer_format)) clamp_selection(s, t);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    if (ImGui::SliderInt(tr("head###head"), &s.head, 0, std::max(0, n_heads - 1), head_format)) clamp_selection(s, t);
    ImGui::PopStyleColor(2);
    if (t.decoder) {
        same_line_if_fits(w * 1.6f);
        ImGui::SetNextItemWidth(w * 1.6f);
        int kind = static_cast<int>(s.map);
        const char* map_names[] = {tr(kMapNames[0]), tr(kMapNames[1]), tr(kMapNames[2])};
        if (ImGui::Combo("##map", &kind, map_names, 3)) {
            s.map = static_cast<MapKind>(kind);
            clamp_selection(s, t);
        }
    }
    same_line_if_fits(w);
    ImGui::SetNextItemWidth(w);
    if (ImGui::BeginCombo("##cmap", to_string(s.colormap).c_str())) {
        for (Colormap c : all_colormaps())
            if (ImGui::Selectable(to_string(c).c_str(), c == s.colormap)) s.colormap = c;
        ImGui::EndCombo();
    }
    // The block now selected, when kept without scores (the map budget's choice), shows
    // weights even while the scores checkbox is behind its button; a dropped block keeps it.
    const HeadMaps* hm = ctx.view.head_maps(s.map, s.layer);
    const bool have_scores = hm && !hm->scores.empty();
    if (hm && hm->resident && !have_scores) s.show_scores = false;
    const float controls_top = ImGui::GetCursorPosY();  // the line under the colormap
    if (!ctx.heatmap.scale_behind_button) {
        draw_scale_controls(ctx, false, have_scores);
        ctx.heatmap.toolbar_controls_h = ImGui::GetCursorPosY() - controls_top;
        return;
    }
    same_line_if_fits(button_width(tr("colour scale###colour_scale")));
    if (ImGui::Button(tr("colour scale###colour_scale"))) ImGui::OpenPopup("colour_scale_popup");
    ctx.click_targets.note("colour-scale");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("scores, auto range, range, gamma, log, reset view"));
    ctx.heatmap.button_h = ImGui::GetCursorPosY() - controls_top;
    if (ImGui::BeginPopup("colour_scale_popup")) {
        draw_scale_controls(ctx, true, have_scores);
        ImGui::EndPopup();
    }
}

// Where the colour-scale controls go next frame, from the room the map had this frame
// (area_h): behind the button below 5 rows; back in the toolbar when the room they would
// take still leaves 6 (a row between the two, so a caption one line longer or shorter
// does not flip the panel from frame to frame).
void update_scale_placement(HeatmapView& view, float area_h) {
    const float row = ImGui::GetFrameHeightWithSpacing(), min_room = 5.0f * row;
    if (!view.scale_behind_button)
        view.scale_behind_button = area_h < min_room;
    else if (area_h - (view.toolbar_controls_h - view.button_h) >= min_room + row)
        view.scale_behind_button = false;
}

// " · reads K/V head 2" under grouped-query attention, else "".
std::string kv_suffix(const Trace& t, const AppState& s) {
    const int kv = s.map == MapKind::Self ? kv_head_of(t, s.head) : -1;
    if (kv < 0) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, tr(" · reads K/V head %d"), kv);
    return buf;
}

// " · window of 4 keys" when the shown self-attention block attends a sliding window (every
// layer, or a local one of a local/global pattern), else "".
std::string window_suffix(const Trace& t, const AppState& s) {
    if (s.map == MapKind::DecoderCross) return "";
    const AttentionMask mask =
        s.map == MapKind::Self ? main_self_mask(t.config, {}, s.layer) : decoder_self_mask(t.config, s.layer);
    return mask.window > 0 ? printf_string(tr(" · window of %d keys"), mask.window) : std::string();
}

// Wheel zoom about the cursor and drag to pan, in texture coordinates.
void zoom_and_pan(UvRect& uv, ImVec2 p0, ImVec2 size, int rows, int cols, bool hovered, bool active) {
    ImGuiIO& io = ImGui::GetIO();
    if (hovered && io.MouseWheel != 0.0f) {
        const float f = std::pow(1.25f, -io.MouseWheel);
        const float mu = uv.u0 + (io.MousePos.x - p0.x) / size.x * (uv.u1 - uv.u0);
        const float mv = uv.v0 + (io.MousePos.y - p0.y) / size.y * (uv.v1 - uv.v0);
        const float min_u = std::min(1.0f, 2.0f / cols), min_v = std::min(1.0f, 2.0f / rows);
        const float nu = std::clamp((uv.u1 - uv.u0) * f, min_u, 1.0f);
        const float nv = std::clamp((uv.v1 - uv.v0) * f, min_v, 1.0f);
        uv.u0 = mu - (mu - uv.u0) / (uv.u1 - uv.u0) * nu;
        uv.v0 = mv - (mv - uv.v0) / (uv.v1 - uv.v0) * nv;
        uv.u1 = uv.u0 + nu;
        uv.v1 = uv.v0 + nv;
    }
    if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
        const float du = -io.MouseDelta.x / size.x * (uv.u1 - uv.u0);
        const float dv = -io.MouseDelta.y / size.y * (uv.v1 - uv.v0);
        uv.u0 += du; uv.u1 += du; uv.v0 += dv; uv.v1 += dv;
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) uv = UvRect{};
    // Keep the window inside the map.
    const float w = uv.u1 - uv.u0, h = uv.v1 - uv.v0;
    uv.u0 = std::clamp(uv.u0, 0.0f, 1.0f - w); uv.u1 = uv.u0 + w;
    uv.v0 = std::clamp(uv.v0, 0.0f, 1.0f - h); uv.v1 = uv.v0 + h;
}

// Small maps (≤ 16×16 visible cells, cells wider than "0.00"): each weight as text in its
// cell, black on light colours and white on dark ones (luminance of the LUT colour).
void draw_cell_values(ImDrawList* list, const Matrix& m, const UvRect& uv, ImVec2 p0, ImVec2 size, float cell_px,
                      const ColorScale& scale, Colormap cmap) {
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    const int r0 = std::max(0, static_cast<int>(std::floor(uv.v0 * rows + 1e-4f)));
    const int r1 = std::min(rows, static_cast<int>(std::ceil(uv.v1 * rows - 1e-4f)));
    const int c0 = std::max(0, static_cast<int>(std::floor(uv.u0 * cols + 1e-4f)));
    const int c1 = std::min(cols, static_cast<int>(std::ceil(uv.u1 * cols - 1e-4f)));
    if (r1 - r0 > 16 || c1 - c0 > 16) return;
    // Text at 85% of the UI font so that "0.00" fits cells of about two characters' width.
    const float fs = ImGui::GetFontSize() * 0.85f;
    const float text_scale = 0.85f;
    if (cell_px < ImGui::CalcTextSize("0.000").x * text_scale + 4.0f || cell_px < fs + 4.0f) return;
    list->PushClipRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), true);
    for (int i = r0; i < r1; ++i)
        for (int j = c0; j < c1; ++j) {
            const float v = m(i, j);
            // As the figures print it (core): 0.007, not 0.01; a masked cell (exactly 0) stays blank.
            const std::string text_of_v = cell_value_text(v);
            const char* buf = text_of_v.c_str();
            const Rgb8 c = colorize(v, cmap, scale);
            const float luminance = (0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b) / 255.0f;
            const ImU32 text = luminance > 0.5f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
            const float x = p0.x + ((j + 0.5f) / cols - uv.u0) / (uv.u1 - uv.u0) * size.x;
            const float y = p0.y + ((i + 0.5f) / rows - uv.v0) / (uv.v1 - uv.v0) * size.y;
            const ImVec2 ts = ImGui::CalcTextSize(buf);
            list->AddText(ImGui::GetFont(), fs, ImVec2(x - ts.x * text_scale * 0.5f, y - ts.y * text_scale * 0.5f), text,
                          buf);
        }
    list->PopClipRect();
}

// The gold relations of the shown text, when it is a sample that carries them and the
// model read it as their tokens (after any BOS): the arcs and the offset of token 0.
struct ShownGold {
    const corpus::AnnotatedSentence* sentence = nullptr;
    int offset = 0;
};
ShownGold shown_gold(const HeatmapPanelContext& ctx, const StackTrace& queries) {
    for (const Sample& sample : ctx.samples) {
        if (!sample.gold || sample.text != ctx.view.input.text) continue;
        const std::vector<std::string>& gold = sample.gold->tokens;
        const std::vector<std::string>& read = queries.tokens;
        if (read.size() < gold.size() || !std::equal(gold.begin(), gold.end(), read.end() - static_cast<std::ptrdiff_t>(gold.size())))
            return {};
        return {&*sample.gold, static_cast<int>(read.size() - gold.size())};
    }
    return {};
}

ImU32 relation_colour(corpus::Relation r) {
    constexpr ImU32 kColours[] = {IM_COL32(255, 120, 90, 255),  IM_COL32(255, 80, 200, 255), IM_COL32(120, 230, 120, 255),
                                  IM_COL32(255, 210, 60, 255),  IM_COL32(90, 200, 255, 255), IM_COL32(200, 150, 255, 255),
                                  IM_COL32(255, 255, 255, 255)};
    return kColours[static_cast<int>(r) % 7];
}

// Gold arcs over the map: the partner's cells in the dependent's row, outlined in the
// relation's colour (the head "gets it right" when its brightest earlier cell is inside).
void draw_gold_arcs(ImDrawList* list, const ShownGold& gold, const UvRect& uv, ImVec2 p0, ImVec2 size, int rows, int cols) {
    const auto x_of = [&](int j) { return p0.x + (static_cast<float>(j) / cols - uv.u0) / (uv.u1 - uv.u0) * size.x; };
    const auto y_of = [&](int i) { return p0.y + (static_cast<float>(i) / rows - uv.v0) / (uv.v1 - uv.v0) * size.y; };
    list->PushClipRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), true);
    for (const corpus::Arc& a : gold.sentence->arcs) {
        const int row = gold.offset + a.dependent;
        if (row >= rows || gold.offset + a.partner_end > cols) continue;
        const ImVec2 q0(x_of(gold.offset + a.partner_begin), y_of(row)), q1(x_of(gold.offset + a.partner_end), y_of(row + 1));
        list->AddRect(q0, q1, IM_COL32(0, 0, 0, 200), 0.0f, 0, 4.0f);
        list->AddRect(q0, q1, relation_colour(a.relation), 0.0f, 0, 2.0f);
    }
    list->PopClipRect();
}

// "gold: coreference she → Mary · …" in the relations' colours.
void draw_gold_legend(const ShownGold& gold) {
    ImGui::TextDisabled("%s", tr("gold:"));
    for (const corpus::Arc& a : gold.sentence->arcs) {
        std::string partner;
        for (int k = a.partner_begin; k < a.partner_end; ++k) partner += gold.sentence->tokens[static_cast<std::size_t>(k)];
        const ImU32 c = relation_colour(a.relation);
        ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(c), "%s %s → %s", tr(corpus::relation_name(a.relation)),
                           gold.sentence->tokens[static_cast<std::size_t>(a.dependent)].c_str(), partner.c_str());
    }
}

// Where the map lies this frame: the panel's content origin, the map's corners and size
// in pixels, the visible part (uv) of its rows × cols cells.
struct MapPlacement {
    ImVec2 origin, p0, p1, size;
    float margin_x = 0.0f, fs = 0.0f, cell_px = 0.0f;
    int rows = 0, cols = 0;
    UvRect uv;
};

// Token labels left of the rows (queries) and above the columns (keys): every `step`-th
// visible token so labels never overlap, a word at a word start when labels are apart
// (core's thinned_label: "girl", not its first piece " g").
void draw_axis_labels(ImDrawList* list, const MapPlacement& m, const StackTrace& qs, const StackTrace& ks,
                      const TokenWords& qw, const TokenWords& kw, HeatmapView& drawn) {
    const ImVec2 p0 = m.p0, p1 = m.p1, size = m.size;
    const UvRect& uv = m.uv;
    const float fs = m.fs, cell_px = m.cell_px;
    const int rows = m.rows, cols = m.cols;
    const int step = std::max(1, static_cast<int>(std::ceil((fs + 1.0f) / cell_px)));
    drawn.label_step = step;
    drawn.row_labels.clear();
    drawn.col_labels.clear();
    const ImU32 label_col = IM_COL32(215, 218, 225, 255);
    const int r0 = std::max(0, static_cast<int>(std::floor(uv.v0 * rows)));
    const int r1 = std::min(rows, static_cast<int>(std::ceil(uv.v1 * rows)));
    // Labels at word starts where possible (core's thinned_labels); the clip reaches half a
    // line past the map so the first and last labels are not cut.
    list->PushClipRect(ImVec2(p0.x - m.margin_x, p0.y - fs * 0.6f), ImVec2(p0.x - 2, p1.y + fs * 0.6f), true);
    for (int i : thinned_labels(qs.tokens, 0, rows, step)) {
        if (i < r0 || i >= r1) continue;
        const float y = p0.y + ((i + 0.5f) / rows - uv.v0) / (uv.v1 - uv.v0) * size.y;
        const std::string lab = short_label(drawable_text(thinned_label(qw, i, step)), 12);
        const float tw = ImGui::CalcTextSize(lab.c_str()).x;
        list->AddText(ImVec2(p0.x - 4 - tw, y - fs * 0.5f), label_col, lab.c_str());
        drawn.row_labels.emplace_back(i, lab);
    }
    list->PopClipRect();
    const int c0 = std::max(0, static_cast<int>(std::floor(uv.u0 * cols)));
    const int c1 = std::min(cols, static_cast<int>(std::ceil(uv.u1 * cols)));
    list->PushClipRect(ImVec2(p0.x - fs * 0.6f, m.origin.y), ImVec2(p1.x + fs * 0.6f, p0.y - 2), true);
    for (int j : thinned_labels(ks.tokens, 0, cols, step)) {
        if (j < c0 || j >= c1) continue;
        const float x = p0.x + ((j + 0.5f) / cols - uv.u0) / (uv.u1 - uv.u0) * size.x;
        const std::string token = drawable_text(thinned_label(kw, j, step));
        std::string lab = short_label(token, 12);
        const float tw = ImGui::CalcTextSize(lab.c_str()).x;
        if (tw <= cell_px * step - 2.0f) {  // fits across its column(s): keep it upright
            list->AddText(ImVec2(x - tw * 0.5f, p0.y - 4 - fs), label_col, lab.c_str());
            drawn.col_labels.emplace_back(j, lab);
            continue;
        }
        // Standing up, shortened (with "…") to the band above the map, whose height is
        // capped at 8 lines: a longer label would run past the band's clip.
        for (std::size_t n = 11; n >= 1 && ImGui::CalcTextSize(lab.c_str()).x > p0.y - 4 - m.origin.y; --n)
            lab = short_label(token, n);
        add_text_vertical(list, ImVec2(x - fs * 0.5f, p0.y - 4), label_col, lab.c_str());
        drawn.col_labels.emplace_back(j, lab);
    }
    list->PopClipRect();
}

// Axis titles in the corner left of the key labels and above the query labels: "keys →"
// on the line just above the map, "queries ↓" above it (a decoder's cross-attention names
// whose queries and keys they are), shortened to "K →" / "Q ↓" where the corner is narrow.
void draw_axis_titles(ImDrawList* list, const MapPlacement& m, MapKind kind, HeatmapView& drawn) {
    const bool cross = kind == MapKind::DecoderCross;
    drawn.axis_titles = {};
    const ImVec2 c0(m.origin.x, m.origin.y), c1(m.p0.x - 4.0f, m.p0.y - 2.0f);
    const float fs = m.fs;
    if (c1.x - c0.x < fs * 2.0f || c1.y - c0.y < fs) return;
    const char* keys = cross ? tr("encoder keys →") : tr("keys →");
    const char* queries = cross ? tr("decoder queries ↓") : tr("queries ↓");
    const float room = c1.x - c0.x;
    if (ImGui::CalcTextSize(keys).x > room || ImGui::CalcTextSize(queries).x > room) {
        keys = "K →";
        queries = "Q ↓";
    }
    const ImU32 title = IM_COL32(150, 170, 200, 255);
    list->PushClipRect(c0, c1, true);
    list->AddText(ImVec2(c1.x - ImGui::CalcTextSize(keys).x, c1.y - fs), title, keys);
    const bool two_lines = c1.y - c0.y >= 2.0f * fs + 2.0f;
    const ImVec2 q = two_lines ? ImVec2(c1.x - ImGui::CalcTextSize(queries).x, c1.y - 2.0f * fs - 2.0f)
                               : ImVec2(c1.x - ImGui::CalcTextSize(keys).x - ImGui::CalcTextSize(queries).x - fs * 0.6f, c1.y - fs);
    list->AddText(q, title, queries);
    list->PopClipRect();
    drawn.axis_titles = {queries, keys};
}

// The colour bar right of the map, with its range (≥ top when larger values share the top
// colour); at least two lines tall, so its two labels never overlap beside a small map.
// Returns its height.
float draw_colour_bar(const HeatmapPanelContext& ctx, ImDrawList* list, const MapPlacement& m, const ColorScale& scale,
                      float bar_w, float bar_gap) {
    const AppState& s = ctx.state;
    const float bar_h = std::max(m.size.y, 2.2f * m.fs);
    const ImVec2 b0(m.p1.x + bar_gap, m.p0.y), b1(b0.x + bar_w, m.p0.y + bar_h);
    ctx.renderer.draw_colorbar(list, b0, b1, s.colormap, true);
    const ImU32 label_col = IM_COL32(215, 218, 225, 255);
    char buf[64];
    const bool clipped = (s.auto_range || s.show_scores) && ctx.view.main_max > scale.hi;
    std::snprintf(buf, sizeof buf, clipped ? "≥%.3g" : "%.3g", scale.hi);
    list->AddText(ImVec2(b1.x + 4, b0.y), label_col, buf);
    std::snprintf(buf, sizeof buf, "%.3g", scale.lo);
    list->AddText(ImVec2(b1.x + 4, b1.y - m.fs), label_col, buf);
    return bar_h;
}

// The hovered cell outlined, and its readout: query token, key token, weight, scaled score.
std::string hover_readout(ImDrawList* list, const MapPlacement& m, const Trace& t, const AppState& s,
                          const StackTrace& qs, const StackTrace& ks, const TokenWords& qw, const TokenWords& kw,
                          const Matrix& weights, const Matrix* scores) {
    const UvRect& uv = m.uv;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const float u = uv.u0 + (mouse.x - m.p0.x) / m.size.x * (uv.u1 - uv.u0);
    const float v = uv.v0 + (mouse.y - m.p0.y) / m.size.y * (uv.v1 - uv.v0);
    const int j = std::clamp(static_cast<int>(u * m.cols), 0, m.cols - 1);
    const int i = std::clamp(static_cast<int>(v * m.rows), 0, m.rows - 1);
    const float cx = m.p0.x + (static_cast<float>(j) / m.cols - uv.u0) / (uv.u1 - uv.u0) * m.size.x;
    const float cy = m.p0.y + (static_cast<float>(i) / m.rows - uv.v0) / (uv.v1 - uv.v0) * m.size.y;
    list->AddRect(ImVec2(cx, cy), ImVec2(cx + m.cell_px, cy + m.cell_px), IM_COL32(255, 255, 255, 220), 0, 0, 2.0f);
    const std::string q = drawable_text(token_in_word(qs.tokens, qw, i)), k = drawable_text(token_in_word(ks.tokens, kw, j));
    const std::string kv = kv_suffix(t, s);
    return scores ? printf_string(tr("query %d %s → key %d %s   weight %.6g   score %.6g%s"), i, q.c_str(), j,
                                  k.c_str(), weights(i, j), (*scores)(i, j), kv.c_str())
                  : printf_string(tr("query %d %s → key %d %s   weight %.6g   (scores not captured: long input)%s"),
                                  i, q.c_str(), j, k.c_str(), weights(i, j), kv.c_str());
}

// The token labels' widest widths, measured again when the trace, the map kind or the
// font size changes.
void update_label_widths(const HeatmapPanelContext& ctx, const TokenWords& qw, const TokenWords& kw, float fs) {
    const std::string label_key =
        std::to_string(ctx.view.generation) + "/" + std::to_string(int(ctx.state.map)) + "/" + std::to_string(fs) + "/" +
        std::to_string(FontManager::generation());  // a rebuilt atlas draws "[U+…]" labels as characters
    if (label_key == ctx.heatmap.label_key) return;
    ctx.heatmap.label_key = label_key;
    auto widest = [](const TokenWords& words) {  // a label is a piece or (labels apart) a word
        float w = 0.0f;
        for (const std::vector<std::string>* names : {&words.pieces, &words.words})
            for (const std::string& name : *names)
                w = std::max(w, ImGui::CalcTextSize(short_label(drawable_text(name), 12).c_str()).x);
        return w;
    };
    ctx.heatmap.row_label_w = widest(qw);
    ctx.heatmap.col_label_w = widest(kw);
}

// The lines under the map: its caption (after the amber "untrained" note of a playground,
// beside it when both fit, else on the next line) and what the relation probes found the
// head does, each wrapped to the panel (the Analysis view's is ~350 px wide).
struct MapCaption {
    std::string caption;
    const char* untrained = nullptr;
    bool caption_beside = true;
    std::string relation_lines;  // empty: no finding
    std::string stale_lines;     // why the map is stale (stale_reason), wrapped; empty: it is not
    float height = 0.0f;         // all of them, in pixels
};

// Why the map on screen is not of the model and text being edited, or null: an invalid
// edit or a failed computation leaves the last result shown, which must not pass for the
// new one.
const char* stale_reason(const HeatmapPanelContext& ctx) {
    if (!ctx.state.config_errors.empty()) return tr("stale: the edit is invalid (Model panel); the last valid result is shown");
    if (ctx.view.error.empty()) return nullptr;
    return ctx.view.input_error ? tr("stale: the text cannot run; the last text that ran is shown")
                                : tr("stale: the computation failed; the last result is shown");
}

MapCaption map_caption(const HeatmapPanelContext& ctx, const Trace& t, const ShownGold& gold, int rows, int cols, float width) {
    const AppState& s = ctx.state;
    const float fs = ImGui::GetFontSize();
    MapCaption c;
    c.caption = printf_string(tr("%s · layer %d head %d%s · %d×%d"), tr(kMapNames[static_cast<int>(s.map)]), s.layer,
                              s.head, (kv_suffix(t, s) + window_suffix(t, s)).c_str(), rows, cols);
    c.untrained = ctx.view.source_kind == "playground" ? tr("untrained: random weights") : nullptr;
    c.caption_beside = !c.untrained || ImGui::CalcTextSize(c.untrained).x + ImGui::GetStyle().ItemSpacing.x +
                                               ImGui::CalcTextSize(c.caption.c_str()).x <=
                                           width;
    c.height = ImGui::CalcTextSize(prose_lines(c.caption, width).c_str()).y +
               (c.caption_beside ? 0.0f : ImGui::GetTextLineHeightWithSpacing());
    // What the relation probes found this head does (in the language of the gold sample
    // shown): named as the probes' finding, apart from the Heads table's role, which the
    // attention-pattern metrics give. Broken by core's break_lines: ImGui's wrap would
    // split "0.37" at its point.
    const std::string relation =
        s.map == MapKind::Self ? relation_caption(ctx.analysis, ctx.view.model_arg, s.layer, s.head, gold.sentence ? gold.sentence->lang : "") : "";
    if (const char* stale = stale_reason(ctx)) {
        c.stale_lines = prose_lines(stale, width);
        c.height += ImGui::CalcTextSize(c.stale_lines.c_str()).y + fs * 0.2f;
    }
    if (!relation.empty()) {
        c.relation_lines =
            prose_lines(printf_string(tr("L%d.H%d, relation probes: %s"), s.layer, s.head, relation.c_str()), width);
        c.height += ImGui::CalcTextSize(c.relation_lines.c_str()).y + fs * 0.4f;
    }
    return c;
}

// The readout replaces the caption where it fits on the line; in a narrow panel (the
// Analysis view's) the caption stays and the readout is a tooltip, whole.
void draw_map_caption(const MapCaption& c, const std::string& readout, float width) {
    if (!c.stale_lines.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", c.stale_lines.c_str());
    if (!readout.empty() && ImGui::CalcTextSize(readout.c_str()).x <= width) {
        ImGui::TextUnformatted(readout.c_str());
    } else {
        if (!readout.empty()) ImGui::SetTooltip("%s", readout.c_str());
        if (c.untrained) {  // the map's model, not the one being edited
            ImGui::TextColored(kAmber, "%s", c.untrained);
            if (c.caption_beside) ImGui::SameLine();
        }
        text_prose(c.caption, true);
        if (readout.empty() && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr("wheel: zoom · drag: pan · ← → heads · ↑ ↓ layers (F1: help)"));
    }
    if (!c.relation_lines.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.85f, 1.0f, 1.0f));
        ImGui::TextUnformatted(c.relation_lines.c_str());
        ImGui::PopStyleColor();
    }
}

// The map dimmed, with a "stale" badge at its top left (the reason is under the map).
void draw_stale_mark(ImDrawList* list, ImVec2 p0, ImVec2 p1) {
    list->AddRectFilled(p0, p1, IM_COL32(20, 20, 24, 150));
    const char* badge = tr("stale");
    const float pad = 4.0f;
    const ImVec2 ts = ImGui::CalcTextSize(badge);
    list->AddRectFilled(p0, ImVec2(p0.x + ts.x + 2 * pad, p0.y + ts.y + 2 * pad), IM_COL32(150, 35, 35, 240));
    list->AddText(ImVec2(p0.x + pad, p0.y + pad), IM_COL32(255, 235, 230, 255), badge);
}

}  // namespace

float draw_heatmap_controls_panel(const HeatmapPanelContext& ctx, const PanelRect& r) {
    begin_fixed_window("##heatmap_controls", r,
                       ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    float needed = 0.0f;
    if (const Trace* t = ctx.view.trace.get()) {
        ctx.heatmap.scale_behind_button = false;  // the map's room does not depend on them here
        const float top = ImGui::GetCursorPosY();
        draw_toolbar(ctx, *t);
        needed = ImGui::GetCursorPosY() - top + 2.0f * ImGui::GetStyle().WindowPadding.y - ImGui::GetStyle().ItemSpacing.y;
    }
    end_window();
    return needed;
}

void draw_heatmap_panel(const HeatmapPanelContext& ctx, const PanelRect& r, bool with_toolbar) {
    begin_fixed_window(tr("Heatmap###heatmap"), r, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    const Trace* t = ctx.view.trace.get();
    if (!t) {
        ImGui::TextDisabled("%s", ctx.worker.busy() ? tr("computing…") : tr("no trace yet"));
        end_window();
        return;
    }
    AppState& s = ctx.state;
    if (with_toolbar) draw_toolbar(ctx, *t);
    ctx.view.sync_textures(s, ctx.layer_maps_worker, ctx.mip_worker);
    const Matrix* weights = ctx.view.selected_map(s, false);
    const Matrix* scores = ctx.view.selected_map(s, true);
    const FloatTexture& tex = ctx.view.main;
    if (!weights || tex.empty()) {
        // A block dropped by the map budget is being recomputed on the worker (or failed).
        if (selected_maps_pending(ctx.view, s))
            ImGui::TextDisabled(tr("computing layer %d…"), s.layer);
        else if (!ctx.view.layer_maps_error.empty())
            ImGui::TextWrapped(tr("layer %d: %s"), s.layer, tr_message(ctx.view.layer_maps_error).c_str());
        else
            ImGui::TextDisabled("%s", tr("no map for this selection"));
        end_window();
        return;
    }
    const StackTrace* qs = query_stack(*t, s.map);
    const StackTrace* ks = key_stack(*t, s.map);
    const ShownGold gold = s.map == MapKind::Self ? shown_gold(ctx, *qs) : ShownGold{};
    const int rows = static_cast<int>(weights->rows()), cols = static_cast<int>(weights->cols());
    const std::string uv_key = std::to_string(rows) + "x" + std::to_string(cols);
    if (uv_key != ctx.heatmap.uv_key) {
        ctx.heatmap.uv = UvRect{};
        ctx.heatmap.uv_key = uv_key;
    }
    UvRect& uv = ctx.heatmap.uv;
    const ColorScale scale = ctx.view.heatmap_scale(s);

    // Geometry: label margins left/top, colour bar right, readout line below.
    const float fs = ImGui::GetFontSize();
    const TokenWords &qw = ctx.view.words_of(*qs), &kw = ctx.view.words_of(*ks);
    update_label_widths(ctx, qw, kw, fs);
    const float margin_x = std::min(ctx.heatmap.row_label_w + 8.0f, fs * 8.0f);
    const float margin_y = std::min(ctx.heatmap.col_label_w + 8.0f, fs * 8.0f);
    const float bar_w = 14.0f * ctx.ui_scale, bar_gap = 8.0f * ctx.ui_scale;
    const float bar_text = ImGui::CalcTextSize("-0.000").x + 6.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float area_w = avail.x - margin_x - bar_w - bar_gap - bar_text;
    const MapCaption caption = map_caption(ctx, *t, gold, rows, cols, avail.x);
    const float area_h = avail.y - margin_y - caption.height - fs * (0.6f + (gold.sentence ? 1.4f : 0.0f));
    ctx.heatmap.area_w = area_w;
    ctx.heatmap.area_h = area_h;
    ctx.heatmap.area_frame = ImGui::GetFrameCount();
    if (with_toolbar) update_scale_placement(ctx.heatmap, area_h);
    if (area_w < 20.0f || area_h < 20.0f) {
        end_window();
        return;
    }
    const float vis_cols = (uv.u1 - uv.u0) * cols, vis_rows = (uv.v1 - uv.v0) * rows;
    const float cell = std::min(area_w / vis_cols, area_h / vis_rows);  // square cells
    const ImVec2 size(cell * vis_cols, cell * vis_rows);
    // Centre the map horizontally in what is left.
    const float slack = std::max(0.0f, area_w - size.x) * 0.5f;
    const ImVec2 p0(origin.x + margin_x + slack, origin.y + margin_y), p1(p0.x + size.x, p0.y + size.y);

    ImGui::SetCursorScreenPos(p0);
    ImGui::InvisibleButton("##map", size);
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    zoom_and_pan(uv, p0, size, rows, cols, hovered, active);
    ImDrawList* list = ImGui::GetWindowDrawList();
    ctx.renderer.draw(list, tex, p0, p1, uv, scale, s.colormap);
    ctx.heatmap.last_p0 = p0;
    ctx.heatmap.last_p1 = p1;
    ctx.heatmap.last_scale = scale;
    ctx.heatmap.drawn = true;
    list->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), IM_COL32(90, 90, 100, 255));

    const MapPlacement placed{origin, p0, p1, size, margin_x, fs, size.x / vis_cols, rows, cols, uv};
    draw_cell_values(list, s.show_scores && scores ? *scores : *weights, uv, p0, size, placed.cell_px, scale,
                     s.colormap);
    if (gold.sentence) draw_gold_arcs(list, gold, uv, p0, size, rows, cols);
    ctx.heatmap.stale = !caption.stale_lines.empty();
    if (ctx.heatmap.stale) draw_stale_mark(list, p0, p1);
    draw_axis_labels(list, placed, *qs, *ks, qw, kw, ctx.heatmap);
    draw_axis_titles(list, placed, s.map, ctx.heatmap);
    const float bar_h = draw_colour_bar(ctx, list, placed, scale, bar_w, bar_gap);
    ImGui::SetCursorScreenPos(ImVec2(origin.x, p0.y + bar_h + 6.0f));
    const std::string readout = hovered ? hover_readout(list, placed, *t, s, *qs, *ks, qw, kw, *weights, scores) : "";
    draw_map_caption(caption, readout, avail.x);
    if (gold.sentence) draw_gold_legend(gold);
    end_window();
}

}  // namespace hs
