#pragma once
// llama2.c checkpoints (Karpathy's "legacy" export, ../shared/models/README.md):
//   7 × int32 header: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
//   (vocab_size < 0: the classifier is stored separately), then float32 arrays:
//   token_embedding (V, D); rms_att (L, D); wq (L, D, D); wk, wv (L, Hkv·Dh, D);
//   wo (L, D, D); rms_ffn (L, D); w1 (L, F, D); w2 (L, D, F); w3 (L, F, D); rms_final (D);
//   freq_cis_real, freq_cis_imag (seq_len · Dh/2 each, skipped); classifier (V, D) if unshared.
// Architecture: pre-norm RMSNorm (eps 1e-5), RoPE on adjacent pairs (theta 10000), SwiGLU
// down(silu(w1 x) ⊙ w3 x) = w2(…), grouped-query attention, causal; as a ModelConfig:
// decoder, pre-norm rmsnorm, pe rope interleaved, act swiglu, kv_heads, no biases, tied
// or separate LM head. wq, wk, wv are stacked into in_proj_weight, w3 is linear1 (up),
// w1 the gate, w2 linear2 (down).
#include <memory>
#include <string>

#include "core/model/model.h"
#include "core/tokenize/llama2c_tokenizer.h"

namespace hs {

// Reads and validates a checkpoint: the file size must be exactly what the header implies.
// Throws hs::Error naming the file and the problem.
Model load_llama2c_model(const std::string& bin_path);

// The tokenizer beside a checkpoint: `tokenizer.bin`, else the one `tok*.bin` in the same
// directory. Throws hs::Error if there is none (or several tok*.bin to choose from).
std::string find_llama2c_tokenizer(const std::string& bin_path);

struct Llama2cCheckpoint {
    Model model;
    std::unique_ptr<Llama2cTokenizer> tokenizer;
};

// Model + tokenizer; an empty tokenizer_path means find_llama2c_tokenizer(bin_path).
Llama2cCheckpoint load_llama2c(const std::string& bin_path, const std::string& tokenizer_path = "");

}  // namespace hs
