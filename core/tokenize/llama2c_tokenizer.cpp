#include "core/tokenize/llama2c_tokenizer.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <queue>

#include "core/error.h"

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

int Llama2cTokenizer::byte_of(int id) const {
    const std::string& p = piece(id);
    // "<0xNN>": six characters, two hex digits
    if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
    int value = 0;
    for (int i = 3; i < 5; ++i) {
        const char c = p[static_cast<std::size_t>(i)];
        const int digit = c >= '0' && c <= '9' ? c - '0'
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

// llama2.c's rule: merge the best-scoring adjacent pair whose concatenation is in the
// vocabulary (the leftmost among equal scores) until none is. Rescanning every pair after
// each merge is quadratic (50 KB of text took 24 s); here the candidate pairs wait in a
// heap ordered by (score, position), symbols form a linked list, and a pair whose symbols
// changed since it was pushed is skipped when it comes up: O(n log n), same merges.
std::vector<int> Llama2cTokenizer::merge_pairs(std::vector<int> ids) const {
    const std::size_t n = ids.size();
    std::vector<std::size_t> prev(n), next(n);  // neighbours; n = none
    std::vector<unsigned> version(n, 0);        // bumped whenever symbol i changes or dies
    std::vector<bool> alive(n, true);           // false once merged into its left neighbour
    for (std::size_t i = 0; i < n; ++i) {
        prev[i] = i == 0 ? n : i - 1;
        next[i] = i + 1;
    }
    struct Pair {
        float score;
        std::size_t left, right;
        unsigned left_version, right_version;
        int merged;
        bool operator<(const Pair& o) const {  // max-heap: higher score, then further left
            return score != o.score ? score < o.score : left > o.left;
        }
    };
    std::priority_queue<Pair> heap;
    const auto push = [&](std::size_t left, std::size_t right) {
        if (left >= n || right >= n) return;
        const int id = find(pieces_[static_cast<std::size_t>(ids[left])] + pieces_[static_cast<std::size_t>(ids[right])]);
        if (id >= 0) heap.push({scores_[static_cast<std::size_t>(id)], left, right, version[left], version[right], id});
    };
    for (std::size_t i = 0; i + 1 < n; ++i) push(i, i + 1);
    while (!heap.empty()) {
        const Pair p = heap.top();
        heap.pop();
        if (version[p.left] != p.left_version || version[p.right] != p.right_version)
            continue;  // stale: one of its symbols changed or died since
        ids[p.left] = p.merged;
        ++version[p.left];
        alive[p.right] = false;
        ++version[p.right];
        next[p.left] = next[p.right];
        if (next[p.left] < n) prev[next[p.left]] = p.left;
        push(prev[p.left], p.left);
        push(p.left, next[p.left]);
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < n; ++i)
        if (alive[i]) out.push_back(ids[i]);
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
    const int byte = byte_of(id);
    if (byte < 0) return piece(id);
    if (byte == '\n') return "\\n";
    if (byte == '\t') return "\\t";
    if (byte >= 0x20 && byte < 0x7F) return std::string(1, static_cast<char>(byte));
    return piece(id);
}

}  // namespace hs
