#pragma once
// Where a figure is drawn: the same layout code paints into a raster (PNG export) or
// writes SVG (vector export), so both formats hold the same figure.
// Coordinates are pixels of the figure, origin top-left, y down.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/image/colormap.h"
#include "core/image/rgb_image.h"
#include "core/tensor.h"

namespace hs {

class Font;

// Where the x given to Painter::text sits on the text line.
enum class TextAnchor { Start, Middle, End };

class Painter {
public:
    virtual ~Painter() = default;
    virtual void fill_rect(const PixelRect& r, Rgb8 c) = 0;
    // One line of text, px tall (Font's pixel height), its top at y. anchor says whether x
    // is its left end, middle or right end. rotated: the line reads bottom to top (90°
    // CCW); then (x, y) anchors the rotated footprint's left edge and top instead, with
    // anchor applying along the (now vertical) line: Start = bottom end at y. A rotated
    // line of CJK characters only (is_cjk_square: "张伟", "。") is stacked instead, each
    // character upright and centred across the footprint, reading top to bottom, one
    // advance per character: the footprint is the same as the rotated line's.
    virtual void text(const std::string& utf8, int x, int y, int px, Rgb8 c, TextAnchor anchor,
                      bool rotated = false) = 0;
    // m: (rows, cols), cell (i, j) = colorize(m(i, j)) over the cell_px square at
    // (map.x + j·cell_px, map.y + i·cell_px).
    virtual void cells(const Matrix& m, const PixelRect& map, int cell_px, Colormap cmap,
                       const ColorScale& scale) = 0;
};

// Paints into an RgbImage with the given font (text is skipped by callers without one).
class RasterPainter final : public Painter {
public:
    RasterPainter(RgbImage& image, const Font* font) : image_(image), font_(font) {}
    void fill_rect(const PixelRect& r, Rgb8 c) override;
    void text(const std::string& utf8, int x, int y, int px, Rgb8 c, TextAnchor anchor,
              bool rotated) override;
    void cells(const Matrix& m, const PixelRect& map, int cell_px, Colormap cmap,
               const ColorScale& scale) override;

private:
    RgbImage& image_;
    const Font* font_;
};

// Writes an SVG 1.1 document of width × height user units (= pixels). Text stays text
// (font-family: the CJK faces first, as the raster font), sized so its pixel height
// matches the raster's; the font's metrics place the baseline. Maps are one <rect> per
// cell (crisp at any zoom) while the figure's cells stay within kSvgMaxRectCells in all;
// maps beyond that budget are one embedded PNG each (1 pixel per cell, scaled without
// smoothing), so a 12 × 12 grid of long maps stays a file viewers can open.
class SvgPainter final : public Painter {
public:
    static constexpr long long kSvgMaxRectCells = 200'000;
    SvgPainter(int width, int height, const Font* font);
    void fill_rect(const PixelRect& r, Rgb8 c) override;
    void text(const std::string& utf8, int x, int y, int px, Rgb8 c, TextAnchor anchor,
              bool rotated) override;
    void cells(const Matrix& m, const PixelRect& map, int cell_px, Colormap cmap,
               const ColorScale& scale) override;
    std::string finish();  // the whole document ("</svg>" appended once)

private:
    std::ostringstream out_;
    const Font* font_;
    long long rects_left_ = kSvgMaxRectCells;  // cells still drawn as <rect> in this figure
};

// One character of a stacked vertical label: its text and the top of its slot, which is
// its advance tall (the characters' advances add up to the rotated line's length).
struct StackedCharacter {
    std::string text;
    int top = 0;
    int advance = 0;
};
// Whether Painter::text stacks this rotated text: non-empty, every character CJK square.
bool stacks_upright(const std::string& utf8);
// The slots of a stacked label laid along y as Painter::text lays a rotated line (anchor
// Start: the last slot ends at y). Advances come from font, or px each without one.
std::vector<StackedCharacter> stacked_characters(const std::string& utf8, int y, int px, TextAnchor anchor,
                                                 const Font* font);

// Text made safe for XML character data and attribute values: malformed UTF-8 becomes
// U+FFFD, control characters are dropped, & < > " ' are escaped.
std::string xml_escape(const std::string& utf8);
// RFC 4648 base64 of bytes (with '=' padding).
std::string base64(const std::string& bytes);
// "#rrggbb".
std::string svg_color(Rgb8 c);

}  // namespace hs
