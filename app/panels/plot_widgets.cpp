#include "app/panels/plot_widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/widgets.h"
#include "core/analysis/head_labels.h"
#include "core/image/tick_label.h"

namespace hs {

namespace {
const ImU32 kAxis = IM_COL32(150, 155, 165, 255);
const ImU32 kText = IM_COL32(210, 214, 222, 255);
const ImU32 kGrid = IM_COL32(60, 64, 72, 255);

}  // namespace

ImU32 role_color(Role role) {
    switch (role) {
        case Role::PreviousToken: return IM_COL32(66, 135, 245, 255);
        case Role::NextToken: return IM_COL32(0, 170, 170, 255);
        case Role::Self: return IM_COL32(150, 110, 220, 255);
        case Role::FirstTokenSink: return IM_COL32(220, 90, 70, 255);
        case Role::SepPunct: return IM_COL32(225, 160, 40, 255);
        case Role::Induction: return IM_COL32(60, 180, 90, 255);
        case Role::Local: return IM_COL32(120, 160, 200, 255);
        case Role::Broad: return IM_COL32(190, 170, 120, 255);
        case Role::Mixed: return IM_COL32(110, 110, 118, 255);
    }
    return IM_COL32(110, 110, 118, 255);
}

void role_chip(Role role) {
    const char* name = tr(role_name(role));
    const ImVec2 ts = ImGui::CalcTextSize(name);
    const ImVec2 pad(5.0f, 1.0f);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImVec2 p1(p0.x + ts.x + 2 * pad.x, p0.y + ts.y + 2 * pad.y);
    ImDrawList* list = ImGui::GetWindowDrawList();
    list->AddRectFilled(p0, p1, role_color(role), 4.0f);
    list->AddText(ImVec2(p0.x + pad.x, p0.y + pad.y), IM_COL32(255, 255, 255, 255), name);
    ImGui::Dummy(ImVec2(p1.x - p0.x, p1.y - p0.y));
}

std::string reason_text(const std::string& reason) {
    return reason == "no rule fires" ? std::string(tr("no rule fires")) : tr_message(reason);
}

void label_chip(const HeadLabels& labels, const char* where) {
    role_chip(labels.primary.role);
    if (!ImGui::IsItemHovered()) return;
    ImGui::SetTooltip("%s (%s)\n%s\n%s", tr(role_name(labels.primary.role)), where,
                      reason_text(labels.primary.reason).c_str(), tr(role_description(labels.primary.role)));
}

ImU32 series_color(int i) {
    static const ImU32 palette[] = {IM_COL32(66, 135, 245, 255), IM_COL32(240, 120, 60, 255),
                                    IM_COL32(60, 180, 90, 255),  IM_COL32(220, 70, 110, 255),
                                    IM_COL32(160, 110, 230, 255), IM_COL32(230, 200, 60, 255),
                                    IM_COL32(0, 180, 190, 255),  IM_COL32(235, 120, 215, 255)};  // no grey: it read as plain text
    return palette[static_cast<std::size_t>(i) % (sizeof palette / sizeof palette[0])];
}

void finite_range(const std::vector<double>& v, double& lo, double& hi) {
    bool any = false;
    lo = hi = 0.0;
    for (double x : v) {
        if (!std::isfinite(x)) continue;
        lo = any ? std::min(lo, x) : x;
        hi = any ? std::max(hi, x) : x;
        any = true;
    }
}

PlotHover draw_matrix_plot(const PlotCanvas& canvas, const char* id, const KeyedTexture& tex, int rows, int cols,
                           ImVec2 size, Colormap cmap, const ColorScale& scale, const AxisLabel& row_label,
                           const AxisLabel& col_label, bool square) {
    PlotHover out;
    if (rows <= 0 || cols <= 0 || tex.texture.empty()) return out;
    const float fs = ImGui::GetFontSize();
    float row_w = 0.0f;
    for (int i = 0; i < rows && row_label; ++i) row_w = std::max(row_w, ImGui::CalcTextSize(row_label(i).c_str()).x);
    row_w = std::min(row_w + 6.0f, fs * 7.0f);
    const float col_h = col_label ? fs + 4.0f : 0.0f;
    const float bar_w = 12.0f * canvas.ui_scale, bar_gap = 6.0f * canvas.ui_scale;
    // Room for the bar's two labels as they print ("0.0096" is wider than "-0.000" was).
    const std::string hi_text = tick_label(scale.hi, scale.hi - scale.lo), lo_text = tick_label(scale.lo, scale.hi - scale.lo);
    const float bar_text = std::max(ImGui::CalcTextSize(hi_text.c_str()).x, ImGui::CalcTextSize(lo_text.c_str()).x) + 6.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float area_w = std::max(10.0f, size.x - row_w - bar_w - bar_gap - bar_text);
    const float area_h = std::max(10.0f, size.y - col_h);
    float cw = area_w / cols, ch = area_h / rows;
    if (square) cw = ch = std::min(cw, ch);
    const ImVec2 p0(origin.x + row_w, origin.y + col_h), p1(p0.x + cw * cols, p0.y + ch * rows);
    ImGui::SetCursorScreenPos(p0);
    ImGui::InvisibleButton(id, ImVec2(p1.x - p0.x, p1.y - p0.y));
    const bool hovered = ImGui::IsItemHovered();
    out.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    ImDrawList* list = ImGui::GetWindowDrawList();
    canvas.renderer.draw(list, tex.texture, p0, p1, UvRect{}, scale, cmap);
    list->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), kGrid);
    // Labels: every k-th so that text never overlaps.
    if (row_label) {
        const int k = std::max(1, static_cast<int>(std::ceil(fs / ch)));
        for (int i = 0; i < rows; i += k) {
            const std::string s = row_label(i);
            const float tw = ImGui::CalcTextSize(s.c_str()).x;
            list->AddText(ImVec2(p0.x - 4 - tw, p0.y + (i + 0.5f) * ch - fs * 0.5f), kText, s.c_str());
        }
    }
    if (col_label) {
        float widest = 0.0f;
        for (int j = 0; j < cols; ++j) widest = std::max(widest, ImGui::CalcTextSize(col_label(j).c_str()).x);
        const int k = std::max(1, static_cast<int>(std::ceil((widest + 4.0f) / cw)));
        for (int j = 0; j < cols; j += k) {
            const std::string s = col_label(j);
            const float tw = ImGui::CalcTextSize(s.c_str()).x;
            list->AddText(ImVec2(p0.x + (j + 0.5f) * cw - tw * 0.5f, p0.y - fs - 2), kText, s.c_str());
        }
    }
    // Colour bar with its range.
    const ImVec2 b0(p1.x + bar_gap, p0.y), b1(b0.x + bar_w, std::max(p1.y, p0.y + 40.0f));
    canvas.renderer.draw_colorbar(list, b0, b1, cmap, true);
    list->AddText(ImVec2(b1.x + 3, b0.y), kText, hi_text.c_str());
    list->AddText(ImVec2(b1.x + 3, b1.y - fs), kText, lo_text.c_str());
    if (hovered) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        out.col = std::clamp(static_cast<int>((m.x - p0.x) / cw), 0, cols - 1);
        out.row = std::clamp(static_cast<int>((m.y - p0.y) / ch), 0, rows - 1);
        const ImVec2 c0(p0.x + out.col * cw, p0.y + out.row * ch);
        list->AddRect(c0, ImVec2(c0.x + cw, c0.y + ch), IM_COL32(255, 255, 255, 230), 0, 0, 2.0f);
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x, std::max(p1.y, b1.y) + 4.0f));
    ImGui::Dummy(ImVec2(size.x, 1.0f));
    return out;
}

