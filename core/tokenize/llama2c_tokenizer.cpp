#include "core/tokenize/llama2c_tokenizer.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/score_merge.h"

namespace hs {

namespace {

template <typename T>
T read_le(const std::string& bytes, std::size_t offset) {
    T v;
    std::memcpy(&v, bytes.data() + offset, sizeof(T));  // x86/ARM: little-endian as stored
    return v;
}

}  // namespace

Llama2cTokenizer::Llama2cTokenizer(const std::string& path, int vocab_size) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open the llama2.c tokenizer '" + path + "'");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto fail = [&](const std::string& what) {
        throw Error("llama2.c tokenizer '" + path + "': " + what);
    };
    if (vocab_size < 1) fail("vocabulary size " + std::to_string(vocab_size) + " is not positive");
    if (bytes.size() < 4) fail("the file is " + std::to_string(bytes.size()) +
                               " bytes, too short for its header");
    max_token_length_ = read_le<std::int32_t>(bytes, 0);
    if (max_token_length_ < 1) fail("max_token_length is " + std::to_string(max_token_length_));
    std::size_t offset = 4;
    for (int id = 0; id < vocab_size; ++id) {
        if (offset + 8 > bytes.size())
            fail("the file ends after " + std::to_string(id) + " of " +
                 std::to_string(vocab_size) + " tokens");
        const float score = read_le<float>(bytes, offset);
        const std::int32_t len = read_le<std::int32_t>(bytes, offset + 4);
        offset += 8;
        if (len < 0 || len > max_token_length_)
            fail("token " + std::to_string(id) + " has length " + std::to_string(len) +
                 " outside 0.." + std::to_string(max_token_length_));
        if (offset + static_cast<std::size_t>(len) > bytes.size())
            fail("token " + std::to_string(id) + " runs past the end of the file");
        pieces_.push_back(bytes.substr(offset, static_cast<std::size_t>(len)));
        scores_.push_back(score);
        index_.emplace(pieces_.back(), id);  // first id wins for duplicate pieces
        offset += static_cast<std::size_t>(len);
    }
    if (offset != bytes.size())
        fail(std::to_string(bytes.size() - offset) + " bytes follow the " +
             std::to_string(vocab_size) + " tokens the model expects (is it the tokenizer of " +
             "another model?)");
}

const std::string& Llama2cTokenizer::piece(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                    std::to_string(vocab_size()) + " tokens");
    return pieces_[static_cast<std::size_t>(id)];
}

float Llama2cTokenizer::score(int id) const {
    piece(id);  // range check
    return scores_[static_cast<std::size_t>(id)];
}

int Llama2cTokenizer::find(const std::string& p) const {
    const auto it = index_.find(p);
    return it == index_.end() ? -1 : it->second;
}

int Llama2cTokenizer::byte_of(int id) const { return byte_of_piece(piece(id)); }

// llama2.c's rule (core/tokenize/score_merge.h) over the pieces of the initial ids.
std::vector<int> Llama2cTokenizer::merge_pairs(std::vector<int> ids) const {
    std::vector<std::string> symbols;
    symbols.reserve(ids.size());
    for (int id : ids) symbols.push_back(piece(id));
    const auto score_of = [this](const std::string& left, const std::string& right) -> std::optional<float> {
        const int id = find(left + right);
        if (id < 0) return std::nullopt;
        return scores_[static_cast<std::size_t>(id)];
    };
    std::vector<int> out;
    for (const std::string& merged : merge_by_score(std::move(symbols), score_of)) {
        const int id = find(merged);
        out.push_back(id);
    }
    return out;
}

Tokens Llama2cTokenizer::encode(const std::string& text, bool add_special) const {
    std::vector<int> ids;
    if (!text.empty()) {
        // SentencePiece's dummy prefix: the text is encoded as if it began with a space.
        const int space = find(" ");
        if (space >= 0) ids.push_back(space);
        // One code point at a time: a lead byte plus up to 3 continuation bytes 10xxxxxx.
        for (std::size_t i = 0; i < text.size();) {
            std::size_t n = 1;
            while (n < 4 && i + n < text.size() &&
                   (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80)
                ++n;
            const std::string cp = text.substr(i, n);
            const int id = find(cp);
            if (id >= 0) {
                ids.push_back(id);
            } else {  // byte fallback: <0xNN> has id NN + 3
                for (unsigned char b : cp) ids.push_back(static_cast<int>(b) + 3);
            }
            i += n;
        }
        ids = merge_pairs(std::move(ids));
    }
    Tokens out;
    if (add_special) out.ids.push_back(bos_id());
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    for (int id : out.ids) out.text.push_back(display(id));
    return out;
}

std::string Llama2cTokenizer::decode(const std::vector<int>& ids) const {
    std::string out;
    bool first_piece = true;
    for (int id : ids) {
        if (id == bos_id() || id == eos_id()) continue;
        const int byte = byte_of(id);
        if (byte >= 0) {
            out += static_cast<char>(byte);
        } else {
            const std::string& p = piece(id);
            out += first_piece && !p.empty() && p[0] == ' ' ? p.substr(1) : p;
        }
        first_piece = false;
    }
    return out;
}

std::string Llama2cTokenizer::display(int id) const {
    if (id == bos_id()) return "<s>";
    if (id == eos_id()) return "</s>";
    return byte_piece_label(piece(id));
}

}  // namespace hs
