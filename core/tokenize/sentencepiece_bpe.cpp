#include "core/tokenize/sentencepiece_bpe.h"

#include <algorithm>

#include "core/error.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/score_merge.h"

namespace hs {

namespace {

constexpr const char* kSpaceMark = "\xE2\x96\x81";  // "▁", U+2581, SentencePiece's space

// Bytes of the UTF-8 character that starts with `lead`, by its top bits (a stray
// continuation byte counts as one character, as in llama.cpp).
std::size_t utf8_length(unsigned char lead) {
    if (lead < 0xC0) return 1;
    if (lead < 0xE0) return 2;
    if (lead < 0xF0) return 3;
    return 4;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

}  // namespace

SentencePieceBpe::SentencePieceBpe(SentencePieceVocab vocab) : vocab_(std::move(vocab)) {
    const std::size_t n = vocab_.pieces.size();
    if (vocab_.scores.size() != n || vocab_.types.size() != n)
        throw Error("SentencePiece vocabulary: " + std::to_string(n) + " pieces but " +
                    std::to_string(vocab_.scores.size()) + " scores and " +
                    std::to_string(vocab_.types.size()) + " types");
    for (const auto& [name, id] : {std::pair{"BOS", vocab_.bos_id}, std::pair{"EOS", vocab_.eos_id},
                                   std::pair{"unknown", vocab_.unk_id}})
        if (id < -1 || id >= static_cast<int>(n))
            throw Error(std::string("SentencePiece vocabulary: the ") + name + " id " +
                        std::to_string(id) + " is outside its " + std::to_string(n) + " pieces");
    for (std::size_t id = 0; id < n; ++id) index_[vocab_.pieces[id]] = static_cast<int>(id);
    for (std::size_t rank = 0; rank < vocab_.merges.size(); ++rank)
        merge_rank_.emplace(pair_key(vocab_.merges[rank].first, vocab_.merges[rank].second), static_cast<int>(rank));
    // Control, user-defined and unknown pieces written in the text are one token each.
    for (std::size_t id = 0; id < n; ++id) {
        const PieceType t = vocab_.types[id];
        const std::string& p = vocab_.pieces[id];
        if ((t == PieceType::Control || t == PieceType::UserDefined || t == PieceType::Unknown) && !p.empty() &&
            index_.at(p) == static_cast<int>(id)) {
            specials_.push_back(static_cast<int>(id));
            special_first_bytes_[static_cast<unsigned char>(p[0])] = true;
        }
    }
    std::stable_sort(specials_.begin(), specials_.end(), [this](int a, int b) {  // longest first
        return vocab_.pieces[static_cast<std::size_t>(a)].size() > vocab_.pieces[static_cast<std::size_t>(b)].size();
    });
}

const std::string& SentencePieceBpe::piece(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                    std::to_string(vocab_size()) + " tokens");
    return vocab_.pieces[static_cast<std::size_t>(id)];
}

int SentencePieceBpe::find(const std::string& p) const {
    const auto it = index_.find(p);
    return it == index_.end() ? -1 : it->second;
}

int SentencePieceBpe::byte_of(int id) const {
    return vocab_.types[static_cast<std::size_t>(id)] == PieceType::Byte ? byte_of_piece(piece(id)) : -1;
}

void SentencePieceBpe::spell_bytes(const std::string& symbol, Tokens& out) const {
    static const char* kHex = "0123456789ABCDEF";
    std::vector<int> ids;
    for (unsigned char b : symbol) {
        const std::string name{'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
        int id = find(name);
        if (id < 0) id = find(std::string(1, static_cast<char>(b)));  // a vocabulary of raw bytes
        if (id < 0) {  // no way to spell it: one unknown token, shown as the text it stands for
            if (vocab_.unk_id >= 0) push(out, vocab_.unk_id, spaces_from_marks(symbol));
            return;
        }
        ids.push_back(id);
    }
    for (int id : ids) push(out, id, display(id));
}

void SentencePieceBpe::push(Tokens& out, int id, std::string shown) {
    out.ids.push_back(id);
    out.text.push_back(std::move(shown));
}

std::string SentencePieceBpe::pair_key(const std::string& left, const std::string& right) {
    std::string key = left;
    key += '\0';  // no piece holds a NUL
    return key + right;
}

std::vector<SentencePieceBpe::Segment> SentencePieceBpe::split_specials(const std::string& text) const {
    std::vector<Segment> out;
    std::size_t start = 0;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (!special_first_bytes_[static_cast<unsigned char>(text[at])]) continue;
        for (int id : specials_) {
            const std::string& p = vocab_.pieces[static_cast<std::size_t>(id)];
            if (text.compare(at, p.size(), p) != 0) continue;
            if (at > start) out.push_back({text.substr(start, at - start), -1});
            out.push_back({"", id});
            at += p.size() - 1;
            start = at + 1;
            break;
        }
    }
    if (start < text.size()) out.push_back({text.substr(start), -1});
    return out;
}

void SentencePieceBpe::encode_text(const std::string& text, bool space_prefix, Tokens& out) const {
    const std::string escaped = replace_all((space_prefix ? " " : "") + text, " ", kSpaceMark);
    // One symbol per UTF-8 character; words (Metaspace split) start at each "▁".
    std::vector<std::vector<std::string>> words(1);
    for (std::size_t at = 0; at < escaped.size();) {
        const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(escaped[at])), escaped.size() - at);
        std::string symbol = escaped.substr(at, n);
        if (vocab_.split_words && symbol == kSpaceMark && !words.back().empty()) words.emplace_back();
        words.back().push_back(std::move(symbol));
        at += n;
    }
    const PairScore score_of = [this](const std::string& left, const std::string& right) -> std::optional<float> {
        if (!merge_rank_.empty()) {  // Hugging Face BPE: the earlier merge first
            const auto it = merge_rank_.find(pair_key(left, right));
            if (it == merge_rank_.end()) return std::nullopt;
            return -static_cast<float>(it->second);
        }
        const int id = find(left + right);  // SentencePiece: the better-scored piece first
        if (id < 0) return std::nullopt;
        return vocab_.scores[static_cast<std::size_t>(id)];
    };
    for (std::vector<std::string>& word : words)
        for (const std::string& symbol : merge_by_score(std::move(word), score_of)) {
            const int id = find(symbol);
            if (id >= 0)
                push(out, id, display(id));
            else
                spell_bytes(symbol, out);
        }
}

