// Isolated regex splits as scanners (see split_stages.h). Each one-class scanner returns,
// at unit i, the end of the regex's match starting there, or i when none starts there;
// split_isolated then finds the leftmost match as a regex search does.
#include "core/tokenize/split_stages.h"

#include <algorithm>
#include <iterator>
#include <span>

#include "core/tokenize/pretokenize.h"
#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

using unicode::CodeRange;
using unicode::Utf8Unit;
using Units = std::span<const Utf8Unit>;  // one piece's units

constexpr const char* kGpt2Regex = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr const char* kGpt2RegexWithoutLastSpaces =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr const char* kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// The one-class regexes as llama.cpp (and DeepSeek's tokenizer.json) write them, escaped
// so that no editor or copy normalises the compatibility characters (U+1F7D, U+1FBE,
// U+1FD3, U+1FDB, U+2126, U+212A) into their canonical equivalents.
constexpr const char* kCasedLettersRegex =
    "\\s?[A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF"
    "\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5"
    "\u03F7-\u0481\u048A-\u052F\u0531-\u0556\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA\u1CBD-"
    "\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D"
    "\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-"
    "\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2102\u2107\u210A-\u2113"
    "\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139\u213C-\u213F\u2145-\u2149"
    "\u214E\u2183\u2184\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3\uA640-\uA66D\uA680-\uA69B"
    "\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06\uFB13-\uFB17\uFF21-\uFF3A\uFF41-"
    "\uFF5A\U00010400-\U0001044F\U000104B0-\U000104D3\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0"
    "-\U00010CF2\U000118A0-\U000118DF\U0001E900-\U0001E943]+";
constexpr const char* kAsciiAndCjkPunctuationRegex = "\\s?[!-/:-~\uFF01-\uFF0F\uFF1A-\uFF5E\u2018-\u201F\u3000-\u3002]+";
constexpr const char* kCjkAndHangulRegex = "[\u4E00-\u9FA5\u0800-\u4E00\uAC00-\uD7FF]+";

// DeepSeek-LLM's letter class [A-Za-zµÀ-ÖØ-öø-ƺ…𞤀-𞥃]: the cased letters of Latin, Greek,
// Coptic, Cyrillic, Armenian, Georgian, Cherokee, Glagolitic, Deseret, Osage, Old
// Hungarian, Warang Citi, Adlam and the letter-like symbols, as code point ranges.
constexpr CodeRange kCasedLetters[] = {
    {0x0041, 0x005A}, {0x0061, 0x007A}, {0x00B5, 0x00B5}, {0x00C0, 0x00D6}, {0x00D8, 0x00F6}, {0x00F8, 0x01BA},
    {0x01BC, 0x01BF}, {0x01C4, 0x0293}, {0x0295, 0x02AF}, {0x0370, 0x0373}, {0x0376, 0x0377}, {0x037B, 0x037D},
    {0x037F, 0x037F}, {0x0386, 0x0386}, {0x0388, 0x038A}, {0x038C, 0x038C}, {0x038E, 0x03A1}, {0x03A3, 0x03F5},
    {0x03F7, 0x0481}, {0x048A, 0x052F}, {0x0531, 0x0556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD},
    {0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A}, {0x1E00, 0x1F15},
    {0x1F18, 0x1F1D}, {0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57}, {0x1F59, 0x1F59}, {0x1F5B, 0x1F5B},
    {0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4}, {0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4},
    {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3}, {0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC},
    {0x2102, 0x2102}, {0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124},
    {0x2126, 0x2126}, {0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139}, {0x213C, 0x213F},
    {0x2145, 0x2149}, {0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B}, {0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE},
    {0x2CF2, 0x2CF3}, {0xA640, 0xA66D}, {0xA680, 0xA69B}, {0xA722, 0xA76F}, {0xA771, 0xA787}, {0xA78B, 0xA78E},
    {0xAB70, 0xABBF}, {0xFB00, 0xFB06}, {0xFB13, 0xFB17}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x10400, 0x1044F},
    {0x104B0, 0x104D3}, {0x104D8, 0x104FB}, {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF},
    {0x1E900, 0x1E943},
};
// [!-/:-~！-／：-～‘-‟　-。]: ASCII punctuation and symbols, their full-width forms, curly
// quotes, the ideographic space, comma and full stop.
constexpr CodeRange kAsciiAndCjkPunctuation[] = {
    {0x0021, 0x002F}, {0x003A, 0x007E}, {0x2018, 0x201F}, {0x3000, 0x3002}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF5E},
};
// [一-龥ࠀ-一가-퟿]: Samaritan to the CJK ideographs (U+0800–U+9FA5) and Hangul syllables.
constexpr CodeRange kCjkAndHangul[] = {{0x0800, 0x9FA5}, {0xAC00, 0xD7FF}};

