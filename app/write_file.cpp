#include "app/write_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "core/error.h"

namespace hs {

void write_file_atomic(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw Error("cannot write " + path + ": " + std::strerror(errno));
    const bool wrote = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    const int write_errno = errno;
    const bool closed = std::fclose(f) == 0;
    if (!wrote || !closed) {
        std::remove(tmp.c_str());
        throw Error("cannot write " + path + ": " + std::strerror(wrote ? errno : write_errno));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        std::remove(tmp.c_str());
        throw Error("cannot write " + path + ": " + std::strerror(e));
    }
}

}  // namespace hs
