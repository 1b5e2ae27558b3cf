#include "core/pretrained_source.h"

#include <sstream>

#include "core/error.h"
#include "core/model/config_summary.h"

namespace hs {

PretrainedSource::PretrainedSource(Model model, std::unique_ptr<Tokenizer> tokenizer)
    : model_(std::move(model)), tokenizer_(std::move(tokenizer)) {
    if (!tokenizer_) throw Error("pretrained model '" + model_.name() + "' has no tokenizer");
    if (tokenizer_->vocab_size() > model_.config().vocab)
        throw Error("the tokenizer has " + std::to_string(tokenizer_->vocab_size()) +
                    " tokens but the model '" + model_.name() + "' only " +
                    std::to_string(model_.config().vocab));
}

std::string PretrainedSource::kind() const {
    const std::string& f = model_.config().family;
    return f == "llama2.c" ? "llama2.c checkpoint" : f + " model";
}

std::string PretrainedSource::describe() const {
    const ModelConfig& c = model_.config();
    const long long params = model_.parameter_count();
    std::ostringstream out;
    out << "model:      " << model_.name() << " (" << kind() << ")\n"
        << describe_architecture(c, tokenizer_->vocab_size())
        << "dtype:      " << model_.stored_dtype() << " (f32 in memory)\n"
        << "parameters: " << params << "\n"
        << "memory:     " << (params * 4 + (1 << 19)) / (1 << 20) << " MiB\n";
    return out.str();
}

Tokens PretrainedSource::tokenize(const std::string& text) const {
    Tokens t = tokenizer_->encode(text, true);
    if (t.ids.empty() && model_.config().mask == MaskKind::Causal && tokenizer_->bos_id() >= 0) {
        t.ids.push_back(tokenizer_->bos_id());
        t.text.push_back(tokenizer_->display(tokenizer_->bos_id()));
    }
    return t;
}

Trace PretrainedSource::run(const SourceInput& input, const TraceOptions& options,
                            const ProgressFn& progress) const {
    if (!input.key_padding.empty())
        throw Error("padding masks are not supported for pretrained models");
    const Tokens t = tokenize(input.text);
    if (t.ids.empty()) throw InputError("the text is empty: type a sentence or pick a sample");
    ForwardInput in;
    in.ids = t.ids;
    in.tokens = t.text;
    in.keep_first = input.keep_first;
    Trace trace = model_.forward(in, options, progress);
    // Models may pad their vocabulary past the tokenizer's (Qwen2: 151936 vs 151665 ids);
    // a predicted id the tokenizer lacks is shown by number.
    for (auto& next : trace.next_tokens)
        next.text = next.id < tokenizer_->vocab_size() ? tokenizer_->display(next.id)
                                                       : "<id " + std::to_string(next.id) + ">";
    return trace;
}

std::unique_ptr<TraceSource> make_pretrained_source(Model model,
                                                    std::unique_ptr<Tokenizer> tokenizer) {
    return std::make_unique<PretrainedSource>(std::move(model), std::move(tokenizer));
}

}  // namespace hs
