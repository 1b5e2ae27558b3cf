#pragma once
// Breaking prose into lines of a given width, for English and Chinese alike: a line may
// break at a space or between two CJK characters (Chinese has no spaces), not inside a
// number or a word ("16.971", "W_K", "[[1,2],[4,3]]" stay whole; one alone wider than the
// line is cut after a "," ";" or "]" where it can), not before closing punctuation that
// follows a character ("，" "。" "）") and not after opening punctuation ("（" "“" "("). Used by
// the window's long texts (worked-example notes, the welcome); the width is whatever
// `measure` returns.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

// Lines of `text` (UTF-8) no wider than `width` by `measure` (a text's width), except a
// single unbreakable piece wider than the line, which is cut between code points. "\n"
// always breaks; spaces at a break are dropped.
std::vector<std::string> break_lines(std::string_view text, float width,
                                     const std::function<float(std::string_view)>& measure);

}  // namespace hs
