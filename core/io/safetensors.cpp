// safetensors reader (pread, validated up front; regular files only) and f32 writer (atomic).
//
// File layout:  [u64 little-endian N] [N bytes JSON header] [data block]
// Header entry: "name": {"dtype": "F32"|"F16"|"BF16", "shape": [d0, d1, …],
//                        "data_offsets": [begin, end]}   (relative to the data block)
// Invariant checked before any tensor is read: numel(shape) · dtype_size = end − begin,
// begin ≤ end ≤ |data block|, and no two tensors share a byte.
#include "core/io/safetensors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/read_only_file.h"
#include "core/io/stored_read.h"
#include "core/kernels/little_endian.h"
#include "core/kernels/stored_types.h"

namespace hs {

namespace {

using nlohmann::json;

std::string shape_string(const std::vector<std::int64_t>& shape) {
    std::ostringstream out;
    out << '[';
    for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
    out << ']';
    return out.str();
}

// n elements of a readable `dtype` at `src` -> f32 at `dst` (the kernels' conversion of
// stored types, core/kernels/stored_types.h).
void convert_to_f32(DType dtype, const std::uint8_t* src, std::int64_t n, float* dst) {
    if (n == 0) return;  // an empty tensor: dst (and src) may be null, which memcpy forbids
    switch (dtype) {
        case DType::F32: return dequantize(StoredType::F32, src, n, dst);
        case DType::F16: return dequantize(StoredType::F16, src, n, dst);
        case DType::BF16: return dequantize(StoredType::BF16, src, n, dst);
        default: return;  // callers check dtype_is_readable first
    }
}

constexpr std::pair<DType, const char*> kDTypeNames[] = {
    {DType::F32, "F32"}, {DType::F16, "F16"}, {DType::BF16, "BF16"}, {DType::F64, "F64"},
    {DType::I64, "I64"}, {DType::I32, "I32"}, {DType::I16, "I16"},   {DType::I8, "I8"},
    {DType::U8, "U8"},   {DType::Bool, "BOOL"}};

DType parse_dtype(const std::string& s, const std::string& where) {
    for (const auto& [dtype, name] : kDTypeNames)
        if (s == name) return dtype;
    throw Error(where + " has unknown dtype " + s +
                " (known: F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL)");
}

// One header entry -> TensorInfo; `where` is "PATH: tensor 'NAME'".
TensorInfo parse_entry(const std::string& name, const json& entry, const std::string& where) {
    if (!entry.is_object())
        throw Error(where + " is not a JSON object (got " + entry.type_name() + ")");
    for (const char* key : {"dtype", "shape", "data_offsets"}) {
        if (!entry.contains(key))
            throw Error(where + " is missing \"" + key + "\"");
    }
    TensorInfo info;
    info.name = name;

    const json& dtype = entry.at("dtype");
    if (!dtype.is_string())
        throw Error(where + " has a \"dtype\" that is not a string (got " + dtype.type_name() +
                    ")");
    info.dtype = parse_dtype(dtype.get<std::string>(), where);

    const json& shape = entry.at("shape");
    if (!shape.is_array())
        throw Error(where + " has a \"shape\" that is not an array (got " + shape.type_name() +
                    ")");
    for (const json& d : shape) {
        if (!d.is_number_integer())
            throw Error(where + " has a non-integer dimension in \"shape\": " + d.dump() + "");
        if (d.is_number_unsigned()) {
            const auto u = d.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                throw Error(where + " has dimension " + std::to_string(u) + ", which is too large");
            info.shape.push_back(static_cast<std::int64_t>(u));
        } else {
            const auto v = d.get<std::int64_t>();
            if (v < 0)
                throw Error(where + " has negative dimension " + std::to_string(v) + " in shape " +
                            shape.dump() + "");
            info.shape.push_back(v);
        }
    }

    const json& offsets = entry.at("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2)
        throw Error(where + " has \"data_offsets\" that is not a [begin, end] pair: " +
                    offsets.dump() + "");
    for (const json& o : offsets) {
        if (!o.is_number_unsigned())
            throw Error(where + " has \"data_offsets\" that are not non-negative integers: " +
                        offsets.dump() + "");
    }
    info.begin = offsets[0].get<std::uint64_t>();
    info.end = offsets[1].get<std::uint64_t>();
    if (info.begin > info.end)
        throw Error(where + " has data_offsets [" + std::to_string(info.begin) + ", " +
                    std::to_string(info.end) + "] with begin after end");

    // numel · dtype_size, guarding against overflow from absurd shapes.
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 8;
    std::uint64_t numel = 1;
    for (std::int64_t d : info.shape) {
        const auto ud = static_cast<std::uint64_t>(d);
        if (ud != 0 && numel > limit / ud)
            throw Error(where + " has shape " + shape_string(info.shape) +
                        " whose size overflows 64 bits");
        numel *= ud;
    }
    const std::uint64_t expected = numel * static_cast<std::uint64_t>(dtype_size(info.dtype));
    const std::uint64_t actual = info.end - info.begin;
    if (expected != actual)
        throw Error(where + " has shape " + shape_string(info.shape) + " × " +
                    to_string(info.dtype) + " = " + std::to_string(expected) +
                    " bytes, but its data_offsets span " + std::to_string(actual) + " bytes");
    return info;
}

// Closes a file descriptor on scope exit.

}  // namespace

// ---------------------------------------------------------------------------------------
// dtypes and conversions

std::string to_string(DType d) {
    for (const auto& [dtype, name] : kDTypeNames)
        if (d == dtype) return name;
    return "?";
}

bool dtype_is_readable(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16; }

int dtype_size(DType d) {
    switch (d) {
        case DType::F64: case DType::I64: return 8;
        case DType::F32: case DType::I32: return 4;
        case DType::F16: case DType::BF16: case DType::I16: return 2;
        default: return 1;  // I8, U8, BOOL
    }
}

std::int64_t TensorInfo::numel() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return n;
}

// ---------------------------------------------------------------------------------------
// Reader

std::shared_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
    file->path_ = path;

