#include "core/tokenize/byte_fallback.h"

#include <algorithm>
#include <cctype>

namespace hs {

bool is_byte_token(const std::string& token) {
    return token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>' &&
           std::isxdigit(static_cast<unsigned char>(token[3])) && std::isxdigit(static_cast<unsigned char>(token[4]));
}

int count_byte_tokens(const std::vector<std::string>& tokens) {
    return static_cast<int>(std::count_if(tokens.begin(), tokens.end(), is_byte_token));
}

}  // namespace hs
