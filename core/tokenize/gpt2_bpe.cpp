// GPT-2 byte-level BPE (see gpt2_bpe.h).
#include "core/tokenize/token_id.h"
#include "core/tokenize/gpt2_bpe.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"
#include "core/tokenize/byte_level.h"
#include "core/tokenize/pretokenize.h"
#include "core/tokenize/unicode_classes.h"

namespace hs {

namespace {

constexpr size_t kMaxCacheEntries = 200000;  // cleared when full; pieces are short

// The UTF-8 characters of a symbol string, each a std::string.
std::vector<std::string> split_symbols(const std::string& symbols) {
    std::vector<std::string> out;
    for (const unicode::Utf8Unit& u : unicode::decode_utf8(symbols))
        out.push_back(symbols.substr(u.offset, u.length));
    return out;
}

}  // namespace

BpeModel::BpeModel(std::unordered_map<std::string, int> vocab,
                   const std::vector<std::pair<std::string, std::string>>& merges,
                   bool ignore_merges)
    : vocab_(std::move(vocab)), ignore_merges_(ignore_merges) {
    int max_id = -1;
    for (const auto& [token, id] : vocab_) {
        if (id < 0) throw Error("BPE vocabulary token '" + token + "' has negative id " +
                                std::to_string(id) + ".");
        max_id = std::max(max_id, id);
    }
    id_to_token_.resize(static_cast<size_t>(max_id + 1));
    for (const auto& [token, id] : vocab_) id_to_token_[static_cast<size_t>(id)] = token;
    ranks_.reserve(merges.size());
    for (size_t r = 0; r < merges.size(); ++r)
        ranks_.emplace(merges[r].first + " " + merges[r].second, static_cast<int>(r));  // first wins
}

int BpeModel::id_of(const std::string& token) const {
    const auto it = vocab_.find(token);
    return it == vocab_.end() ? -1 : it->second;
}

const std::string& BpeModel::token_of(int id) const {
    static const std::string empty;
    if (id < 0 || id >= size()) return empty;
    return id_to_token_[static_cast<size_t>(id)];
}

// word: symbols w_0 … w_{m−1}. Each round: r* = min rank over adjacent pairs
// (w_k, w_{k+1}); stop if no pair is ranked; else replace every non-overlapping
// occurrence of that pair, scanning left to right, by the joined symbol.
std::vector<std::string> BpeModel::merge(const std::string& symbols) const {
    std::vector<std::string> word = split_symbols(symbols);
    while (word.size() > 1) {
        int best = std::numeric_limits<int>::max();
        std::string best_key;
        for (size_t k = 0; k + 1 < word.size(); ++k) {
            const auto it = ranks_.find(word[k] + " " + word[k + 1]);
            if (it != ranks_.end() && it->second < best) {
                best = it->second;
                best_key = it->first;
            }
        }
        if (best == std::numeric_limits<int>::max()) break;
        const size_t space = best_key.find(' ');
        const std::string left = best_key.substr(0, space), right = best_key.substr(space + 1);
        std::vector<std::string> merged;
        merged.reserve(word.size());
        for (size_t k = 0; k < word.size();) {
            if (k + 1 < word.size() && word[k] == left && word[k + 1] == right) {
                merged.push_back(left + right);
                k += 2;
            } else {
                merged.push_back(word[k]);
                k += 1;
            }
        }
        word = std::move(merged);
    }
    return word;
}

std::vector<int> BpeModel::encode_piece(const std::string& symbols) const {
    {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        const auto it = cache_.find(symbols);
        if (it != cache_.end()) return it->second;
    }
    std::vector<int> ids;
    const int whole = ignore_merges_ ? id_of(symbols) : -1;
    if (whole >= 0) {
        ids.push_back(whole);
    } else {
        for (const std::string& part : merge(symbols)) {
            const int id = id_of(part);
            if (id < 0)
                throw Error("BPE merging produced the symbol '" + part +
                            "', which is not in the vocabulary (is the vocabulary missing byte "
                            "tokens, or do vocab and merges come from different models?).");
            ids.push_back(id);
        }
    }
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() >= kMaxCacheEntries) cache_.clear();
    cache_.emplace(symbols, ids);
    return ids;
}

