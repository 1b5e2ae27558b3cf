#include "app/panels/number_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/panels/window_extents.h"

namespace hs {

std::string cell_text(float v) {
    if (std::isinf(v)) return v < 0 ? "−∞" : "∞";
    const bool whole = v == std::nearbyint(v) && std::fabs(v) < 1e4f;
    char text[32];
    std::snprintf(text, sizeof text, whole ? "%.4g" : "%#.4g", static_cast<double>(v));
    return text;
}

GridHover draw_number_grid(const char* id, const Matrix& m, const GridLabel& row_label, const GridLabel& col_label) {
    GridHover hover;
    const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
    const float fs = ImGui::GetFontSize();
    const float cell_w = ImGui::CalcTextSize("-8.888e-88").x + 10.0f, cell_h = fs + 6.0f;
    float label_w = 0.0f;
    // The first 256 labels set the column's width (capped anyway): measuring thousands a frame
    // would cost the UI thread more than drawing the table.
    for (int r = 0; r < std::min(rows, 256); ++r) label_w = std::max(label_w, ImGui::CalcTextSize(row_label(r).c_str()).x);
    label_w = std::min(label_w, fs * 12.0f) + 10.0f;
    const float header_h = cell_h;
    begin_child(id, ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    // The content's full size, so the scroll bars span the whole table.
    ImGui::Dummy(ImVec2(label_w + cols * cell_w, header_h + rows * cell_h));
    const ImVec2 win = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    const float sx = ImGui::GetScrollX(), sy = ImGui::GetScrollY();
    const ImVec2 o(win.x + ImGui::GetStyle().WindowPadding.x, win.y + ImGui::GetStyle().WindowPadding.y);
    // Cells in view: columns [c0, c1), rows [r0, r1).
    const int c0 = std::clamp(static_cast<int>(sx / cell_w), 0, cols), r0 = std::clamp(static_cast<int>(sy / cell_h), 0, rows);
    const int c1 = std::clamp(static_cast<int>((sx + size.x) / cell_w) + 1, 0, cols);
    const int r1 = std::clamp(static_cast<int>((sy + size.y) / cell_h) + 1, 0, rows);
    ImDrawList* list = ImGui::GetWindowDrawList();
    const ImU32 text = IM_COL32(225, 228, 235, 255), dim = IM_COL32(150, 170, 200, 255), line = IM_COL32(60, 64, 72, 255);
    const auto cell_x = [&](int c) { return o.x + label_w + c * cell_w - sx; };
    const auto cell_y = [&](int r) { return o.y + header_h + r * cell_h - sy; };
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool hovered = ImGui::IsWindowHovered();
    for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) {
            const ImVec2 p(cell_x(c), cell_y(r));
            const std::string t = cell_text(m(r, c));
            list->AddText(ImVec2(p.x + cell_w - 5.0f - ImGui::CalcTextSize(t.c_str()).x, p.y + 3.0f), text, t.c_str());
            list->AddLine(ImVec2(p.x, p.y + cell_h), ImVec2(p.x + cell_w, p.y + cell_h), line);
            if (hovered && mouse.x >= p.x && mouse.x < p.x + cell_w && mouse.y >= p.y && mouse.y < p.y + cell_h &&
                mouse.x >= o.x + label_w && mouse.y >= o.y + header_h) {
                hover = {r, c};
                list->AddRect(p, ImVec2(p.x + cell_w, p.y + cell_h), IM_COL32(255, 255, 255, 220), 0.0f, 0, 1.5f);
            }
        }
    // The labels over the cells that scrolled under them: the column labels along the top,
    // the row labels down the left, the corner on top of both.
    const ImU32 band = ImGui::GetColorU32(ImGuiCol_WindowBg, 1.0f) | IM_COL32(0, 0, 0, 255);  // opaque
    list->AddRectFilled(ImVec2(o.x - 2, o.y - 2), ImVec2(win.x + size.x, o.y + header_h), band);
    for (int c = c0; c < c1; ++c) {
        const std::string t = col_label(c);
        list->AddText(ImVec2(cell_x(c) + cell_w - 5.0f - ImGui::CalcTextSize(t.c_str()).x, o.y + 2.0f), dim, t.c_str());
    }
    list->AddRectFilled(ImVec2(o.x - 2, o.y + header_h), ImVec2(o.x + label_w, win.y + size.y), band);
    list->PushClipRect(ImVec2(o.x - 2, o.y + header_h), ImVec2(o.x + label_w - 4.0f, win.y + size.y), true);
    for (int r = r0; r < r1; ++r) list->AddText(ImVec2(o.x, cell_y(r) + 3.0f), dim, row_label(r).c_str());
    list->PopClipRect();
    list->AddRectFilled(ImVec2(o.x - 2, o.y - 2), ImVec2(o.x + label_w, o.y + header_h), band);
    end_child();
    return hover;
}

}  // namespace hs
