#pragma once
// safetensors: 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data block (offsets are relative to its start).
// The reader validates the whole file before any tensor is used and memory-maps it.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/half_float.h"  // f16/bf16 conversions, which the reader uses
#include "core/kernels/stored_matrix.h"
#include "core/tensor.h"

namespace hs {

class ReadOnlyFile;

// Readable as weights: F32, F16, BF16. The others are recognised so a checkpoint holding
// e.g. an I64 `position_ids` buffer still opens; reading them as weights is an error.
enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool };
bool dtype_is_readable(DType d);
std::string to_string(DType d);
int dtype_size(DType d);

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;  // byte offsets within the data block
    std::int64_t numel() const;
};

// A validated safetensors file, read with pread, its map read by the products (a file
// that another program truncates while HeadScope reads it is an error naming the tensor,
// never a SIGBUS: core/kernels/bus_error_guard.h). Only regular files are
// opened (a FIFO, device or directory is refused before open could block). Every failure
// throws hs::Error naming
// the file and the problem: file too small for the header length, header length past
// end of file, header not valid JSON, entry missing dtype/shape/data_offsets, unsupported
// dtype (named), negative dims, shape × dtype size ≠ byte length (both numbers), offsets
// outside the data block, overlapping tensors.
class SafetensorsFile final {
public:
    static std::shared_ptr<SafetensorsFile> open(const std::string& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return path_; }
    const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    bool has(const std::string& name) const { return tensors_.count(name) != 0; }
    const TensorInfo& info(const std::string& name) const;  // throws naming the tensor
    // Converted to f32. A 1-D tensor becomes a (1, n) matrix; a 2-D tensor (rows, cols).
    Matrix matrix(const std::string& name) const;
    Vector vector(const std::string& name) const;  // 1-D tensors only
    // Every value of a tensor of any rank, converted to f32, row-major.
    std::vector<float> values(const std::string& name) const;
    // Rows [first, first + count) of a 1-D (one row) or 2-D (rows, cols) F32, F16 or BF16
    // tensor left in the file, as rows [at, at + count) of a stored weight (core/kernels/
    // stored_matrix.h) the products read through the open file (its ReadOnlyFile, which
    // lives as long as this object); and the same rows converted and checked finite,
    // then dropped (io/stored_read.h). Throw naming the tensor for another dtype, rank or
    // row range.
    StoredRows stored_rows(const TensorInfo& t, std::int64_t first, std::int64_t count, int at) const;
    void check_rows(const TensorInfo& t, std::int64_t first, std::int64_t count) const;
    // The same rows converted into dst (count × cols floats), checked finite as they are
    // converted, a chunk at a time over the thread pool: how a model's weights are read.
    void read_rows(const TensorInfo& t, std::int64_t first, std::int64_t count, float* dst) const;

private:
    SafetensorsFile() = default;
    // n bytes at file offset `offset` into out; throws naming `what` when the file no
    // longer holds them (it shrank since open) or the read fails.
    void read_bytes(std::uint64_t offset, std::size_t n, void* out, const std::string& what) const;
    // A tensor's values as f32 into dst (t.numel() floats).
    void read_f32(const TensorInfo& t, float* dst) const;
    std::string path_;
    std::unique_ptr<ReadOnlyFile> file_;  // open for the object's lifetime
    std::size_t data_start_ = 0;
    std::map<std::string, TensorInfo> tensors_;
    std::map<std::string, std::string> metadata_;
};

// A tensor to write: f32 data, row-major.
struct NamedTensor {
    std::string name;
    std::vector<std::int64_t> shape;
    std::vector<float> data;
};

// Writes f32 tensors (sorted by name, 8-byte aligned header) atomically: a temp file in
// the same directory, then rename. Throws hs::Error if the path is not writable.
void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace hs