    file->file_ = std::make_unique<ReadOnlyFile>(path, "safetensors file");
    const std::uint64_t size = file->file_->size();
    if (size < 8)
        throw Error(path + " is too small to be a safetensors file: " + std::to_string(size) +
                    " bytes, but the header length alone takes 8");

    // 1. Header length N, and the header must fit in the file.
    std::uint8_t len_bytes[8];
    file->read_bytes(0, 8, len_bytes, "the header length");
    const std::uint64_t header_len = load_le_u64(len_bytes);
    if (header_len > size - 8)
        throw Error(path + ": header length " + std::to_string(header_len) +
                    " runs past the end of the file (" + std::to_string(size) +
                    " bytes, so at most " + std::to_string(size - 8) + " header bytes)");
    file->data_start_ = 8 + header_len;
    const std::uint64_t data_size = size - file->data_start_;

    // The format caps the header at 100 MB (and it is read into memory).
    constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
    if (header_len > kMaxHeaderBytes)
        throw Error(path + ": header length " + std::to_string(header_len) + " bytes is more than the " +
                    std::to_string(kMaxHeaderBytes) + " the safetensors format allows");
    // 2. Header JSON must be an object.
    std::string header_text(header_len, '\0');
    file->read_bytes(8, header_len, header_text.data(), "the header");
    json header;
    try {
        header = json::parse(header_text);
    } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e400
        throw Error(path + ": header is not valid JSON: " + e.what());
    }
    if (!header.is_object())
        throw Error(path + ": header is not a JSON object (got " + header.type_name() + ")");

    // 3. Every entry well formed; sizes agree; offsets inside the data block.
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                throw Error(path + ": \"__metadata__\" is not a JSON object");
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string())
                    throw Error(path + ": metadata value for \"" + key +
                                "\" is not a string (got " + value.type_name() + ")");
                file->metadata_[key] = value.get<std::string>();
            }
            continue;
        }
        const std::string where = path + ": tensor '" + name + "'";
        TensorInfo info = parse_entry(name, entry, where);
        if (info.end > data_size)
            throw Error(where + " has data_offsets [" + std::to_string(info.begin) + ", " +
                        std::to_string(info.end) + "] outside the data block of " +
                        std::to_string(data_size) + " bytes");
        file->tensors_.emplace(name, std::move(info));
    }

    // 4. No two tensors share a byte: sort by begin, each must start at or after the
    //    previous end (empty tensors occupy no bytes).
    std::vector<const TensorInfo*> by_offset;
    for (const auto& [name, info] : file->tensors_)
        if (info.end > info.begin) by_offset.push_back(&info);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
    for (std::size_t i = 1; i < by_offset.size(); ++i) {
        const TensorInfo& prev = *by_offset[i - 1];
        const TensorInfo& cur = *by_offset[i];
        if (cur.begin < prev.end)
            throw Error(path + ": tensors '" + prev.name + "' [" + std::to_string(prev.begin) +
                        ", " + std::to_string(prev.end) + ") and '" + cur.name + "' [" +
                        std::to_string(cur.begin) + ", " + std::to_string(cur.end) +
                        ") overlap");
    }
    return file;
}

