#pragma once
// SentencePiece-style byte fallback: a character the vocabulary has no piece for is
// spelled as its UTF-8 bytes, one token each, shown "<0xE5>". A Chinese character on an
// English model becomes three such tokens; the app says so instead of leaving the
// learner to wonder what "<0xE5>" means.
#include <string>
#include <vector>

namespace hs {

// Whether a displayed token is a byte token: exactly "<0x" + two hex digits + ">".
bool is_byte_token(const std::string& token);
// The byte tokens among displayed tokens: how many, and the first, which the notes give as
// the example ("2 tokens are raw bytes such as <0xC3>").
struct ByteTokens {
    std::string first;
    int count = 0;
};
ByteTokens byte_tokens_of(const std::vector<std::string>& tokens);

}  // namespace hs
