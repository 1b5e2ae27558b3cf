// GGUF reader: the header, metadata and tensor table parsed and validated in one pass over
// the start of the file (format in gguf.h), tensor data read by offset only when asked.
#include "core/formats/gguf.h"

#include <algorithm>
#include <cmath>
#include <bit>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/io/read_only_file.h"
#include "core/io/stored_read.h"
#include "core/kernels/little_endian.h"

namespace hs {

namespace {

constexpr std::uint32_t kMaxDims = 4;            // GGML_MAX_DIMS
constexpr int kMaxArrayNesting = 4;              // deeper arrays are refused, not recursed into
constexpr std::uint64_t kMaxStringBytes = 1u << 30;  // no key, name or piece comes near

// Sequential little-endian reads from the file through a buffer. Every read checks the
// bytes left first, so a length or count read from a damaged file fails with the field's
// name and the file's size instead of allocating or reading past the end.
class Cursor {
public:
    Cursor(const ReadOnlyFile& file, const std::string& path) : file_(file), path_(path) {}

    std::uint64_t position() const { return pos_; }
    std::uint64_t left() const { return file_.size() - pos_; }

    void need(std::uint64_t n, const std::string& what) const {
        if (n > left())
            throw Error(path_ + ": " + what + " needs " + std::to_string(n) + " bytes at offset " +
                        std::to_string(pos_) + ", but the file ends " + std::to_string(left()) +
                        " bytes later (truncated download?)");
    }
    void bytes(void* out, std::size_t n, const std::string& what) {
        need(n, what);
        auto* dst = static_cast<std::uint8_t*>(out);
        while (n > 0) {
            if (buffer_at_ == buffer_.size()) refill(what);
            const std::size_t take = std::min(n, buffer_.size() - buffer_at_);
            std::memcpy(dst, buffer_.data() + buffer_at_, take);
            buffer_at_ += take;
            pos_ += take;
            dst += take;
            n -= take;
        }
    }
    std::uint8_t u8(const std::string& what) { std::uint8_t b; bytes(&b, 1, what); return b; }
    std::uint16_t u16(const std::string& what) { std::uint8_t b[2]; bytes(b, 2, what); return load_le_u16(b); }
    std::uint32_t u32(const std::string& what) { std::uint8_t b[4]; bytes(b, 4, what); return load_le_u32(b); }
    std::uint64_t u64(const std::string& what) { std::uint8_t b[8]; bytes(b, 8, what); return load_le_u64(b); }
    std::string string(const std::string& what) {
        const std::uint64_t n = u64(what + "'s length");
        if (n > kMaxStringBytes)
            throw Error(path_ + ": " + what + " is " + std::to_string(n) + " bytes long; is this a GGUF file?");
        need(n, what);
        std::string s(static_cast<std::size_t>(n), '\0');
        bytes(s.data(), s.size(), what);
        return s;
    }

private:
    void refill(const std::string& what) {
        constexpr std::uint64_t kChunk = 1 << 20;
        buffer_.resize(static_cast<std::size_t>(std::min(kChunk, left())));
        file_.read_bytes(pos_, buffer_.size(), buffer_.data(), what);
        buffer_at_ = 0;
    }
    const ReadOnlyFile& file_;
    const std::string& path_;
    std::uint64_t pos_ = 0;
    std::vector<std::uint8_t> buffer_;
    std::size_t buffer_at_ = 0;
};

enum ValueType : std::uint32_t {
    kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
    kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

const char* value_type_name(std::uint32_t t) {
    static const char* const kNames[] = {"u8",  "i8",     "u16",   "i16", "u32", "i32", "f32",
                                         "bool", "string", "array", "u64", "i64", "f64"};
    return t <= kF64 ? kNames[t] : "?";
}

// Bytes one element of a scalar type takes (strings: at least their 8-byte length).
std::uint64_t min_value_bytes(std::uint32_t t) {
    switch (t) {
        case kU8: case kI8: case kBool: return 1;
        case kU16: case kI16: return 2;
        case kU32: case kI32: case kF32: return 4;
        default: return 8;  // u64, i64, f64, string length, array header (4 + 8 > 8)
    }
}

// One scalar: integers as int64 (a u64 above INT64_MAX as double), floats as double.
std::variant<std::int64_t, double, bool, std::string> read_scalar(Cursor& in, std::uint32_t type,
                                                                  const std::string& what,
                                                                  const std::string& path) {
    switch (type) {
        case kU8: return std::int64_t{in.u8(what)};
        case kI8: return std::int64_t{static_cast<std::int8_t>(in.u8(what))};
        case kU16: return std::int64_t{in.u16(what)};
        case kI16: return std::int64_t{static_cast<std::int16_t>(in.u16(what))};
        case kU32: return std::int64_t{in.u32(what)};
        case kI32: return std::int64_t{static_cast<std::int32_t>(in.u32(what))};
        case kF32: return double{std::bit_cast<float>(in.u32(what))};
        case kBool: {
            const std::uint8_t b = in.u8(what);
            if (b > 1) throw Error(path + ": " + what + " is a bool holding " + std::to_string(b) + " (only 0 or 1)");
            return b == 1;
        }
        case kString: return in.string(what);
        case kU64: {
            const std::uint64_t v = in.u64(what);
            if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return static_cast<double>(v);
            return static_cast<std::int64_t>(v);
        }
        case kI64: return static_cast<std::int64_t>(in.u64(what));
        case kF64: return std::bit_cast<double>(in.u64(what));
        default:
            throw Error(path + ": " + what + " has value type " + std::to_string(type) +
                        ", which GGUF does not define (0..12); is the file damaged?");
    }
}

// An array's elements after its header; nested arrays are walked (to find where the next
// key starts) but not kept.
GgufValue read_array(Cursor& in, const std::string& what, const std::string& path, int depth) {
    if (depth > kMaxArrayNesting)
        throw Error(path + ": " + what + " nests arrays more than " + std::to_string(kMaxArrayNesting) + " deep");
    const std::uint32_t element = in.u32(what + "'s element type");
    const std::uint64_t count = in.u64(what + "'s length");
    if (element > kF64)
        throw Error(path + ": " + what + " is an array of value type " + std::to_string(element) +
                    ", which GGUF does not define (0..12)");
    if (count > in.left() / min_value_bytes(element))
        throw Error(path + ": " + what + " claims " + std::to_string(count) + " elements of type " +
                    value_type_name(element) + ", more than the " + std::to_string(in.left()) +
                    " bytes left in the file can hold");
    GgufValue out;
    out.type_name = std::string("array of ") + value_type_name(element);
    const auto n = static_cast<std::size_t>(count);
    if (element == kArray) {
        for (std::size_t i = 0; i < n; ++i) read_array(in, what + "[" + std::to_string(i) + "]", path, depth + 1);
        out.value = GgufValue::Array{std::vector<std::string>{}};
        out.type_name = "array of arrays (not read)";
        return out;
    }
    if (element == kString) {
        std::vector<std::string> v(n);
        for (auto& s : v) s = in.string(what + " element");
        out.value = GgufValue::Array{std::move(v)};
    } else if (element == kBool) {
        std::vector<bool> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = std::get<bool>(read_scalar(in, element, what, path));
        out.value = GgufValue::Array{std::move(v)};
    } else if (element == kF32 || element == kF64) {
        std::vector<double> v(n);
        for (auto& x : v) x = std::get<double>(read_scalar(in, element, what, path));
        out.value = GgufValue::Array{std::move(v)};
    } else {
        std::vector<std::int64_t> v(n);
        for (auto& x : v) {
            const auto scalar = read_scalar(in, element, what, path);
            if (std::holds_alternative<double>(scalar))
                throw Error(path + ": " + what + " holds a u64 above 2^63, which HeadScope cannot read");
            x = std::get<std::int64_t>(scalar);
        }
        out.value = GgufValue::Array{std::move(v)};
    }
    return out;
}

GgufValue read_value(Cursor& in, const std::string& key, const std::string& path) {
    const std::string what = "metadata '" + key + "'";
    const std::uint32_t type = in.u32(what + "'s type");
    if (type == kArray) return read_array(in, what, path, 1);
    GgufValue out;
    out.type_name = value_type_name(type);
    std::visit([&](auto&& v) { out.value = std::move(v); }, read_scalar(in, type, what, path));
    return out;
}

std::string ne_string(const std::vector<std::int64_t>& ne) {
    std::string s = "[";
    for (std::size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
    return s + "]";
}

GgufTensor read_tensor_info(Cursor& in, std::size_t index, const std::string& path) {
    GgufTensor t;
    t.name = in.string("the name of tensor " + std::to_string(index));
    const std::string where = path + ": tensor '" + t.name + "'";
    const std::uint32_t n_dims = in.u32("the rank of tensor '" + t.name + "'");
    if (n_dims < 1 || n_dims > kMaxDims)
        throw Error(where + " has " + std::to_string(n_dims) + " dimensions (GGUF allows 1 to 4)");
    std::uint64_t numel = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
        const std::uint64_t ne = in.u64("a dimension of tensor '" + t.name + "'");
        if (ne > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
            (ne != 0 && numel > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / ne))
            throw Error(where + " has a dimension of " + std::to_string(ne) + " whose size overflows 64 bits");
        numel *= ne;
        t.ne.push_back(static_cast<std::int64_t>(ne));
    }
    const std::uint32_t code = in.u32("the type of tensor '" + t.name + "'");
    const StoredTypeInfo* info = stored_type_info(code);
    if (!info)
        throw Error(where + " has type number " + std::to_string(code) +
                    ", which no GGML version HeadScope knows defines (a newer llama.cpp type?)");
    t.type = info->type;
    t.offset = in.u64("the offset of tensor '" + t.name + "'");
    if (t.ne[0] % info->block_values != 0)
        throw Error(where + " of type " + info->name + " has rows of " + std::to_string(t.ne[0]) +
                    " values, not a whole number of " + std::to_string(info->block_values) + "-value blocks");
    const std::uint64_t blocks = numel / static_cast<std::uint64_t>(info->block_values);
    if (blocks > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(info->block_bytes))
        throw Error(where + " has shape " + ne_string(t.ne) + " whose size overflows 64 bits");
    t.bytes = blocks * static_cast<std::uint64_t>(info->block_bytes);
    return t;
}

}  // namespace

std::int64_t GgufTensor::numel() const {
    std::int64_t n = 1;
    for (std::int64_t d : ne) n *= d;
    return n;
}

std::int64_t GgufTensor::rows() const {
    return row_values() > 0 ? numel() / row_values() : 0;
}

std::shared_ptr<GgufFile> GgufFile::open(const std::string& path) {
    std::shared_ptr<GgufFile> file(new GgufFile());
    file->path_ = path;
    file->file_ = std::make_unique<ReadOnlyFile>(path, "GGUF file");
    Cursor in(*file->file_, file->path_);

    char magic[4];
    in.bytes(magic, 4, "the magic number");
    if (std::memcmp(magic, "GGUF", 4) != 0) throw Error(path + " is not a GGUF file: it does not start with \"GGUF\"");
    const std::uint32_t version = in.u32("the version");
    if (version == 1)
        throw Error(path + " is a GGUF version 1 file (2023, 32-bit counts): convert it again with a current llama.cpp");
    if (version < 2 || version > 3)
        throw Error(path + " is GGUF version " + std::to_string(version) + "; HeadScope reads versions 2 and 3");
    file->version_ = static_cast<int>(version);
    const std::uint64_t n_tensors = in.u64("the tensor count");
    const std::uint64_t n_metadata = in.u64("the metadata count");
    // Each metadata entry takes at least 8 (key length) + 4 (type) + 1 bytes, each tensor
    // entry at least 8 + 4 + 8 + 4 + 8.
    if (n_metadata > in.left() / 13 || n_tensors > in.left() / 32)
        throw Error(path + " claims " + std::to_string(n_metadata) + " metadata entries and " +
                    std::to_string(n_tensors) + " tensors, more than its " + std::to_string(file->file_->size()) +
                    " bytes can hold");

    for (std::uint64_t i = 0; i < n_metadata; ++i) {
        std::string key = in.string("the key of metadata entry " + std::to_string(i));
        GgufValue value = read_value(in, key, path);
        if (!file->metadata_.emplace(key, std::move(value)).second)
            throw Error(path + ": metadata key '" + key + "' appears twice");
    }
    const std::int64_t alignment = file->integer("general.alignment", 32);
    if (alignment < 8 || alignment > (1 << 20) || (alignment & (alignment - 1)) != 0)
        throw Error(path + ": general.alignment is " + std::to_string(alignment) +
                    " (it must be a power of two, at least 8)");

    for (std::uint64_t i = 0; i < n_tensors; ++i) {
        GgufTensor t = read_tensor_info(in, static_cast<std::size_t>(i), path);
        if (!file->tensor_index_.emplace(t.name, file->tensors_.size()).second)
            throw Error(path + ": two tensors are named '" + t.name + "'");
        file->tensors_.push_back(std::move(t));
    }

    const auto align = static_cast<std::uint64_t>(alignment);
    file->data_start_ = (in.position() + align - 1) / align * align;
    file->check_tensor_extents(align);
    return file;
}

// Every tensor aligned, inside the data block, and no two sharing a byte.
void GgufFile::check_tensor_extents(std::uint64_t align) const {
    const std::string& path = path_;
    const std::uint64_t size = file_->size();
    const std::uint64_t data_size = size > data_start_ ? size - data_start_ : 0;
    std::vector<const GgufTensor*> by_offset;
    for (const GgufTensor& t : tensors_) {
        const std::string where = path + ": tensor '" + t.name + "'";
        if (t.offset % align != 0)
            throw Error(where + " starts at offset " + std::to_string(t.offset) +
                        ", not a multiple of the alignment " + std::to_string(align));
        if (t.offset > data_size || t.bytes > data_size - t.offset)
            throw Error(where + " (" + stored_type_info(t.type).name + " " + ne_string(t.ne) + ", " +
                        std::to_string(t.bytes) + " bytes at offset " + std::to_string(t.offset) +
                        ") runs past the end of the data block of " + std::to_string(data_size) +
                        " bytes (truncated download?)");
        if (t.bytes > 0) by_offset.push_back(&t);
    }
    std::sort(by_offset.begin(), by_offset.end(),
              [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
    for (std::size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->bytes)
            throw Error(path + ": tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name + "' overlap");
}

GgufFile::~GgufFile() = default;

const GgufTensor* GgufFile::find_tensor(const std::string& name) const {
    const auto it = tensor_index_.find(name);
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

// ---- metadata ---------------------------------------------------------------------------

const GgufValue& GgufFile::value(const std::string& key) const {
    const auto it = metadata_.find(key);
    if (it == metadata_.end()) throw Error(path_ + " has no metadata '" + key + "'");
    return it->second;
}

void GgufFile::wrong_type(const std::string& key, const char* expected) const {
    throw Error(path_ + ": metadata '" + key + "' is " + value(key).type_name + ", expected " + expected);
}

std::int64_t GgufFile::integer(const std::string& key) const {
    const GgufValue& v = value(key);
    if (const auto* i = std::get_if<std::int64_t>(&v.value)) return *i;
    wrong_type(key, "an integer");
}
std::int64_t GgufFile::integer(const std::string& key, std::int64_t fallback) const {
    return has(key) ? integer(key) : fallback;
}

double GgufFile::number(const std::string& key) const {
    const GgufValue& v = value(key);
    if (const auto* d = std::get_if<double>(&v.value)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v.value)) return static_cast<double>(*i);
    wrong_type(key, "a number");
}
double GgufFile::number(const std::string& key, double fallback) const {
    return has(key) ? number(key) : fallback;
}

bool GgufFile::boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (const auto* b = std::get_if<bool>(&value(key).value)) return *b;
    wrong_type(key, "a bool");
}

std::string GgufFile::string(const std::string& key) const {
    if (const auto* s = std::get_if<std::string>(&value(key).value)) return *s;
    wrong_type(key, "a string");
}
std::string GgufFile::string(const std::string& key, const std::string& fallback) const {
    return has(key) ? string(key) : fallback;
}

const std::vector<std::string>& GgufFile::strings(const std::string& key) const {
    if (const auto* a = std::get_if<GgufValue::Array>(&value(key).value))
        if (const auto* s = std::get_if<std::vector<std::string>>(a)) return *s;
    wrong_type(key, "an array of strings");
}

std::vector<double> GgufFile::numbers(const std::string& key) const {
    if (const auto* a = std::get_if<GgufValue::Array>(&value(key).value)) {
        if (const auto* d = std::get_if<std::vector<double>>(a)) return *d;
        if (const auto* i = std::get_if<std::vector<std::int64_t>>(a)) return {i->begin(), i->end()};
    }
    wrong_type(key, "an array of numbers");
}

std::vector<std::int64_t> GgufFile::integers(const std::string& key) const {
    if (const auto* a = std::get_if<GgufValue::Array>(&value(key).value))
        if (const auto* i = std::get_if<std::vector<std::int64_t>>(a)) return *i;
    wrong_type(key, "an array of integers");
}

// ---- tensors ----------------------------------------------------------------------------

void GgufFile::require_readable(const GgufTensor& t) const {
    const StoredTypeInfo& info = stored_type_info(t.type);
    if (!info.readable)
        throw Error(path_ + ": tensor '" + t.name + "' is stored as " + info.name +
                    ", which HeadScope cannot read yet (it reads " + readable_stored_types() + ")");
}

void GgufFile::read_rows(const GgufTensor& t, std::int64_t first, std::int64_t count, float* dst) const {
    read_stored_rows(stored_rows(t, first, count, 0), {t.row_values(), first, t.ne.size() == 1}, dst);
}

void GgufFile::check_rows(const GgufTensor& t, std::int64_t first, std::int64_t count) const {
    read_stored_rows(stored_rows(t, first, count, 0), {t.row_values(), first, t.ne.size() == 1}, nullptr);
}

StoredRows GgufFile::stored_rows(const GgufTensor& t, std::int64_t first, std::int64_t count, int at) const {
    require_rows(t, first, count);
    const std::int64_t bytes_per_row = row_bytes(t);
    StoredRows rows{at, static_cast<int>(count), t.type, bytes_per_row};
    rows.source = file_.get();
    rows.offset = data_start_ + t.offset + static_cast<std::uint64_t>(first * bytes_per_row);
    rows.name = &t.name;
    return rows;
}

std::int64_t GgufFile::row_bytes(const GgufTensor& t) const {
    return t.rows() > 0 ? static_cast<std::int64_t>(t.bytes) / t.rows() : 0;
}

void GgufFile::require_rows(const GgufTensor& t, std::int64_t first, std::int64_t count) const {
    require_readable(t);
    if (first < 0 || count < 0 || first + count > t.rows())
        throw Error(path_ + ": rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                    ") of tensor '" + t.name + "', which has " + std::to_string(t.rows()));
}

void GgufFile::read_f32(const GgufTensor& t, float* dst) const { read_rows(t, 0, t.rows(), dst); }


Matrix GgufFile::matrix(const std::string& name) const {
    const GgufTensor* t = find_tensor(name);
    if (!t) throw Error(path_ + " has no tensor '" + name + "'");
    if (t->ne.size() > 2)
        throw Error(path_ + ": tensor '" + name + "' has shape " + ne_string(t->ne) + "; only 1-D and 2-D tensors are matrices");
    Matrix m(t->ne.size() == 2 ? t->ne[1] : 1, t->ne[0]);
    read_f32(*t, m.data());
    return m;
}

Vector GgufFile::vector(const std::string& name) const {
    const GgufTensor* t = find_tensor(name);
    if (!t) throw Error(path_ + " has no tensor '" + name + "'");
    if (t->ne.size() != 1)
        throw Error(path_ + ": tensor '" + name + "' has shape " + ne_string(t->ne) + ", expected a 1-D tensor");
    Vector v(t->ne[0]);
    read_f32(*t, v.data());
    return v;
}

bool looks_like_gguf(const std::string& path) {
    try {
        ReadOnlyFile file(path, "GGUF file");
        char magic[4] = {};
        if (file.size() < 4) return false;
        file.read_bytes(0, 4, magic, "the magic number");
        return std::memcmp(magic, "GGUF", 4) == 0;
    } catch (const Error&) {
        return false;
    }
}

}  // namespace hs