namespace {

// Plot frame: value axis labels left, returns the inner rectangle.
void plot_frame(ImDrawList* list, ImVec2 origin, ImVec2 size, double lo, double hi, float x_label_h, ImVec2& q0,
                ImVec2& q1) {
    const float fs = ImGui::GetFontSize();
    const std::string top = tick_label(hi, hi - lo), bottom = tick_label(lo, hi - lo);
    const float axis_w = std::max(ImGui::CalcTextSize(bottom.c_str()).x, ImGui::CalcTextSize(top.c_str()).x) + 6.0f;
    q0 = ImVec2(origin.x + axis_w, origin.y + fs * 0.5f);
    q1 = ImVec2(origin.x + size.x - 4.0f, origin.y + size.y - x_label_h);
    list->AddRectFilled(q0, q1, IM_COL32(24, 26, 30, 255));
    for (int g = 0; g <= 4; ++g) {
        const float y = q1.y - (q1.y - q0.y) * g / 4.0f;
        list->AddLine(ImVec2(q0.x, y), ImVec2(q1.x, y), kGrid);
    }
    list->AddText(ImVec2(q0.x - 4 - ImGui::CalcTextSize(top.c_str()).x, q0.y - fs * 0.5f), kText, top.c_str());
    list->AddText(ImVec2(q0.x - 4 - ImGui::CalcTextSize(bottom.c_str()).x, q1.y - fs * 0.5f), kText, bottom.c_str());
}

void x_labels(ImDrawList* list, ImVec2 q0, ImVec2 q1, int n, float slot, const AxisLabel& x_label) {
    if (!x_label) return;
    // Left to right, each label centred under its slot (moved left to end at the plot's right
    // edge; on the left the value axis's margin has room) and drawn when it starts 6 px past
    // the last one drawn: short labels all show, long ones thin out, empty ones take no room.
    float free_from = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
        const std::string s = x_label(i);
        if (s.empty()) continue;
        const float tw = ImGui::CalcTextSize(s.c_str()).x;
        const float x = std::min(q0.x + (i + 0.5f) * slot - tw * 0.5f, q1.x - tw);
        if (x < free_from) continue;
        list->AddText(ImVec2(x, q1.y + 2), kText, s.c_str());
        free_from = x + tw + 6.0f;
    }
}

}  // namespace