Tokens SentencePieceBpe::encode(const std::string& text, bool add_special) const {
    Tokens out;
    if (add_special && vocab_.add_bos && vocab_.bos_id >= 0) push(out, vocab_.bos_id, display(vocab_.bos_id));
    bool after_special = true;  // the text's start counts as one, as in llama.cpp
    for (const Segment& segment : split_specials(text)) {
        if (segment.special_id >= 0) {
            push(out, segment.special_id, display(segment.special_id));
            after_special = true;
            continue;
        }
        encode_text(segment.text, vocab_.add_space_prefix && after_special, out);
        after_special = false;
    }
    if (add_special && vocab_.add_eos && vocab_.eos_id >= 0) push(out, vocab_.eos_id, display(vocab_.eos_id));
    return out;
}

std::string SentencePieceBpe::decode(const std::vector<int>& ids) const {
    std::string out;
    bool first_piece = true;
    for (int id : ids) {
        piece(id);  // range check
        const PieceType type = vocab_.types[static_cast<std::size_t>(id)];
        if (type == PieceType::Control || type == PieceType::Unused) continue;
        const int byte = byte_of(id);
        std::string text = byte >= 0 ? std::string(1, static_cast<char>(byte)) : spaces_from_marks(piece(id));
        if (first_piece && vocab_.add_space_prefix && !text.empty() && text[0] == ' ') text.erase(0, 1);
        out += text;
        first_piece = false;
    }
    return out;
}

std::string SentencePieceBpe::display(int id) const {
    const std::string& p = piece(id);
    if (byte_of(id) >= 0) return byte_piece_label(p);
    return vocab_.types[static_cast<std::size_t>(id)] == PieceType::Control ? p : spaces_from_marks(p);
}

}  // namespace hs
