#include "core/tokenize/byte_fallback.h"

#include <cctype>

namespace hs {

bool is_byte_token(const std::string& token) {
    return token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>' &&
           std::isxdigit(static_cast<unsigned char>(token[3])) && std::isxdigit(static_cast<unsigned char>(token[4]));
}

int byte_of_piece(const std::string& piece) {
    if (!is_byte_token(piece)) return -1;
    const auto hex = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    return hex(piece[3]) * 16 + hex(piece[4]);
}

std::string byte_piece_label(const std::string& piece) {
    const int byte = byte_of_piece(piece);
    if (byte == '\n') return "\\n";
    if (byte == '\t') return "\\t";
    if (byte >= 0x20 && byte < 0x7F) return std::string(1, static_cast<char>(byte));
    return piece;
}

std::string spaces_from_marks(std::string piece) {
    static const std::string kMark = "\xE2\x96\x81";  // "▁"
    for (std::size_t at = piece.find(kMark); at != std::string::npos; at = piece.find(kMark, at + 1))
        piece.replace(at, kMark.size(), " ");
    return piece;
}

ByteTokens byte_tokens_of(const std::vector<std::string>& tokens) {
    ByteTokens out;
    for (const std::string& t : tokens) {
        if (!is_byte_token(t)) continue;
        if (out.count++ == 0) out.first = t;
    }
    return out;
}

}  // namespace hs
