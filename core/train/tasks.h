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
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/train/text_corpus.h"

namespace hs::train {

enum class TaskKind { Copy, Reverse, Sort, Induction, Text };

struct TaskSpec {
    TaskKind kind = TaskKind::Copy;
    int vocab = 32;             // ids 0 … vocab−1 (2 of them special)
    int min_len = 4, max_len = 12;  // |x| of copy / reverse / sort
    std::shared_ptr<const TextCorpus> text;  // text: the corpus (vocab = its vocabulary)
    int window = 64;                         // text: tokens per example, BOS included
};

struct Example {
    std::vector<int> ids;
    int first_target = 1;  // the first position whose token the loss counts
};

constexpr int kBos = 0, kSep = 1;

// "copy", "reverse", "sort", "induction"; throws hs::Error listing them.
TaskSpec parse_task(const std::string& name, int vocab);
std::string to_string(TaskKind kind);
// The text task over a corpus: windows of `window` tokens (BOS + window − 1 of the text).
TaskSpec text_task(std::shared_ptr<const TextCorpus> corpus, int window);
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
