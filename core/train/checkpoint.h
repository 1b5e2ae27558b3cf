#pragma once
// Training checkpoints. A checkpoint is a model directory (config.json + model.safetensors
// in HeadScope's nn.Transformer layout: it opens in the app and every command like any
// model) plus the rest of the training state:
//   optimizer_m.safetensors, optimizer_v.safetensors   AdamW's moments, under the
//                                                      parameters' state_dict names
//   trainer.json   {"format": "headscope-trainer", "steps_taken", "task": {kind, vocab,
//                  min_len, max_len, text: {file, level, window, max_vocab, fingerprint}
//                  for a text task}, "batch", "seed", "adamw": {lr, beta1, beta2, eps,
//                  weight_decay, warmup_steps, total_steps, min_lr_ratio, clip_norm}}
// written together (core/io/directory_writer.h: all files or none). Training resumed from
// a checkpoint takes exactly the steps the uninterrupted run would have taken, on the
// same learning-rate schedule (its total_steps is kept; steps past it run at the final
// rate). trainer.json is checked as a new run's options are (tasks.h, adamw.h).
#include <optional>
#include <string>

#include "core/train/trainer.h"

namespace hs::train {

void save_checkpoint(const Trainer& trainer, const std::string& dir);

// A text task as trainer.json names it: the file is read again when the checkpoint loads.
struct TextTaskRef {
    std::string file;
    TextLevel level = TextLevel::Char;
    int window = 0, max_vocab = 0;
    std::string fingerprint;  // text_fingerprint of the text trained on
};

// trainer.json's contents, every field checked (tasks.h, adamw.h, batch 1 … 4096); a text
// task comes back as `text` (task.kind Text, no corpus yet).
struct TrainerState {
    int steps_taken = 0;
    TaskSpec task;
    TrainOptions options;
    std::optional<TextTaskRef> text;
};
// Throws hs::Error naming `origin` for invalid JSON or a field out of range.
TrainerState parse_trainer_state(const std::string& text, const std::string& origin);
// Throws hs::Error naming the file when a part is missing or does not fit the model.
Trainer load_checkpoint(const std::string& dir);
// The task a checkpoint trained on (a text task's file read again and checked against its
// fingerprint): what open_source reads a checkpoint's text with. hs::Error otherwise.
TaskSpec checkpoint_task(const std::string& dir);

}  // namespace hs::train
