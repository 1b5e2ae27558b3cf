#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace hs {

namespace {

[[noreturn]] void fail_write(const std::string& path, const std::string& reason) {
    throw Error("cannot write " + path + ": " + reason);
}

// The checks that give a clearer reason than the errno of a failed open; `target` is
// the resolved file.
void check_writable_target(const std::string& path, const std::filesystem::path& target) {
    namespace fs = std::filesystem;
    if (target.filename().empty()) fail_write(path, "not a file name");
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::exists(dir, ec)) fail_write(path, "directory " + dir.string() + " does not exist");
    if (!fs::is_directory(dir, ec)) fail_write(path, dir.string() + " is not a directory");
    const std::string special = special_file_kind(target.string());
    if (!special.empty()) fail_write(path, "it is " + special + ", not a regular file");
}

// Writes all n bytes to fd, retrying short writes and EINTR.
void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
    const auto* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            fail_write(path, std::strerror(errno));
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

}  // namespace

std::filesystem::path resolve_links(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path p(path);
    std::error_code ec;
    for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
        if (hops == 40) fail_write(path, "too many levels of symbolic links");
        const fs::path to = fs::read_symlink(p, ec);
        if (ec) fail_write(path, ec.message());
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
    return p;
}

std::string landing_path(const std::string& path) {
    std::error_code ec;
    return std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec).string();
}

std::string file_kind(unsigned mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string special_file_kind(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "";  // absent (or unreadable: open will say)
    return file_kind(st.st_mode);
}

bool is_null_device(const std::filesystem::path& path) {
    struct stat st {}, null {};
    return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 &&
           S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev;
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
    write_file_atomic(path, [&](const PutBytes& put) { put(bytes.data(), bytes.size()); });
}

void write_file_atomic(const std::string& path, const std::function<void(const PutBytes& put)>& produce) {
    namespace fs = std::filesystem;
    // A symbolic link is written through (its target replaced, the link kept); a device,
    // FIFO, socket or directory is refused, never replaced by a regular file.
    const fs::path target = resolve_links(path);
    if (is_null_device(target)) {  // `--json /dev/null`: everything is produced, nothing kept
        produce([](const void*, std::size_t) {});
        return;
    }
    check_writable_target(path, target);
    // Hidden sibling DIR/.NAME.tmp-XXXXXX: unique per call (threads, processes), and in the
    // same directory so rename() stays on one filesystem.
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string temp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    int fd = ::mkstemp(temp.data());
    if (fd < 0) fail_write(path, std::strerror(errno));
    try {
        ::fchmod(fd, 0644);  // mkstemp creates 0600; models and exports are meant to be shared
        produce([&](const void* data, std::size_t size) { write_all(fd, data, size, path); });
        if (::fsync(fd) != 0) fail_write(path, std::strerror(errno));
        const int closed = ::close(fd);
        fd = -1;
        if (closed != 0) fail_write(path, std::strerror(errno));
        if (std::rename(temp.c_str(), target.c_str()) != 0) fail_write(path, std::strerror(errno));
    } catch (...) {
        if (fd >= 0) ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
}

namespace {

// Reads fd to its end; at most max_bytes (then the limit is named), closing fd either way.
std::string read_to_end(int fd, const std::string& path, std::size_t max_bytes, const char* what) {
    std::string out;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            const int read_errno = errno;  // e.g. EISDIR
            ::close(fd);
            throw Error("cannot read " + path + ": " + std::strerror(read_errno));
        }
        if (out.size() + static_cast<std::size_t>(n) > max_bytes) {  // stop before holding more than the limit
            ::close(fd);
            throw Error(path + " holds more than " + std::to_string(max_bytes >> 20) + " MiB, the limit for " +
                        what);
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

}  // namespace

std::string read_file(const std::string& path, std::size_t max_bytes, const char* what) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses everything
    // but a regular file (a device never ends, a directory has no bytes).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const std::string reason = std::strerror(errno);
        ::close(fd);
        throw Error("cannot read " + path + ": " + reason);
    }
    if (!S_ISREG(st.st_mode)) {
        const std::string kind = file_kind(st.st_mode);
        ::close(fd);
        throw Error("cannot read " + path + ": it is " + kind + (kind == "not a regular file" ? "" : ", not a regular file"));
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return read_to_end(fd, path, max_bytes, what);
}

std::string read_text_file(const std::string& path) {
    // Pipes are welcome here (`--text-file <(cmd)`, /dev/stdin): a blocking open waits for
    // the writer like any reader of a pipe; endless devices end at the limit.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
    return read_to_end(fd, path, kMaxTextBytes, "a text file");
}

std::string input_text_of_file(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

}  // namespace hs
