#pragma once
// Little-endian loads from possibly unaligned bytes (file formats store little-endian).
#include <cstdint>

namespace hs {

inline std::uint16_t load_le_u16(const std::uint8_t* p) {
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t load_le_u32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline std::uint64_t load_le_u64(const std::uint8_t* p) {
    return static_cast<std::uint64_t>(load_le_u32(p)) |
           (static_cast<std::uint64_t>(load_le_u32(p + 4)) << 32);
}

}  // namespace hs
