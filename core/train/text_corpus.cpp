#include "core/train/text_corpus.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs::train {

namespace {

// The byte length of the UTF-8 sequence starting with `lead` (an invalid byte: 1, so any
// input splits into pieces and nothing is read past the end).
std::size_t utf8_length(unsigned char lead) {
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
    if (lead >= 0xC2) return 2;
    return 1;
}

// ASCII blanks, no-break space (U+00A0, C2 A0) and the ideographic space (U+3000, E3 80 80).
bool is_space(std::string_view c) {
    return c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\xC2\xA0" || c == "\xE3\x80\x80";
}

// Calls fn(token) for each token of the text, as views into it: no list of tokens is
// built (a 64 MiB text would make tens of millions of strings).
template <class Fn>
void for_each_token(std::string_view text, TextLevel level, Fn&& fn) {
    std::size_t word_start = std::string_view::npos;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(text[i])), text.size() - i);
        const std::string_view c = text.substr(i, n);
        if (level == TextLevel::Char) {
            if (c != "\r") fn(c);
        } else if (is_space(c)) {
            if (word_start != std::string_view::npos) fn(text.substr(word_start, i - word_start));
            word_start = std::string_view::npos;
        } else if (word_start == std::string_view::npos) {
            word_start = i;
        }
        i += n;
    }
    if (level == TextLevel::Word && word_start != std::string_view::npos) fn(text.substr(word_start));
}

}  // namespace

TextLevel parse_text_level(const std::string& name) {
    if (name == "char") return TextLevel::Char;
    if (name == "word") return TextLevel::Word;
    throw Error("text level must be char or word, got '" + name + "'");
}

std::string to_string(TextLevel level) { return level == TextLevel::Char ? "char" : "word"; }

void encode_with_corpus(const TextCorpus& corpus, const std::string& text, std::vector<int>& ids,
                        std::vector<std::string>& tokens) {
    std::unordered_map<std::string_view, int> id_of;
    for (std::size_t i = 2; i < corpus.vocab.size(); ++i) id_of.emplace(corpus.vocab[i], static_cast<int>(i));
    for_each_token(text, corpus.level, [&](std::string_view token) {
        const auto it = id_of.find(token);
        ids.push_back(it == id_of.end() ? 1 : it->second);
        tokens.emplace_back(token);
    });
}

std::uint64_t text_fingerprint(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

TextCorpus build_text_corpus(const std::string& text, TextLevel level, int max_vocab, int window) {
    if (max_vocab < 3) throw Error("a text task needs a vocabulary of at least 3 ids; got " + std::to_string(max_vocab));
    if (window < 2) throw Error("a text task needs windows of at least 2 tokens; got " + std::to_string(window));
    // Pass 1: each distinct token's count and first position.
    struct Seen {
        long long count = 0, first = 0;
    };
    std::unordered_map<std::string_view, Seen> seen;
    long long total = 0;
    for_each_token(text, level, [&](std::string_view t) {
        auto [it, fresh] = seen.try_emplace(t, Seen{0, total});
        ++it->second.count;
        ++total;
    });
    // Each split holds at least one window + 1 token: 10 % of the stream ≥ window + 1.
    const long long needed = 10LL * (window + 1);
    if (total < needed)
        throw Error("the text has " + std::to_string(total) + " " + to_string(level) + " tokens; training windows of " +
                    std::to_string(window) + " need at least " + std::to_string(needed) + " (10 % are held out)");
    // Frequency, then first occurrence: a numbering that depends on the text alone.
    std::vector<std::pair<std::string_view, Seen>> order(seen.begin(), seen.end());
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.second.count != b.second.count ? a.second.count > b.second.count : a.second.first < b.second.first;
    });
    TextCorpus c;
    c.level = level;
    c.fingerprint = text_fingerprint(text);
    c.tokens = total;
    c.distinct = static_cast<int>(order.size());
    c.vocab = {"<bos>", "<unk>"};
    std::unordered_map<std::string_view, int> id_of;
    for (const auto& [token, stats] : order) {
        if (static_cast<int>(c.vocab.size()) >= max_vocab) break;
        id_of.emplace(token, static_cast<int>(c.vocab.size()));
        c.vocab.emplace_back(token);
    }
    // Pass 2: the ids, the last tenth held out.
    const long long split = total - total / 10;
    c.train_ids.reserve(static_cast<std::size_t>(split));
    c.held_ids.reserve(static_cast<std::size_t>(total - split));
    long long i = 0;
    for_each_token(text, level, [&](std::string_view t) {
        const auto it = id_of.find(t);
        const int id = it == id_of.end() ? 1 : it->second;
        c.unknown += id == 1;
        (i++ < split ? c.train_ids : c.held_ids).push_back(id);
    });
    return c;
}

std::string vocabulary_note(const TextCorpus& c) {
    if (c.unknown == 0) return "";
    const std::string unit = c.level == TextLevel::Char ? "characters" : "words";
    const long long percent = std::max(1LL, (100 * c.unknown + c.tokens / 2) / std::max(1LL, c.tokens));
    return "the vocabulary (vocab=" + std::to_string(c.vocab.size()) + ") holds " +
           std::to_string(c.vocab.size() - 2) + " of the text's " + std::to_string(c.distinct) + " different " +
           unit + ": " + std::to_string(percent) + " % of its " + std::to_string(c.tokens) + " " + unit +
           " are read as <unk>, which the model learns to predict instead; vocab=" + std::to_string(c.distinct + 2) +
           " in the spec holds them all";
}

TextCorpus read_text_corpus(const std::string& path, TextLevel level, int max_vocab, int window) {
    try {
        // A regular file (read_file: a FIFO would block the training worker for good).
        TextCorpus c = build_text_corpus(read_file(path, kMaxTextBytes, "a text file"), level, max_vocab, window);
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
