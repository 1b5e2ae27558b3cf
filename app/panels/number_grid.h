#pragma once
// A matrix of any size as a table of numbers with row and column labels (a Pipeline card
// opened large): only the cells in view are drawn (a 512 × 512 map holds 262 144 numbers),
// and the labels stay at the left and top edges while the table scrolls both ways. An ImGui
// table would not do: Dear ImGui 1.86 (Debian 12) allows 64 columns.
#include <functional>
#include <string>

#include <imgui.h>

#include "core/tensor.h"

namespace hs {

using GridLabel = std::function<std::string(int)>;

// The cell under the pointer (row, col), or (−1, −1).
struct GridHover {
    int row = -1, col = -1;
};

// Fills the space left in the window; values as 4 significant digits, −∞ as "−∞".
GridHover draw_number_grid(const char* id, const Matrix& m, const GridLabel& row_label, const GridLabel& col_label);

// A value as the Pipeline's cells print it: 4 significant digits (0.007031, not 0.01),
// trailing zeros kept unless the value is a whole number, "−∞" / "∞" for infinities.
std::string cell_text(float v);

}  // namespace hs
