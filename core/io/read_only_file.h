#pragma once
// A regular file opened for reading by offset (pread), the way every weight reader opens
// its file: a FIFO, device or directory is refused before open could block on it, and a
// file another program truncates while it is read is an error naming what was being read.
// The file is also mapped read-only, for the products to convert stored rows where they
// lie (no copy out of the page cache); a read of the map runs under
// kernels::run_unless_bus_error, and a truncated file is then read again with pread, which
// names what was lost. It is the StoredBytes of the weights the readers find in it
// (formats/gguf.h, io/safetensors.h): the products read stored rows through it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/kernels/stored_matrix.h"

namespace hs {

class ReadOnlyFile final : public StoredBytes {
public:
    // Throws hs::Error "cannot open PATH: reason" or "PATH is a directory, not a KIND"
    // (`kind` names what the caller expects: "safetensors file", "GGUF file").
    ReadOnlyFile(const std::string& path, const std::string& kind);
    ~ReadOnlyFile();
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

    const std::string& path() const override { return path_; }
    std::uint64_t size() const { return size_; }  // bytes, at open
    // n bytes at `offset` into out; throws naming `what` when the file no longer holds
    // them (it shrank since open) or the read fails.
    void read_bytes(std::uint64_t offset, std::size_t n, void* out, const std::string& what) const;
    // The same for the bytes of tensor `tensor`, whose "tensor '…'" is written only when
    // the read fails (the products read a model's weights this way, panel by panel).
    void read(std::uint64_t offset, std::size_t n, void* out, const std::string& tensor) const override;
    // The n bytes at `offset` in the file's map, or null when it could not be mapped or
    // they lie past its size at open. Touching them is a SIGBUS if the file shrank since.
    const std::uint8_t* mapped(std::uint64_t offset, std::size_t n) const override;
    // Lets the map's pages holding those bytes go from this process (max RSS counts mapped
    // pages; they stay in the page cache and are mapped again when next read), when the
    // file is larger than the memory the system could give when it opened: its pages
    // could not all stay in memory. Otherwise they stay mapped: letting them go and
    // mapping them again cost 1.4 µs per 4 KiB page, as much again as a 200 MB model's
    // whole forward (docs/PERFORMANCE.md).
    void release(std::uint64_t offset, std::size_t n) const override;
    bool releases_pages() const { return release_pages_; }
    // Throws as read does when the file now (fstat) ends before offset + n, or
    // naming the file as rewritten when its modification time moved since it opened (a
    // page of the map cut and written again would otherwise read as zeros unseen).
    void require_holds(std::uint64_t offset, std::size_t n, const std::string& tensor) const override;

private:
    // 0 when all n bytes were read, else errno, or -1 when the file ended first.
    int read_all(std::uint64_t offset, std::size_t n, void* out) const;
    [[noreturn]] void fail(int error, const std::string& what) const;
    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::uint8_t* map_ = nullptr;  // size_ bytes, PROT_READ
    bool release_pages_ = false;
    long long modified_ns_ = 0;  // st_mtim at open
};

}  // namespace hs
