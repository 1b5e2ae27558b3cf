#include "core/image/rgb_image.h"

#include <algorithm>
#include <cassert>

#include "core/error.h"

namespace hs {

RgbImage::RgbImage(int width, int height, Rgb8 fill) : width_(width), height_(height) {
    if (width < 0 || height < 0)
        throw Error("image size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is negative");
    pixels_.resize(static_cast<std::size_t>(width) * height * 3);
    for (std::size_t i = 0; i < pixels_.size(); i += 3) {
        pixels_[i] = fill.r;
        pixels_[i + 1] = fill.g;
        pixels_[i + 2] = fill.b;
    }
}

Rgb8 RgbImage::at(int x, int y) const {
    assert(x >= 0 && x < width_ && y >= 0 && y < height_);
    const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
    return Rgb8{pixels_[i], pixels_[i + 1], pixels_[i + 2]};
}

void RgbImage::set(int x, int y, Rgb8 c) {
    if (x < 0 || x >= width_ || y < 0 || y >= height_) return;
    const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
    pixels_[i] = c.r;
    pixels_[i + 1] = c.g;
    pixels_[i + 2] = c.b;
}

void RgbImage::fill_rect(const PixelRect& r, Rgb8 c) {
    const int x0 = std::max(0, r.x), x1 = std::min(width_, r.right());
    const int y0 = std::max(0, r.y), y1 = std::min(height_, r.bottom());
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) set(x, y, c);
}

void RgbImage::blend_pixel(int x, int y, std::uint8_t a, Rgb8 c) {
    if (a == 0 || x < 0 || x >= width_ || y < 0 || y >= height_) return;
    const std::size_t i = (static_cast<std::size_t>(y) * width_ + x) * 3;
    const std::uint8_t src[3] = {c.r, c.g, c.b};
    for (int k = 0; k < 3; ++k) {
        // Integer blend with rounding: (dst·(255 − a) + src·a + 127) / 255.
        const int v = pixels_[i + k] * (255 - a) + src[k] * a;
        pixels_[i + k] = static_cast<std::uint8_t>((v + 127) / 255);
    }
}

void RgbImage::blend_mask(const AlphaMask& mask, int x, int y, Rgb8 c) {
    for (int my = 0; my < mask.height; ++my)
        for (int mx = 0; mx < mask.width; ++mx) blend_pixel(x + mx, y + my, mask.at(mx, my), c);
}

void RgbImage::blend_mask_rotated_ccw(const AlphaMask& mask, int x, int y, Rgb8 c) {
    // Mask pixel (mx, my) goes to (x + my, y + width − 1 − mx): the text's start ends up
    // at the bottom, its top (ascenders) on the left.
    for (int my = 0; my < mask.height; ++my)
        for (int mx = 0; mx < mask.width; ++mx)
            blend_pixel(x + my, y + mask.width - 1 - mx, mask.at(mx, my), c);
}

}  // namespace hs
