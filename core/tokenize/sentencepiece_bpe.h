#pragma once
// SentencePiece's BPE model as llama.cpp runs it (the "llama" tokenizer of GGUF files;
// Llama-2, Mistral, TinyLlama and most TinyStories models): pieces with scores and types,
// spaces written as "▁" (U+2581), merges by score (core/tokenize/score_merge.h), and
// characters no piece spells written as <0xNN> byte pieces when the vocabulary has them.
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace hs {

// SentencePiece's piece types (sentencepiece_model.proto; GGUF tokenizer.ggml.token_type).
enum class PieceType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct SentencePieceVocab {
    std::vector<std::string> pieces;
    std::vector<float> scores;      // one per piece
    std::vector<PieceType> types;   // one per piece
    int bos_id = -1, eos_id = -1, unk_id = -1;  // −1: none
    bool add_bos = true;            // encode(…, add_special) starts with BOS
    bool add_eos = false;           // … and ends with EOS
    bool add_space_prefix = true;   // text is encoded as if it began with a space
    // Hugging Face's form (tokenizer.json, BPE with byte_fallback): merges in rank order,
    // which replace the scores as the merge rule; empty: merge by score.
    std::vector<std::pair<std::string, std::string>> merges;
    bool split_words = false;       // Metaspace split: no merge across a "▁" that starts a word
};

class SentencePieceBpe : public Tokenizer {
public:
    // Throws hs::Error when the lists differ in length or a special id is outside them.
    explicit SentencePieceBpe(SentencePieceVocab vocab);

    // As llama.cpp: BOS (when add_special and add_bos); control, user-defined and unknown
    // pieces written in the text ("<s>") as one token each; every other run of text with
    // a space in front (add_space_prefix; at the start and after a special piece) and
    // every ' ' as "▁", one symbol per UTF-8 character, merged by score (or by merge rank);
    // each symbol left that is not a piece becomes its bytes' <0xNN> pieces, or the
    // unknown piece when the vocabulary has no byte pieces (its display string is then the
    // character it stands for, so "猫" stays readable and the notes can name it).
    Tokens encode(const std::string& text, bool add_special = true) const override;
    // Pieces with "▁" as ' ', byte pieces as their bytes, control pieces (BOS, EOS) left
    // out, and the space encode put in front of the text removed.
    std::string decode(const std::vector<int>& ids) const override;
    // The piece with "▁" shown as ' ', byte pieces as the character for printable ASCII
    // ("\n", "\t" escaped) or "<0xNN>"; control pieces as written ("<s>").
    std::string display(int id) const override;
    int vocab_size() const override { return static_cast<int>(vocab_.pieces.size()); }
    int bos_id() const override { return vocab_.bos_id; }
    int eos_id() const override { return vocab_.eos_id; }
    int unk_id() const override { return vocab_.unk_id; }

    // Id of an exact piece ("▁the"), −1 if none. When two ids share a piece the last
    // wins, as in llama.cpp.
    int find(const std::string& piece) const;

private:
    struct Segment {
        std::string text;    // a run of text, or
        int special_id = -1; // a special piece found in it
    };
    std::vector<Segment> split_specials(const std::string& text) const;
    void encode_text(const std::string& text, bool space_prefix, Tokens& out) const;
    static void push(Tokens& out, int id, std::string shown);
    static std::string pair_key(const std::string& left, const std::string& right);
    const std::string& piece(int id) const;  // throws for ids outside the vocabulary
    // The byte a <0xNN> piece stands for, −1 if `id` is not a byte piece.
    int byte_of(int id) const;
    // A symbol no piece spells: its bytes' pieces, or one unknown token shown as the symbol.
    void spell_bytes(const std::string& symbol, Tokens& out) const;

    SentencePieceVocab vocab_;
    std::unordered_map<std::string, int> index_;
    std::unordered_map<std::string, int> merge_rank_;  // pair_key(left, right) → rank
    std::vector<int> specials_;                        // longest piece first
    std::array<bool, 256> special_first_bytes_{};      // bytes a special piece starts with
};

}  // namespace hs
