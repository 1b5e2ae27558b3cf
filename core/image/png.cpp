#include "core/image/png.h"

#include <png.h>
#include <stb_image.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs {

namespace {

// libpng reports errors through longjmp by default; these turn them into C++ exceptions
// thrown from the callbacks (libpng is built to allow that: nothing of its own is left
// half-done that png_destroy_write_struct cannot free).
struct PngFailure {
    std::string message;
};
[[noreturn]] void on_png_error(png_structp, png_const_charp message) { throw PngFailure{message}; }
void on_png_warning(png_structp, png_const_charp) {}

// Owns the libpng write state.
struct PngWriter {
    png_structp png = nullptr;
    png_infop info = nullptr;
    PngWriter() {
        png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, on_png_error, on_png_warning);
        if (png) info = png_create_info_struct(png);
        if (!png || !info) throw PngFailure{"out of memory"};
    }
    ~PngWriter() { png_destroy_write_struct(&png, &info); }
};

// Encodes image row by row into put; `what` names the destination in errors.
void encode_rows(const RgbImage& image, const PutBytes& put, const std::string& what) {
        try {
            PngWriter w;
            png_set_write_fn(
                w.png, const_cast<PutBytes*>(&put),
                [](png_structp png, png_bytep data, png_size_t size) {
                    (*static_cast<const PutBytes*>(png_get_io_ptr(png)))(data, size);
                },
                nullptr);
            png_set_IHDR(w.png, w.info, static_cast<png_uint_32>(image.width()),
                         static_cast<png_uint_32>(image.height()), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                         PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
            png_set_compression_level(w.png, 6);
            png_write_info(w.png, w.info);
            const std::size_t stride = static_cast<std::size_t>(image.width()) * 3;
            for (int y = 0; y < image.height(); ++y)
                png_write_row(w.png, image.bytes().data() + static_cast<std::size_t>(y) * stride);
            png_write_end(w.png, w.info);
        } catch (const PngFailure& f) {
            throw Error("cannot write " + what + ": PNG encoding failed (" + f.message + ")");
        }
}

void check_not_empty(const RgbImage& image, const std::string& what) {
    if (image.empty())
        throw Error("cannot write " + what + ": the image is empty (" +
                    std::to_string(image.width()) + "x" + std::to_string(image.height()) +
                    " pixels)");
}

}  // namespace

void write_png(const std::string& path, const RgbImage& image) {
    check_not_empty(image, path);
    // Rows go out one at a time through the atomic writer: no encoded copy of the image is
    // held, so images over 2 GiB (a 12 × 12 grid of 2048-token maps) write like small ones.
    write_file_atomic(path, [&](const PutBytes& put) { encode_rows(image, put, path); });
}

std::string encode_png(const RgbImage& image) {
    check_not_empty(image, "a PNG in memory");
    std::string bytes;
    const PutBytes put = [&](const void* data, std::size_t size) {
        bytes.append(static_cast<const char*>(data), size);
    };
    encode_rows(image, put, "a PNG in memory");
    return bytes;
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
