#include "core/tokenize/visible_token.h"

#include <cstdio>

namespace hs {

std::string visible_token(const std::string& token) {
    if (!token.empty() && token.find_first_not_of(' ') == std::string::npos) {
        std::string boxes;
        for (std::size_t i = 0; i < token.size(); ++i) boxes += "\u2423";  // ␣
        return boxes;
    }
    std::string out;
    for (const char ch : token) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out;
}

}  // namespace hs
