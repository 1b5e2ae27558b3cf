#include "app/model_info.h"

#include "core/continuation.h"
#include "core/source.h"

namespace hs {

namespace {

// A worked example's title, description and source, in English and Chinese.
void copy_example_notes(const WorkedExample& e, ModelInfo& info) {
    info.example_title = e.title;
    info.example_description = e.description;
    info.example_source = e.source;
    info.example_title_zh = e.title_zh;
    info.example_description_zh = e.description_zh;
    info.example_source_zh = e.source_zh;
    info.example_from_article = !e.article.empty();
}

}  // namespace

ModelInfo describe_model(const TraceSource& source) {
    ModelInfo info;
    info.kind = source.kind();
    info.parameters = source.parameter_count();
    info.memory_bytes = info.parameters * 4;
    const ModelConfig& c = source.config();
    // Real models say where they came from; playground models are their architecture.
    info.pretrained = !c.family.empty();
    info.family = c.family.empty() ? to_string(c.arch) : c.family;
    info.d_model = c.d_model;
    info.heads = c.heads;
    info.kv_heads = c.kv_head_count();
    info.head_dim = c.d_h();
    info.layers = c.layers;
    info.d_ff = c.d_ff;
    info.vocab = c.vocab;
    info.max_len = c.max_len;
    if (source.tokenizer() && info.pretrained) info.tokenizer_vocab = source.tokenizer()->vocab_size();
    if (const Model* model = source.model()) {
        info.dtype = model->stored_dtype();
        info.memory_bytes = static_cast<long long>(model->f32_weight_bytes());  // one layer when read from the file
    }
    info.decoder_lm = can_continue(source);
    if (const WorkedExample* e = source.worked_example()) copy_example_notes(*e, info);
    return info;
}

ModelInfo describe_example(const WorkedExample& example) {
    ModelInfo info;
    info.kind = "worked example";
    info.family = "encoder";
    info.d_model = static_cast<int>(example.x.cols());
    info.heads = example.weights.heads;
    info.head_dim = example.weights.d_h();
    info.layers = 1;
    info.parameters = static_cast<long long>(example.weights.in_proj_weight.size() + example.weights.out_proj_weight.size());
    info.memory_bytes = info.parameters * 4;
    copy_example_notes(example, info);
    return info;
}

}  // namespace hs
