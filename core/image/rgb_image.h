#pragma once
// An 8-bit RGB raster and the few drawing primitives the exporters need.
// Storage: pixels (height, width, 3), row-major, top row first (PNG order).
#include <cstdint>
#include <vector>

#include "core/image/colormap.h"

namespace hs {

// A pixel rectangle: x, y of the top-left corner, width × height pixels.
struct PixelRect {
    int x = 0, y = 0, width = 0, height = 0;
    int right() const { return x + width; }    // one past the last column
    int bottom() const { return y + height; }  // one past the last row
    int center_x() const { return x + width / 2; }
    int center_y() const { return y + height / 2; }
    bool contains(int px, int py) const { return px >= x && px < right() && py >= y && py < bottom(); }
    bool operator==(const PixelRect&) const = default;
};

// A coverage mask (e.g. rasterised text): alpha (height, width), 0 = empty, 255 = full,
// drawn in one colour; and, when some glyph has colours of its own (an emoji), rgba
// (height, width, 4, straight alpha) drawn over it in those colours.
struct AlphaMask {
    int width = 0, height = 0;
    int baseline = 0;  // row of the text baseline, from the top
    std::vector<std::uint8_t> alpha;
    std::vector<std::uint8_t> rgba;  // empty: no colour glyph
    std::uint8_t at(int x, int y) const { return alpha[static_cast<std::size_t>(y) * width + x]; }
};

class RgbImage {
public:
    RgbImage() = default;
    RgbImage(int width, int height, Rgb8 fill = Rgb8{255, 255, 255});

    int width() const { return width_; }
    int height() const { return height_; }
    bool empty() const { return width_ == 0 || height_ == 0; }
    const std::vector<std::uint8_t>& bytes() const { return pixels_; }  // (H, W, 3)
    std::vector<std::uint8_t>& bytes() { return pixels_; }

    Rgb8 at(int x, int y) const;                 // no bounds check beyond assert
    void set(int x, int y, Rgb8 c);              // ignores pixels outside the image
    void fill_rect(const PixelRect& r, Rgb8 c);  // clipped to the image
    // Blend c over the image through the mask: out = (1 − a)·dst + a·c, a = alpha/255.
    // The mask's top-left lands at (x, y).
    void blend_mask(const AlphaMask& mask, int x, int y, Rgb8 c);
    // Same, with the mask rotated 90° counter-clockwise (text reads bottom to top):
    // the rotated footprint is mask.height wide and mask.width tall, top-left at (x, y).
    void blend_mask_rotated_ccw(const AlphaMask& mask, int x, int y, Rgb8 c);

    // Pixel (x, y) becomes c over it with coverage a (nothing outside the image).
    void blend_pixel(int x, int y, std::uint8_t a, Rgb8 c);

private:

    int width_ = 0, height_ = 0;
    std::vector<std::uint8_t> pixels_;
};

}  // namespace hs
