#include "cli/common.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/io/directory_writer.h"
#include "core/io/model_dir.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {

void note_unread_text(const TraceSource& source, const std::vector<std::string>& unknown, const ByteTokens& bytes) {
    if (!unknown.empty()) {
        const std::string words = bracketed_words(unknown);
        const bool one = unknown.size() == 1;
        std::fprintf(stderr, "note: %zu %s not in the vocabulary of '%s': %s read as its unknown token (%s)\n",
                     unknown.size(), one ? "word is" : "words are", source.name().c_str(),
                     one ? "it was" : "each was", words.c_str());
    }
    if (bytes.count > 0)
        std::fprintf(stderr, "note: %d %s raw %s such as %s: the vocabulary of '%s' has no piece for "
                             "some characters\n", bytes.count, bytes.count == 1 ? "token is a" : "tokens are",
                     bytes.count == 1 ? "byte" : "bytes", bytes.first.c_str(), source.name().c_str());
}

void note_input_losses(const TraceSource& source, const Trace& trace) {
    note_unread_text(source, unknown_words(source, trace.main), byte_tokens_of(trace.main.tokens));
    if (trace.dropped_tokens > 0)
        std::fprintf(stderr, "note: ran the first %zu tokens of the text; %d more were left out (--keep-first)\n",
                     trace.main.tokens.size(), trace.dropped_tokens);
    if (trace.dropped_decoder_tokens > 0 && trace.decoder)
        std::fprintf(stderr, "note: ran the first %zu tokens of the decoder text; %d more were left out (--keep-first)\n",
                     trace.decoder->tokens.size(), trace.dropped_decoder_tokens);
}

std::string input_text(const Args& args) {
    const auto text = args.value("text"), file = args.value("text-file");
    if (text && file) throw UsageError{"give the input with --text or with --text-file, not both"};
    return file ? input_text_of_file(read_text_file(*file)) : text.value_or("");
}

SourceInput read_source_input(const Args& args, const TraceSource& source) {
    SourceInput in;
    in.text = input_text(args);
    if (const auto d = args.value("decoder-text")) in.decoder_text = *d;
    in.keep_first = args.flag("keep-first");
    if (const auto pad = args.value("pad")) {
        std::stringstream ss(*pad);
        std::string item;
        while (std::getline(ss, item, ',')) {
            try {
                std::size_t used = 0;
                const int p = std::stoi(item, &used);
                if (used != item.size()) throw std::invalid_argument(item);
                in.key_padding.push_back(p);
            } catch (const std::exception&) {
                throw UsageError{"--pad takes comma-separated token positions, got '" + item + "'"};
            }
        }
    }
    if (!source.takes_text() && (args.value("text") || args.value("text-file") ||
                                 args.value("decoder-text")))
        std::fputs("note: a worked example carries its own input X; --text is not used\n", stderr);
    if (source.takes_text() && in.text.empty() && !args.value("text") && !args.value("text-file"))
        throw UsageError{"give the input with --text \"…\" or --text-file FILE"};
    return in;
}

std::vector<std::string> split_list(const std::string& value) {
    std::vector<std::string> items;
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) items.push_back(item);
    return items;
}

void write_output(const std::string& path, const std::string& bytes) {
    if (path == "-") {
        if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
            throw Error(std::string("cannot write the output to standard output: ") + std::strerror(errno));
        return;
    }
    write_file_atomic(path, bytes);
}

namespace {

namespace fs = std::filesystem;

// Thrown by a writer that was handed its temporary file or directory: every check the
// write makes has passed, and the writer removes what it made.
struct WritableProbe {};

// The directories above `dir` that do not exist, innermost first: those its save creates.
std::vector<fs::path> missing_parents(const std::string& dir) {
    std::vector<fs::path> missing;
    std::error_code ec;
    for (fs::path p = resolve_links(dir).lexically_normal().parent_path();
         !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path())
        missing.push_back(p);
    return missing;
}

}  // namespace

void check_output_path(const std::string& path) {
    if (path == "-") return;
    try {
        write_file_atomic(path, [](const PutBytes&) { throw WritableProbe{}; });
    } catch (const WritableProbe&) {
    }
}

void check_output_paths(const Args& args, std::initializer_list<const char*> options) {
    std::vector<std::pair<std::string, std::string>> seen;  // (file, --option)
    for (const char* option : options) {
        const auto path = args.value(option);
        if (!path) continue;
        const std::string file = *path == "-" ? "-" : landing_path(*path);
        for (const auto& [other_file, other_option] : seen)
            if (!file.empty() && file == other_file)
                throw UsageError{"--" + other_option + " and --" + option + " both name " + *path +
                                 ": give each output its own file"};
        seen.emplace_back(file, option);
        check_output_path(*path);
    }
}

void check_save_dir(const std::string& dir) {
    const std::vector<fs::path> created = missing_parents(dir);
    const auto remove_created = [&] {
        std::error_code ec;
        for (const fs::path& p : created) fs::remove(p, ec);  // empty directories only
    };
    try {
        write_directory_atomic(dir, [](const std::string&) { throw WritableProbe{}; });
    } catch (const WritableProbe&) {
        remove_created();
    } catch (...) {
        remove_created();
        throw;
    }
}