template <std::size_t N>
bool in_ranges(const Utf8Unit& u, const CodeRange (&ranges)[N]) {
    if (!u.valid) return false;
    const auto* it = std::upper_bound(std::begin(ranges), std::end(ranges), u.cp,
                                      [](char32_t cp, const CodeRange& r) { return cp < r.lo; });
    return it != std::begin(ranges) && u.cp <= std::prev(it)->hi;
}

bool is_space(const Utf8Unit& u) { return u.valid && unicode::is_white_space(u.cp); }
bool is_letter(const Utf8Unit& u) { return u.valid && unicode::is_letter(u.cp); }
bool is_number(const Utf8Unit& u) { return u.valid && unicode::is_number(u.cp); }
bool is_punctuation(const Utf8Unit& u) { return u.valid && unicode::is_punctuation(u.cp); }
bool is_ascii_digit(const Utf8Unit& u) { return u.valid && u.cp >= '0' && u.cp <= '9'; }
bool is_line_break(const Utf8Unit& u) { return u.valid && (u.cp == '\r' || u.cp == '\n'); }
bool is_cased_letter(const Utf8Unit& u) { return in_ranges(u, kCasedLetters); }
bool is_ascii_or_cjk_punctuation(const Utf8Unit& u) { return in_ranges(u, kAsciiAndCjkPunctuation); }
bool is_cjk_or_hangul(const Utf8Unit& u) { return in_ranges(u, kCjkAndHangul); }
// [\p{P}\$\+<=>\^~\|] (and ` with the backtick)
bool is_punctuation_or_symbol(const Utf8Unit& u, bool backtick) {
    if (is_punctuation(u)) return true;
    if (!u.valid) return false;
    switch (u.cp) {
        case '$': case '+': case '<': case '=': case '>': case '^': case '~': case '|': return true;
        case '`': return backtick;
        default: return false;
    }
}

template <typename In>
std::size_t run_end(Units u, std::size_t i, In in) {
    while (i < u.size() && in(u[i])) ++i;
    return i;
}

// X+ at i
template <typename In>
std::size_t match_run(Units u, std::size_t i, In in) {
    return in(u[i]) ? run_end(u, i, in) : i;
}

// \s?X+ at i: the optional space taken when X follows it, else X+ from i itself (a
// space that is also in X, as U+3000 in DeepSeek's punctuation, starts the run).
template <typename In>
std::size_t match_spaced_run(Units u, std::size_t i, In in) {
    if (is_space(u[i]) && i + 1 < u.size() && in(u[i + 1])) return run_end(u, i + 1, in);
    return match_run(u, i, in);
}

// Where the text's final run of whitespace starts (u.size() when it ends otherwise):
// \s+$ matches from there to the end, and nowhere before.
std::size_t trailing_space_start(Units u) {
    std::size_t t = u.size();
    while (t > 0 && is_space(u[t - 1])) --t;
    return t;
}

