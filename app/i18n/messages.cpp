#include "app/i18n/messages.h"

#include <map>
#include <memory>
#include <regex>

#include "app/i18n/i18n.h"

namespace hs {
namespace {

// One template: the English format as an anchored regex (one group per conversion) and
// the Chinese format split at its conversions: zh_parts[0] arg0 zh_parts[1] arg1 …
struct Template {
    std::regex english;
    std::vector<std::string> zh_parts;
    // Per conversion: a %s that holds another message (after ": " or "(", e.g. "training
    // stopped: %s") is translated in turn, template and all; any other %s (a path, a name)
    // only when the table has it word for word.
    std::vector<bool> nested_message, string_arg;
    std::size_t literal_size = 0;  // characters of fixed text: the most specific match wins
};

// Splits a printf format at its conversions; "%%" is a literal '%'. Returns the literal
// pieces (one more than the conversions) and each conversion's letter.
void split_format(std::string_view format, std::vector<std::string>& pieces, std::string& letters) {
    pieces.assign(1, std::string());
    for (std::size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%') {
            pieces.back() += format[i];
            continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '%') {
            pieces.back() += '%';
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < format.size() && std::string_view("-+ #0123456789.lzh").find(format[j]) != std::string_view::npos) ++j;
        letters += j < format.size() ? format[j] : 's';
        pieces.emplace_back();
        i = j;
    }
}

std::string regex_escaped(const std::string& literal) {
    static const std::string special = R"(\^$.|?*+()[]{})";
    std::string out;
    for (char c : literal) {
        if (special.find(c) != std::string::npos) out += '\\';
        out += c;
    }
    return out;
}

Template compile(std::string_view english, std::string_view chinese) {
    std::vector<std::string> pieces;
    std::string letters;
    split_format(english, pieces, letters);
    std::string pattern = regex_escaped(pieces[0]);
    Template t;
    for (std::size_t k = 0; k < letters.size(); ++k) {
        const char c = letters[k];
        // Integers, numbers as printf writes them, or any text (the shortest that lets the
        // rest match).
        pattern += c == 'd' || c == 'u' ? "(-?[0-9]+)"
                   : c == 's'           ? "([\\s\\S]*?)"
                                        : "(-?[0-9.]+(?:e[-+]?[0-9]+)?|-?inf|nan)";
        pattern += regex_escaped(pieces[k + 1]);
        const std::string& before = pieces[k];
        const bool after_colon = before.size() >= 2 && before.compare(before.size() - 2, 2, ": ") == 0;
        const bool after_paren = !before.empty() && before.back() == '(';
        t.string_arg.push_back(c == 's');
        t.nested_message.push_back(c == 's' && (after_colon || after_paren));
    }
    for (const std::string& piece : pieces) t.literal_size += piece.size();
    t.english = std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
    std::string zh_letters;
    split_format(chinese, t.zh_parts, zh_letters);
    return t;
}

const std::vector<Template>& templates() {
    static const auto* compiled = [] {
        auto* out = new std::vector<Template>();
        for (const auto& [en, zh] : zh_cn_message_templates()) out->push_back(compile(en, zh));
        return out;
    }();
    return *compiled;
}

// Longer messages stay English: std::regex matches by recursion, one level per character.
constexpr std::size_t kMaxTemplateInput = 1024;

// The table's entry for `s`, or s.
std::string exact_or_same(const std::string& s) {
    const std::string_view zh = zh_cn_lookup(s);
    return zh.empty() ? s : std::string(zh);
}

std::string translate(const std::string& english, int depth) {
    if (const std::string_view zh = zh_cn_lookup(english); !zh.empty()) return std::string(zh);
    if (english.size() > kMaxTemplateInput) return english;
    // Of the templates that match ("Opened %s" and "%s model" both match "Opened my model"),
    // the one with the most fixed text.
    const Template* best = nullptr;
    std::smatch m;
    for (const Template& t : templates()) {
        std::smatch candidate;
        if (!std::regex_match(english, candidate, t.english) || candidate.size() != t.zh_parts.size()) continue;
        if (best && best->literal_size >= t.literal_size) continue;
        best = &t;
        m = std::move(candidate);
    }
    if (best) {
        const Template& t = *best;
        std::string out = t.zh_parts[0];
        for (std::size_t k = 1; k < m.size(); ++k) {
            const std::string arg = m[k].str();
            if (t.nested_message[k - 1] && depth < 3) out += translate(arg, depth + 1);
            else if (t.string_arg[k - 1]) out += exact_or_same(arg);
            else out += arg;
            out += t.zh_parts[k];
        }
        return out;
    }
    // Problems joined by "; " (core's ensure_valid): each on its own.
    if (const std::size_t cut = english.find("; "); cut != std::string::npos && depth < 3) {
        const std::string first = translate(english.substr(0, cut), depth + 1);
        const std::string rest = translate(english.substr(cut + 2), depth + 1);
        if (first != english.substr(0, cut) || rest != english.substr(cut + 2)) return first + "；" + rest;
    }
    return english;
}

}  // namespace

std::string tr_message(const std::string& english) {
    if (ui_lang() == UiLang::English || english.empty()) return english;
    // Errors are shown every frame: each message is translated once.
    static std::map<std::string, std::string> cache;
    if (const auto it = cache.find(english); it != cache.end()) return it->second;
    if (cache.size() > 4096) cache.clear();
    return cache.emplace(english, translate(english, 0)).first->second;
}

const std::vector<std::pair<std::string_view, std::string_view>>& zh_cn_message_templates() {
    static const std::vector<std::pair<std::string_view, std::string_view>> table{
#include "app/i18n/zh_cn_messages.inc"
#include "app/i18n/zh_cn_file_errors.inc"
    };
    return table;
}

}  // namespace hs