void refuse_to_replace(const std::string& dir, bool force) {
    if (force) return;
    switch (save_target(dir)) {
    case SaveTarget::HoldsModel:
        throw Error(dir + " already holds a model (config.json): choose another directory, or pass --force to replace it");
    case SaveTarget::HoldsOtherFiles:
        throw Error(dir + " is a directory that is not empty: choose a new directory for the model, or pass --force to "
                          "write it there among the other files");
    case SaveTarget::Free:
        break;
    }
}

void check_can_save(const TraceSource& source, const std::string& dir, bool force) {
    if (!source.model())
        throw Error("only playground models and model directories can be saved; '" + source.name() + "' is a " +
                    source.kind());
    // A saved directory reopens with the playground tokenizer: a real checkpoint's own
    // tokenizer or a trained model's task tokens would be lost, and its ids would silently
    // change meaning.
    if (const std::string lost = source.lost_by_saving(); !lost.empty())
        throw Error(source.name() + " cannot be saved without losing " + lost +
                    ": its copy would read text differently; copy its files instead");
    refuse_to_replace(dir, force);
}

void check_has_decoder_stack(const Trace& trace) {
    if (!trace.decoder)
        throw Error("--decoder is for encoder-decoder models; this one has a single stack (arch=" +
                    to_string(trace.config.arch) + "), which is what you get without --decoder");
}

void check_layer_head(const Trace& trace, int layer, int head, bool decoder, bool cross) {
    if (decoder) check_has_decoder_stack(trace);
    const StackTrace& stack = decoder ? *trace.decoder : trace.main;
    const int n_layers = static_cast<int>(stack.layers.size());
    if (layer < 0 || layer >= n_layers)
        throw Error("layer " + std::to_string(layer) + " is out of range: the model has " +
                    std::to_string(n_layers) + " layers (0.." + std::to_string(n_layers - 1) + ")");
    if (cross && !stack.layers[layer].cross_attn)
        throw Error("layer " + std::to_string(layer) + " has no cross-attention");
    const HeadMaps& maps = cross ? *stack.layers[layer].cross_attn : stack.layers[layer].self_attn;
    const int n_heads = head_count(trace, maps);
    if (head < 0 || head >= n_heads)
        throw Error("head " + std::to_string(head) + " is out of range: layer " +
                    std::to_string(layer) + " has " + std::to_string(n_heads) + " heads (0.." +
                    std::to_string(n_heads - 1) + ")");
}

std::int64_t read_map_budget(const Args& args, std::int64_t fallback) {
    const auto mib = args.integer("map-budget", 0, 1LL << 30);  // MiB
    return mib ? *mib * (std::int64_t{1} << 20) : fallback;
}

namespace {

std::size_t maps_count(const std::vector<Matrix>& maps) {
    std::size_t n = 0;
    for (const Matrix& m : maps) n += static_cast<std::size_t>(m.size());
    return n;
}

// Numbers of one block's maps; a dropped block counts H maps of (T, S) (twice with scores).
std::size_t block_count(const HeadMaps& m, int heads, std::size_t cells, bool scores) {
    if (!m.resident) return static_cast<std::size_t>(heads) * cells * (scores ? 2 : 1);
    return maps_count(m.weights) + maps_count(m.scores);
}

std::size_t stack_count(const StackTrace& s, const StackTrace& keys, int heads, bool scores) {
    std::size_t n = static_cast<std::size_t>(s.input.size() + s.final_output.size());
    const std::size_t t = s.ids.size(), t_keys = keys.ids.size();
    for (const LayerTrace& l : s.layers) {
        n += static_cast<std::size_t>(l.output.size());
        n += block_count(l.self_attn, heads, t * t, scores);
        if (l.cross_attn) n += block_count(*l.cross_attn, heads, t * t_keys, scores);
    }
    return n;
}

}  // namespace

std::size_t trace_number_count(const Trace& trace, bool scores) {
    const int heads = trace.config.heads;
    std::size_t n = stack_count(trace.main, trace.main, heads, scores);
    if (trace.decoder) n += stack_count(*trace.decoder, trace.main, heads, scores);
    for (const Trace::Tapped& tap : trace.taps) n += static_cast<std::size_t>(tap.value.size());
    if (trace.steps) {
        const AttentionSteps& st = *trace.steps;
        n += static_cast<std::size_t>(st.qkv.size() + st.kv_memory.size() + st.w_in.size() + st.concat.size() +
                                      st.output.size());
        // raw, scaled, masked scores and weights: four (T, S) maps per head.
        n += 4 * maps_count(st.weights);
    }
    return n;
}

std::size_t trace_number_count(const ModelConfig& config, std::size_t tokens, bool scores) {
    const auto layers = static_cast<std::size_t>(config.layers), d = static_cast<std::size_t>(config.d_model);
    const std::size_t maps = layers * static_cast<std::size_t>(config.heads) * tokens * tokens * (scores ? 2 : 1);
    return (2 + layers) * tokens * d + maps;
}

}  // namespace hs
