#include "core/image/png.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs {

namespace {

void append_bytes(void* context, void* data, int size) {
    auto* out = static_cast<std::string*>(context);
    out->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

}  // namespace

void write_png(const std::string& path, const RgbImage& image) {
    if (image.empty())
        throw Error("cannot write " + path + ": the image is empty (" +
                    std::to_string(image.width()) + "x" + std::to_string(image.height()) +
                    " pixels)");
    std::string encoded;
    const int ok = stbi_write_png_to_func(append_bytes, &encoded, image.width(), image.height(), 3,
                                          image.bytes().data(), image.width() * 3);
    if (!ok || encoded.empty()) throw Error("cannot write " + path + ": PNG encoding failed");
    write_file_atomic(path, encoded);
}

RgbImage read_png(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error("cannot read " + path + ": no such file");
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 3);
    if (!data) {
        const char* reason = stbi_failure_reason();
        throw Error("cannot read " + path + ": " + (reason ? reason : "unknown error"));
    }
    RgbImage image(w, h);
    std::memcpy(image.bytes().data(), data, static_cast<std::size_t>(w) * h * 3);
    stbi_image_free(data);
    return image;
}

}  // namespace hs
