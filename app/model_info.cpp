#include "app/model_info.h"

#include "core/pretrained/pretrained_source.h"

namespace hs {

ModelInfo describe_model(const TraceSource& source) {
    ModelInfo info;
    info.kind = source.kind();
    info.parameters = source.parameter_count();
    info.memory_bytes = info.parameters * 4;
    if (const auto* p = dynamic_cast<const PretrainedSource*>(&source)) {
        const TransformerConfig& c = p->transformer().config();
        info.pretrained = true;
        info.family = c.family;
        info.d_model = c.d_model;
        info.heads = c.heads;
        info.kv_heads = c.kv_heads;
        info.head_dim = c.head_dim;
        info.layers = c.layers;
        info.d_ff = c.d_ff;
        info.vocab = c.vocab;
        info.max_len = c.max_len;
        info.tokenizer_vocab = p->tokenizer().vocab_size();
        info.dtype = c.dtype;
        info.decoder_lm = c.causal && c.has_lm_head;
        return info;
    }
    const ModelConfig& c = source.config();
    info.family = to_string(c.arch);
    info.d_model = c.d_model;
    info.heads = c.heads;
    info.kv_heads = c.heads;
    info.head_dim = c.heads > 0 ? c.d_model / c.heads : 0;
    info.layers = c.layers;
    info.d_ff = c.d_ff;
    info.vocab = c.vocab;
    info.max_len = c.max_len;
    return info;
}

}  // namespace hs
