#pragma once
// Synthetic training tasks, each a seeded generator of token sequences. Ids: 0 = BOS,
// 1 = SEP; symbols are 2 … vocab−1. Example k of step s is a pure function of
// (seed, s, k), so a batch is the same on any thread count and after a resume.
//   copy       BOS x SEP x          |x| in [min_len, max_len]; the loss counts the answer
//   reverse    BOS x SEP reverse(x)
//   sort       BOS x SEP sort(x)
//   induction  BOS r f r            |r| in [8, 20], filler f of 0 … 16 random symbols: the
//                                   offset between the two copies varies, so only an
//                                   induction head (attend to the token after the previous
//                                   occurrence of this one) solves the second r; with a
//                                   fixed offset one positional head does. Every token is
//                                   a target (the first r and f are noise to the model).
//   text       BOS + a window of a user's text (text_corpus.h): every token is a target
//   grammar    BOS + sentences of the bilingual grammar (core/corpus/grammar.h), English
//              and Chinese at random, up to the window; or, in induction_percent of the
//              examples, BOS r f r over the grammar's words (as induction). Ids: the
//              grammar's vocabulary (grammar_words), 0 <bos>, 1 <unk>. Every token a target.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/train/text_corpus.h"

namespace hs::train {

enum class TaskKind { Copy, Reverse, Sort, Induction, Text, Grammar };

// Words numbered for a task: id → token, and back (tokens it does not hold: 1, <unk>).
struct Vocabulary {
    std::vector<std::string> tokens;  // [0] "<bos>", [1] "<unk>"
    std::unordered_map<std::string, int> ids;
    int id_of(const std::string& token) const;
};

struct TaskSpec {
    TaskKind kind = TaskKind::Copy;
    int vocab = 32;             // ids 0 … vocab−1 (2 of them special)
    int min_len = 4, max_len = 12;  // |x| of copy / reverse / sort
    std::shared_ptr<const TextCorpus> text;  // text: the corpus (vocab = its vocabulary)
    int window = 64;                         // text, grammar: tokens per example, BOS included
    std::shared_ptr<const Vocabulary> words;  // grammar: its vocabulary (vocab = its size)
    int induction_percent = 25;               // grammar: share of induction examples
};

struct Example {
    std::vector<int> ids;
    int first_target = 1;  // the first position whose token the loss counts
};

constexpr int kBos = 0, kSep = 1;

// "copy", "reverse", "sort", "induction", "grammar" (grammar_task(64, 25)); throws
// hs::Error listing them.
TaskSpec parse_task(const std::string& name, int vocab);
std::string to_string(TaskKind kind);
// The text task over a corpus: windows of `window` tokens (BOS + window − 1 of the text).
TaskSpec text_task(std::shared_ptr<const TextCorpus> corpus, int window);
// The grammar task: windows of `window` tokens (57 … 1024: an induction example fits),
// `induction_percent` (0 … 100) of them induction sequences.
TaskSpec grammar_task(int window, int induction_percent);
// <bos>, <unk>, then every token the grammar writes (corpus::grammar_vocabulary).
std::shared_ptr<const Vocabulary> grammar_words();
// Throws hs::Error naming the field unless 4 ≤ vocab and 1 ≤ min_len ≤ max_len ≤ 1024,
// or, for text, a corpus whose splits hold a window and whose ids fit vocab (a
// checkpoint's trainer.json is read through this).
void check_task(const TaskSpec& task);
// The longest sequence the task makes (a model's max_len must hold it).
int longest_example(const TaskSpec& task);
Example make_example(const TaskSpec& task, std::uint64_t seed, long long step, int index);
// Held-out example `index`: from a stream no training step draws from.
Example held_out_example(const TaskSpec& task, std::uint64_t seed, int index);

}  // namespace hs::train
