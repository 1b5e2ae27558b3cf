#include "core/io/read_only_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/memory_budget.h"

namespace hs {
namespace {

long long modified_ns(const struct stat& st) {
    return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

}  // namespace

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
    modified_ns_ = modified_ns(st);
    try {
        const long long available = available_memory_bytes();  // -1: unknown
        release_pages_ = available >= 0 && size_ > static_cast<std::uint64_t>(available);
    } catch (...) {  // a malformed HEADSCOPE_MEMORY_LIMIT (the memory plan names it): pages kept
    }
    // No map (null) for an empty file or when mmap fails (no address space): pread only.
    if (size_ > 0 && size_ <= SIZE_MAX) {
        void* map = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_SHARED, fd_, 0);
        if (map != MAP_FAILED) map_ = static_cast<std::uint8_t*>(map);
    }
}

ReadOnlyFile::~ReadOnlyFile() {
    if (map_) ::munmap(map_, static_cast<std::size_t>(size_));
    if (fd_ >= 0) ::close(fd_);
}

const std::uint8_t* ReadOnlyFile::mapped(std::uint64_t offset, std::size_t n) const {
    if (!map_ || offset > size_ || n > size_ - offset) return nullptr;
    return map_ + offset;
}

void ReadOnlyFile::require_holds(std::uint64_t offset, std::size_t n, const std::string& tensor) const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(errno, "tensor '" + tensor + "'");
    if (static_cast<std::uint64_t>(st.st_size) < offset + n) fail(-1, "tensor '" + tensor + "'");
    if (modified_ns(st) != modified_ns_)
        throw Error(path_ + " changed while it was read: another program rewrote it since it was opened "
                            "(seen at tensor '" + tensor + "'; open it again)");
}

void ReadOnlyFile::release(std::uint64_t offset, std::size_t n) const {
    if (!map_ || !release_pages_ || offset >= size_) return;
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t first = offset / page * page;  // whole pages around the bytes
    const std::uint64_t end = std::min(size_, offset + n);
    ::madvise(map_ + first, static_cast<std::size_t>(end - first), MADV_DONTNEED);
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

void ReadOnlyFile::read_bytes(std::uint64_t offset, std::size_t n, void* out, const std::string& what) const {
    if (const int error = read_all(offset, n, out)) fail(error, what);
}

void ReadOnlyFile::read(std::uint64_t offset, std::size_t n, void* out, const std::string& tensor) const {
    if (const int error = read_all(offset, n, out)) fail(error, "tensor '" + tensor + "'");
}

}  // namespace hs