// The end of the match of a one-class pattern at unit i, or i.
std::size_t match_at(SplitPattern p, Units u, std::size_t i, std::size_t trailing_space) {
    switch (p) {
        case SplitPattern::LineBreak: return is_line_break(u[i]) ? i + 1 : i;
        case SplitPattern::CasedLetters: return match_spaced_run(u, i, is_cased_letter);
        case SplitPattern::AsciiAndCjkPunctuation: return match_spaced_run(u, i, is_ascii_or_cjk_punctuation);
        case SplitPattern::TrailingSpace: return i >= trailing_space ? u.size() : i;
        case SplitPattern::CjkAndHangul: return match_run(u, i, is_cjk_or_hangul);
        case SplitPattern::Numbers: return match_run(u, i, is_number);
        case SplitPattern::Digit: return is_number(u[i]) ? i + 1 : i;
        case SplitPattern::SpacedLetters: return match_spaced_run(u, i, is_letter);
        case SplitPattern::SpacedPunctuation: return match_spaced_run(u, i, is_punctuation);
        case SplitPattern::PunctuationAndSymbols:
            return match_run(u, i, [](const Utf8Unit& c) { return is_punctuation_or_symbol(c, false); });
        case SplitPattern::PunctuationSymbolsAndBacktick:
            return match_run(u, i, [](const Utf8Unit& c) { return is_punctuation_or_symbol(c, true); });
        case SplitPattern::ThreeDigits:
            return i + 2 < u.size() && is_ascii_digit(u[i]) && is_ascii_digit(u[i + 1]) && is_ascii_digit(u[i + 2])
                       ? i + 3
                       : i;
        case SplitPattern::Gpt2:
        case SplitPattern::Qwen2:
        case SplitPattern::Llama3: break;  // whole-text scanners
    }
    return i;
}

// Every pattern with its regex as tokenizer.json (and llama.cpp) writes it, in the enum's order.
struct PatternRegex {
    SplitPattern pattern;
    const char* regex;
};
constexpr PatternRegex kPatternRegexes[] = {
    {SplitPattern::Gpt2, kGpt2Regex},
    {SplitPattern::Qwen2, kQwen2Regex},
    {SplitPattern::Llama3, kLlama3Regex},
    {SplitPattern::LineBreak, "[\r\n]"},
    {SplitPattern::CasedLetters, kCasedLettersRegex},
    {SplitPattern::AsciiAndCjkPunctuation, kAsciiAndCjkPunctuationRegex},
    {SplitPattern::TrailingSpace, R"(\s+$)"},
    {SplitPattern::CjkAndHangul, kCjkAndHangulRegex},
    {SplitPattern::Numbers, R"(\p{N}+)"},
    {SplitPattern::Digit, R"(\p{N})"},
    {SplitPattern::SpacedLetters, R"(\s?\p{L}+)"},
    {SplitPattern::SpacedPunctuation, R"(\s?\p{P}+)"},
    {SplitPattern::PunctuationAndSymbols, R"([\p{P}\$\+<=>\^~\|]+)"},
    {SplitPattern::PunctuationSymbolsAndBacktick, R"([\p{P}\$\+<=>\^~\|`]+)"},
    {SplitPattern::ThreeDigits, "[0-9][0-9][0-9]"},
};
constexpr bool every_pattern_once_in_order() {
    for (std::size_t i = 0; i < std::size(kPatternRegexes); ++i)
        if (kPatternRegexes[i].pattern != static_cast<SplitPattern>(i)) return false;
    return std::size(kPatternRegexes) == static_cast<std::size_t>(SplitPattern::ThreeDigits) + 1;
}
static_assert(every_pattern_once_in_order(), "every SplitPattern with its regex, in the enum's order");

// A piece of the text: its units [first, last).
struct UnitRange {
    std::size_t first, last;
};

bool is_whole_text_scanner(SplitPattern p) {
    return p == SplitPattern::Gpt2 || p == SplitPattern::Qwen2 || p == SplitPattern::Llama3;
}

// A one-class pattern's matches in `piece` and the units between them, in order, onto `out`.
void split_by_class(SplitPattern pattern, const std::vector<Utf8Unit>& units, UnitRange piece,
                    std::vector<UnitRange>& out) {
    const Units u(units.data() + piece.first, piece.last - piece.first);
    const std::size_t n = u.size();
    const std::size_t trailing = pattern == SplitPattern::TrailingSpace ? trailing_space_start(u) : n;
    const auto add = [&](std::size_t from, std::size_t to) { out.push_back({piece.first + from, piece.first + to}); };
    std::size_t gap = 0;  // start of the units no match has taken
    for (std::size_t i = 0; i < n;) {
        const std::size_t end = match_at(pattern, u, i, trailing);
        if (end == i) {
            ++i;
            continue;
        }
        if (gap < i) add(gap, i);
        add(i, end);
        i = gap = end;
    }
    if (gap < n) add(gap, n);
}