PlotHover draw_bar_chart(const char* id, const std::vector<double>& values, const std::vector<double>* errors,
                         ImVec2 size, double lo, double hi, const AxisLabel& x_label,
                         const std::vector<ImU32>* colors, double base) {
    PlotHover out;
    const int n = static_cast<int>(values.size());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered();
    out.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    if (n == 0) return out;
    if (!(hi > lo)) hi = lo + 1.0;
    ImDrawList* list = ImGui::GetWindowDrawList();
    ImVec2 q0, q1;
    plot_frame(list, origin, size, lo, hi, x_label ? ImGui::GetFontSize() + 4.0f : 2.0f, q0, q1);
    const float slot = (q1.x - q0.x) / n;
    auto y_of = [&](double v) {
        const double t = std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
        return q1.y - static_cast<float>(t) * (q1.y - q0.y);
    };
    const float y0 = y_of(std::clamp(base, lo, hi));
    const int hovered_i = hovered ? std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - q0.x) / slot), 0, n - 1) : -1;
    for (int i = 0; i < n; ++i) {
        const double v = values[static_cast<std::size_t>(i)];
        if (!std::isfinite(v)) continue;
        const float x0 = q0.x + i * slot + std::max(1.0f, slot * 0.12f), x1 = q0.x + (i + 1) * slot - std::max(1.0f, slot * 0.12f);
        ImU32 c = colors ? (*colors)[static_cast<std::size_t>(i)] : IM_COL32(90, 150, 230, 255);
        if (i == hovered_i) c = IM_COL32(255, 200, 80, 255);
        const float yv = y_of(v);
        list->AddRectFilled(ImVec2(x0, std::min(yv, y0)), ImVec2(std::max(x1, x0 + 1.0f), std::max(yv, y0) + 0.5f), c);
        if (errors && std::isfinite((*errors)[static_cast<std::size_t>(i)])) {
            const double e = (*errors)[static_cast<std::size_t>(i)];
            const float xm = (x0 + x1) * 0.5f, ya = y_of(v - e), yb = y_of(v + e);
            list->AddLine(ImVec2(xm, ya), ImVec2(xm, yb), IM_COL32(235, 235, 235, 220));
            list->AddLine(ImVec2(xm - 2, ya), ImVec2(xm + 3, ya), IM_COL32(235, 235, 235, 220));
            list->AddLine(ImVec2(xm - 2, yb), ImVec2(xm + 3, yb), IM_COL32(235, 235, 235, 220));
        }
    }
    list->AddLine(ImVec2(q0.x, y0), ImVec2(q1.x, y0), kAxis);
    x_labels(list, q0, q1, n, slot, x_label);
    out.col = hovered_i;
    return out;
}

