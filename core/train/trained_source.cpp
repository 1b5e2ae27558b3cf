#include "core/train/trained_source.h"

#include <charconv>
#include <sstream>

#include "core/error.h"
#include "core/corpus/annotated.h"
#include "core/tokenize/playground_tokenizer.h"
#include "core/tokenize/tokenizer.h"
#include "core/train/text_corpus.h"

namespace hs::train {

namespace {

// "#7", "7", "<bos>", "<sep>" → id; -1 when it is none of them.
int symbol_id(const std::string& token) {
    if (token == "<bos>" || token == "BOS") return kBos;
    if (token == "<sep>" || token == "SEP") return kSep;
    const std::string digits = !token.empty() && token[0] == '#' ? token.substr(1) : token;
    int id = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() ? id : -1;
}

std::string symbol_name(int id) {
    if (id == kBos) return "<bos>";
    if (id == kSep) return "<sep>";
    return "#" + std::to_string(id);
}

// The task's tokens as a Tokenizer, so that a continuation reads back as the task's text
// ("continue", `headscope generate`). BOS (0) ends a continuation, as in llama2.c.
class TaskTokenizer : public Tokenizer {
public:
    TaskTokenizer(const TaskSpec& task, int vocab) : task_(task), vocab_(vocab) {}
    Tokens encode(const std::string& text, bool) const override { return encode_task_text(task_, text); }
    std::string decode(const std::vector<int>& ids) const override { return task_text(task_, ids); }
    std::string display(int id) const override { return id == kBos ? "<bos>" : task_text(task_, {id}); }
    int vocab_size() const override { return vocab_; }
    int bos_id() const override { return kBos; }
    // Words outside a text or grammar task's vocabulary read as <unk> (id 1).
    int unk_id() const override { return task_.text || task_.words ? 1 : -1; }

private:
    const TaskSpec& task_;
    int vocab_;
};

class TrainedSource : public TraceSource {
public:
    TrainedSource(Model model, TaskSpec task, std::string name)
        : model_(std::move(model)), task_(std::move(task)), name_(std::move(name)),
          tokenizer_(task_, model_.config().vocab) {}
    // tokenizer_ refers to task_: neither copied nor moved.
    TrainedSource(const TrainedSource&) = delete;
    TrainedSource& operator=(const TrainedSource&) = delete;

    std::string name() const override { return name_; }
    std::string kind() const override { return "trained model"; }
    const ModelConfig& config() const override { return model_.config(); }
    long long parameter_count() const override { return model_.parameter_count(); }
    const Model* model() const override { return &model_; }
    std::string lost_by_saving() const override {
        return "the tokens of the task it was trained on (trainer.json), which a saved model directory does not hold";
    }
    Tokens tokenize(const std::string& text) const override { return encode_task_text(task_, text); }
    const Tokenizer* continuation_tokenizer() const override { return &tokenizer_; }
    // A held-out example of the task (seed 1, the first): the grammar reads English and
    // Chinese sentences, so it needs none.
    std::string example_text() const override {
        if (task_.kind == TaskKind::Grammar) return "";
        return task_text(task_, held_out_example(task_, 1, 0).ids);
    }
    std::string describe() const override {
        std::ostringstream out;
        out << "model:      " << name_ << " (trained on " << to_string(task_.kind) << ")\n"
            << "config:     " << to_playground_spec(model_.config()) << "\n"
            << "parameters: " << model_.parameter_count() << "\n";
        return out.str();
    }

