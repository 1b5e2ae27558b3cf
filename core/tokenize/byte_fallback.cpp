#include "core/tokenize/byte_fallback.h"

#include <cctype>

namespace hs {

bool is_byte_token(const std::string& token) {
    return token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>' &&
           std::isxdigit(static_cast<unsigned char>(token[3])) && std::isxdigit(static_cast<unsigned char>(token[4]));
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
