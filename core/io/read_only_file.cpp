#include "core/io/read_only_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs {

ReadOnlyFile::ReadOnlyFile(const std::string& path, const std::string& kind) : path_(path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd_);
        throw Error("cannot stat " + path + ": " + why);
    }
    if (const std::string special = file_kind(st.st_mode); !special.empty()) {
        ::close(fd_);
        throw Error(path + " is " + special + ", not a " + kind);
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
}

ReadOnlyFile::~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
}

int ReadOnlyFile::read_all(std::uint64_t offset, std::size_t n, void* out) const {
    auto* p = static_cast<char*>(out);
    while (n > 0) {
        const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        if (got == 0) return -1;
        p += got;
        offset += static_cast<std::uint64_t>(got);
        n -= static_cast<std::size_t>(got);
    }
    return 0;
}

void ReadOnlyFile::fail(int error, const std::string& what) const {
    if (error > 0) throw Error("cannot read " + what + " of " + path_ + ": " + std::strerror(error));
    throw Error(path_ + " changed while it was read: it ends before " + what +
                " (another program truncated or rewrote it; open it again)");
}

void ReadOnlyFile::read(std::uint64_t offset, std::size_t n, void* out, const std::string& what) const {
    if (const int error = read_all(offset, n, out)) fail(error, what);
}

void ReadOnlyFile::read_tensor(std::uint64_t offset, std::size_t n, void* out, const std::string& tensor) const {
    if (const int error = read_all(offset, n, out)) fail(error, "tensor '" + tensor + "'");
}

}  // namespace hs
