#pragma once
// A GGUF file as a model and its tokenizer (format: core/formats/gguf.h).
//
// Architectures (general.architecture):
//   llama — Llama-2/3-style decoders, including files converted from llama2.c (stories260K)
//           and from Hugging Face Llama checkpoints. Its rotary pairs adjacent dimensions
//           (llama.cpp's "normal" RoPE mode); converters from Hugging Face permute the
//           attn_q / attn_k rows into that order, so the rows are used as they are, with
//           RopeLayout::Interleaved.
//   qwen2 — the llama block with q/k/v biases (blk.N.attn_{q,k,v}.bias) and rotary on the
//           two halves of each head (llama.cpp's NEOX mode, RopeLayout::RotateHalf; the
//           converter leaves the rows as Hugging Face stores them).
//   qwen3 — no biases, attn_q_norm / attn_k_norm (qk-norm), NEOX rotary.
//   gemma, gemma2, gemma3 — GeGLU, embeddings × √D, NEOX rotary, RMSNorm weights stored as
//           1 + w by the converter; gemma2/3 add post_attention_norm and post_ffw_norm
//           (sandwich norms) and local layers (attention.sliding_window; gemma3 every
//           sliding_window_pattern-th layer global, the local ones with rope base 10000);
//           gemma2 its soft-caps (attn_logit_softcapping, final_logit_softcapping); gemma3
//           qk-norm and rope.scaling.type linear.
//   phi3  — attn_qkv [q; k; v] (or attn_q/k/v), ffn_up = [gate; up] (2F rows), NEOX rotary
//           on rope.dimension_count dims, attention.sliding_window in every layer.
//   gpt2, gptneox — LayerNorm families with one attn_qkv (gguf_layernorm_models.h).
// The keys read ({arch}. prefix):
//   embedding_length D, block_count L, feed_forward_length F, attention.head_count H,
//   attention.head_count_kv Hkv (default H), attention.layer_norm_rms_epsilon,
//   rope.freq_base (default 10000), rope.dimension_count (R ≤ Dh: partial rotary when
//   smaller), context_length.
// Tensors (GGUF ne = [in, out] is the (out, in) matrix): token_embd (V, D), per layer
// blk.N.{attn_norm (D), attn_q (H·Dh, D), attn_k (Hkv·Dh, D), attn_v (Hkv·Dh, D),
// attn_output (D, H·Dh), ffn_norm (D), ffn_gate (F, D), ffn_up (F, D), ffn_down (D, F)},
// output_norm (D), output (V, D) unless the head is tied to token_embd, and rope_freqs
// (Dh/2) when the file scales its rotary as Llama-3.1 does (θ_i divided by rope_freqs[i]).
//
// Tokenizers (tokenizer.ggml.model; gguf_tokenizer.cpp): llama — SentencePiece BPE with
// scores; gpt2 — byte-level BPE with merges and the pre-tokenizer tokenizer.ggml.pre names.
//
// Weights are converted to f32 as the model opens when they fit in memory that way
// (core/io/memory_budget.h); otherwise the layers stay in the file, the forward's products
// reading each weight a panel at a time as they reach it (gguf_layer_source.h). Every failure throws hs::Error naming
// the file and the key or tensor.
#include <memory>
#include <optional>
#include <string>

#include "core/io/memory_budget.h"
#include "core/model/model.h"
#include "core/tokenize/tokenizer.h"

namespace hs {

class GgufFile;

struct GgufCheckpoint {
    Model model;
    std::unique_ptr<Tokenizer> tokenizer;
};

// `progress(done, total)` is called after each layer's weights are read (false cancels:
// throws hs::Cancelled), as the window shows a big file loading. `residency` decides how
// the weights are held (tests); by default plan_weight_residency with this machine's memory.
GgufCheckpoint load_gguf(const std::string& path, const ProgressFn& progress = nullptr,
                         std::optional<WeightResidency> residency = std::nullopt);

// What `headscope inspect` prints for a GGUF file, from its header alone (no weight is
// read, no tokenizer needed): the architecture, the tokenizer, the stored types, the bytes
// on disk and the memory the model takes once open.
std::string describe_gguf(const GgufFile& file);
// The parts on their own (tests, `inspect`, tokenizer-only files).
ModelConfig gguf_config(const GgufFile& file);
Model gguf_model(const std::shared_ptr<const GgufFile>& file, const ProgressFn& progress = nullptr,
                 std::optional<WeightResidency> residency = std::nullopt);
std::unique_ptr<Tokenizer> gguf_tokenizer(const GgufFile& file);

}  // namespace hs
