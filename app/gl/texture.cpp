#include "app/gl/texture.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/image/box_mean.h"

namespace hs {

FloatTexture::~FloatTexture() { reset(); }

FloatTexture::FloatTexture(FloatTexture&& other) noexcept
    : texture_(std::exchange(other.texture_, 0)),
      rows_(std::exchange(other.rows_, 0)),
      cols_(std::exchange(other.cols_, 0)),
      version_(std::exchange(other.version_, 0)) {}

FloatTexture& FloatTexture::operator=(FloatTexture&& other) noexcept {
    if (this != &other) {
        reset();
        texture_ = std::exchange(other.texture_, 0);
        rows_ = std::exchange(other.rows_, 0);
        cols_ = std::exchange(other.cols_, 0);
        version_ = std::exchange(other.version_, 0);
    }
    return *this;
}

void FloatTexture::reset() {
    if (texture_) glDeleteTextures(1, &texture_);
    texture_ = 0;
    rows_ = cols_ = 0;
    version_ = 0;
}

void FloatTexture::upload(const Matrix& m) {
    if (m.rows() == 0 || m.cols() == 0) {
        reset();
        return;
    }
    static std::uint64_t uploads = 0;  // UI thread only
    version_ = ++uploads;
    const bool same_shape = texture_ && rows_ == static_cast<int>(m.rows()) && cols_ == static_cast<int>(m.cols());
    if (!texture_) glGenTextures(1, &texture_);
    rows_ = static_cast<int>(m.rows());
    cols_ = static_cast<int>(m.cols());
    const bool mipmapped = this->mipmapped();
    glBindTexture(GL_TEXTURE_2D, texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    // Level 0 is the map; large maps add their mip levels, averaged here (box_mean):
    // llvmpipe's glGenerateMipmap took ~3 ms for a 1536 × 512 map, this ~0.3 ms.
    // Row-major (rows, cols) floats: GL rows are our rows, first row at v = 0.
    int level = 0;
    Matrix below;
    for (const Matrix* lv = &m;; ++level) {
        if (same_shape)  // same (rows, cols): new texels into the existing storage
            glTexSubImage2D(GL_TEXTURE_2D, level, 0, 0, int(lv->cols()), int(lv->rows()), GL_RED, GL_FLOAT, lv->data());
        else
            glTexImage2D(GL_TEXTURE_2D, level, GL_R32F, int(lv->cols()), int(lv->rows()), 0, GL_RED, GL_FLOAT,
                         lv->data());
        if (!mipmapped || (lv->rows() == 1 && lv->cols() == 1)) break;
        below = mip_level_below(*lv);
        lv = &below;
    }
    if (same_shape) return;  // its parameters stand
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, mipmapped ? GL_LINEAR_MIPMAP_NEAREST : GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, level);
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
