#pragma once
// TraceSource over a pretrained transformer and its tokenizer (llama2.c checkpoints, HF
// directories). run() tokenises the text with special tokens (BOS, [CLS] … [SEP]); an
// empty text for a decoder language model starts from BOS alone.
#include <memory>
#include <string>

#include "core/source.h"
#include "core/tokenize/tokenizer.h"

namespace hs {

class PretrainedSource : public TraceSource {
public:
    PretrainedSource(Model model, std::unique_ptr<Tokenizer> tokenizer);

    std::string name() const override { return model_.name(); }
    std::string kind() const override;  // "llama2.c checkpoint", "gpt2 model", …
    const ModelConfig& config() const override { return model_.config(); }
    long long parameter_count() const override { return model_.parameter_count(); }
    std::string describe() const override;
    Trace run(const SourceInput& input, const TraceOptions& options,
              const ProgressFn& progress = nullptr) const override;


    const Model* model() const override { return &model_; }
    const Tokenizer* tokenizer() const override { return tokenizer_.get(); }
    std::string lost_by_saving() const override {
        return "its own tokenizer (" + config().family + "), which a saved model directory does not hold";
    }
    // Ids run() would use for `text` (BOS alone for an empty text of a decoder LM).
    Tokens tokenize(const std::string& text) const override;

private:
    Model model_;
    std::unique_ptr<Tokenizer> tokenizer_;
};

std::unique_ptr<TraceSource> make_pretrained_source(Model model,
                                                    std::unique_ptr<Tokenizer> tokenizer);

}  // namespace hs
