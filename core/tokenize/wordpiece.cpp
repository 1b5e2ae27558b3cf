// BERT WordPiece (see wordpiece.h for the steps).
#include "core/tokenize/wordpiece.h"

#include <filesystem>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"
#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

// BERT's _is_chinese_char: CJK Unified Ideographs and extensions A–E, compatibility
// ideographs and their supplement.
bool is_cjk_ideograph(char32_t cp) {
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// BERT's _is_whitespace: \t \n \r and the space separators (Zs).
bool is_bert_space(char32_t cp) {
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// BERT's _is_punctuation: all non-alphanumeric ASCII, plus Unicode category P.
bool is_bert_punct(char32_t cp) {
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
        (cp >= 123 && cp <= 126))
        return true;
    return unicode::is_punctuation(cp);
}

std::string config_string(const nlohmann::json& j, const char* key, const std::string& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const nlohmann::json& v = j[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return fallback;
}

}  // namespace

WordPieceOptions read_wordpiece_options(const std::string& tokenizer_config_path) {
    WordPieceOptions o;
    std::error_code ec;
    if (!std::filesystem::exists(tokenizer_config_path, ec)) return o;
    const nlohmann::json j = read_json_file(tokenizer_config_path);
    if (j.contains("do_lower_case") && j["do_lower_case"].is_boolean())
        o.lower_case = j["do_lower_case"].get<bool>();
    if (j.contains("strip_accents") && j["strip_accents"].is_boolean())
        o.strip_accents = j["strip_accents"].get<bool>();
    if (j.contains("tokenize_chinese_chars") && j["tokenize_chinese_chars"].is_boolean())
        o.tokenize_chinese_chars = j["tokenize_chinese_chars"].get<bool>();
    o.unk_token = config_string(j, "unk_token", o.unk_token);
    o.cls_token = config_string(j, "cls_token", o.cls_token);
    o.sep_token = config_string(j, "sep_token", o.sep_token);
    return o;
}

std::vector<std::string> read_vocab_txt(const std::string& path) {
    std::istringstream in(read_file(path));
    std::vector<std::string> vocab;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        vocab.push_back(line);
    }
    if (vocab.empty()) throw Error("WordPiece vocabulary '" + path + "' is empty.");
    return vocab;
}

std::vector<std::string> bert_basic_tokenize(const std::string& text, const WordPieceOptions& options) {
    const bool strip = options.strip_accents.value_or(options.lower_case);
    // Clean, isolate CJK ideographs, split on spaces: words as code point strings.
    std::vector<std::u32string> words(1);
    auto end_word = [&] {
        if (!words.back().empty()) words.emplace_back();
    };
    for (const unicode::Utf8Unit& u : unicode::decode_utf8(text)) {
        if (!u.valid || u.cp == 0 || u.cp == 0xFFFD) continue;
        if (is_bert_space(u.cp)) { end_word(); continue; }
        if (unicode::is_control(u.cp) || (u.cp < 0x20 || (u.cp >= 0x7F && u.cp <= 0x9F))) continue;
        if (options.tokenize_chinese_chars && is_cjk_ideograph(u.cp)) {
            end_word();
            words.back() += u.cp;
            end_word();
            continue;
        }
        words.back() += u.cp;
    }
    // Per word: lower-case, strip accents, split off punctuation.
    std::vector<std::string> out;
    for (const std::u32string& word : words) {
        std::u32string w;
        for (char32_t cp : word) w += options.lower_case ? unicode::to_lower(cp) : std::u32string(1, cp);
        if (strip) {
            std::u32string s;
            for (char32_t cp : w) s += unicode::strip_accents(cp);
            w = std::move(s);
        }
        std::string current;
        for (char32_t cp : w) {
            if (is_bert_punct(cp)) {
                if (!current.empty()) out.push_back(std::move(current));
                current.clear();
                out.push_back(unicode::to_utf8(std::u32string(1, cp)));
            } else {
                unicode::append_utf8(current, cp);
            }
        }
        if (!current.empty()) out.push_back(std::move(current));
    }
    return out;
}

