#include "core/tokenize/sentencepiece_bpe.h"

#include <algorithm>

#include "core/error.h"
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
    if (vocab_.types[static_cast<std::size_t>(id)] != PieceType::Byte) return -1;
    const std::string& p = piece(id);  // "<0xNN>"
    if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
    try {
        return std::stoi(p.substr(3, 2), nullptr, 16);
    } catch (const std::exception&) {
        return -1;
    }
}

void SentencePieceBpe::spell_bytes(const std::string& symbol, std::vector<int>& out) const {
    static const char* kHex = "0123456789ABCDEF";
    for (unsigned char b : symbol) {
        const std::string name{'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
        int id = find(name);
        if (id < 0) id = find(std::string(1, static_cast<char>(b)));  // a vocabulary of raw bytes
        if (id < 0) id = vocab_.unk_id;
        if (id >= 0) out.push_back(id);
        if (id == vocab_.unk_id) return;  // one <unk> for the whole character
    }
}

Tokens SentencePieceBpe::encode(const std::string& text, bool add_special) const {
    std::vector<int> ids;
    if (add_special && vocab_.add_bos && vocab_.bos_id >= 0) ids.push_back(vocab_.bos_id);
    if (!text.empty()) {
        const std::string escaped = replace_all((vocab_.add_space_prefix ? " " : "") + text, " ", kSpaceMark);
        std::vector<std::string> symbols;
        for (std::size_t at = 0; at < escaped.size();) {
            const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(escaped[at])), escaped.size() - at);
            symbols.push_back(escaped.substr(at, n));
            at += n;
        }
        const auto score_of = [this](const std::string& piece_text) -> std::optional<float> {
            const int id = find(piece_text);
            if (id < 0) return std::nullopt;
            return vocab_.scores[static_cast<std::size_t>(id)];
        };
        for (const std::string& symbol : merge_by_score(std::move(symbols), score_of)) {
            const int id = find(symbol);
            if (id >= 0)
                ids.push_back(id);
            else
                spell_bytes(symbol, ids);
        }
    }
    if (add_special && vocab_.add_eos && vocab_.eos_id >= 0) ids.push_back(vocab_.eos_id);
    Tokens out;
    out.ids = std::move(ids);
    for (int id : out.ids) out.text.push_back(display(id));
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
        std::string text = byte >= 0 ? std::string(1, static_cast<char>(byte)) : replace_all(piece(id), kSpaceMark, " ");
        if (first_piece && vocab_.add_space_prefix && !text.empty() && text[0] == ' ') text.erase(0, 1);
        out += text;
        first_piece = false;
    }
    return out;
}

std::string SentencePieceBpe::display(int id) const {
    const std::string& p = piece(id);
    const int byte = byte_of(id);
    if (byte < 0) return vocab_.types[static_cast<std::size_t>(id)] == PieceType::Control ? p : replace_all(p, kSpaceMark, " ");
    if (byte == '\n') return "\\n";
    if (byte == '\t') return "\\t";
    if (byte >= 0x20 && byte < 0x7F) return std::string(1, static_cast<char>(byte));
    return p;
}

}  // namespace hs
