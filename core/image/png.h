#pragma once
// PNG file I/O for RgbImage: written row by row with libpng, read with stb_image.
#include <string>

#include "core/image/rgb_image.h"

namespace hs {

// Streams rows through libpng into write_file_atomic (core/io/atomic_file.h): a temp file in the
// target's directory renamed over `path`, so readers never see a half-written PNG. Throws hs::Error
// "cannot write PATH: REASON" (missing directory, permission denied, empty image, ...).
void write_png(const std::string& path, const RgbImage& image);

// The PNG file's bytes in memory (for embedding, e.g. in an SVG). Throws hs::Error.
std::string encode_png(const RgbImage& image);
// Reads any PNG as 8-bit RGB (alpha dropped, grey expanded). Throws hs::Error
// "cannot read PATH: REASON".
RgbImage read_png(const std::string& path);

}  // namespace hs
