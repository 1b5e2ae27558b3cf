#include "core/image/token_words.h"

#include "core/image/label_thinning.h"
#include "core/image/utf8.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/visible_token.h"

namespace hs {
namespace {

// The length of the UTF-8 sequence `lead` begins (1–4), 0 for a byte no sequence begins with.
int sequence_length(int lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 0;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A piece as part of a word: its start mark (▁, Ġ, ##) dropped, ▁ inside it a space.
std::string word_part(const std::string& piece) {
    std::string p = piece;
    if (starts_with(p, "##")) p.erase(0, 2);
    if (starts_with(p, "\xC4\xA0")) p.replace(0, 2, " ");  // Ġ
    return spaces_from_marks(p);
}

std::string trimmed(const std::string& s) {
    const std::size_t b = s.find_first_not_of(' ');
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// The last character of a piece ("" for none).
std::string last_character(const std::string& piece) {
    const std::u32string cps = utf8_to_codepoints(piece);
    return cps.empty() ? std::string() : codepoints_to_utf8(cps.substr(cps.size() - 1));
}

// Per token: its piece, a byte token replaced by the character its run spells, a token that
// continues the character before it by that character.
std::vector<std::string> pieces_of(const std::vector<std::string>& tokens) {
    std::vector<std::string> pieces(tokens.size());
    for (std::size_t i = 0; i < tokens.size();) {
        const bool after_text = i > 0 && !is_byte_token(tokens[i - 1]) && !pieces[i - 1].empty();
        if (after_text && continues_a_character(tokens[i])) {
            pieces[i] = last_character(pieces[i - 1]);
            ++i;
            continue;
        }
        if (!is_byte_token(tokens[i])) {
            pieces[i] = visible_token(tokens[i]);
            ++i;
            continue;
        }
        std::vector<int> bytes;  // the run of byte tokens from i
        std::size_t end = i;
        for (; end < tokens.size() && is_byte_token(tokens[end]); ++end) bytes.push_back(byte_of_piece(tokens[end]));
        const std::vector<std::string> chars = spelled_characters(bytes);
        for (std::size_t k = i; k < end; ++k) pieces[k] = chars[k - i].empty() ? tokens[k] : chars[k - i];
        i = end;
    }
    return pieces;
}

}  // namespace

std::vector<std::string> spelled_characters(const std::vector<int>& bytes) {
    std::vector<std::string> out(bytes.size());
    for (std::size_t p = 0; p < bytes.size();) {
        const std::size_t n = static_cast<std::size_t>(sequence_length(bytes[p]));
        bool whole = n > 0 && p + n <= bytes.size();
        for (std::size_t k = 1; whole && k < n; ++k) whole = (bytes[p + k] & 0xC0) == 0x80;
        std::string seq;
        for (std::size_t k = 0; whole && k < n; ++k) seq += static_cast<char>(bytes[p + k]);
        // Overlong forms, surrogates and > U+10FFFF decode to U+FFFD: not a character.
        const std::u32string cps = whole ? utf8_to_codepoints(seq) : std::u32string();
        if (cps.size() != 1 || (cps[0] == 0xFFFD && seq != "\xEF\xBF\xBD")) {
            ++p;  // stays "": the byte shows as its piece
            continue;
        }
        for (std::size_t k = 0; k < n; ++k) out[p + k] = visible_token(seq);
        p += n;
    }
    return out;
}

bool continues_a_character(const std::string& token) {
    if (token.empty() || token.size() % 6 != 0) return false;
    for (std::size_t at = 0; at < token.size(); at += 6) {
        const int byte = byte_of_piece(token.substr(at, 6));
        if (byte < 0 || (byte & 0xC0) != 0x80) return false;
    }
    return true;
}

std::vector<std::string> spelled_pieces(const std::vector<std::string>& tokens) {
    const std::vector<std::string> pieces = pieces_of(tokens);
    std::vector<std::string> out(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (pieces[i] != tokens[i] && continues_a_character(tokens[i])) continue;  // spelled by the token before
        if (!is_byte_token(tokens[i])) out[i] = word_part(tokens[i]);
        else if (pieces[i] == tokens[i]) out[i] = tokens[i];  // a byte that spells no character
        else if ((byte_of_piece(tokens[i]) & 0xC0) != 0x80) out[i] = pieces[i];  // a character, at its lead byte
    }
    return out;
}

TokenWords token_words(const std::vector<std::string>& tokens) {
    TokenWords w;
    w.pieces = pieces_of(tokens);
    w.word_of.resize(tokens.size());
    const std::vector<bool> starts = word_starts(tokens);
    const std::vector<std::string> spelled = spelled_pieces(tokens);
    std::string joined;
    const auto close_word = [&](std::size_t first) {
        // A word of spaces only (a lone "▁" before a byte run that did not decode) keeps its piece.
        const std::string word = trimmed(joined);
        w.words.push_back(word.empty() ? w.pieces[first] : visible_token(word));
    };
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (i == 0 || starts[i]) {
            if (i > 0) close_word(static_cast<std::size_t>(w.word_first.back()));
            w.word_first.push_back(static_cast<int>(i));
            joined.clear();
        }
        w.word_of[i] = static_cast<int>(w.word_first.size()) - 1;
        joined += spelled[i];
    }
    if (!tokens.empty()) close_word(static_cast<std::size_t>(w.word_first.back()));
    return w;
}

const std::string& thinned_label(const TokenWords& words, int i, int step) {
    const std::size_t t = static_cast<std::size_t>(i);
    const int word = words.word_of[t];
    if (step > 1 && words.word_first[static_cast<std::size_t>(word)] == i) return words.words[static_cast<std::size_t>(word)];
    return words.pieces[t];
}

const std::string* enclosing_word(const TokenWords& words, int i, const std::string& token) {
    const std::string& word = words.words[static_cast<std::size_t>(words.word_of[static_cast<std::size_t>(i)])];
    return trimmed(visible_token(token)) == word ? nullptr : &word;
}

}  // namespace hs
