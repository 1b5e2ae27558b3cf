#pragma once
// Pieces several subcommands share: opening MODEL, reading the text options, and the
// layer/head range checks.
#include <memory>
#include <string>
#include <vector>

#include "cli/args.h"
#include "core/source.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {

// Options every MODEL-running command accepts, and its flags.
inline const std::set<std::string> kInputOptions = {"text", "text-file", "decoder-text", "pad"};
inline const std::set<std::string> kInputFlags = {"keep-first"};

// --text / --text-file / --decoder-text / --pad (comma-separated key positions) /
// --keep-first (a text over the model's max_len runs its first max_len tokens; forward,
// export and analyze of one text take it).
SourceInput read_source_input(const Args& args, const TraceSource& source);
// The text of --text, or of --text-file without its final line breaks (input_text_of_file,
// as the window reads a dropped file); both given is a usage error.
std::string input_text(const Args& args);

// On stderr, what the model did not read as written (the window's input panel shows the
// same notes): tokens --keep-first left out, words outside a word vocabulary (each read as
// <unk>: the first five named), characters spelled as raw bytes such as <0xE5>.
void note_input_losses(const TraceSource& source, const Trace& trace);
// The first two of those notes, for a text tokenized but not traced (generate).
void note_unread_text(const TraceSource& source, const std::vector<std::string>& unknown_words,
                      const ByteTokens& byte_tokens);

// Writes `bytes` to PATH atomically, or to stdout when PATH is "-".
void write_output(const std::string& path, const std::string& bytes);

// Throws the hs::Error write_output(PATH, …) would ("cannot write PATH: reason") without
// writing anything: a file a command writes late is checked before the work. "-" passes.
void check_output_path(const std::string& path);
// check_output_path for each of `options` given, and no two naming the same file ("-"
// included): --png and --svg of one path would leave only the second.
void check_output_paths(const Args& args, std::initializer_list<const char*> options);

// Throws the hs::Error a model directory save to DIR would ("cannot save to DIR: reason",
// core/io/directory_writer.h) without writing anything: neither DIR nor the parent
// directories the save would create are left behind.
void check_save_dir(const std::string& dir);

// Throws hs::Error when `dir` exists and is not an empty directory, unless `force`: a save
// there would replace the model it holds (a long training run's checkpoint, say), or put
// a model among other files. A path that does not exist yet is fine.
void refuse_to_replace(const std::string& dir, bool force);

// Throws hs::Error unless `source`'s model can be written to `dir` as a model directory
// that reopens the same: it has a model, saving loses nothing of it (its tokenizer, its
// task's tokens: TraceSource::lost_by_saving), and `dir` passes refuse_to_replace.
void check_can_save(const TraceSource& source, const std::string& dir, bool force);

// The comma-separated items of an option's value ("a,b,,c" -> a, b, c).
std::vector<std::string> split_list(const std::string& value);

// Throws hs::Error when --decoder asks for the decoder stack of a model that has one
// stack only (an encoder or a decoder): the flag is for encoder-decoder models.
void check_has_decoder_stack(const Trace& trace);

// The attention maps of one layer: self-attention, or cross-attention with cross = true.
// Throws hs::Error naming the valid range when layer/head is out of range.
void check_layer_head(const Trace& trace, int layer, int head, bool decoder, bool cross);

// How many numbers trace_to_json writes for `trace`: inputs, outputs, every map (weights and
// scores) and the detailed steps, roughly. Used to refuse JSON too large to build in memory.
// Maps the map budget dropped count at full size (H × T × S, × 2 with `scores`).
std::size_t trace_number_count(const Trace& trace, bool scores = false);
// The same before the forward, for a one-stack model's trace of `tokens` tokens without taps
// or steps: the input and final hidden states and each layer's output (T, D), and each
// layer's H maps (T, T), twice with `scores`.
std::size_t trace_number_count(const ModelConfig& config, std::size_t tokens, bool scores);

// --map-budget MiB (forward, export): bytes of attention maps a forward keeps resident
// (TraceOptions::map_budget_bytes); `fallback` when the option is absent.
std::int64_t read_map_budget(const Args& args, std::int64_t fallback);

// The most numbers `forward --json` writes (~20 bytes each in JSON, so ~1.3 GB of text).
constexpr std::size_t kMaxJsonNumbers = 64'000'000;

}  // namespace hs
