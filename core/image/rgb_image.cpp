#include "core/image/rgb_image.h"

#include <algorithm>
#include <cassert>
#include <utility>

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

namespace {

// Mask pixel (mx, my) blended at to(mx, my): its coverage in colour c, then its own colour.
template <typename To>
void blend_mask_at(RgbImage& image, const AlphaMask& mask, Rgb8 c, To to) {
    for (int my = 0; my < mask.height; ++my)
        for (int mx = 0; mx < mask.width; ++mx) {
            const auto [x, y] = to(mx, my);
            image.blend_pixel(x, y, mask.at(mx, my), c);
            if (mask.rgba.empty()) continue;
            const std::uint8_t* p = &mask.rgba[(static_cast<std::size_t>(my) * mask.width + mx) * 4];
            image.blend_pixel(x, y, p[3], Rgb8{p[0], p[1], p[2]});
        }
}

}  // namespace

void RgbImage::blend_mask(const AlphaMask& mask, int x, int y, Rgb8 c) {
    blend_mask_at(*this, mask, c, [x, y](int mx, int my) { return std::pair{x + mx, y + my}; });
}

void RgbImage::blend_mask_rotated_ccw(const AlphaMask& mask, int x, int y, Rgb8 c) {
    // Mask pixel (mx, my) goes to (x + my, y + width − 1 − mx): the text's start ends up
    // at the bottom, its top (ascenders) on the left.
    blend_mask_at(*this, mask, c, [x, y, w = mask.width](int mx, int my) { return std::pair{x + my, y + w - 1 - mx}; });
}

}  // namespace hs
