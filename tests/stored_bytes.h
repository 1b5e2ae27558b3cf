#pragma once
// Stored weights for tests and benchmarks of the products that read them
// (core/kernels/stored_matrix.h): random rows of a stored type, and a "file" they are read
// from by offset, as a model file is (io/read_only_file.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/kernels/half_float.h"
#include "core/kernels/stored_matrix.h"
#include "core/kernels/stored_types.h"
#include "core/rng.h"

namespace hs::test {

// `rows` rows of `cols` values stored as `type`, random: bf16, f16 and f32 from uniform
// values in [-1, 1); quantised blocks random bytes, then a random finite f16 scale (and
// min) where the type keeps them.
inline std::vector<std::uint8_t> random_rows(StoredType type, int rows, int cols, Rng& rng) {
    const StoredTypeInfo& info = stored_type_info(type);
    const std::size_t row_bytes = static_cast<std::size_t>(cols / info.block_values) * info.block_bytes;
    std::vector<std::uint8_t> bytes(row_bytes * rows);
    const auto put16 = [&](std::size_t at, std::uint16_t v) { std::memcpy(bytes.data() + at, &v, 2); };
    for (std::size_t at = 0; at < bytes.size();) {
        switch (type) {
            case StoredType::BF16: put16(at, f32_to_bf16(rng.uniform(-1, 1))); at += 2; break;
            case StoredType::F16: put16(at, f32_to_f16(rng.uniform(-1, 1))); at += 2; break;
            case StoredType::F32: {
                const float v = rng.uniform(-1, 1);
                std::memcpy(bytes.data() + at, &v, 4);
                at += 4;
                break;
            }
            default:
                for (int i = 0; i < info.block_bytes; ++i) bytes[at + i] = static_cast<std::uint8_t>(rng.uniform(0, 255.99f));
                for (const int scale_at : type == StoredType::Q4_K   ? std::vector<int>{0, 2}     // d, dmin
                                          : type == StoredType::Q6_K ? std::vector<int>{208}      // d
                                                                     : std::vector<int>{0})       // Q8_0, Q4_0: d
                    put16(at + scale_at, f32_to_f16(rng.uniform(0.001f, 0.05f)));
                at += info.block_bytes;
        }
    }
    return bytes;
}

// A "file" of stored bytes read by offset (copied, as pread copies them), and, when
// `map`, also mapped (its bytes where they lie); counts its reads and releases.
struct BytesFile final : StoredBytes {
    std::vector<std::uint8_t> bytes;
    bool map = false;
    mutable int reads = 0, releases = 0;
    std::string name = "bytes";
    void read(std::uint64_t offset, std::size_t n, void* out, const std::string& tensor) const override {
        if (offset + n > bytes.size()) throw Error("the file ends before tensor '" + tensor + "'");
        std::memcpy(out, bytes.data() + offset, n);
        ++reads;
    }
    const std::uint8_t* mapped(std::uint64_t offset, std::size_t n) const override {
        return map && offset + n <= bytes.size() ? bytes.data() + offset : nullptr;
    }
    void release(std::uint64_t, std::size_t) const override { ++releases; }
    void require_holds(std::uint64_t offset, std::size_t n, const std::string& tensor) const override {
        if (offset + n > bytes.size()) throw Error("the file ends before tensor '" + tensor + "'");
    }
    const std::string& path() const override { return name; }
};

}  // namespace hs::test