    Trace run(const SourceInput& input, const TraceOptions& options, const ProgressFn& progress) const override {
        const Tokens main = encode_task_text(task_, input.text);
        if (main.ids.empty()) throw InputError(empty_text_message());
        ForwardInput in;
        in.ids = main.ids;
        in.tokens = main.text;
        in.keep_first = input.keep_first;
        in.key_padding = input.key_padding;
        if (model_.config().arch == Arch::EncoderDecoder) {
            const Tokens dec = encode_task_text(task_, input.decoder_text.empty() ? input.text : input.decoder_text);
            if (dec.ids.empty()) throw InputError("the decoder text is empty");
            in.decoder_ids = dec.ids;
            in.decoder_tokens = dec.text;
        }
        Trace trace = model_.forward(in, options, progress);
        for (Trace::NextToken& n : trace.next_tokens) n.text = task_text(task_, {n.id});
        return trace;
    }

private:
    // What to type instead, by task (app/i18n translates each whole sentence).
    std::string empty_text_message() const {
        if (task_.words)
            return "the text is empty: type an English or Chinese sentence of the grammar the model learned, or pick "
                   "a sample";
        if (task_.text) return "the text is empty: type characters or words of the training text";
        return "the text is empty: type the task's tokens (<bos> #5 #9 <sep> …)";
    }

    Model model_;
    TaskSpec task_;
    std::string name_;
    TaskTokenizer tokenizer_;
};

}  // namespace

Tokens encode_task_text(const TaskSpec& task, const std::string& text) {
    Tokens out;
    if (task.words) {  // the grammar: words, every CJK character its own token
        const Tokens split = PlaygroundTokenizer(2).encode(text);
        if (split.text.empty()) return out;
        out.ids.push_back(kBos);
        out.text.push_back("<bos>");
        for (const std::string& t : split.text) {
            out.ids.push_back(task.words->id_of(t));
            out.text.push_back(t);
        }
        return out;
    }
    if (task.text) {
        encode_with_corpus(*task.text, text, out.ids, out.text);
        if (!out.ids.empty()) {
            out.ids.insert(out.ids.begin(), kBos);
            out.text.insert(out.text.begin(), "<bos>");
        }
        return out;
    }
    std::istringstream words(text);
    for (std::string token; words >> token;) {
        const int id = symbol_id(token);
        if (id < 0 || id >= task.vocab)
            throw InputError("'" + token + "' is not a token of the " + to_string(task.kind) + " task: type <bos>, <sep> or "
                        "symbols #2 … #" + std::to_string(task.vocab - 1));
        out.ids.push_back(id);
        out.text.push_back(symbol_name(id));
    }
    return out;
}

std::string task_text(const TaskSpec& task, const std::vector<int>& ids) {
    if (task.words) {
        std::vector<std::string> tokens;
        for (const int id : ids)
            if (id > 0 && id < static_cast<int>(task.words->tokens.size())) tokens.push_back(task.words->tokens[static_cast<std::size_t>(id)]);
        return tokens_text(task, tokens);
    }
    std::string out;
    for (const int id : ids) {
        if (task.text) {
            if (id == kBos || id < 0 || id >= static_cast<int>(task.text->vocab.size())) continue;
            if (!out.empty() && task.text->level == TextLevel::Word) out += ' ';
            out += task.text->vocab[static_cast<std::size_t>(id)];
        } else {
            out += (out.empty() ? "" : " ") + symbol_name(id);
        }
    }
    return out;
}

std::string tokens_text(const TaskSpec& task, const std::vector<std::string>& tokens) {
    if (task.words) {  // as the grammar writes its sentences: Chinese characters together
        corpus::AnnotatedSentence s;
        s.lang = "zh";
        for (const std::string& t : tokens)
            if (t != "<bos>") s.tokens.push_back(t);
        return corpus::text_of(s);
    }
    std::string out;
    for (const std::string& t : tokens) {
        if (task.text && t == "<bos>") continue;  // encode_task_text puts BOS first
        const bool spaced = !task.text || task.text->level == TextLevel::Word;
        out += (spaced && !out.empty() ? " " : "") + t;
    }
    return out;
}

std::unique_ptr<TraceSource> make_trained_source(Model model, TaskSpec task, std::string name) {
    return std::make_unique<TrainedSource>(std::move(model), std::move(task), std::move(name));
}

}  // namespace hs::train