// A whole-text scanner's pieces of `piece_text` (the bytes of `piece`), as unit ranges.
// The scanner's pieces concatenate to its input and end on unit boundaries.
void split_by_scanner(SplitPattern pattern, const std::string& piece_text, const std::vector<Utf8Unit>& units,
                      UnitRange piece, std::vector<UnitRange>& out) {
    const std::vector<std::string> split = pattern == SplitPattern::Gpt2 ? gpt2_pretokenize(piece_text)
                                           : llama3_pretokenize(piece_text, pattern == SplitPattern::Qwen2 ? 1 : 3);
    std::size_t k = piece.first;
    std::size_t end = piece.first < units.size() ? units[piece.first].offset : 0;  // byte after the current piece
    for (const std::string& s : split) {
        const std::size_t from = k;
        end += s.size();
        while (k < piece.last && units[k].offset < end) ++k;
        out.push_back({from, k});
    }
}

struct GgufPre {
    const char* name;
    std::vector<SplitPattern> splits;
};

// llama.cpp's pre-tokenizer types (llama-vocab.cpp) that HeadScope reads.
const std::vector<GgufPre>& gguf_pres() {
    using P = SplitPattern;
    static const std::vector<GgufPre> pres = {
        {"default", {P::PunctuationAndSymbols, P::Gpt2, P::Numbers, P::ThreeDigits}},
        {"gpt-2", {P::Gpt2}},
        {"llama-bpe", {P::Llama3}},
        {"llama3", {P::Llama3}},
        {"qwen2", {P::Qwen2}},
        {"deepseek-llm",
         {P::LineBreak, P::CasedLetters, P::AsciiAndCjkPunctuation, P::TrailingSpace, P::CjkAndHangul, P::Numbers}},
        {"deepseek-coder", {P::LineBreak, P::SpacedLetters, P::SpacedPunctuation, P::CjkAndHangul, P::Digit}},
        {"falcon", {P::PunctuationSymbolsAndBacktick, P::Gpt2, P::ThreeDigits}},
        {"mpt", {P::Gpt2}},
        {"starcoder", {P::Digit, P::Gpt2}},
        {"refact", {P::Digit, P::Gpt2}},
    };
    return pres;
}

}  // namespace

std::optional<SplitPattern> split_pattern_of_regex(const std::string& regex) {
    if (regex == kGpt2RegexWithoutLastSpaces) return SplitPattern::Gpt2;
    for (const PatternRegex& p : kPatternRegexes)
        if (regex == p.regex) return p.pattern;
    return std::nullopt;
}

std::vector<std::string> split_isolated(SplitPattern pattern, const std::string& text) {
    return split_in_stages({pattern}, text);
}

std::vector<std::string> split_in_stages(const std::vector<SplitPattern>& stages, const std::string& text) {
    const std::vector<Utf8Unit> units = unicode::decode_utf8(text);  // once, for every stage
    const auto offset = [&](std::size_t k) { return k < units.size() ? units[k].offset : text.size(); };
    std::vector<UnitRange> pieces{{0, units.size()}};
    for (const SplitPattern stage : stages) {
        std::vector<UnitRange> next;
        for (const UnitRange piece : pieces) {
            if (is_whole_text_scanner(stage)) {
                const std::size_t from = offset(piece.first);
                split_by_scanner(stage, text.substr(from, offset(piece.last) - from), units, piece, next);
            } else {
                split_by_class(stage, units, piece, next);
            }
        }
        pieces = std::move(next);
    }
    std::vector<std::string> out;
    out.reserve(pieces.size());
    for (const UnitRange piece : pieces) out.push_back(text.substr(offset(piece.first), offset(piece.last) - offset(piece.first)));
    return out;
}

std::optional<std::vector<SplitPattern>> gguf_pre_splits(const std::string& pre) {
    for (const GgufPre& p : gguf_pres())
        if (pre == p.name) return p.splits;
    return std::nullopt;
}

const std::vector<std::string>& gguf_pre_types() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const GgufPre& p : gguf_pres()) out.emplace_back(p.name);
        return out;
    }();
    return names;
}

std::string gguf_pre_names() {
    std::string out;
    for (const std::string& name : gguf_pre_types()) out += (out.empty() ? "" : ", ") + name;
    return out;
}

}  // namespace hs
