#pragma once
// GGUF "bert": a BERT encoder as llama.cpp's converter writes it (an embedding model:
// no head; HeadScope shows its attention at every position).
//   embeddings: token_embd (V, D) + position_embd (context_length, D) + token_types
//               (type count, D) row 0, then token_embd_norm (LayerNorm, D);
//   layer N:    x = LN_attn_output_norm(x + attn_output(attn(x))),
//               x = LN_layer_output_norm(x + ffn_down(GELU(ffn_up x))) (post-norm, GELU's
//               erf form); attn_q, attn_k, attn_v (D, D) + biases, no mask, scores / √Dh.
// Keys (bert. prefix): embedding_length, block_count, feed_forward_length,
// attention.head_count, attention.layer_norm_epsilon (1e-12), context_length,
// attention.causal (must be false when present). The same ModelConfig as a Hugging Face
// BertModel (family "bert").
#include <string>

#include "core/model/config.h"
#include "core/model/weights.h"

namespace hs {

class GgufFile;
class GgufTensorReader;

ModelConfig gguf_bert_config(const GgufFile& file, const std::string& arch);
// The embeddings and their norm, read and shape-checked through r; `layers` left empty.
void gguf_bert_outside(const ModelConfig& c, GgufTensorReader& r, ModelWeights& w);
// Layer il's weights into l (its matrices reused when shaped alike).
void gguf_bert_layer(const ModelConfig& c, GgufTensorReader& r, int il, EncoderLayerWeights& l);

}  // namespace hs
