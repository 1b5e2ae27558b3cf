#pragma once
// GPU textures for heatmaps: R32F value maps and 256×1 RGBA8 colormap tables.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "app/gl/gl.h"
#include "core/image/colormap.h"
#include "core/tensor.h"

namespace hs {

// A (rows, cols) float map as an R32F texture: texel (c, r) = m(r, c), row 0 on top.
// Magnified cells stay crisp (nearest); maps larger than 1024 get mipmaps (averaged off
// the UI thread by app/mip_worker.h) so that a zoomed-out view averages cells instead of
// skipping them.
class FloatTexture {
public:
    FloatTexture() = default;
    ~FloatTexture();
    FloatTexture(const FloatTexture&) = delete;
    FloatTexture& operator=(const FloatTexture&) = delete;
    FloatTexture(FloatTexture&& other) noexcept;
    FloatTexture& operator=(FloatTexture&& other) noexcept;

    // Replaces the contents with level 0 only: glTexSubImage2D into the existing storage
    // when the shape is unchanged, else one glTexImage2D (no per-frame uploads).
    void upload(const Matrix& m);
    // Adds the mip levels below level 0 (core's mip_chain of the uploaded map).
    void upload_mip_levels(const std::vector<Matrix>& levels);
    void reset();

    GLuint id() const { return texture_; }
    int rows() const { return rows_; }
    int cols() const { return cols_; }
    bool empty() const { return texture_ == 0 || rows_ == 0 || cols_ == 0; }
    // Whether the texture has its mip levels (min filter GL_NEAREST_MIPMAP_NEAREST: a linear blend with a masked −∞ would be NaN).
    bool mipmapped() const { return mip_levels_ > 0; }
    // Changes with every upload (unique over the process): GL may hand a freed id to a
    // new texture, so (id, version) is what identifies the contents (the frame signature, app/gl/frame_signature.h).
    std::uint64_t version() const { return version_; }

private:
    GLuint texture_ = 0;
    void bump_version();
    int rows_ = 0, cols_ = 0;
    int mip_levels_ = 0;  // levels above 0 uploaded
    std::uint64_t version_ = 0;
};

// The 256-entry LUT of core's colormap as a 256×1 RGBA8 texture, sampled with texelFetch.
GLuint create_lut_texture(Colormap cmap);

}  // namespace hs
