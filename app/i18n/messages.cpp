#include "app/i18n/messages.h"

#include <map>
#include <memory>
#include <string_view>

#include "app/i18n/i18n.h"

namespace hs {
namespace {

// One template: the English format split at its conversions (en_pieces[0] arg0
// en_pieces[1] arg1 …, each conversion's printf letter in en_letters) and the Chinese
// format split the same way: zh_parts[0] arg0 zh_parts[1] arg1 …
struct Template {
    std::vector<std::string> en_pieces;
    std::string en_letters;
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

Template compile(std::string_view english, std::string_view chinese) {
    Template t;
    split_format(english, t.en_pieces, t.en_letters);
    for (std::size_t k = 0; k < t.en_letters.size(); ++k) {
        const char c = t.en_letters[k];
        const std::string& before = t.en_pieces[k];
        const bool after_colon = before.size() >= 2 && before.compare(before.size() - 2, 2, ": ") == 0;
        const bool after_paren = !before.empty() && before.back() == '(';
        t.string_arg.push_back(c == 's');
        t.nested_message.push_back(c == 's' && (after_colon || after_paren));
    }
    for (const std::string& piece : t.en_pieces) t.literal_size += piece.size();
    std::string zh_letters;
    split_format(chinese, t.zh_parts, zh_letters);
    return t;
}

bool is_digits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// Whether `text` is what printf writes for a conversion `letter`: an integer (-?[0-9]+)
// for d and u; for the others a number (-?[0-9.]+, then e±[0-9]+ optionally), inf or nan.
bool is_number_text(std::string_view text, char letter) {
    if (!text.empty() && text[0] == '-') text.remove_prefix(1);
    if (letter == 'd' || letter == 'u') return is_digits(text);
    if (text == "inf" || text == "nan") return true;
    const std::size_t e = text.find('e');
    const std::string_view mantissa = text.substr(0, e);
    if (mantissa.empty() || mantissa.find_first_not_of("0123456789.") != std::string_view::npos) return false;
    if (e == std::string_view::npos) return true;
    std::string_view exponent = text.substr(e + 1);
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.remove_prefix(1);
    return is_digits(exponent);
}

// Matches s[pos…] against the template from piece k on: piece k's text, conversion k,
// piece k + 1, … to the end of s, filling args[k…]. A %s takes the shortest text that lets
// the rest match; a number the longest.
bool match_from(const Template& t, std::string_view s, std::size_t pos, std::size_t k,
                std::vector<std::string_view>& args) {
    const std::string& piece = t.en_pieces[k];
    if (s.compare(pos, piece.size(), piece) != 0) return false;
    pos += piece.size();
    if (k == t.en_letters.size()) return pos == s.size();
    const char letter = t.en_letters[k];
    const std::size_t left = s.size() - pos;
    const auto try_length = [&](std::size_t n) {
        args[k] = s.substr(pos, n);
        return match_from(t, s, pos + n, k + 1, args);
    };
    if (letter == 's') {
        for (std::size_t n = 0; n <= left; ++n)
            if (try_length(n)) return true;
        return false;
    }
    // A number's characters run at most this far.
    const std::size_t run = s.substr(pos).find_first_not_of("-+0123456789.einfa");
    for (std::size_t n = std::min(left, run); n > 0; --n)
        if (is_number_text(s.substr(pos, n), letter) && try_length(n)) return true;
    return false;
}

const std::vector<Template>& templates() {
    static const auto* compiled = [] {
        auto* out = new std::vector<Template>();
        // A Chinese format with other conversions than its English one could not be filled
        // in (the I18n tests name any such entry); it is left out.
        for (const auto& [en, zh] : zh_cn_message_templates())
            if (Template t = compile(en, zh); t.zh_parts.size() == t.en_pieces.size()) out->push_back(std::move(t));
        return out;
    }();
    return *compiled;
}

// Longer messages stay English (a template's %s tries every length of what follows).
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
    std::vector<std::string_view> args;
    for (const Template& t : templates()) {
        if (best && best->literal_size >= t.literal_size) continue;
        std::vector<std::string_view> candidate(t.en_letters.size());
        if (!match_from(t, english, 0, 0, candidate)) continue;
        best = &t;
        args = std::move(candidate);
    }
    if (best) {
        const Template& t = *best;
        std::string out = t.zh_parts[0];
        for (std::size_t k = 0; k < args.size(); ++k) {
            const std::string arg(args[k]);
            if (t.nested_message[k] && depth < 3) out += translate(arg, depth + 1);
            else if (t.string_arg[k]) out += exact_or_same(arg);
            else out += arg;
            out += t.zh_parts[k + 1];
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
