#include "core/image/figure_file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.h"
#include "core/image/png.h"
#include "core/io/atomic_file.h"

namespace hs {

FigureFormat figure_format_of(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".png") return FigureFormat::Png;
    if (ext == ".svg") return FigureFormat::Svg;
    throw Error("cannot tell the figure format of " + path + ": name it .png or .svg");
}

namespace {

// The SVG (render_svg().svg) or PNG (render_png().image) of one figure at path, by its
// extension; note = the layout's shrink_note.
template <typename RenderSvg, typename RenderPng>
void write_figure(const std::string& path, const HeatmapOptions& options, std::string* note,
                  const RenderSvg& render_svg, const RenderPng& render_png) {
    if (figure_format_of(path) == FigureFormat::Svg) {
        const auto svg = render_svg();
        write_file_atomic(path, svg.svg);
        if (note) *note = shrink_note(svg.layout, options);
        return;
    }
    const auto png = render_png();
    write_png(path, png.image);
    if (note) *note = shrink_note(png.layout, options);
}

}  // namespace

void write_heatmap_figure(const std::string& path, const Matrix& m, const std::vector<std::string>& row_labels,
                          const std::vector<std::string>& col_labels, const HeatmapOptions& options,
                          std::string* note) {
    write_figure(
        path, options, note, [&] { return render_heatmap_svg(m, row_labels, col_labels, options); },
        [&] { return render_heatmap(m, row_labels, col_labels, options); });
}

void write_grid_figure(const std::string& path, const std::vector<std::vector<Matrix>>& maps,
                       const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                       const HeatmapOptions& options, std::string* note) {
    write_figure(
        path, options, note, [&] { return render_grid_svg(maps, row_labels, col_labels, options); },
        [&] { return render_grid(maps, row_labels, col_labels, options); });
}

}  // namespace hs
