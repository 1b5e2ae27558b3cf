#include "core/io/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace hs {

void write_file_atomic(const std::string& path, std::string_view bytes) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    if (target.filename().empty()) throw Error("cannot write " + path + ": not a file name");
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("cannot write " + path + ": directory " + dir.string() + " does not exist");
    if (fs::is_directory(target, ec)) throw Error("cannot write " + path + ": it is a directory");

    // Temp name unique per process; same directory so rename() stays on one filesystem.
    const fs::path tmp = dir / ("." + target.filename().string() + ".tmp" +
                                std::to_string(static_cast<long>(::getpid())));
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw Error("cannot write " + path + ": " + std::strerror(errno));
    const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    const int write_errno = errno;
    const bool closed = std::fclose(f) == 0;
    if (!wrote || !closed) {
        std::remove(tmp.c_str());
        throw Error("cannot write " + path + ": " +
                    std::strerror(wrote ? errno : write_errno));
    }
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
        const int e = errno;
        std::remove(tmp.c_str());
        throw Error("cannot write " + path + ": " + std::strerror(e));
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace hs