SafetensorsFile::~SafetensorsFile() = default;

void SafetensorsFile::read_bytes(std::uint64_t offset, std::size_t n, void* out, const std::string& what) const {
    file_->read_bytes(offset, n, out, what);
}

void SafetensorsFile::read_f32(const TensorInfo& t, float* dst) const {
    const std::uint64_t offset = data_start_ + t.begin;
    const std::size_t bytes = static_cast<std::size_t>(t.end - t.begin);
    const std::string what = "tensor '" + t.name + "'";
    if (t.dtype == DType::F32 && std::endian::native == std::endian::little) {
        read_bytes(offset, bytes, dst, what);  // the file's bytes are the floats
        return;
    }
    std::vector<std::uint8_t> raw(bytes);
    read_bytes(offset, bytes, raw.data(), what);
    convert_to_f32(t.dtype, raw.data(), t.numel(), dst);
}

const TensorInfo& SafetensorsFile::info(const std::string& name) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(path_ + " has no tensor named '" + name + "'");
    return it->second;
}

namespace {

void check_readable(const std::string& path, const TensorInfo& t) {
    if (!dtype_is_readable(t.dtype))
        throw Error(path + ": tensor '" + t.name + "' has unsupported dtype " + to_string(t.dtype) +
                    " (weights must be F32, F16 or BF16)");
}

}  // namespace

StoredRows SafetensorsFile::stored_rows(const TensorInfo& t, std::int64_t first, std::int64_t count, int at) const {
    check_readable(path_, t);
    if (t.shape.empty() || t.shape.size() > 2)
        throw Error(path_ + ": tensor '" + t.name + "' has " + std::to_string(t.shape.size()) +
                    " dimensions; only 1-D and 2-D tensors are rows of a weight");
    const std::int64_t rows = t.shape.size() == 2 ? t.shape[0] : 1;
    const std::int64_t cols = t.shape.back();
    if (first < 0 || count < 0 || first + count > rows)
        throw Error(path_ + ": rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                    ") of tensor '" + t.name + "', which has " + std::to_string(rows));
    const StoredType type = t.dtype == DType::F32 ? StoredType::F32 : t.dtype == DType::F16 ? StoredType::F16 : StoredType::BF16;
    const std::int64_t row_bytes = cols * dtype_size(t.dtype);
    StoredRows out{at, static_cast<int>(count), type, row_bytes};
    out.source = file_.get();
    out.offset = data_start_ + t.begin + static_cast<std::uint64_t>(first * row_bytes);
    out.name = &t.name;
    return out;
}

void SafetensorsFile::check_rows(const TensorInfo& t, std::int64_t first, std::int64_t count) const {
    read_stored_rows(stored_rows(t, first, count, 0), {t.shape.empty() ? 1 : t.shape.back(), first, t.shape.size() <= 1},
                     nullptr);
}

void SafetensorsFile::read_rows(const TensorInfo& t, std::int64_t first, std::int64_t count, float* dst) const {
    read_stored_rows(stored_rows(t, first, count, 0), {t.shape.empty() ? 1 : t.shape.back(), first, t.shape.size() <= 1},
                     dst);
}

