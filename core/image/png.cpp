#include "core/image/png.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace hs {

namespace {

[[noreturn]] void fail_write(const std::string& path, const std::string& reason) {
    throw Error("cannot write " + path + ": " + reason);
}

void append_bytes(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    const auto* bytes = static_cast<const unsigned char*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

// Writes all of `data` to fd; returns errno on failure, 0 on success.
int write_all(int fd, const std::vector<unsigned char>& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        done += static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace

void write_png(const std::string& path, const RgbImage& image) {
    namespace fs = std::filesystem;
    if (image.empty())
        fail_write(path, "the image is empty (" + std::to_string(image.width()) + "x" +
                             std::to_string(image.height()) + " pixels)");
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::exists(dir, ec))
        fail_write(path, "directory " + dir.string() + " does not exist");
    if (!fs::is_directory(dir, ec)) fail_write(path, dir.string() + " is not a directory");
    if (fs::is_directory(target, ec)) fail_write(path, "it is a directory");

    std::vector<unsigned char> encoded;
    const int ok = stbi_write_png_to_func(append_bytes, &encoded, image.width(), image.height(), 3,
                                          image.bytes().data(), image.width() * 3);
    if (!ok || encoded.empty()) fail_write(path, "PNG encoding failed");

    std::string temp_name = ".";  // hidden sibling: DIR/.NAME.tmp-XXXXXX
    temp_name += target.filename().string();
    temp_name += ".tmp-XXXXXX";
    std::string temp = (dir / temp_name).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) fail_write(path, std::strerror(errno));
    ::fchmod(fd, 0644);  // mkstemp creates 0600; exported images are meant to be shared
    const int write_err = write_all(fd, encoded);
    const int close_err = ::close(fd) == 0 ? 0 : errno;
    if (write_err != 0 || close_err != 0) {
        ::unlink(temp.c_str());
        fail_write(path, std::strerror(write_err != 0 ? write_err : close_err));
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        fail_write(path, std::strerror(err));
    }
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
