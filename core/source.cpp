#include "core/source.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "core/io/state_dict.h"
#include "core/image/utf8.h"
#include "core/pretrained_source.h"
#include "core/tokenize/byte_fallback.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/playground_tokenizer.h"
#include "core/tokenize/tokenizer.h"
#include "core/worked_example.h"

namespace hs {

namespace {

std::string shape_string(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// A playground or model-directory model, tokenised with the playground tokenizer.
class ModelSource : public TraceSource {
public:
    ModelSource(Model model, std::string kind)
        : model_(std::move(model)), kind_(std::move(kind)), tokenizer_(model_.config().vocab) {}

    std::string name() const override { return model_.name(); }
    std::string kind() const override { return kind_; }
    const ModelConfig& config() const override { return model_.config(); }
    long long parameter_count() const override { return model_.parameter_count(); }
    const Model* model() const override { return &model_; }
    // The playground tokenizer hashes words to ids; it is not a Tokenizer (no decoding).
    Tokens tokenize(const std::string& text) const override { return tokenizer_.encode(text); }

    std::string describe() const override {
        const ModelConfig& c = model_.config();
        std::ostringstream out;
        out << "model:      " << model_.name() << " (" << kind_ << ")\n"
            << "arch:       " << to_string(c.arch) << "\n"
            << "d_model:    " << c.d_model << "\n"
            << "heads:      " << c.heads << " (d_k " << c.d_h() << ")\n"
            << "layers:     " << c.layers << (c.arch == Arch::EncoderDecoder ? " + " +
                                                  std::to_string(c.layers) + " decoder" : "")
            << "\n"
            << "d_ff:       " << c.d_ff << "\n"
            << "vocab:      " << c.vocab << "\n"
            << "max_len:    " << c.max_len << "\n"
            << "positions:  " << to_string(c.pe)
            << (c.pe == PosEncoding::Rotary ? " (" + to_string(c.rope_layout) + ", theta " +
                                                  std::to_string(int(c.rope_theta)) + ")"
                                            : std::string())
            << "\n"
            << "norm:       " << to_string(c.norm) << " " << to_string(c.norm_kind) << " (eps "
            << c.norm_eps << ")\n"
            << "activation: " << to_string(c.activation) << "\n"
            << "kv heads:   " << c.kv_head_count() << "\n"
            << "biases:     " << (c.qkv_bias ? "qkv " : "") << (c.out_bias ? "out " : "")
            << (c.mlp_bias ? "mlp" : "") << (c.qkv_bias || c.out_bias || c.mlp_bias ? "" : "none")
            << "\n"
            << "lm head:    " << to_string(c.lm_head) << "\n"
            << "mask:       " << to_string(c.mask) << "\n"
            << "seed:       " << c.seed << "\n"
            << "parameters: " << model_.parameter_count() << "\n"
            << "tensors:\n";
        for (const auto& [name, shape] : expected_tensors(c))
            out << "  " << name << " " << shape_string(shape) << " f32\n";
        return out.str();
    }

    Trace run(const SourceInput& input, const TraceOptions& options,
              const ProgressFn& progress) const override {
        const ModelConfig& c = model_.config();
        const PlaygroundTokenizer& tokenizer = tokenizer_;
        const Tokens main = tokenizer.encode(input.text);
        if (main.ids.empty())
            throw InputError("the text is empty: type a sentence or pick a sample");
        ForwardInput in;
        in.ids = main.ids;
        in.tokens = main.text;
        in.keep_first = input.keep_first;
        in.key_padding = input.key_padding;
        if (c.arch == Arch::EncoderDecoder) {
            const Tokens dec =
                tokenizer.encode(input.decoder_text.empty() ? input.text : input.decoder_text);
            if (dec.ids.empty()) throw InputError("the decoder text is empty");
            in.decoder_ids = dec.ids;
            in.decoder_tokens = dec.text;
        }
        return model_.forward(in, options, progress);
    }

private:
    Model model_;
    std::string kind_;
    PlaygroundTokenizer tokenizer_;
};

class WorkedExampleSource : public TraceSource {
public:
    WorkedExampleSource(WorkedExample example, std::string path)
        : example_(std::move(example)), path_(std::move(path)) {
        config_.arch = Arch::EncoderOnly;
        config_.d_model = static_cast<int>(example_.x.cols());
        config_.heads = example_.weights.heads;
        config_.layers = 1;
        config_.pe = PosEncoding::None;
        config_.mask = example_.causal ? MaskKind::Causal : MaskKind::None;
        config_.max_len = static_cast<int>(example_.x.rows());
    }
    std::string name() const override {
        return example_.title.empty() ? path_ : example_.title;
    }
    std::string kind() const override { return "worked example"; }
    const WorkedExample* worked_example() const override { return &example_; }
    const ModelConfig& config() const override { return config_; }
    long long parameter_count() const override {
        const auto& w = example_.weights;
        return static_cast<long long>(w.in_proj_weight.size() + w.out_proj_weight.size());
    }
    bool takes_text() const override { return false; }
    std::string describe() const override {
        const auto& w = example_.weights;
        std::ostringstream out;
        out << "worked example: " << name() << "\n"
            << "file:       " << path_ << "\n"
            << "X:          " << example_.x.rows() << " × " << example_.x.cols() << "\n"
            << "heads:      " << w.heads << " (d_k " << w.d_h() << ")\n"
            << "W_in:       " << w.in_proj_weight.rows() << " × " << w.in_proj_weight.cols()
            << " (fused [W_Qᵀ; W_Kᵀ; W_Vᵀ])\n"
            << "W_out:      " << w.out_proj_weight.rows() << " × " << w.out_proj_weight.cols()
            << "\n"
            << "mask:       " << (example_.causal ? "causal" : "none") << "\n";
        if (!example_.description.empty()) out << "\n" << example_.description << "\n";
        return out.str();
    }
    Trace run(const SourceInput&, const TraceOptions&, const ProgressFn&) const override {
        return example_.run();
    }

private:
    WorkedExample example_;
    std::string path_;
    ModelConfig config_;
};

}  // namespace

const HeadMaps& kept_or_recomputed(const TraceSource& source, const Trace& trace, const HeadRef& block,
                                   bool scores, HeadMaps& recomputed) {
    const HeadMaps& stored = maps_of(trace, block);
    if (stored.resident) return stored;
    recomputed = source.layer_maps(trace, block, scores);
    return recomputed;
}

HeadMaps TraceSource::layer_maps(const Trace& trace, const HeadRef& block, bool scores) const {
    const HeadMaps& maps = maps_of(trace, block);
    if (maps.resident) return maps;
    if (model()) return recompute_layer_maps(*model(), trace, block, scores);
    throw Error("the maps of layer " + std::to_string(block.layer) + " were not kept and '" +
                name() + "' (" + kind() + ") cannot recompute them");
}

std::vector<std::string> unknown_words(const TraceSource& source, const std::vector<int>& ids,
                                       const std::vector<std::string>& tokens) {
    std::vector<std::string> words;
    const Tokenizer* tokenizer = source.continuation_tokenizer();
    const int unk = tokenizer ? tokenizer->unk_id() : -1;
    if (unk < 0) return words;
    for (std::size_t i = 0; i < ids.size() && i < tokens.size(); ++i)
        if (ids[i] == unk && std::find(words.begin(), words.end(), tokens[i]) == words.end())
            words.push_back(tokens[i]);
    return words;
}

std::string bracketed_words(const std::vector<std::string>& words) {
    std::string out;
    for (std::size_t i = 0; i < words.size() && i < 5; ++i) {
        const std::u32string cps = utf8_to_codepoints(words[i]);
        out += (i ? " [" : "[") + (cps.size() <= 16 ? words[i] : codepoints_to_utf8(cps.substr(0, 15)) + "…") + "]";
    }
    if (words.size() > 5) out += " …";
    return out;
}

std::vector<std::string> unknown_words(const TraceSource& source, const StackTrace& stack) {
    return unknown_words(source, stack.ids, stack.tokens);
}

bool reads_whole_text(const TraceSource& source, const std::string& text) {
    if (!source.takes_text()) return false;
    try {
        const Tokens t = source.tokenize(text);
        return unknown_words(source, t.ids, t.text).empty() && byte_tokens_of(t.text).count == 0;
    } catch (const Error&) {
        return false;
    }
}

Tokens TraceSource::tokenize(const std::string& text) const {
    if (!tokenizer()) throw Error("'" + name() + "' (" + kind() + ") does not take text");
    return tokenizer()->encode(text, true);
}

std::unique_ptr<TraceSource> make_model_source(Model model, std::string kind) {
    return std::make_unique<ModelSource>(std::move(model), std::move(kind));
}

bool same_but_heads(const ModelConfig& a, const ModelConfig& b) {
    if (!a.heads_only_split() || !b.heads_only_split()) return false;  // shapes follow heads
    ModelConfig a_with_b_heads = a;
    a_with_b_heads.heads = b.heads;
    return a_with_b_heads == b;
}

std::unique_ptr<TraceSource> open_playground(const ModelConfig& config, const TraceSource* previous) {
    if (previous && previous->model()) {
        const ModelConfig& old = previous->model()->config();
        if (same_but_heads(config, old) && config.heads != old.heads)
            return std::make_unique<ModelSource>(previous->model()->with_heads(config.heads), "playground");
    }
    return std::make_unique<ModelSource>(Model::random(config), "playground");
}

std::unique_ptr<TraceSource> make_worked_example_source(WorkedExample example, std::string path) {
    return std::make_unique<WorkedExampleSource>(std::move(example), std::move(path));
}

}  // namespace hs