ChartLine induction_head_line() {
    const double formed = LabelThresholds{}.induction;
    return {formed, printf_string(tr("induction head ≥ %.1f"), formed)};
}

PlotHover draw_line_chart(const char* id, const std::vector<std::vector<double>>& series,
                          const std::vector<ImU32>& colors, ImVec2 size, double lo, double hi,
                          const AxisLabel& x_label, const ChartLine* threshold) {
    PlotHover out;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered();
    int n = 0;
    for (const auto& s : series) n = std::max(n, static_cast<int>(s.size()));
    if (n == 0) return out;
    if (!(hi > lo)) hi = lo + 1.0;
    ImDrawList* list = ImGui::GetWindowDrawList();
    ImVec2 q0, q1;
    plot_frame(list, origin, size, lo, hi, x_label ? ImGui::GetFontSize() + 4.0f : 2.0f, q0, q1);
    const float slot = (q1.x - q0.x) / n;
    auto pt = [&](int i, double v) {
        const double t = std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
        return ImVec2(q0.x + (i + 0.5f) * slot, q1.y - static_cast<float>(t) * (q1.y - q0.y));
    };
    if (threshold && threshold->value >= lo && threshold->value <= hi) {
        const float y = pt(0, threshold->value).y;
        const ImU32 amber = IM_COL32(230, 180, 60, 220);
        for (float x = q0.x; x < q1.x; x += 10.0f) list->AddLine(ImVec2(x, y), ImVec2(std::min(x + 6.0f, q1.x), y), amber, 1.5f);
        const float tw = ImGui::CalcTextSize(threshold->label.c_str()).x;
        list->AddText(ImVec2(q1.x - tw - 4.0f, y - ImGui::GetFontSize() - 1.0f), amber, threshold->label.c_str());
    }
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (hovered) {
        out.col = std::clamp(static_cast<int>((m.x - q0.x) / slot), 0, n - 1);
        const float x = q0.x + (out.col + 0.5f) * slot;
        list->AddLine(ImVec2(x, q0.y), ImVec2(x, q1.y), IM_COL32(255, 255, 255, 90));
    }
    float best = 1e30f;
    for (std::size_t s = 0; s < series.size(); ++s) {
        const ImU32 c = colors[s % colors.size()];
        for (int i = 0; i < static_cast<int>(series[s].size()); ++i) {
            const double v = series[s][static_cast<std::size_t>(i)];
            if (!std::isfinite(v)) continue;
            const ImVec2 p = pt(i, v);
            if (i + 1 < static_cast<int>(series[s].size()) && std::isfinite(series[s][static_cast<std::size_t>(i) + 1]))
                list->AddLine(p, pt(i + 1, series[s][static_cast<std::size_t>(i) + 1]), c, 2.0f);
            list->AddCircleFilled(p, 3.0f, c);
            if (hovered && i == out.col && std::fabs(p.y - m.y) < best) {
                best = std::fabs(p.y - m.y);
                out.row = static_cast<int>(s);
            }
        }
    }
    x_labels(list, q0, q1, n, slot, x_label);
    return out;
}

}  // namespace hs