WordPieceTokenizer::WordPieceTokenizer(std::vector<std::string> vocab, WordPieceOptions options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
    ids_.reserve(vocab_.size());
    for (size_t i = 0; i < vocab_.size(); ++i) ids_.emplace(vocab_[i], static_cast<int>(i));  // first wins
    unk_id_ = id_of(options_.unk_token);
    cls_id_ = id_of(options_.cls_token);
    sep_id_ = id_of(options_.sep_token);
    pad_id_ = id_of("[PAD]");
    if (unk_id_ < 0)
        throw Error("WordPiece vocabulary has no unknown token '" + options_.unk_token +
                    "' (needed for words it cannot split).");
    for (const std::string& s : {options_.cls_token, options_.sep_token, options_.unk_token,
                                 std::string("[PAD]"), std::string("[MASK]")})
        if (id_of(s) >= 0) never_split_.push_back(s);
}

int WordPieceTokenizer::id_of(const std::string& token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? -1 : it->second;
}

// Greedy longest-match-first: from `start`, the longest prefix (with "##" when start > 0)
// found in the vocabulary; if none exists at some start, the whole word is [UNK].
void WordPieceTokenizer::wordpiece(const std::string& word, std::vector<int>& ids) const {
    const std::vector<unicode::Utf8Unit> chars = unicode::decode_utf8(word);
    if (chars.size() > options_.max_input_chars_per_word) {
        ids.push_back(unk_id_);
        return;
    }
    std::vector<int> pieces;
    size_t start = 0;
    while (start < chars.size()) {
        int found = -1;
        size_t end = chars.size();
        for (; end > start; --end) {
            const size_t b = chars[start].offset;
            const size_t e = end < chars.size() ? chars[end].offset : word.size();
            std::string piece = word.substr(b, e - b);
            if (start > 0) piece = options_.continuing_prefix + piece;
            found = id_of(piece);
            if (found >= 0) break;
        }
        if (found < 0) {
            ids.push_back(unk_id_);
            return;
        }
        pieces.push_back(found);
        start = end;
    }
    ids.insert(ids.end(), pieces.begin(), pieces.end());
}

Tokens WordPieceTokenizer::encode(const std::string& text, bool add_special) const {
    std::vector<int> ids;
    if (add_special && cls_id_ >= 0) ids.push_back(cls_id_);
    // Cut out special tokens (leftmost occurrence, longest on ties), tokenize the rest.
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t best_at = std::string::npos, best_len = 0;
        for (const std::string& s : never_split_) {
            const size_t at = text.find(s, pos);
            if (at != std::string::npos && (at < best_at || (at == best_at && s.size() > best_len))) {
                best_at = at;
                best_len = s.size();
            }
        }
        const size_t stop = best_at == std::string::npos ? text.size() : best_at;
        for (const std::string& word : bert_basic_tokenize(text.substr(pos, stop - pos), options_))
            wordpiece(word, ids);
        if (best_at == std::string::npos) break;
        ids.push_back(id_of(text.substr(best_at, best_len)));
        pos = best_at + best_len;
    }
    if (add_special && sep_id_ >= 0) ids.push_back(sep_id_);
    Tokens out;
    out.ids = ids;
    for (int id : ids) out.text.push_back(display(id));
    return out;
}

std::string WordPieceTokenizer::display(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("Token id " + std::to_string(id) + " is outside the WordPiece vocabulary of " +
                    std::to_string(vocab_size()) + " tokens.");
    return vocab_[static_cast<size_t>(id)];
}

std::string WordPieceTokenizer::decode(const std::vector<int>& ids) const {
    std::string out;
    const std::string& prefix = options_.continuing_prefix;
    for (int id : ids) {
        const std::string& token = display(id);
        if (id == cls_id_ || id == sep_id_ || id == pad_id_) continue;
        if (!out.empty() && token.rfind(prefix, 0) == 0) {
            out += token.substr(prefix.size());
        } else {
            if (!out.empty()) out += ' ';
            out += token;
        }
    }
    return out;
}

}  // namespace hs
