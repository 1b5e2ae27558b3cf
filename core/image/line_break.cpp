#include "core/image/line_break.h"

#include "core/image/utf8.h"
#include "core/tokenize/playground_tokenizer.h"  // is_cjk: ideographs, kana, hangul, full-width forms

namespace hs {
namespace {

// Must not start a line (stays with what comes before).
bool is_closing(char32_t c) {
    static const std::u32string closing = U"，。、；：！？）」』》〉】”’…,.;:!?)]}%";
    return closing.find(c) != std::u32string::npos;
}

// Must not end a line (stays with what comes after): "(" before Chinese ("(首词元 0.64")
// would otherwise be a word of its own.
bool is_opening(char32_t c) {
    static const std::u32string opening = U"（「『《〈【“‘([{";
    return opening.find(c) != std::u32string::npos;
}

bool is_space(char32_t c) { return c == U' ' || c == U'\t'; }

// Where a piece too wide for the line may be cut: after these.
bool cut_after(char32_t c) { return c == U',' || c == U';' || c == U']' || c == U'，'; }

// The text as pieces no break may fall inside: words (runs of non-space, non-CJK code
// points), single CJK characters, runs of spaces, "\n". Closing punctuation joins the
// piece before it, opening punctuation the piece after it.
std::vector<std::u32string> pieces_of(const std::u32string& s) {
    std::vector<std::u32string> out;
    std::u32string opening;  // opening punctuation waiting for the next piece
    const auto push = [&](std::u32string piece) {
        out.push_back(opening + piece);
        opening.clear();
    };
    for (std::size_t i = 0; i < s.size();) {
        const char32_t c = s[i];
        if (c == U'\n') {
            if (!opening.empty()) push(U"");
            out.push_back(U"\n");
            ++i;
        } else if (is_space(c)) {
            std::size_t j = i;
            while (j < s.size() && is_space(s[j])) ++j;
            if (!opening.empty()) push(U"");
            out.push_back(s.substr(i, j - i));
            i = j;
        } else if (is_closing(c) && !out.empty() && out.back() != U"\n" && !is_space(out.back().front()) &&
                   opening.empty()) {
            out.back() += c;
            ++i;
        } else if (is_opening(c)) {
            opening += c;
            ++i;
        } else if (is_cjk(c)) {
            push(std::u32string(1, c));
            ++i;
        } else {  // a word: up to a space, a newline or a CJK character
            std::size_t j = i;
            while (j < s.size() && !is_space(s[j]) && s[j] != U'\n' && !(is_cjk(s[j]) && !is_closing(s[j]))) ++j;
            push(s.substr(i, j - i));
            i = j;
        }
    }
    if (!opening.empty()) push(U"");
    return out;
}

}  // namespace

std::vector<std::string> break_lines(std::string_view text, float width,
                                     const std::function<float(std::string_view)>& measure) {
    std::vector<std::string> lines;
    std::string line, spaces;  // spaces wait until a piece follows on the same line
    const auto fits = [&](const std::string& s) { return measure(s) <= width; };
    const auto end_line = [&] {
        lines.push_back(line);
        line.clear();
        spaces.clear();
    };
    for (const std::u32string& piece32 : pieces_of(utf8_to_codepoints(text))) {
        const std::string piece = codepoints_to_utf8(piece32);
        if (piece == "\n") {
            end_line();
            continue;
        }
        if (is_space(piece32.front())) {
            if (!line.empty()) spaces = piece;
            continue;
        }
        if (!line.empty() && !fits(line + spaces + piece)) end_line();
        if (line.empty() && !fits(piece)) {
            // One piece wider than the line (a long matrix such as [[4.1116,5.8884],[…]]):
            // cut after the last ",", ";" or "]" that fits, else between code points.
            // Each line grows a code point at a time while it fits (measure calls stay
            // proportional to the line's length, not the piece's).
            std::u32string_view rest = piece32;
            while (!rest.empty()) {
                std::size_t fit = 1, punct = 0;  // code points that fit (at least one); the last cut after punctuation
                while (fit < rest.size() && fits(codepoints_to_utf8(rest.substr(0, fit + 1)))) {
                    if (cut_after(rest[fit - 1])) punct = fit;
                    ++fit;
                }
                if (fit == rest.size()) break;  // the rest fits: it starts the next line
                if (cut_after(rest[fit - 1])) punct = fit;
                const std::size_t cut = punct > 0 ? punct : fit;
                lines.push_back(codepoints_to_utf8(rest.substr(0, cut)));
                rest.remove_prefix(cut);
            }
            line = codepoints_to_utf8(rest);
            continue;
        }
        line += (line.empty() ? "" : spaces) + piece;
        spaces.clear();
    }
    if (!line.empty() || lines.empty()) lines.push_back(line);
    return lines;
}

}  // namespace hs
