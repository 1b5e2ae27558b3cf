#pragma once
// A TraceSource is whatever the user pointed HeadScope at: a playground spec
// ("random:…"), a model directory, or a worked-example JSON. The CLI and the app both
// go through this one interface: text in, Trace out.
#include <memory>
#include <string>

#include "core/model/model.h"
#include "core/tokenize/tokenizer.h"
#include "core/model/trace.h"

namespace hs {
struct WorkedExample;  // core/worked_example.h
}

namespace hs {

struct SourceInput {
    std::string text;          // main / encoder text
    std::string decoder_text;  // encoder-decoder only (default: same as text)
    std::vector<int> key_padding;
    bool keep_first = false;   // text longer than the model reads: run its first max_len tokens
};

class TraceSource {
public:
    virtual ~TraceSource() = default;
    virtual std::string name() const = 0;           // what the user typed / a title
    virtual std::string kind() const = 0;           // "playground", "model directory", "worked example"
    virtual const ModelConfig& config() const = 0;
    virtual long long parameter_count() const = 0;
    // Human-readable summary lines for `inspect` (config, tensors, parameter count).
    virtual std::string describe() const = 0;
    // Whether the text input is used (worked examples carry their own X).
    virtual bool takes_text() const { return true; }
    // A text this source reads, for a window whose text it cannot (a task model reads
    // "<bos> #5 #9 <sep> …", not English); "" when ordinary text will do.
    virtual std::string example_text() const { return ""; }
    // Throws hs::Error on empty text, text longer than max_len tokens, and so on.
    virtual Trace run(const SourceInput& input, const TraceOptions& options,
                      const ProgressFn& progress = nullptr) const = 0;
    // The full maps of one attention block of `trace` (a trace this source produced),
    // recomputed from its stored hidden states (recompute_layer_maps with model()) when
    // the forward dropped them to stay within TraceOptions::map_budget_bytes; a resident
    // block is returned as stored (with scores only if it has them). Throws hs::Error when
    // it cannot.
    virtual HeadMaps layer_maps(const Trace& trace, const HeadRef& block, bool scores) const;
    // The underlying model, when there is one (every source but worked examples).
    virtual const Model* model() const { return nullptr; }
    // What a model directory written from model() (save_model_dir: config and weights)
    // would lose of this source, so that it reopens reading text differently: a real
    // checkpoint's tokenizer, a trained model's task tokens. "" when nothing is lost.
    virtual std::string lost_by_saving() const { return ""; }
    // The worked example behind a worked-example source (its title, description and
    // source are what the Model panel shows); null for every other source.
    virtual const WorkedExample* worked_example() const { return nullptr; }
    // The tokenizer run() uses for real models (null for playground models, whose hashed
    // ids cannot be decoded, and worked examples).
    virtual const Tokenizer* tokenizer() const { return nullptr; }
    // What reads generated ids back as text (core/continuation.h): the tokenizer of a real
    // model, the task's tokens for a model HeadScope trained; null when ids cannot be read
    // back (playground models' hashed words, worked examples).
    virtual const Tokenizer* continuation_tokenizer() const { return tokenizer(); }
    // The tokens run() would feed the main stack for `text` (special tokens included).
    // Throws hs::Error for a source that takes no text.
    virtual Tokens tokenize(const std::string& text) const;
};

// The tokens of `stack` that the source's vocabulary does not hold (they became its
// unknown token, [UNK] or <unk>, and the model cannot tell them apart), each once, in
// order of first appearance. Empty for a vocabulary without an unknown token.
std::vector<std::string> unknown_words(const TraceSource& source, const StackTrace& stack);
// The first five of `words` in brackets, as tokens print ("[zorblax] [“] …": a comma or a
// quote mark can be a word too), each cut to 16 code points: a note a few lines long
// whatever was typed (the input panel's and the CLI's).
std::string bracketed_words(const std::vector<std::string>& words);
// The same for tokens not yet run: ids and their display strings, side by side.
std::vector<std::string> unknown_words(const TraceSource& source, const std::vector<int>& ids,
                                       const std::vector<std::string>& tokens);

// Whether `source` reads every part of `text` as itself: no word becomes its unknown
// token and no character is spelled as raw bytes (<0xE5>). A source that takes no text,
// or a text it cannot tokenize, reads none of it. (The window marks the sample sentences
// the model on screen cannot read.)
bool reads_whole_text(const TraceSource& source, const std::string& text);

// The maps of `block`: the trace's own when the forward kept them, else recomputed by
// `source` into `recomputed` (which the result then refers to). Without copying a
// resident block, unlike layer_maps.
const HeadMaps& kept_or_recomputed(const TraceSource& source, const Trace& trace, const HeadRef& block,
                                   bool scores, HeadMaps& recomputed);

// The playground model of `config` for a live edit: when `previous` holds a model whose
// config differs from `config` only in heads (same seed, shapes, mask, norm, …), the
// model is previous's with the new head count (Model::with_heads: the weights do not
// depend on heads), equal to a fresh Model::random(config) but without initialising ~20M
// weights. Otherwise Model::random(config). Throws hs::Error for an invalid config.
std::unique_ptr<TraceSource> open_playground(const ModelConfig& config, const TraceSource* previous);
// Whether two configs are equal in every field but heads.
bool same_but_heads(const ModelConfig& a, const ModelConfig& b);
// A source over an in-memory model, tokenised with the playground tokenizer; `kind` is
// what TraceSource::kind says ("playground", "model directory").
std::unique_ptr<TraceSource> make_model_source(Model model, std::string kind = "playground");
// A source over a worked example read from `path`.
std::unique_ptr<TraceSource> make_worked_example_source(WorkedExample example, std::string path);

}  // namespace hs
