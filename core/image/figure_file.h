#pragma once
// Writing a figure in the format its file name asks for: ".png" (raster, libpng) or
// ".svg" (vector, text as text). Both come from the same layout (core/image/painter.h).
#include <string>
#include <vector>

#include "core/image/heatmap_image.h"

namespace hs {

enum class FigureFormat { Png, Svg };
// By extension, case-insensitive; throws hs::Error naming the choices for anything else.
FigureFormat figure_format_of(const std::string& path);

// Write atomically; `note` (when given) receives shrink_note of the layout ("" unless
// the maps were drawn as block means to fit). Throw hs::Error.
void write_heatmap_figure(const std::string& path, const Matrix& m, const std::vector<std::string>& row_labels,
                          const std::vector<std::string>& col_labels, const HeatmapOptions& options,
                          std::string* note = nullptr);
void write_grid_figure(const std::string& path, const std::vector<std::vector<Matrix>>& maps,
                       const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                       const HeatmapOptions& options, std::string* note = nullptr);

}  // namespace hs