Matrix SafetensorsFile::matrix(const std::string& name) const {
    const TensorInfo& t = info(name);
    check_readable(path_, t);
    Eigen::Index rows = 1, cols = 1;
    if (t.shape.size() == 1) {
        cols = t.shape[0];
    } else if (t.shape.size() == 2) {
        rows = t.shape[0];
        cols = t.shape[1];
    } else if (!t.shape.empty()) {
        throw Error(path_ + ": tensor '" + name + "' has shape " + shape_string(t.shape) +
                    "; only 1-D and 2-D tensors can be read as a matrix");
    }
    Matrix m(rows, cols);  // row-major, like the file
    read_f32(t, m.data());
    return m;
}

std::vector<float> SafetensorsFile::values(const std::string& name) const {
    const TensorInfo& t = info(name);
    check_readable(path_, t);
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    read_f32(t, out.data());
    return out;
}

Vector SafetensorsFile::vector(const std::string& name) const {
    const TensorInfo& t = info(name);
    check_readable(path_, t);
    if (t.shape.size() != 1)
        throw Error(path_ + ": tensor '" + name + "' has shape " + shape_string(t.shape) +
                    ", expected a 1-D tensor");
    Vector v(t.shape[0]);
    read_f32(t, v.data());
    return v;
}

// ---------------------------------------------------------------------------------------
// Writer

void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    // Sort by name; data laid out in that order, back to back.
    std::vector<const NamedTensor*> sorted;
    for (const NamedTensor& t : tensors) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(),
              [](const NamedTensor* a, const NamedTensor* b) { return a->name < b->name; });

    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const NamedTensor& t = *sorted[i];
        if (t.name == "__metadata__")
            throw Error("cannot write " + path + ": a tensor may not be named \"__metadata__\"");
        if (i > 0 && sorted[i - 1]->name == t.name)
            throw Error("cannot write " + path + ": tensor name '" + t.name + "' appears twice");
        std::int64_t numel = 1;
        for (std::int64_t d : t.shape) {
            if (d < 0)
                throw Error("cannot write " + path + ": tensor '" + t.name +
                            "' has negative dimension in shape " + shape_string(t.shape) + "");
            numel *= d;
        }
        if (static_cast<std::size_t>(numel) != t.data.size())
            throw Error("cannot write " + path + ": tensor '" + t.name + "' has shape " +
                        shape_string(t.shape) + " (" + std::to_string(numel) +
                        " values) but " + std::to_string(t.data.size()) + " values of data");
        const std::uint64_t bytes = t.data.size() * 4;
        header[t.name] = {{"dtype", "F32"},
                          {"shape", t.shape},
                          {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }

    // Header padded with spaces so the data block starts 8-byte aligned (8 + N ≡ 0 mod 8).
    std::string header_text = header.dump();
    header_text.append((8 - header_text.size() % 8) % 8, ' ');
    std::uint8_t length_bytes[8];
    for (int i = 0; i < 8; ++i)
        length_bytes[i] = static_cast<std::uint8_t>(std::uint64_t{header_text.size()} >> (8 * i));

    // Temp file in the same directory, then rename: readers never see a partial file.
    write_file_atomic(path, [&](const PutBytes& put) {
        put(length_bytes, 8);
        put(header_text.data(), header_text.size());
        std::vector<std::uint8_t> buffer;
        for (const NamedTensor* t : sorted) {
            if constexpr (std::endian::native == std::endian::little) {
                put(t->data.data(), t->data.size() * 4);
            } else {
                buffer.resize(t->data.size() * 4);
                for (std::size_t i = 0; i < t->data.size(); ++i) {
                    const auto bits = std::bit_cast<std::uint32_t>(t->data[i]);
                    for (int b = 0; b < 4; ++b)
                        buffer[4 * i + b] = static_cast<std::uint8_t>(bits >> (8 * b));
                }
                put(buffer.data(), buffer.size());
            }
        }
    });
}

}  // namespace hs
