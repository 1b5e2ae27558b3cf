#pragma once
// A weight matrix W (rows, cols) (PyTorch (out, in) layout) left as its file stores it, for
// the products to read and convert a panel at a time (gemm::nn_stored), so that neither
// its stored bytes nor its f32 values pass through memory: a model read layer by layer
// (core/model/layer_source.h) runs its products this way. W is row ranges, each of one
// stored type (core/kernels/stored_types.h): a fused [W_Q; W_K; W_V] is three tensors, and
// a Q4_K_M file stores some of them as Q6_K.
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernels/stored_types.h"

namespace hs {

// Where stored rows are read from by offset: a model file (io/read_only_file.h, which the
// readers in formats/gguf.h and io/safetensors.h open).
class StoredBytes {
public:
    virtual ~StoredBytes() = default;
    // n bytes of tensor `tensor` at file offset `offset` into out; throws hs::Error naming
    // the file and the tensor when the source no longer holds them.
    virtual void read(std::uint64_t offset, std::size_t n, void* out, const std::string& tensor) const = 0;
    // The same bytes where they lie in a memory map of the file, or null (not mapped).
    // Reading them is a SIGBUS if the file shrank since it was opened: read them under
    // kernels::run_unless_bus_error (core/kernels/bus_error_guard.h), and on a false
    // read() again, which throws naming the tensor.
    virtual const std::uint8_t* mapped(std::uint64_t offset, std::size_t n) const = 0;
    // Lets the map's pages of those bytes go from the process's memory (see ReadOnlyFile).
    virtual void release(std::uint64_t offset, std::size_t n) const = 0;
    // Throws as read() does when the file now ends before offset + n (it was cut short).
    virtual void require_holds(std::uint64_t offset, std::size_t n, const std::string& tensor) const = 0;
    // The file, for messages.
    virtual const std::string& path() const = 0;
};

// Rows [first_row, first_row + rows) of W, each row_bytes long and whole blocks of `type`:
// in memory at `bytes`, or else in `source` at `offset` (`name`: the tensor, for errors).
struct StoredRows {
    int first_row = 0, rows = 0;
    StoredType type = StoredType::F32;
    std::int64_t row_bytes = 0;
    const std::uint8_t* bytes = nullptr;
    const StoredBytes* source = nullptr;
    std::uint64_t offset = 0;
    const std::string* name = nullptr;
};

struct StoredMatrix {
    int rows = 0, cols = 0;
    std::vector<StoredRows> parts;  // by first_row, covering [0, rows) once
    // Some part points into a memory map of its file (rows_in_memory): convert it under
    // kernels::run_unless_bus_error.
    bool mapped = false;

    // Rows [r0, r0 + n) as a matrix of n rows in memory: parts in memory point where they
    // are; the others point into their file's map when `use_map` and it has one, else are
    // read (one read per part) into `buffer`, which grows as needed.
    StoredMatrix rows_in_memory(int r0, int n, std::vector<std::uint8_t>& buffer, bool use_map) const;
    // Where rows [r0, r0 + n) of the first part holding any of them lie in memory or in its
    // file's map, without reading them: {null, 0} when that part has no map. For requesting
    // them into cache ahead of their product (a prefetch never faults, even past the end
    // of a file cut short under the map).
    struct BytesInPlace {
        const std::uint8_t* data = nullptr;
        std::size_t size = 0;
    };
    BytesInPlace bytes_in_place(int r0, int n) const;
    // The map's pages of every part left in its file let go (StoredBytes::release).
    void release_mapped_pages() const;
    // Throws hs::Error naming the file and tensor when a part's file now ends before its
    // rows: after products that read them from the map, where the lost part of a page
    // reads as zeros.
    void require_still_in_file() const;
    // out (n, cn) with row stride ldo = W[r0 : r0 + n, c0 : c0 + cn] as f32, every part in
    // memory. c0 and cn are multiples of kColumnBlock (cn may end at cols instead), so they
    // fall on block bounds of every type (32 or 256 values per block).
    static constexpr int kColumnBlock = 256;
    void convert(int r0, int n, int c0, int cn, float* out, int ldo) const;
    // out (cols, rows) with row stride ldo = Wᵀ as f32, every part in memory (a panel of
    // gemm::nn_stored): BF16 and Q8_0 rows converted and laid out in one pass, the other
    // types 16 rows × kColumnBlock values at a time converted into a buffer in L1 and
    // transposed into place. The same floats as convert.
    void convert_transposed(float* out, int ldo) const;
};

}  // namespace hs
