#include "app/gl/texture.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace hs {

FloatTexture::~FloatTexture() { reset(); }

FloatTexture::FloatTexture(FloatTexture&& other) noexcept
    : texture_(std::exchange(other.texture_, 0)),
      rows_(std::exchange(other.rows_, 0)),
      cols_(std::exchange(other.cols_, 0)),
      mip_levels_(std::exchange(other.mip_levels_, 0)),
      version_(std::exchange(other.version_, 0)) {}

FloatTexture& FloatTexture::operator=(FloatTexture&& other) noexcept {
    if (this != &other) {
        reset();
        texture_ = std::exchange(other.texture_, 0);
        rows_ = std::exchange(other.rows_, 0);
        cols_ = std::exchange(other.cols_, 0);
        mip_levels_ = std::exchange(other.mip_levels_, 0);
        version_ = std::exchange(other.version_, 0);
    }
    return *this;
}

void FloatTexture::reset() {
    if (texture_) glDeleteTextures(1, &texture_);
    texture_ = 0;
    rows_ = cols_ = mip_levels_ = 0;
    version_ = 0;
}

void FloatTexture::upload(const Matrix& m) {
    if (m.rows() == 0 || m.cols() == 0) {
        reset();
        return;
    }
    const bool same_shape = texture_ && rows_ == static_cast<int>(m.rows()) && cols_ == static_cast<int>(m.cols());
    if (!texture_) glGenTextures(1, &texture_);
    rows_ = static_cast<int>(m.rows());
    cols_ = static_cast<int>(m.cols());
    mip_levels_ = 0;
    bump_version();
    glBindTexture(GL_TEXTURE_2D, texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    // Row-major (rows, cols) floats: GL rows are our rows, first row at v = 0.
    if (same_shape)  // same (rows, cols): new texels into the existing storage
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols_, rows_, GL_RED, GL_FLOAT, m.data());
    else
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols_, rows_, 0, GL_RED, GL_FLOAT, m.data());
    // Level 0 only until upload_mip_levels: sampled nearest, as a complete texture.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
}

void FloatTexture::upload_mip_levels(const std::vector<Matrix>& levels) {
    if (empty() || levels.empty()) return;
    glBindTexture(GL_TEXTURE_2D, texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    for (std::size_t k = 0; k < levels.size(); ++k)
        glTexImage2D(GL_TEXTURE_2D, static_cast<GLint>(k + 1), GL_R32F, int(levels[k].cols()), int(levels[k].rows()), 0,
                     GL_RED, GL_FLOAT, levels[k].data());
    mip_levels_ = static_cast<int>(levels.size());
    // One texel of the nearest level (already a box mean): a linear blend of a masked −∞ and
    // a score would be NaN, drawn as the lowest colour.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, mip_levels_);
    bump_version();  // the zoomed-out picture changes: cached frames of it are stale
}

void FloatTexture::bump_version() {
    static std::uint64_t uploads = 0;  // UI thread only
    version_ = ++uploads;
}

GLuint create_lut_texture(Colormap cmap) {
    const ColormapLut& lut = colormap_lut(cmap);
    std::vector<unsigned char> rgba(256 * 4);
    for (std::size_t i = 0; i < 256; ++i) {
        rgba[i * 4 + 0] = lut[i].r;
        rgba[i * 4 + 1] = lut[i].g;
        rgba[i * 4 + 2] = lut[i].b;
        rgba[i * 4 + 3] = 255;
    }
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    return texture;
}

}  // namespace hs
