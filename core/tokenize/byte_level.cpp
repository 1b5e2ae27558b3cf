// Byte ↔ symbol tables for byte-level BPE (see byte_level.h).
#include "core/tokenize/byte_level.h"

#include <array>

#include "core/tokenize/unicode_classes.h"

namespace hs::byte_level {

namespace {

struct Tables {
    std::array<char32_t, 256> to_symbol{};
    std::array<int, 512> to_byte{};  // symbols are < U+0144
};

bool printable_as_itself(int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

// Printable bytes keep their code point; the others, in increasing byte order, take
// U+0100 + n for n = 0, 1, 2, ….
Tables build_tables() {
    Tables t;
    t.to_byte.fill(-1);
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
        const char32_t s = printable_as_itself(b) ? static_cast<char32_t>(b) : next++;
        t.to_symbol[static_cast<size_t>(b)] = s;
        t.to_byte[s] = b;
    }
    return t;
}

const Tables& tables() {
    static const Tables t = build_tables();
    return t;
}

}  // namespace

char32_t byte_to_symbol(unsigned char b) { return tables().to_symbol[b]; }

int symbol_to_byte(char32_t symbol) {
    return symbol < 512 ? tables().to_byte[symbol] : -1;
}

std::string bytes_to_symbols(const std::string& bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char c : bytes) unicode::append_utf8(out, byte_to_symbol(static_cast<unsigned char>(c)));
    return out;
}

bool symbols_to_bytes(const std::string& symbols, std::string& bytes) {
    for (const unicode::Utf8Unit& u : unicode::decode_utf8(symbols)) {
        const int b = u.valid ? symbol_to_byte(u.cp) : -1;
        if (b < 0) return false;
        bytes += static_cast<char>(b);
    }
    return true;
}

}  // namespace hs::byte_level
