#pragma once
// UTF-8 -> code points for text rendering. Malformed sequences (stray continuation
// bytes, truncated or overlong sequences, surrogates, > U+10FFFF) each become U+FFFD.
#include <string>
#include <string_view>

namespace hs {

std::u32string utf8_to_codepoints(std::string_view text);
std::string codepoints_to_utf8(std::u32string_view text);

// A CJK character drawn on a square em: ideographs, kana, hangul, CJK punctuation and
// full-width forms. Such characters stay upright in a vertical label (stacked top to
// bottom), and each one begins a word for label thinning.
bool is_cjk_square(char32_t cp);

}  // namespace hs
