#pragma once
// A regular file opened for reading by offset (pread), the way every weight reader opens
// its file: a FIFO, device or directory is refused before open could block on it, and a
// file another program truncates while it is read is an error naming what was being read,
// not a SIGBUS (which a memory map would give).
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs {

class ReadOnlyFile {
public:
    // Throws hs::Error "cannot open PATH: reason" or "PATH is a directory, not a KIND"
    // (`kind` names what the caller expects: "safetensors file", "GGUF file").
    ReadOnlyFile(const std::string& path, const std::string& kind);
    ~ReadOnlyFile();
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

    const std::string& path() const { return path_; }
    std::uint64_t size() const { return size_; }  // bytes, at open
    // n bytes at `offset` into out; throws naming `what` when the file no longer holds
    // them (it shrank since open) or the read fails.
    void read(std::uint64_t offset, std::size_t n, void* out, const std::string& what) const;
    // The same for the bytes of tensor `tensor`, whose "tensor '…'" is written only when
    // the read fails (the products read a model's weights this way, panel by panel).
    void read_tensor(std::uint64_t offset, std::size_t n, void* out, const std::string& tensor) const;

private:
    // 0 when all n bytes were read, else errno, or -1 when the file ended first.
    int read_all(std::uint64_t offset, std::size_t n, void* out) const;
    [[noreturn]] void fail(int error, const std::string& what) const;
    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

}  // namespace hs
