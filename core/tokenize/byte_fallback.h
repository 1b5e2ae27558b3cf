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
// The byte a "<0xNN>" piece stands for, −1 for any other piece.
int byte_of_piece(const std::string& piece);
// How a byte piece is shown: the character for printable ASCII, "\n" / "\t" written out,
// else the piece itself ("<0xE5>").
std::string byte_piece_label(const std::string& piece);
// A SentencePiece piece with its space marks "▁" (U+2581) shown as spaces.
std::string spaces_from_marks(std::string piece);
// The byte tokens among displayed tokens: how many, and the first, which the notes give as
// the example ("2 tokens are raw bytes such as <0xC3>").
struct ByteTokens {
    std::string first;
    int count = 0;
};
ByteTokens byte_tokens_of(const std::vector<std::string>& tokens);

}  // namespace hs