std::vector<std::string> display_strings(const std::vector<std::string>& token_bytes) {
    std::string all;
    std::vector<size_t> starts;  // token t holds bytes [starts[t], starts[t + 1])
    for (const std::string& b : token_bytes) {
        starts.push_back(all.size());
        all += b;
    }
    starts.push_back(all.size());
    std::vector<std::string> shown(token_bytes.size());
    std::vector<bool> owns(token_bytes.size(), false);
    size_t t = 0;
    for (const unicode::Utf8Unit& u : unicode::decode_utf8(all)) {
        while (u.offset >= starts[t + 1]) ++t;
        owns[t] = true;
        shown[t] += u.valid ? all.substr(u.offset, u.length)
                            : unicode::byte_label(static_cast<unsigned char>(all[u.offset]));
    }
    for (size_t k = 0; k < token_bytes.size(); ++k) {
        if (owns[k]) continue;
        // Only continuation bytes of a character shown on an earlier token (or empty).
        for (char c : token_bytes[k]) shown[k] += unicode::byte_label(static_cast<unsigned char>(c));
    }
    return shown;
}

std::unordered_map<std::string, int> read_vocab_json(const std::string& path) {
    const nlohmann::json j = read_json_file(path);
    if (!j.is_object())
        throw Error("GPT-2 vocabulary '" + path + "' must be a JSON object of token -> id.");
    std::unordered_map<std::string, int> vocab;
    vocab.reserve(j.size());
    for (const auto& [token, id] : j.items()) {
        vocab.emplace(token, token_id_from_json(id, "GPT-2 vocabulary '" + path + "': the id of token '" + token + "'"));
    }
    return vocab;
}

std::vector<std::pair<std::string, std::string>> read_merges_txt(const std::string& path) {
    std::istringstream in(read_file(path));
    std::vector<std::pair<std::string, std::string>> merges;
    std::string line;
    size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
        std::istringstream fields(line);
        std::string left, right, extra;
        if (!(fields >> left >> right) || (fields >> extra))
            throw Error("BPE merges file '" + path + "' line " + std::to_string(line_no) +
                        " must hold exactly two symbols separated by a space, found '" + line + "'.");
        merges.emplace_back(left, right);
    }
    return merges;
}

Gpt2BpeTokenizer::Gpt2BpeTokenizer(const std::string& vocab_json_path,
                                   const std::string& merges_txt_path)
    : model_(read_vocab_json(vocab_json_path), read_merges_txt(merges_txt_path)),
      end_of_text_(model_.id_of("<|endoftext|>")) {
    for (int b = 0; b < 256; ++b) {
        std::string symbol;
        unicode::append_utf8(symbol, byte_level::byte_to_symbol(static_cast<unsigned char>(b)));
        if (model_.id_of(symbol) < 0)
            throw Error("GPT-2 vocabulary '" + vocab_json_path + "' lacks the token for byte " +
                        std::to_string(b) + "; a byte-level BPE vocabulary needs all 256.");
    }
}

std::string Gpt2BpeTokenizer::token_bytes(int id) const {
    if (id < 0 || id >= model_.size())
        throw Error("Token id " + std::to_string(id) + " is outside the GPT-2 vocabulary of " +
                    std::to_string(model_.size()) + " tokens.");
    std::string bytes;
    const std::string& token = model_.token_of(id);
    if (!byte_level::symbols_to_bytes(token, bytes)) return token;  // not byte symbols: as is
    return bytes;
}

Tokens Gpt2BpeTokenizer::encode(const std::string& text, bool /*add_special*/) const {
    std::vector<int> ids;
    for (const std::string& piece : gpt2_pretokenize(text)) {
        const std::vector<int> piece_ids = model_.encode_piece(byte_level::bytes_to_symbols(piece));
        ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
    }
    return tokens_of(std::move(ids));
}

// ---------------------------------------------------------------------------------------
// ByteLevelBpeTokenizer

Tokens ByteLevelBpeTokenizer::tokens_of(std::vector<int> ids) const {
    std::vector<std::string> bytes;
    bytes.reserve(ids.size());
    for (int id : ids) bytes.push_back(token_bytes(id));
    Tokens out;
    out.ids = std::move(ids);
    out.text = display_strings(bytes);
    return out;
}

std::string ByteLevelBpeTokenizer::decode(const std::vector<int>& ids) const {
    std::string bytes;
    for (int id : ids) bytes += token_bytes(id);
    return unicode::replace_invalid_utf8(bytes);
}

std::string ByteLevelBpeTokenizer::display(int id) const {
    return unicode::readable_bytes(token_bytes(id));
}

}  // namespace hs
