#include "core/analysis/word_maps.h"

#include "core/error.h"
#include "core/image/label_thinning.h"
#include "core/image/token_words.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {
namespace {

std::string without_spaces(const std::string& s) {
    std::string out;
    for (const char c : s)
        if (c != ' ') out += c;
    return out;
}

constexpr int kUnassigned = -2;

}  // namespace

std::optional<std::vector<int>> align_pieces(const std::vector<std::string>& tokens, const std::vector<std::string>& words) {
    // word_end[i]: where word i ends in the words' text with no spaces.
    std::string text;
    std::vector<std::size_t> word_end;
    for (const std::string& w : words) {
        text += without_spaces(w);
        word_end.push_back(text.size());
    }
    const std::vector<std::string> spelled = spelled_pieces(tokens);
    std::vector<int> piece_word(tokens.size(), kUnassigned);
    std::size_t pos = 0;
    int word = 0;
    for (std::size_t p = 0; p < tokens.size(); ++p) {
        const std::string piece = without_spaces(spelled[p]);
        if (piece.empty()) continue;  // a bare space, a further byte: placed below
        if (text.compare(pos, piece.size(), piece) != 0) {
            // A special token before or after the sentence (BOS, [CLS], [SEP], </s>) is left out;
            // any other token that does not spell the text next is another text.
            if ((pos == 0 || pos == text.size()) && is_special_token(tokens[p])) {
                piece_word[p] = -1;
                continue;
            }
            return std::nullopt;
        }
        while (word < static_cast<int>(words.size()) && word_end[static_cast<std::size_t>(word)] <= pos) ++word;
        if (word >= static_cast<int>(words.size()) || pos + piece.size() > word_end[static_cast<std::size_t>(word)])
            return std::nullopt;  // runs past its word's end
        piece_word[p] = word;
        pos += piece.size();
    }
    if (pos != text.size()) return std::nullopt;
    // Tokens that spell nothing: a further byte of a character joins the token before it,
    // a bare space mark the token after it (none after: it is left out).
    for (std::size_t p = 0; p < tokens.size(); ++p) {
        if (piece_word[p] != kUnassigned) continue;
        if ((is_byte_token(tokens[p]) || continues_a_character(tokens[p])) && p > 0 && piece_word[p - 1] >= 0) {
            piece_word[p] = piece_word[p - 1];
            continue;
        }
        int next = -1;
        for (std::size_t q = p + 1; q < tokens.size() && next < 0; ++q)
            if (piece_word[q] >= 0) next = piece_word[q];
        piece_word[p] = next;
    }
    return piece_word;
}

Matrix word_map(const Matrix& a, const std::vector<int>& piece_word, int words) {
    if (a.rows() != static_cast<Eigen::Index>(piece_word.size()) || a.cols() != a.rows())
        throw Error("word_map: a (" + std::to_string(a.rows()) + ", " + std::to_string(a.cols()) + ") map for " +
                    std::to_string(piece_word.size()) + " tokens");
    // Sum over the key pieces of each word, then the mean over the query pieces.
    Matrix by_key = Matrix::Zero(a.rows(), words);
    for (Eigen::Index q = 0; q < a.cols(); ++q)
        if (const int w = piece_word[static_cast<std::size_t>(q)]; w >= 0) by_key.col(w) += a.col(q);
    Matrix out = Matrix::Zero(words, words);
    std::vector<int> count(static_cast<std::size_t>(words), 0);
    for (Eigen::Index p = 0; p < a.rows(); ++p)
        if (const int w = piece_word[static_cast<std::size_t>(p)]; w >= 0) {
            out.row(w) += by_key.row(p);
            ++count[static_cast<std::size_t>(w)];
        }
    for (int w = 0; w < words; ++w)
        if (count[static_cast<std::size_t>(w)] > 0) out.row(w) /= static_cast<float>(count[static_cast<std::size_t>(w)]);
    return out;
}

}  // namespace hs
