#pragma once
// GGUF files (llama.cpp, ollama; ggml's docs/gguf.md), versions 2 and 3:
//   "GGUF" | u32 version | u64 tensor count | u64 metadata count
//   metadata:  key (string) | u32 value type | value          (× metadata count)
//   tensors:   name (string) | u32 n_dims | u64 ne[n_dims] | u32 type | u64 offset
//   padding to `general.alignment` (default 32), then the data block; each tensor's
//   offset is relative to it and a multiple of the alignment.
// Strings are u64 length + UTF-8 bytes; arrays u32 element type + u64 count + elements.
// ne[0] is the innermost (fastest) dimension: a weight stored as ne = [in, out] is the
// row-major (out, in) matrix PyTorch would hold.
//
// open() validates everything before any tensor byte is read: magic, version, every
// length against the bytes left, value types, duplicate keys and names, dimensions
// (1..4, product without overflow, rows a whole number of blocks), types (unknown ones
// refused by number, known but unreadable ones by name), offsets (aligned, inside the
// file, no two tensors sharing a byte).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/kernels/stored_matrix.h"
#include "core/kernels/stored_types.h"
#include "core/tensor.h"

namespace hs {

class ReadOnlyFile;

// One metadata value. Integers of every width are held as int64 (a u64 above INT64_MAX
// is an error), f32/f64 as double; arrays of scalars as a vector of one of those.
struct GgufValue {
    using Array = std::variant<std::vector<std::int64_t>, std::vector<double>, std::vector<bool>,
                               std::vector<std::string>>;
    std::variant<std::int64_t, double, bool, std::string, Array> value;
    std::string type_name;  // "u32", "string", "array of f32", … for error messages
};

struct GgufTensor {
    std::string name;
    StoredType type = StoredType::F32;
    std::vector<std::int64_t> ne;  // GGUF order: ne[0] innermost
    std::uint64_t offset = 0;      // within the data block
    std::uint64_t bytes = 0;
    std::int64_t numel() const;
    std::int64_t row_values() const { return ne.empty() ? 1 : ne[0]; }  // ne[0]
    std::int64_t rows() const;                                          // numel / ne[0]
};

class GgufFile final {
public:
    static std::shared_ptr<GgufFile> open(const std::string& path);
    ~GgufFile();
    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    const std::string& path() const { return path_; }
    int version() const { return version_; }
    const std::map<std::string, GgufValue>& metadata() const { return metadata_; }
    const std::vector<GgufTensor>& tensors() const { return tensors_; }
    const GgufTensor* find_tensor(const std::string& name) const;

    bool has(const std::string& key) const { return metadata_.count(key) != 0; }
    // Typed reads; each throws hs::Error naming the file, the key, what it holds and what
    // was expected. The defaulted forms return `fallback` when the key is absent.
    std::int64_t integer(const std::string& key) const;
    std::int64_t integer(const std::string& key, std::int64_t fallback) const;
    double number(const std::string& key) const;  // an integer or a float
    double number(const std::string& key, double fallback) const;
    bool boolean(const std::string& key, bool fallback) const;
    std::string string(const std::string& key) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    const std::vector<std::string>& strings(const std::string& key) const;
    std::vector<double> numbers(const std::string& key) const;     // integer or float array
    std::vector<std::int64_t> integers(const std::string& key) const;

    // A tensor of a readable type converted to f32: a 1-D tensor as (1, ne0), a 2-D one as
    // (ne1, ne0), row-major. Throws naming the tensor if it is missing or of higher rank.
    Matrix matrix(const std::string& name) const;
    Vector vector(const std::string& name) const;  // 1-D tensors only
    // Throws hs::Error naming the tensor and its type when HeadScope cannot convert it.
    void require_readable(const GgufTensor& t) const;
    // Rows [first, first + count) of tensor t (a row: its ne[0] values, whole blocks) as f32
    // into dst, split over the thread pool. Throws hs::Error when the range is not within
    // the tensor's rows, or naming the tensor and the [row, column] of the first value that
    // is not finite (NaN, ±inf): every weight read is checked as it is converted.
    void read_rows(const GgufTensor& t, std::int64_t first, std::int64_t count, float* dst) const;
    // The same rows converted and checked as read_rows does, then dropped.
    void check_rows(const GgufTensor& t, std::int64_t first, std::int64_t count) const;
    // The same rows left in the file, as rows [at, at + count) of a stored weight
    // (core/kernels/stored_matrix.h) the products read through the open file (its
    // ReadOnlyFile, which lives as long as this object). Throws as read_rows.
    StoredRows stored_rows(const GgufTensor& t, std::int64_t first, std::int64_t count, int at) const;
    // Bytes per row of t as stored.
    std::int64_t row_bytes(const GgufTensor& t) const;

private:
    GgufFile() = default;
    const GgufValue& value(const std::string& key) const;  // throws if absent
    [[noreturn]] void wrong_type(const std::string& key, const char* expected) const;
    void read_f32(const GgufTensor& t, float* dst) const;
    void require_rows(const GgufTensor& t, std::int64_t first, std::int64_t count) const;
    void check_tensor_extents(std::uint64_t align) const;

    std::string path_;
    std::unique_ptr<ReadOnlyFile> file_;
    int version_ = 0;
    std::uint64_t data_start_ = 0;
    std::map<std::string, GgufValue> metadata_;
    std::vector<GgufTensor> tensors_;  // in file order
    std::map<std::string, std::size_t> tensor_index_;
};

// Whether a file starts with the GGUF magic (false for a file that cannot be read).
bool looks_like_gguf(const std::string& path);

}  // namespace hs
