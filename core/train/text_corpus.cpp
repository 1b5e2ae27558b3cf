#include "core/train/text_corpus.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "core/error.h"
#include "core/image/utf8.h"
#include "core/io/atomic_file.h"

namespace hs::train {

namespace {

bool is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x3000 || c == 0xA0; }

std::vector<std::string> split_tokens(const std::string& text, TextLevel level) {
    std::vector<std::string> tokens;
    const std::u32string cps = utf8_to_codepoints(text);
    if (level == TextLevel::Char) {
        for (const char32_t c : cps)
            if (c != '\r') tokens.push_back(codepoints_to_utf8(std::u32string_view(&c, 1)));
        return tokens;
    }
    std::u32string word;
    for (const char32_t c : cps) {
        if (is_space(c)) {
            if (!word.empty()) tokens.push_back(codepoints_to_utf8(word));
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) tokens.push_back(codepoints_to_utf8(word));
    return tokens;
}

}  // namespace

TextLevel parse_text_level(const std::string& name) {
    if (name == "char") return TextLevel::Char;
    if (name == "word") return TextLevel::Word;
    throw Error("text level must be char or word, got '" + name + "'");
}

std::string to_string(TextLevel level) { return level == TextLevel::Char ? "char" : "word"; }

std::uint64_t text_fingerprint(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

TextCorpus build_text_corpus(const std::string& text, TextLevel level, int max_vocab, int window) {
    if (max_vocab < 3) throw Error("a text task needs a vocabulary of at least 3 ids; got " + std::to_string(max_vocab));
    if (window < 2) throw Error("a text task needs windows of at least 2 tokens; got " + std::to_string(window));
    const std::vector<std::string> tokens = split_tokens(text, level);
    // Each split holds at least one window + 1 token: 10 % of the stream ≥ window + 1.
    const long long needed = 10LL * (window + 1);
    if (static_cast<long long>(tokens.size()) < needed)
        throw Error("the text has " + std::to_string(tokens.size()) + " " + to_string(level) +
                    " tokens; training windows of " + std::to_string(window) + " need at least " +
                    std::to_string(needed) + " (10 % are held out)");
    // Frequency, then first occurrence: a numbering that depends on the text alone.
    std::unordered_map<std::string, std::pair<long long, std::size_t>> seen;  // count, first index
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        auto [it, fresh] = seen.try_emplace(tokens[i], 0, i);
        ++it->second.first;
    }
    std::vector<const std::string*> order;
    for (const auto& [token, stats] : seen) order.push_back(&token);
    std::sort(order.begin(), order.end(), [&](const std::string* a, const std::string* b) {
        const auto& x = seen.at(*a);
        const auto& y = seen.at(*b);
        return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    TextCorpus c;
    c.level = level;
    c.fingerprint = text_fingerprint(text);
    c.vocab = {"<bos>", "<unk>"};
    std::unordered_map<std::string, int> id_of;
    for (const std::string* t : order) {
        if (static_cast<int>(c.vocab.size()) >= max_vocab) break;
        id_of.emplace(*t, static_cast<int>(c.vocab.size()));
        c.vocab.push_back(*t);
    }
    const std::size_t split = tokens.size() - tokens.size() / 10;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto it = id_of.find(tokens[i]);
        const int id = it == id_of.end() ? 1 : it->second;
        c.unknown += id == 1;
        (i < split ? c.train_ids : c.held_ids).push_back(id);
    }
    return c;
}

TextCorpus read_text_corpus(const std::string& path, TextLevel level, int max_vocab, int window) {
    try {
        TextCorpus c = build_text_corpus(read_text_file(path), level, max_vocab, window);
        std::error_code ec;
        const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
        c.source = ec ? path : absolute.lexically_normal().string();  // a checkpoint finds it from anywhere
        return c;
    } catch (const Error& e) {
        const std::string what = e.what();
        if (what.find(path) != std::string::npos) throw;
        throw Error(path + ": " + what);
    }
}

}  // namespace hs::train
