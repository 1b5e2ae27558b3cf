#pragma once
// What the Model panel shows about the opened model: architecture family, sizes,
// parameter count, stored dtype and memory. Filled on the worker from the TraceSource
// (a pretrained model's TransformerConfig, else the playground ModelConfig).
#include <string>
#include <vector>

#include "core/source.h"
#include "core/worked_example.h"

namespace hs {

struct ModelInfo {
    bool pretrained = false;   // llama2.c checkpoint or Hugging Face directory
    std::string kind;          // "llama2.c checkpoint", "gpt2 model", "playground", …
    std::string family;        // "llama2.c", "gpt2", "bert", "llama", "qwen2", or the arch
    int d_model = 0, heads = 0, kv_heads = 0, head_dim = 0, layers = 0, d_ff = 0;
    int vocab = 0, max_len = 0, tokenizer_vocab = 0;
    long long parameters = 0;
    std::string dtype = "f32";      // as stored in the file
    long long memory_bytes = 0;     // f32 weights in memory (Model::f32_weight_bytes)
    bool decoder_lm = false;        // can "continue" its text (core can_continue)
    // A worked example's title, description (what it shows, where the article it comes
    // from is wrong) and source.
    std::string example_title, example_description, example_source;
    std::string example_title_zh, example_description_zh, example_source_zh;  // "" = none
    bool example_from_article = false;  // it records numbers an article printed (not our own example)
    // Its printed numbers beside ours ("compare with the article"), or why they cannot be
    // (kEditedExampleNotCompared once its cells are edited).
    std::vector<ArticleCell> article;
    std::string article_error;

    // Query heads share key/value heads (0 < kv_heads < heads).
    bool grouped() const { return kv_heads > 0 && kv_heads < heads; }
};

inline constexpr const char* kEditedExampleNotCompared =
    "The example's inputs were edited here, so its numbers are no longer the article's and are not compared: "
    "discard the cell edits to compare again.";

ModelInfo describe_model(const TraceSource& source);
// A worked example the user edited (run without a source): its notes and shapes.
ModelInfo describe_example(const WorkedExample& example);

}  // namespace hs
