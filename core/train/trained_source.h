#pragma once
// A model HeadScope trained (a Train-view snapshot or a checkpoint) as a TraceSource, read
// through its task's tokens instead of the playground's hashed words:
//   synthetic tasks  whitespace-separated symbols: "<bos>" (0), "<sep>" (1), "#7" or "7"
//                    (symbol 7, 2 … vocab−1); the probes print ids this way
//   text task        the corpus's characters or words (text_corpus.h), BOS first;
//                    tokens the corpus never held read as <unk>
//   grammar task     words split as the playground splits them (every CJK character its
//                    own token), numbered by the grammar's vocabulary, BOS first
// An encoder–decoder reads the text as its source and the decoder text (default: the
// text) as the decoder's input.
#include <memory>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/source.h"
#include "core/train/tasks.h"

namespace hs::train {

// Throws hs::Error naming the token that is not one of the task's.
Tokens encode_task_text(const TaskSpec& task, const std::string& text);
// The text encode_task_text reads back as `ids` (a text task: the tokens joined, words by
// spaces; BOS left out).
std::string task_text(const TaskSpec& task, const std::vector<int>& ids);

// Display tokens (a snapshot's probe_tokens) as text encode_task_text reads back.
std::string tokens_text(const TaskSpec& task, const std::vector<std::string>& tokens);

// `name` is what the window's caption shows ("training run 2, step 800").
std::unique_ptr<TraceSource> make_trained_source(Model model, TaskSpec task, std::string name);

}  // namespace hs::train
