#pragma once
// Test helper: GGUF files written byte by byte (the layout of core/formats/gguf.h), for
// files no converter would write (damaged, hostile) and for vocabularies the tests turn
// into GGUF tokenizers.
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

// A GGUF byte stream written field by field (little-endian), for files the generator would
// never write.
class GgufBytes {
public:
    GgufBytes& raw(const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); return *this; }
    GgufBytes& u32(std::uint32_t v) { return raw(&v, 4); }
    GgufBytes& u64(std::uint64_t v) { return raw(&v, 8); }
    GgufBytes& str(const std::string& s) { u64(s.size()); return raw(s.data(), s.size()); }
    GgufBytes& header(std::uint32_t version, std::uint64_t tensors, std::uint64_t kv) {
        return raw("GGUF", 4).u32(version).u64(tensors).u64(kv);
    }
    GgufBytes& kv_u32(const std::string& key, std::uint32_t v) { return str(key).u32(4).u32(v); }
    GgufBytes& kv_str(const std::string& key, const std::string& v) { return str(key).u32(8).str(v); }
    GgufBytes& kv_bool(const std::string& key, bool v) { return str(key).u32(7).raw(v ? "\x01" : "\x00", 1); }
    GgufBytes& kv_strs(const std::string& key, const std::vector<std::string>& v) {
        str(key).u32(9).u32(8).u64(v.size());
        for (const std::string& s : v) str(s);
        return *this;
    }
    GgufBytes& kv_i32s(const std::string& key, const std::vector<std::int32_t>& v) {
        str(key).u32(9).u32(5).u64(v.size());
        for (std::int32_t x : v) u32(static_cast<std::uint32_t>(x));
        return *this;
    }
    GgufBytes& tensor(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type, std::uint64_t offset) {
        str(name).u32(static_cast<std::uint32_t>(ne.size()));
        for (std::uint64_t n : ne) u64(n);
        return u32(type).u64(offset);
    }
    GgufBytes& pad(std::size_t align = 32) { bytes.append((align - bytes.size() % align) % align, '\0'); return *this; }
    GgufBytes& zeros(std::size_t n) { bytes.append(n, '\0'); return *this; }
    std::string bytes;
};

}  // namespace hs
