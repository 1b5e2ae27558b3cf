#!/usr/bin/python3
"""Tiny Hugging Face checkpoints + expected outputs for tests/hf_models_test.cpp.

No `transformers` package exists on this machine, so this script carries its own small
reference implementation of each family, following the published HF modelling code
(modeling_gpt2.py, modeling_bert.py, modeling_gpt_neo.py, modeling_gpt_neox.py, modeling_llama.py, modeling_qwen2.py,
modeling_mistral.py, modeling_qwen3.py, modeling_phi3.py, modeling_gemma.py, modeling_gemma2.py,
modeling_gemma3.py, modeling_rope_utils.py), and writes
checkpoints in the exact layout and file names HF's save_pretrained produces.

Regenerate (Debian's python3-torch + python3-numpy, hence /usr/bin/python3):

    /usr/bin/python3 tests/gen_hf_fixtures.py           # (re)write tests/fixtures/hf/
    /usr/bin/python3 tests/gen_hf_fixtures.py --check   # regenerate in a temp dir and
                                                        # compare bytes; exit 1 on drift
    /usr/bin/python3 tests/gen_hf_fixtures.py --gpt2-small DIR
        # not a fixture: a random checkpoint shaped like GPT-2 small (124M parameters,
        # ~500 MB f32) with a byte-level vocab.json / merges.txt, for load and forward
        # timings:  headscope bench DIR --tokens 128

Cases (tests/fixtures/hf/<case>/)
  gpt2              model.safetensors, no prefix, n_inner null (= 4·n_embd), attn.bias buffers
  gpt2_bf16         BF16 weights, "transformer." prefix, explicit n_inner
  bert              BertModel names (no prefix), pooler tensors (ignored)
  bert_prefixed     BertForMaskedLM names: "bert." prefix, legacy LayerNorm gamma/beta,
                    cls.predictions.* tensors (ignored)
  llama             GQA 4 heads / 2 KV heads, untied lm_head, rope_theta 500000
  llama_f16         same shapes in F16
  llama_sharded     model.safetensors.index.json + 2 shards, explicit head_dim 12 (≠ D/H)
  qwen2             q/k/v biases, tied embeddings (no lm_head tensor), rope_theta 1e6
  mistral           Llama with sliding_window 3 (< the 7 tokens): keys i−2 … i
  llama31           rope_scaling "llama3" (Llama 3.1), head_dim 16 (≠ D/H), frequencies
                    in all three bands
  gpt_neox          Pythia: query_key_value interleaved per head, parallel attention + MLP,
                    rotary_pct 0.5 (4 of 8 dims), LayerNorm with biases, untied embed_out
  gpt_neox_sequential  use_parallel_residual false, rotary_pct 0.25
  gpt_neo           GPT-Neo: unscaled scores, global/local layers (window_size 3), no q/k/v
                    biases, nn.Linear MLP, tied head, the bool attn.attention.bias buffers
  qwen2_window      use_sliding_window: layer 0 global, layer 1 (≥ max_window_layers) sees 3 keys
  phi3              Phi-3: qkv_proj and gate_up_proj fused, partial_rotary_factor 0.75, a
                    sliding_window of 4 in every layer
  gemma             Gemma: GeGLU, embeddings × √D, RMSNorm (1 + w) weights, MQA, head_dim 16
  gemma2            Gemma 2: sandwich norms, query_pre_attn_scalar 8, scores soft-capped at 2,
                    logits at 5, local (window 3) and global layers
  gemma3            Gemma 3 text: sandwich norms, qk-norm (1 + w), layers L L G, local rope
                    base 100, global rope_theta with linear rope_scaling 4
  qwen3             q_norm / k_norm (RMSNorm of each head's q and k before RoPE), head_dim
                    16, tied embeddings

Each case directory holds config.json, the weights, and expected.safetensors (F32):
  ids                    (T)       token ids (exact small integers stored as f32)
  input                  (T, D)    what enters layer 0 (BERT: after the embedding LayerNorm)
  layers.<i>.heads.<h>   (T, T)    softmax attention weights of query head h
  layers.<i>.output      (T, D)    hidden state leaving layer i
  final_output           (T, D)    after the final norm (BERT: = last layer output)
  logits                 (V)       next-token logits after the last position (decoders)
  loaded.wq|wk|wv|wo|w_up|w_down|w_gate  layer 0's weights as (out, in) f32 matrices, the
                         layout TransformerLayerWeights holds after loading (checks the
                         Conv1D split/transpose independently of the forward pass)

Reduced precision: the reference runs in float64 on the weights *after* rounding to the
file dtype, so F16/BF16 cases are held to the same 1e-4 as F32 (the C++ side converts
F16/BF16 to f32 exactly; only f32 arithmetic differs).

Every family's reference is checked here against a second formulation before writing:
GPT-2 and BERT layers against torch.nn.TransformerEncoderLayer (norm_first True / False)
loaded with the same weights; Llama/Qwen2 attention against a per-head loop that rotates
(i, i + Dh/2) pairs with explicit 2×2 rotations.
"""
import argparse
import filecmp
import json
import math
import os
import shutil
import struct
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "fixtures", "hf")
SELF_CHECK_ATOL = 1e-10  # two float64 formulations of the same maths
IDS = [3, 17, 42, 5, 63, 0, 29]

torch.set_default_dtype(torch.float64)


# ---------------------------------------------------------------------------------------
# safetensors by hand: u64 LE header length N, N bytes of JSON (padded with spaces to a
# multiple of 8), then the data block; data_offsets are relative to the data block.
# ---------------------------------------------------------------------------------------
def tensor_bytes(t, dtype):
    t = t.detach().contiguous()
    if dtype == "F32":
        return t.to(torch.float32).numpy().astype("<f4").tobytes()
    if dtype == "F16":
        return t.to(torch.float16).numpy().astype("<f2").tobytes()
    if dtype == "BF16":
        return t.to(torch.bfloat16).view(torch.int16).numpy().astype("<i2").tobytes()
    raise ValueError(dtype)


def write_safetensors(path, tensors, dtype, metadata=None):
    """tensors: dict name -> torch tensor; all written as `dtype`, in name order."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        data = tensor_bytes(tensors[name], dtype)
        header[name] = {"dtype": dtype, "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    return offset


def round_to(t, dtype):
    """The value the file will hold, back in float64."""
    if dtype == "F16":
        return t.to(torch.float16).to(torch.float64)
    if dtype == "BF16":
        return t.to(torch.bfloat16).to(torch.float64)
    return t.to(torch.float32).to(torch.float64)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


# ---------------------------------------------------------------------------------------
# Building blocks (float64). Shapes: T tokens, D d_model, H heads, Hkv KV heads, Dh head dim.
# ---------------------------------------------------------------------------------------
def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)  # biased variance, as nn.LayerNorm
    return (x - mu) / torch.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    # HF LlamaRMSNorm: x · rsqrt(mean(x²) + eps) · w
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def gelu_tanh(x):  # HF "gelu_new"
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):  # HF "gelu"
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def attention(q, k, v, H, Hkv, causal, window=None, scale=None, softcap=None):
    """q (T, H·Dh), k/v (T, Hkv·Dh) -> out (T, H·Dh), probs (H, T, T).
    Query head h reads KV head h // (H / Hkv) (HF repeat_kv). window (Mistral's
    sliding_window): query i also hides keys j <= i - window (HF's sliding-window causal
    mask keeps kv_idx > q_idx - sliding_window). scale: the scores' factor, 1/√Dh when None.
    softcap (Gemma 2's attn_logit_softcapping): scores → softcap · tanh(scores / softcap)
    before the mask."""
    T = q.shape[0]
    Dh = q.shape[1] // H
    qh = q.view(T, H, Dh).transpose(0, 1)                      # (H, T, Dh)
    kh = k.view(T, Hkv, Dh).transpose(0, 1).repeat_interleave(H // Hkv, dim=0)
    vh = v.view(T, Hkv, Dh).transpose(0, 1).repeat_interleave(H // Hkv, dim=0)
    scores = qh @ kh.transpose(1, 2) * (1 / math.sqrt(Dh) if scale is None else scale)  # (H, T, T)
    if softcap is not None:
        scores = torch.tanh(scores / softcap) * softcap
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1),
                                    float("-inf"))
    if window is not None:
        i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
        scores = scores.masked_fill(j <= i - window, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = (probs @ vh).transpose(0, 1).reshape(T, H * Dh)      # concat heads
    return out, probs


def llama3_inv_freq(inv_freq, scaling):
    """HF _compute_llama3_parameters: wavelengths above old_ctx / low_freq_factor are
    divided by factor, below old_ctx / high_freq_factor kept, smoothly in between."""
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > old / low, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= old / high) & (wavelen <= old / low)
    return torch.where(medium, smoothed, scaled)


def rope_inv_freq(Dh, theta, scaling=None):
    # HF LlamaRotaryEmbedding: inv_freq_i = θ^(−2i/Dh), rope_scaling "llama3" applied, or
    # "linear" (_compute_linear_scaling_rope_parameters: inv_freq / factor)
    inv_freq = 1.0 / (theta ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    if scaling and scaling.get("rope_type") == "linear":
        return inv_freq / scaling["factor"]
    return llama3_inv_freq(inv_freq, scaling) if scaling else inv_freq


def rope_cos_sin(T, Dh, theta, scaling=None):
    # emb = [freqs, freqs]
    inv_freq = rope_inv_freq(Dh, theta, scaling)
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)  # (T, Dh/2)
    emb = torch.cat([freqs, freqs], dim=-1)                               # (T, Dh)
    return emb.cos(), emb.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rope(x, heads, cos, sin):
    """x (T, heads·Dh): each head rotated as HF apply_rotary_pos_emb."""
    T = x.shape[0]
    xh = x.view(T, heads, -1)
    return (xh * cos[:, None, :] + rotate_half(xh) * sin[:, None, :]).reshape(T, -1)


# ---------------------------------------------------------------------------------------
# Random parameters
# ---------------------------------------------------------------------------------------
class Init:
    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def normal(self, *shape, std=1.0, mean=0.0):
        return mean + std * torch.randn(*shape, generator=self.g, dtype=torch.float32).double()


# ---------------------------------------------------------------------------------------
# GPT-2
# ---------------------------------------------------------------------------------------
def gpt2_case(name, cfg, dtype, prefix, seed):
    D, H, L, V, P = cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["vocab_size"], cfg["n_positions"]
    Fdim = cfg["n_inner"] or 4 * D
    eps = cfg["layer_norm_epsilon"]
    r = Init(seed)
    sd = {}  # HF state dict: Conv1D weights are (in, out)
    sd["wte.weight"] = r.normal(V, D)
    sd["wpe.weight"] = r.normal(P, D, std=0.5)
    for i in range(L):
        h = f"h.{i}."
        sd[h + "ln_1.weight"] = r.normal(D, std=0.1, mean=1.0)
        sd[h + "ln_1.bias"] = r.normal(D, std=0.1)
        sd[h + "attn.c_attn.weight"] = r.normal(D, 3 * D, std=0.3)
        sd[h + "attn.c_attn.bias"] = r.normal(3 * D, std=0.1)
        sd[h + "attn.c_proj.weight"] = r.normal(D, D, std=0.2)
        sd[h + "attn.c_proj.bias"] = r.normal(D, std=0.1)
        sd[h + "ln_2.weight"] = r.normal(D, std=0.1, mean=1.0)
        sd[h + "ln_2.bias"] = r.normal(D, std=0.1)
        sd[h + "mlp.c_fc.weight"] = r.normal(D, Fdim, std=0.2)
        sd[h + "mlp.c_fc.bias"] = r.normal(Fdim, std=0.1)
        sd[h + "mlp.c_proj.weight"] = r.normal(Fdim, D, std=0.15)
        sd[h + "mlp.c_proj.bias"] = r.normal(D, std=0.1)
    sd["ln_f.weight"] = r.normal(D, std=0.1, mean=1.0)
    sd["ln_f.bias"] = r.normal(D, std=0.1)
    sd = {k: round_to(v, dtype) for k, v in sd.items()}

    # Forward (GPT2Model + tied LM head)
    ids = torch.tensor(IDS)
    T = len(IDS)
    x = sd["wte.weight"][ids] + sd["wpe.weight"][:T]
    exp = {"ids": ids.double(), "input": x.clone()}
    for i in range(L):
        h = f"h.{i}."
        a = layer_norm(x, sd[h + "ln_1.weight"], sd[h + "ln_1.bias"], eps)
        qkv = a @ sd[h + "attn.c_attn.weight"] + sd[h + "attn.c_attn.bias"]  # Conv1D: x·W + b
        q, k, v = qkv.split(D, dim=1)
        att, probs = attention(q, k, v, H, H, causal=True)
        y = x + att @ sd[h + "attn.c_proj.weight"] + sd[h + "attn.c_proj.bias"]
        m = layer_norm(y, sd[h + "ln_2.weight"], sd[h + "ln_2.bias"], eps)
        m = gelu_tanh(m @ sd[h + "mlp.c_fc.weight"] + sd[h + "mlp.c_fc.bias"])
        out = y + m @ sd[h + "mlp.c_proj.weight"] + sd[h + "mlp.c_proj.bias"]
        check_gpt2_layer(x, out, sd, h, H, Fdim, eps)
        x = out
        for hh in range(H):
            exp[f"layers.{i}.heads.{hh}"] = probs[hh]
        exp[f"layers.{i}.output"] = x.clone()
    x = layer_norm(x, sd["ln_f.weight"], sd["ln_f.bias"], eps)
    exp["final_output"] = x.clone()
    exp["logits"] = x[-1] @ sd["wte.weight"].T
    W = sd["h.0.attn.c_attn.weight"]
    exp.update({"loaded.wq": W[:, :D].T, "loaded.wk": W[:, D:2 * D].T, "loaded.wv": W[:, 2 * D:].T,
                "loaded.wo": sd["h.0.attn.c_proj.weight"].T,
                "loaded.w_up": sd["h.0.mlp.c_fc.weight"].T,
                "loaded.w_down": sd["h.0.mlp.c_proj.weight"].T})

    # The causal-mask buffer older GPT-2 checkpoints carry; the loader must ignore it.
    files = dict(sd)
    if dtype == "F32":
        for i in range(L):
            files[f"h.{i}.attn.bias"] = torch.tril(torch.ones(P, P)).view(1, 1, P, P)
    files = {prefix + k: v for k, v in files.items()}
    config = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
              "bos_token_id": V - 1, "eos_token_id": V - 1, "model_type": "gpt2",
              "torch_dtype": torch_dtype_name(dtype), **cfg}
    return config, files, exp


def check_gpt2_layer(x, out, sd, h, H, Fdim, eps):
    """GPT-2 block == nn.TransformerEncoderLayer(norm_first=True, GELU-tanh) + causal mask."""
    D = x.shape[1]
    layer = nn.TransformerEncoderLayer(D, H, Fdim, dropout=0.0, batch_first=True,
                                       activation=lambda t: F.gelu(t, approximate="tanh"),
                                       layer_norm_eps=eps, norm_first=True).double().eval()
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(sd[h + "attn.c_attn.weight"].T)
        layer.self_attn.in_proj_bias.copy_(sd[h + "attn.c_attn.bias"])
        layer.self_attn.out_proj.weight.copy_(sd[h + "attn.c_proj.weight"].T)
        layer.self_attn.out_proj.bias.copy_(sd[h + "attn.c_proj.bias"])
        layer.linear1.weight.copy_(sd[h + "mlp.c_fc.weight"].T)
        layer.linear1.bias.copy_(sd[h + "mlp.c_fc.bias"])
        layer.linear2.weight.copy_(sd[h + "mlp.c_proj.weight"].T)
        layer.linear2.bias.copy_(sd[h + "mlp.c_proj.bias"])
        layer.norm1.weight.copy_(sd[h + "ln_1.weight"])
        layer.norm1.bias.copy_(sd[h + "ln_1.bias"])
        layer.norm2.weight.copy_(sd[h + "ln_2.weight"])
        layer.norm2.bias.copy_(sd[h + "ln_2.bias"])
        T = x.shape[0]
        mask = torch.triu(torch.full((T, T), float("-inf")), 1)
        ref = layer(x[None], src_mask=mask)[0]
    assert_close(ref, out, "gpt2 block vs nn.TransformerEncoderLayer")


# ---------------------------------------------------------------------------------------
# BERT
# ---------------------------------------------------------------------------------------
def bert_case(name, cfg, prefix, legacy_ln, seed):
    D, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    Fdim, V, P, TV = cfg["intermediate_size"], cfg["vocab_size"], cfg["max_position_embeddings"], cfg["type_vocab_size"]
    eps = cfg["layer_norm_eps"]
    r = Init(seed)
    sd = {}
    sd["embeddings.word_embeddings.weight"] = r.normal(V, D)
    sd["embeddings.position_embeddings.weight"] = r.normal(P, D, std=0.5)
    sd["embeddings.token_type_embeddings.weight"] = r.normal(TV, D, std=0.5)
    sd["embeddings.LayerNorm.weight"] = r.normal(D, std=0.1, mean=1.0)
    sd["embeddings.LayerNorm.bias"] = r.normal(D, std=0.1)
    for i in range(L):
        e = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            sd[e + f"attention.self.{n}.weight"] = r.normal(D, D, std=0.3)
            sd[e + f"attention.self.{n}.bias"] = r.normal(D, std=0.1)
        sd[e + "attention.output.dense.weight"] = r.normal(D, D, std=0.2)
        sd[e + "attention.output.dense.bias"] = r.normal(D, std=0.1)
        sd[e + "attention.output.LayerNorm.weight"] = r.normal(D, std=0.1, mean=1.0)
        sd[e + "attention.output.LayerNorm.bias"] = r.normal(D, std=0.1)
        sd[e + "intermediate.dense.weight"] = r.normal(Fdim, D, std=0.2)
        sd[e + "intermediate.dense.bias"] = r.normal(Fdim, std=0.1)
        sd[e + "output.dense.weight"] = r.normal(D, Fdim, std=0.15)
        sd[e + "output.dense.bias"] = r.normal(D, std=0.1)
        sd[e + "output.LayerNorm.weight"] = r.normal(D, std=0.1, mean=1.0)
        sd[e + "output.LayerNorm.bias"] = r.normal(D, std=0.1)
    sd = {k: round_to(v, "F32") for k, v in sd.items()}

    # Forward (BertModel, token types all 0, no padding)
    ids = torch.tensor(IDS)
    T = len(IDS)
    x = (sd["embeddings.word_embeddings.weight"][ids] + sd["embeddings.position_embeddings.weight"][:T]
         + sd["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, sd["embeddings.LayerNorm.weight"], sd["embeddings.LayerNorm.bias"], eps)
    exp = {"ids": ids.double(), "input": x.clone()}
    lin = lambda t, n: t @ sd[n + ".weight"].T + sd[n + ".bias"]  # nn.Linear: (out, in)
    for i in range(L):
        e = f"encoder.layer.{i}."
        q, k, v = (lin(x, e + f"attention.self.{n}") for n in ("query", "key", "value"))
        att, probs = attention(q, k, v, H, H, causal=False)
        y = layer_norm(x + lin(att, e + "attention.output.dense"),
                       sd[e + "attention.output.LayerNorm.weight"],
                       sd[e + "attention.output.LayerNorm.bias"], eps)
        m = lin(gelu_erf(lin(y, e + "intermediate.dense")), e + "output.dense")
        out = layer_norm(y + m, sd[e + "output.LayerNorm.weight"], sd[e + "output.LayerNorm.bias"], eps)
        check_bert_layer(x, out, sd, e, H, Fdim, eps)
        x = out
        for hh in range(H):
            exp[f"layers.{i}.heads.{hh}"] = probs[hh]
        exp[f"layers.{i}.output"] = x.clone()
    exp["final_output"] = x.clone()
    e = "encoder.layer.0."
    exp.update({"loaded.wq": sd[e + "attention.self.query.weight"],
                "loaded.wk": sd[e + "attention.self.key.weight"],
                "loaded.wv": sd[e + "attention.self.value.weight"],
                "loaded.wo": sd[e + "attention.output.dense.weight"],
                "loaded.w_up": sd[e + "intermediate.dense.weight"],
                "loaded.w_down": sd[e + "output.dense.weight"]})

    files = dict(sd)
    # Heads the loader must skip: BertModel's pooler, BertForMaskedLM's cls head.
    files["pooler.dense.weight"] = r.normal(D, D, std=0.2)
    files["pooler.dense.bias"] = r.normal(D, std=0.1)
    if legacy_ln:  # checkpoints converted from TF name LayerNorm parameters gamma / beta
        files = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
                 for k, v in files.items()}
    files = {prefix + k: v for k, v in files.items()}
    if prefix:
        files["cls.predictions.bias"] = r.normal(V, std=0.1)
        files["cls.predictions.transform.dense.weight"] = r.normal(D, D, std=0.2)
    config = {"architectures": ["BertForMaskedLM" if prefix else "BertModel"],
              "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.1, "model_type": "bert", "pad_token_id": 0,
              "position_embedding_type": "absolute", "torch_dtype": "float32", **cfg}
    return config, files, exp


def check_bert_layer(x, out, sd, e, H, Fdim, eps):
    """BERT layer == nn.TransformerEncoderLayer(norm_first=False, activation="gelu")."""
    D = x.shape[1]
    layer = nn.TransformerEncoderLayer(D, H, Fdim, dropout=0.0, batch_first=True,
                                       activation="gelu", layer_norm_eps=eps,
                                       norm_first=False).double().eval()
    with torch.no_grad():
        names = ("query", "key", "value")
        layer.self_attn.in_proj_weight.copy_(torch.cat([sd[e + f"attention.self.{n}.weight"] for n in names]))
        layer.self_attn.in_proj_bias.copy_(torch.cat([sd[e + f"attention.self.{n}.bias"] for n in names]))
        layer.self_attn.out_proj.weight.copy_(sd[e + "attention.output.dense.weight"])
        layer.self_attn.out_proj.bias.copy_(sd[e + "attention.output.dense.bias"])
        layer.linear1.weight.copy_(sd[e + "intermediate.dense.weight"])
        layer.linear1.bias.copy_(sd[e + "intermediate.dense.bias"])
        layer.linear2.weight.copy_(sd[e + "output.dense.weight"])
        layer.linear2.bias.copy_(sd[e + "output.dense.bias"])
        layer.norm1.weight.copy_(sd[e + "attention.output.LayerNorm.weight"])
        layer.norm1.bias.copy_(sd[e + "attention.output.LayerNorm.bias"])
        layer.norm2.weight.copy_(sd[e + "output.LayerNorm.weight"])
        layer.norm2.bias.copy_(sd[e + "output.LayerNorm.bias"])
        ref = layer(x[None])[0]
    assert_close(ref, out, "bert layer vs nn.TransformerEncoderLayer")


# ---------------------------------------------------------------------------------------
# Llama / Qwen2
# ---------------------------------------------------------------------------------------
def llama_case(name, cfg, dtype, seed):
    model_type = cfg["model_type"]
    D, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    Hkv = cfg.get("num_key_value_heads", H)
    Dh = cfg.get("head_dim", D // H)
    Fdim, V = cfg["intermediate_size"], cfg["vocab_size"]
    eps, theta, tied = cfg["rms_norm_eps"], cfg["rope_theta"], cfg["tie_word_embeddings"]
    qkv_bias = model_type == "qwen2"
    qk_norm = model_type == "qwen3"  # RMSNorm of each head's q and k over its Dh
    # Gemma 1–3: GeGLU, embeddings × √D, RMSNorm scaled by (1 + w)
    gemma = model_type in ("gemma", "gemma2", "gemma3_text")
    # Gemma 2/3: sandwich norms, scores × query_pre_attn_scalar^(−1/2); Gemma 3 qk-norm too
    sandwich = model_type in ("gemma2", "gemma3_text")
    qk_norm = qk_norm or model_type == "gemma3_text"
    norm_mean = 0.0 if gemma else 1.0
    r = Init(seed)
    sd = {}
    sd["model.embed_tokens.weight"] = r.normal(V, D)
    for i in range(L):
        m = f"model.layers.{i}."
        sd[m + "input_layernorm.weight"] = r.normal(D, std=0.1, mean=norm_mean)
        sd[m + "self_attn.q_proj.weight"] = r.normal(H * Dh, D, std=0.3)
        sd[m + "self_attn.k_proj.weight"] = r.normal(Hkv * Dh, D, std=0.3)
        sd[m + "self_attn.v_proj.weight"] = r.normal(Hkv * Dh, D, std=0.3)
        if qkv_bias:
            sd[m + "self_attn.q_proj.bias"] = r.normal(H * Dh, std=0.2)
            sd[m + "self_attn.k_proj.bias"] = r.normal(Hkv * Dh, std=0.2)
            sd[m + "self_attn.v_proj.bias"] = r.normal(Hkv * Dh, std=0.2)
        if qk_norm:
            sd[m + "self_attn.q_norm.weight"] = r.normal(Dh, std=0.1, mean=norm_mean)
            sd[m + "self_attn.k_norm.weight"] = r.normal(Dh, std=0.1, mean=norm_mean)
        sd[m + "self_attn.o_proj.weight"] = r.normal(D, H * Dh, std=0.2)
        sd[m + "post_attention_layernorm.weight"] = r.normal(D, std=0.1, mean=norm_mean)
        if sandwich:
            sd[m + "pre_feedforward_layernorm.weight"] = r.normal(D, std=0.1, mean=norm_mean)
            sd[m + "post_feedforward_layernorm.weight"] = r.normal(D, std=0.1, mean=norm_mean)
        sd[m + "mlp.gate_proj.weight"] = r.normal(Fdim, D, std=0.2)
        sd[m + "mlp.up_proj.weight"] = r.normal(Fdim, D, std=0.2)
        sd[m + "mlp.down_proj.weight"] = r.normal(D, Fdim, std=0.15)
    sd["model.norm.weight"] = r.normal(D, std=0.1, mean=norm_mean)
    if not tied:
        sd["lm_head.weight"] = r.normal(V, D, std=0.5)
    sd = {k: round_to(v, dtype) for k, v in sd.items()}

    def lin(t, n):
        y = t @ sd[n + ".weight"].T
        return y + sd[n + ".bias"] if n + ".bias" in sd else y

    ids = torch.tensor(IDS)
    T = len(IDS)
    scaling = cfg.get("rope_scaling")
    R = int(Dh * cfg.get("partial_rotary_factor", 1.0))  # Phi-3: rotary on the first R dims

    # Which layers see a sliding window: Mistral and Phi-3 every layer; Qwen2/3 with
    # use_sliding_window the layers from max_window_layers on (HF Qwen2Attention); Gemma 2
    # the even layers, Gemma 3 all but every sliding_window_pattern-th (HF's layer_types
    # default: sliding when (i + 1) % pattern != 0).
    def window_of(i):
        if model_type in ("mistral", "phi3"):
            return cfg.get("sliding_window")
        if cfg.get("use_sliding_window") and i >= cfg["max_window_layers"]:
            return cfg["sliding_window"]
        if model_type in ("gemma2", "gemma3_text"):
            pattern = 2 if model_type == "gemma2" else cfg["sliding_window_pattern"]
            return cfg["sliding_window"] if (i + 1) % pattern != 0 else None
        return None

    # Each layer's rotation: Gemma 3's local layers turn with rope_local_base_freq and no
    # scaling (HF Gemma3's rotary_emb_local), every other layer with rope_theta and scaling.
    def rope_of(i):
        if model_type == "gemma3_text" and window_of(i) is not None:
            return cfg["rope_local_base_freq"], None
        return theta, scaling

    def rope(t, heads, i):  # rotate_half on each head's first R dims, the rest passes
        cos, sin = rope_cos_sin(T, R, *rope_of(i))
        th = t.view(T, heads, Dh)
        rot = th[..., :R] * cos[:, None, :] + rotate_half(th[..., :R]) * sin[:, None, :]
        return torch.cat([rot, th[..., R:]], dim=-1).reshape(T, heads * Dh)
    scale = cfg["query_pre_attn_scalar"] ** -0.5 if sandwich else None
    softcap = cfg.get("attn_logit_softcapping")
    x = sd["model.embed_tokens.weight"][ids]
    if gemma:  # GemmaModel: inputs_embeds * hidden_size ** 0.5
        x = x * math.sqrt(D)
    exp = {"ids": ids.double(), "input": x.clone()}

    def rms(t, w):  # GemmaRMSNorm: x · rsqrt(mean(x²) + eps) · (1 + w)
        return rms_norm(t, 1 + w if gemma else w, eps)

    gate_act = gelu_tanh if gemma else F.silu
    for i in range(L):
        m = f"model.layers.{i}."
        a = rms(x, sd[m + "input_layernorm.weight"])
        q, k, v = (lin(a, m + f"self_attn.{n}_proj") for n in ("q", "k", "v"))
        if qk_norm:  # Qwen3, Gemma 3: q_norm(q_proj(x).view(T, H, Dh)), before the rotation
            q = rms(q.view(T, H, Dh), sd[m + "self_attn.q_norm.weight"]).reshape(T, H * Dh)
            k = rms(k.view(T, Hkv, Dh), sd[m + "self_attn.k_norm.weight"]).reshape(T, Hkv * Dh)
        q_rot, k_rot = rope(q, H, i), rope(k, Hkv, i)
        window = window_of(i)
        att, probs = attention(q_rot, k_rot, v, H, Hkv, causal=True, window=window, scale=scale, softcap=softcap)
        check_llama_attention(q, k, v, probs, att, H, Hkv, rope_inv_freq(R, *rope_of(i)), window, rotary=R,
                              scale=scale, softcap=softcap)
        o = lin(att, m + "self_attn.o_proj")
        if sandwich:  # Gemma2DecoderLayer: post_attention_layernorm on the attention's output
            x = x + rms(o, sd[m + "post_attention_layernorm.weight"])
            b = rms(x, sd[m + "pre_feedforward_layernorm.weight"])
            f = lin(gate_act(lin(b, m + "mlp.gate_proj")) * lin(b, m + "mlp.up_proj"), m + "mlp.down_proj")
            x = x + rms(f, sd[m + "post_feedforward_layernorm.weight"])
        else:
            x = x + o
            b = rms(x, sd[m + "post_attention_layernorm.weight"])
            x = x + lin(gate_act(lin(b, m + "mlp.gate_proj")) * lin(b, m + "mlp.up_proj"), m + "mlp.down_proj")
        for hh in range(H):
            exp[f"layers.{i}.heads.{hh}"] = probs[hh]
        exp[f"layers.{i}.output"] = x.clone()
    x = rms(x, sd["model.norm.weight"])
    exp["final_output"] = x.clone()
    head = sd["model.embed_tokens.weight"] if tied else sd["lm_head.weight"]
    exp["logits"] = x[-1] @ head.T
    if cfg.get("final_logit_softcapping"):  # Gemma 2: logits → cap · tanh(logits / cap)
        cap = cfg["final_logit_softcapping"]
        exp["logits"] = torch.tanh(exp["logits"] / cap) * cap
    m = "model.layers.0."
    exp.update({"loaded.wq": sd[m + "self_attn.q_proj.weight"], "loaded.wk": sd[m + "self_attn.k_proj.weight"],
                "loaded.wv": sd[m + "self_attn.v_proj.weight"], "loaded.wo": sd[m + "self_attn.o_proj.weight"],
                "loaded.w_gate": sd[m + "mlp.gate_proj.weight"], "loaded.w_up": sd[m + "mlp.up_proj.weight"],
                "loaded.w_down": sd[m + "mlp.down_proj.weight"]})
    arch = {"qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM", "mistral": "MistralForCausalLM",
            "phi3": "Phi3ForCausalLM", "gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM",
            "gemma3_text": "Gemma3ForCausalLM"}.get(model_type, "LlamaForCausalLM")
    config = {"architectures": [arch], "attention_dropout": 0.0, "bos_token_id": 1,
              "eos_token_id": 2, "hidden_act": "gelu" if gemma else "silu", "initializer_range": 0.02,
              "torch_dtype": torch_dtype_name(dtype), "use_cache": True, **cfg}
    files = sd
    if model_type == "phi3":  # Phi-3 stores [q; k; v] as qkv_proj and [gate; up] as gate_up_proj
        files = {}
        for name, t in sd.items():
            if name.endswith(("self_attn.k_proj.weight", "self_attn.v_proj.weight", "mlp.up_proj.weight")):
                continue
            m = name.rsplit("self_attn.", 1)[0].rsplit("mlp.", 1)[0]
            if name.endswith("self_attn.q_proj.weight"):
                files[m + "self_attn.qkv_proj.weight"] = torch.cat(
                    [t, sd[m + "self_attn.k_proj.weight"], sd[m + "self_attn.v_proj.weight"]])
            elif name.endswith("mlp.gate_proj.weight"):
                files[m + "mlp.gate_up_proj.weight"] = torch.cat([t, sd[m + "mlp.up_proj.weight"]])
            else:
                files[name] = t
    return config, files, exp


def check_llama_attention(q, k, v, probs, att, H, Hkv, inv_freq, window, rotary=None, scale=None, softcap=None):
    """Per-head loop: rotate pairs (j, j + R/2) of the first R = rotary (or Dh) dims by
    angle pos·inv_freq[j], KV head h // (H/Hkv); query t sees keys max(0, t − window + 1) … t;
    scores · scale (1/√Dh when None), then c·tanh(s / c) with c = softcap when given."""
    T = q.shape[0]
    Dh = q.shape[1] // H
    half = (rotary or Dh) // 2

    def rotate(vec, pos):
        out = vec.clone()
        for j in range(half):
            ang = pos * inv_freq[j].item()
            c, s = math.cos(ang), math.sin(ang)
            out[j] = vec[j] * c - vec[j + half] * s
            out[j + half] = vec[j] * s + vec[j + half] * c
        return out

    for h in range(H):
        g = h // (H // Hkv)
        qh = torch.stack([rotate(q[t, h * Dh:(h + 1) * Dh], t) for t in range(T)])
        kh = torch.stack([rotate(k[t, g * Dh:(g + 1) * Dh], t) for t in range(T)])
        vh = v[:, g * Dh:(g + 1) * Dh]
        p = torch.zeros(T, T)
        for t in range(T):
            first = max(0, t - window + 1) if window else 0
            s = torch.stack([qh[t] @ kh[u] for u in range(first, t + 1)]) * (scale or 1 / math.sqrt(Dh))
            if softcap:
                s = softcap * torch.tanh(s / softcap)
            p[t, first:t + 1] = torch.softmax(s, dim=0)
        assert_close(p, probs[h], f"llama head {h} weights vs per-head loop")
        assert_close(p @ vh, att[:, h * Dh:(h + 1) * Dh], f"llama head {h} output vs per-head loop")


# ---------------------------------------------------------------------------------------
# GPT-Neo
# ---------------------------------------------------------------------------------------
def gpt_neo_case(name, cfg, seed):
    D, H, L, V = cfg["hidden_size"], cfg["num_heads"], cfg["num_layers"], cfg["vocab_size"]
    P, eps, window = cfg["max_position_embeddings"], cfg["layer_norm_epsilon"], cfg["window_size"]
    Fdim = cfg["intermediate_size"] or 4 * D
    # HF GPTNeoConfig.expand_attention_types_params
    kinds = [k for pattern, n in cfg["attention_types"] for _ in range(n) for k in pattern]
    assert len(kinds) == L
    r = Init(seed)
    sd = {"transformer.wte.weight": r.normal(V, D), "transformer.wpe.weight": r.normal(P, D, std=0.5)}
    for i in range(L):
        h = f"transformer.h.{i}."
        a = h + "attn.attention."
        for n in ("ln_1", "ln_2"):
            sd[h + n + ".weight"] = r.normal(D, std=0.1, mean=1.0)
            sd[h + n + ".bias"] = r.normal(D, std=0.1)
        for n in ("q_proj", "k_proj", "v_proj"):  # no biases
            sd[a + n + ".weight"] = r.normal(D, D, std=0.12)
        sd[a + "out_proj.weight"] = r.normal(D, D, std=0.2)
        sd[a + "out_proj.bias"] = r.normal(D, std=0.1)
        sd[h + "mlp.c_fc.weight"] = r.normal(Fdim, D, std=0.2)  # nn.Linear: (out, in)
        sd[h + "mlp.c_fc.bias"] = r.normal(Fdim, std=0.1)
        sd[h + "mlp.c_proj.weight"] = r.normal(D, Fdim, std=0.15)
        sd[h + "mlp.c_proj.bias"] = r.normal(D, std=0.1)
    sd["transformer.ln_f.weight"] = r.normal(D, std=0.1, mean=1.0)
    sd["transformer.ln_f.bias"] = r.normal(D, std=0.1)

    def lin(t, n, bias=True):
        return t @ sd[n + ".weight"].T + (sd[n + ".bias"] if bias else 0)

    ids = torch.tensor(IDS)
    T = len(IDS)
    x = sd["transformer.wte.weight"][ids] + sd["transformer.wpe.weight"][:T]
    exp = {"ids": ids.double(), "input": x.clone()}
    for i in range(L):
        h = f"transformer.h.{i}."
        a = h + "attn.attention."
        ln1 = layer_norm(x, sd[h + "ln_1.weight"], sd[h + "ln_1.bias"], eps)
        q, k, v = (lin(ln1, a + n, bias=False) for n in ("q_proj", "k_proj", "v_proj"))
        local = window if kinds[i] == "local" else None
        att, probs = attention(q, k, v, H, H, causal=True, window=local, scale=1.0)  # unscaled
        check_gpt_neo_attention(q, k, v, probs, att, H, local)
        x = x + lin(att, a + "out_proj")
        ln2 = layer_norm(x, sd[h + "ln_2.weight"], sd[h + "ln_2.bias"], eps)
        x = x + lin(gelu_tanh(lin(ln2, h + "mlp.c_fc")), h + "mlp.c_proj")
        for hh in range(H):
            exp[f"layers.{i}.heads.{hh}"] = probs[hh]
        exp[f"layers.{i}.output"] = x.clone()
    x = layer_norm(x, sd["transformer.ln_f.weight"], sd["transformer.ln_f.bias"], eps)
    exp["final_output"] = x.clone()
    exp["logits"] = x[-1] @ sd["transformer.wte.weight"].T  # tied
    a = "transformer.h.0.attn.attention."
    exp.update({"loaded.wq": sd[a + "q_proj.weight"], "loaded.wk": sd[a + "k_proj.weight"],
                "loaded.wv": sd[a + "v_proj.weight"], "loaded.wo": sd[a + "out_proj.weight"],
                "loaded.w_up": sd["transformer.h.0.mlp.c_fc.weight"],
                "loaded.w_down": sd["transformer.h.0.mlp.c_proj.weight"]})
    # The mask buffers older GPT-Neo checkpoints carry (bool causal / local bias, masked_bias);
    # the loader must ignore them.
    files = dict(sd)
    for i in range(L):
        causal = torch.tril(torch.ones(P, P, dtype=torch.bool))
        if kinds[i] == "local":
            causal = causal ^ torch.tril(causal, -window)
        files[f"transformer.h.{i}.attn.attention.bias"] = causal.double().view(1, 1, P, P)
        files[f"transformer.h.{i}.attn.attention.masked_bias"] = torch.tensor(-1e9, dtype=torch.float64)
    config = {"architectures": ["GPTNeoForCausalLM"], "model_type": "gpt_neo", "activation_function": "gelu_new",
              "attention_dropout": 0.0, "embed_dropout": 0.0, "resid_dropout": 0.0, "bos_token_id": V - 1,
              "eos_token_id": V - 1, "initializer_range": 0.02, "torch_dtype": "float32", "use_cache": True,
              "attention_layers": kinds, **cfg}
    return config, files, exp


def check_gpt_neo_attention(q, k, v, probs, att, H, window):
    """HF GPTNeoSelfAttention._attn per head: scores q·kᵀ with no scaling, the causal bias
    (tril, and for a local layer tril XOR tril(·, −window)) as torch.where(bias, s, finfo.min)."""
    T = q.shape[0]
    Dh = q.shape[1] // H
    bias = torch.tril(torch.ones(T, T, dtype=torch.bool))
    if window:
        bias = bias ^ torch.tril(bias, -window)
    for h in range(H):
        sl = slice(h * Dh, (h + 1) * Dh)
        s = q[:, sl] @ k[:, sl].T
        s = torch.where(bias, s, torch.tensor(torch.finfo(torch.float32).min, dtype=torch.float64))
        p = torch.softmax(s, dim=-1)
        assert_close(p, probs[h], f"gpt_neo head {h} weights vs HF's masking")
        assert_close(p @ v[:, sl], att[:, sl], f"gpt_neo head {h} output vs HF's masking")


# ---------------------------------------------------------------------------------------
# GPT-NeoX (Pythia)
# ---------------------------------------------------------------------------------------
def gpt_neox_case(name, cfg, seed):
    D, H, L, V = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"], cfg["vocab_size"]
    Fdim, eps, theta = cfg["intermediate_size"], cfg["layer_norm_eps"], cfg["rotary_emb_base"]
    Dh = D // H
    R = int(Dh * cfg["rotary_pct"])  # HF: rotary_ndims = int(head_size · rotary_pct)
    parallel = cfg["use_parallel_residual"]
    r = Init(seed)
    sd = {"gpt_neox.embed_in.weight": r.normal(V, D)}
    for i in range(L):
        m = f"gpt_neox.layers.{i}."
        for n in ("input_layernorm", "post_attention_layernorm"):
            sd[m + n + ".weight"] = r.normal(D, std=0.1, mean=1.0)
            sd[m + n + ".bias"] = r.normal(D, std=0.1)
        sd[m + "attention.query_key_value.weight"] = r.normal(3 * D, D, std=0.3)
        sd[m + "attention.query_key_value.bias"] = r.normal(3 * D, std=0.2)
        sd[m + "attention.dense.weight"] = r.normal(D, D, std=0.2)
        sd[m + "attention.dense.bias"] = r.normal(D, std=0.1)
        sd[m + "mlp.dense_h_to_4h.weight"] = r.normal(Fdim, D, std=0.2)
        sd[m + "mlp.dense_h_to_4h.bias"] = r.normal(Fdim, std=0.1)
        sd[m + "mlp.dense_4h_to_h.weight"] = r.normal(D, Fdim, std=0.15)
        sd[m + "mlp.dense_4h_to_h.bias"] = r.normal(D, std=0.1)
    sd["gpt_neox.final_layer_norm.weight"] = r.normal(D, std=0.1, mean=1.0)
    sd["gpt_neox.final_layer_norm.bias"] = r.normal(D, std=0.1)
    sd["embed_out.weight"] = r.normal(V, D, std=0.5)

    def lin(t, n):
        return t @ sd[n + ".weight"].T + sd[n + ".bias"]

    ids = torch.tensor(IDS)
    T = len(IDS)
    cos, sin = rope_cos_sin(T, R, theta)  # (T, R): inv_freq over the rotary dims only
    x = sd["gpt_neox.embed_in.weight"][ids]
    exp = {"ids": ids.double(), "input": x.clone()}
    for i in range(L):
        m = f"gpt_neox.layers.{i}."
        a = layer_norm(x, sd[m + "input_layernorm.weight"], sd[m + "input_layernorm.bias"], eps)
        qkv = lin(a, m + "attention.query_key_value").view(T, H, 3 * Dh)  # (T, H, 3·Dh): q | k | v per head
        q, k, v = (qkv[..., j * Dh:(j + 1) * Dh].reshape(T, H * Dh) for j in range(3))

        def rotate(t):  # rotate_half on each head's first R dims, the rest passes
            th = t.view(T, H, Dh)
            rot = th[..., :R] * cos[:, None, :] + rotate_half(th[..., :R]) * sin[:, None, :]
            return torch.cat([rot, th[..., R:]], dim=-1).reshape(T, H * Dh)

        att, probs = attention(rotate(q), rotate(k), v, H, H, causal=True)
        check_llama_attention(q, k, v, probs, att, H, H, rope_inv_freq(R, theta), None, rotary=R)
        attn_out = lin(att, m + "attention.dense")
        mlp = lambda t: lin(gelu_erf(lin(t, m + "mlp.dense_h_to_4h")), m + "mlp.dense_4h_to_h")
        ln2 = lambda t: layer_norm(t, sd[m + "post_attention_layernorm.weight"], sd[m + "post_attention_layernorm.bias"], eps)
        if parallel:  # x + attn(ln1(x)) + mlp(ln2(x))
            x = x + attn_out + mlp(ln2(x))
        else:
            x = x + attn_out
            x = x + mlp(ln2(x))
        for hh in range(H):
            exp[f"layers.{i}.heads.{hh}"] = probs[hh]
        exp[f"layers.{i}.output"] = x.clone()
    x = layer_norm(x, sd["gpt_neox.final_layer_norm.weight"], sd["gpt_neox.final_layer_norm.bias"], eps)
    exp["final_output"] = x.clone()
    exp["logits"] = x[-1] @ sd["embed_out.weight"].T
    m = "gpt_neox.layers.0."
    fused = sd[m + "attention.query_key_value.weight"].view(H, 3, Dh, D)
    exp.update({"loaded.wq": fused[:, 0].reshape(D, D), "loaded.wk": fused[:, 1].reshape(D, D),
                "loaded.wv": fused[:, 2].reshape(D, D), "loaded.wo": sd[m + "attention.dense.weight"],
                "loaded.w_up": sd[m + "mlp.dense_h_to_4h.weight"], "loaded.w_down": sd[m + "mlp.dense_4h_to_h.weight"]})
    config = {"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "hidden_act": "gelu",
              "attention_dropout": 0.0, "hidden_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0,
              "initializer_range": 0.02, "torch_dtype": "float32", "use_cache": True,
              "tie_word_embeddings": False, "attention_bias": True, **cfg}
    return config, sd, exp


# ---------------------------------------------------------------------------------------
def torch_dtype_name(dtype):
    return {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]


def assert_close(a, b, what):
    diff = (a - b).abs().max().item()
    if not diff <= SELF_CHECK_ATOL:
        sys.exit(f"self-check failed: {what}: max |diff| = {diff:g}")


def write_case(root, name, config, files, exp, dtype, shards=None):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    write_json(os.path.join(d, "config.json"), config)
    if shards is None:
        write_safetensors(os.path.join(d, "model.safetensors"), files, dtype, {"format": "pt"})
    else:
        # shards: list of predicates name -> bool, in shard order; HF file names.
        n = len(shards)
        weight_map, total = {}, 0
        for s, pred in enumerate(shards):
            fname = f"model-{s + 1:05d}-of-{n:05d}.safetensors"
            part = {k: v for k, v in files.items() if pred(k)}
            total += write_safetensors(os.path.join(d, fname), part, dtype, {"format": "pt"})
            weight_map.update({k: fname for k in part})
        assert set(weight_map) == set(files)
        write_json(os.path.join(d, "model.safetensors.index.json"),
                   {"metadata": {"total_size": total},
                    "weight_map": dict(sorted(weight_map.items()))})
    write_safetensors(os.path.join(d, "expected.safetensors"), exp, "F32")


def generate(root):
    gpt2 = {"n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 16, "n_ctx": 16,
            "n_inner": None, "vocab_size": 64, "layer_norm_epsilon": 1e-5}
    write_case(root, "gpt2", *gpt2_case("gpt2", gpt2, "F32", "", 1), "F32")
    gpt2_bf16 = dict(gpt2, n_inner=64)
    write_case(root, "gpt2_bf16", *gpt2_case("gpt2_bf16", gpt2_bf16, "BF16", "transformer.", 2), "BF16")

    bert = {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2,
            "intermediate_size": 64, "max_position_embeddings": 16, "type_vocab_size": 2,
            "vocab_size": 64, "layer_norm_eps": 1e-12}
    write_case(root, "bert", *bert_case("bert", bert, "", False, 3), "F32")
    write_case(root, "bert_prefixed", *bert_case("bert_prefixed", dict(bert, layer_norm_eps=1e-5),
                                                 "bert.", True, 4), "F32")

    llama = {"model_type": "llama", "hidden_size": 32, "num_attention_heads": 4,
             "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 64,
             "max_position_embeddings": 32, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
             "rope_scaling": None, "tie_word_embeddings": False, "vocab_size": 64}
    write_case(root, "llama", *llama_case("llama", llama, "F32", 5), "F32")
    write_case(root, "llama_f16", *llama_case("llama_f16", llama, "F16", 6), "F16")
    sharded = dict(llama, head_dim=12, rope_theta=10000.0)
    config, files, exp = llama_case("llama_sharded", sharded, "F32", 7)
    first = lambda k: k == "model.embed_tokens.weight" or k.startswith("model.layers.0.")
    write_case(root, "llama_sharded", config, files, exp, "F32",
               shards=[first, lambda k: not first(k)])

    qwen2 = {"model_type": "qwen2", "hidden_size": 32, "num_attention_heads": 4,
             "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 64,
             "max_position_embeddings": 32, "max_window_layers": 2, "rms_norm_eps": 1e-6,
             "rope_theta": 1000000.0, "sliding_window": 32, "use_sliding_window": False,
             "tie_word_embeddings": True, "vocab_size": 64}
    write_case(root, "qwen2", *llama_case("qwen2", qwen2, "F32", 8), "F32")

    # Mistral: Llama with a sliding window of 3 keys (shorter than the 7 tokens)
    mistral = {"model_type": "mistral", "hidden_size": 32, "num_attention_heads": 4,
               "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 64,
               "max_position_embeddings": 32, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
               "sliding_window": 3, "tie_word_embeddings": False, "vocab_size": 64}
    write_case(root, "mistral", *llama_case("mistral", mistral, "F32", 9), "F32")
    # Llama 3.1's rope scaling; original_max_position_embeddings 64 puts the 8 frequencies
    # of Dh 16 in all three bands (kept, smoothed, divided by factor)
    llama31 = dict(llama, rope_theta=10000.0, head_dim=16,
                   rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                 "high_freq_factor": 4.0, "original_max_position_embeddings": 64})
    write_case(root, "llama31", *llama_case("llama31", llama31, "F32", 10), "F32")
    # Qwen3: q/k RMSNorm per head (q_norm, k_norm of head_dim), no biases, head_dim 16 ≠ D/H
    qwen3 = {"model_type": "qwen3", "hidden_size": 32, "num_attention_heads": 4,
             "num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 2,
             "intermediate_size": 64, "max_position_embeddings": 32, "rms_norm_eps": 1e-6,
             "rope_theta": 1000000.0, "attention_bias": False, "use_sliding_window": False,
             "sliding_window": None, "tie_word_embeddings": True, "vocab_size": 64}
    write_case(root, "qwen3", *llama_case("qwen3", qwen3, "F32", 11), "F32")
    # Qwen2 with use_sliding_window: layers from max_window_layers (1) on see 3 keys
    qwen2_window = dict(qwen2, use_sliding_window=True, sliding_window=3, max_window_layers=1)
    write_case(root, "qwen2_window", *llama_case("qwen2_window", qwen2_window, "F32", 15), "F32")
    # Phi-3: fused qkv_proj and gate_up_proj, rotary on 3/4 of each 8-dim head (6 dims),
    # a sliding window of 4 keys in every layer, untied head
    phi3 = {"model_type": "phi3", "hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2,
            "num_hidden_layers": 2, "intermediate_size": 64, "max_position_embeddings": 32,
            "original_max_position_embeddings": 32, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
            "rope_scaling": None, "partial_rotary_factor": 0.75, "sliding_window": 4,
            "tie_word_embeddings": False, "vocab_size": 64, "attention_bias": False}
    write_case(root, "phi3", *llama_case("phi3", phi3, "F32", 16), "F32")
    # Gemma: GeGLU (gelu_pytorch_tanh), embeddings × √32, RMSNorm (1 + w), multi-query
    # attention, head_dim 16 ≠ D/H, tied head
    gemma = {"model_type": "gemma", "hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 1,
             "head_dim": 16, "num_hidden_layers": 2, "intermediate_size": 64, "max_position_embeddings": 32,
             "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_activation": "gelu_pytorch_tanh",
             "attention_bias": False, "tie_word_embeddings": True, "vocab_size": 64}
    write_case(root, "gemma", *llama_case("gemma", gemma, "F32", 17), "F32")
    # Gemma 2: sandwich norms, scores × 8^(−1/2) (query_pre_attn_scalar ≠ head_dim) soft-capped
    # at 2 (tight enough to bend most scores), logits soft-capped at 5, layer 0 local
    # (sliding_window 3), layer 1 global
    gemma2 = dict(gemma, model_type="gemma2", num_key_value_heads=2, query_pre_attn_scalar=8,
                  attn_logit_softcapping=2.0, final_logit_softcapping=5.0, sliding_window=3)
    write_case(root, "gemma2", *llama_case("gemma2", gemma2, "F32", 18), "F32")
    # Gemma 3 (text): sandwich norms, qk-norm with (1 + w) weights, no soft-caps, layers
    # L L G (sliding_window_pattern 3) where the local ones turn with base 100 and the global
    # one with rope_theta 10000 stretched by a linear rope_scaling of 4
    gemma3 = dict(gemma, model_type="gemma3_text", num_hidden_layers=3, query_pre_attn_scalar=16,
                  attn_logit_softcapping=None, final_logit_softcapping=None, sliding_window=3,
                  sliding_window_pattern=3, rope_local_base_freq=100.0,
                  rope_scaling={"rope_type": "linear", "factor": 4.0})
    write_case(root, "gemma3", *llama_case("gemma3", gemma3, "F32", 19), "F32")
    # GPT-NeoX (Pythia): parallel attention + MLP, rotary on half of each head's 8 dims;
    # and the sequential form with rotary on a quarter
    neox = {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 64,
            "max_position_embeddings": 16, "layer_norm_eps": 1e-5, "rotary_emb_base": 10000,
            "rotary_pct": 0.5, "use_parallel_residual": True, "vocab_size": 64}
    write_case(root, "gpt_neox", *gpt_neox_case("gpt_neox", neox, 12), "F32")
    neox_seq = dict(neox, rotary_pct=0.25, use_parallel_residual=False)
    write_case(root, "gpt_neox_sequential", *gpt_neox_case("gpt_neox_sequential", neox_seq, 13), "F32")
    # GPT-Neo (TinyStories-1M…33M): unscaled scores, global and local layers alternating,
    # the local ones seeing 3 keys (< the 7 tokens), intermediate_size null (= 4·hidden)
    neo = {"hidden_size": 32, "num_heads": 4, "num_layers": 4, "intermediate_size": None,
           "max_position_embeddings": 16, "layer_norm_epsilon": 1e-5, "window_size": 3,
           "attention_types": [[["global", "local"], 2]], "vocab_size": 64}
    write_case(root, "gpt_neo", *gpt_neo_case("gpt_neo", neo, 14), "F32")


def bytes_to_unicode():
    """GPT-2's byte -> printable character table: printable Latin-1 bytes map to
    themselves, the other 68 bytes to U+0100 onwards, in byte order."""
    keep = set(range(ord("!"), ord("~") + 1)) | set(range(ord("¡"), ord("¬") + 1)) | \
        set(range(ord("®"), ord("ÿ") + 1))
    table, n = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


def write_gpt2_small(d):
    """Random GPT-2-small-shaped checkpoint (12 layers, D 768, 12 heads, V 50257, P 1024):
    weights N(0, 0.02) like GPT-2's init, LayerNorms at 1 / 0. The tokenizer has the 256
    byte tokens plus unreachable fillers and no merges, so text encodes byte by byte."""
    D, L, V, P = 768, 12, 50257, 1024
    os.makedirs(d, exist_ok=True)
    g = torch.Generator().manual_seed(0)
    rnd = lambda *shape: 0.02 * torch.randn(*shape, generator=g, dtype=torch.float32)
    sd = {"wte.weight": rnd(V, D), "wpe.weight": rnd(P, D),
          "ln_f.weight": torch.ones(D, dtype=torch.float32), "ln_f.bias": torch.zeros(D, dtype=torch.float32)}
    for i in range(L):
        h = f"h.{i}."
        for n in ("ln_1", "ln_2"):
            sd[h + n + ".weight"] = torch.ones(D, dtype=torch.float32)
            sd[h + n + ".bias"] = torch.zeros(D, dtype=torch.float32)
        for n, (a, b) in {"attn.c_attn": (D, 3 * D), "attn.c_proj": (D, D),
                          "mlp.c_fc": (D, 4 * D), "mlp.c_proj": (4 * D, D)}.items():
            sd[h + n + ".weight"] = rnd(a, b)
            sd[h + n + ".bias"] = torch.zeros(b, dtype=torch.float32)
    write_safetensors(os.path.join(d, "model.safetensors"), sd, "F32", {"format": "pt"})
    write_json(os.path.join(d, "config.json"),
               {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": D,
                "n_head": 12, "n_layer": L, "n_positions": P, "n_ctx": P, "n_inner": None,
                "vocab_size": V, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
                "bos_token_id": V - 1, "eos_token_id": V - 1, "torch_dtype": "float32"})
    vocab = {ch: b for b, ch in bytes_to_unicode().items()}
    for i in range(256, V - 1):
        vocab[f"<filler{i}>"] = i
    vocab["<|endoftext|>"] = V - 1
    write_json(os.path.join(d, "vocab.json"), vocab)
    with open(os.path.join(d, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")
    print(f"wrote {d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate in a temp dir and compare with tests/fixtures/hf")
    ap.add_argument("--gpt2-small", metavar="DIR",
                    help="write a random GPT-2-small-shaped checkpoint to DIR (for timings)")
    args = ap.parse_args()
    if args.gpt2_small:
        write_gpt2_small(args.gpt2_small)
        return
    if not args.check:
        if os.path.isdir(OUT_DIR):
            shutil.rmtree(OUT_DIR)
        generate(OUT_DIR)
        total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(OUT_DIR) for f in fs)
        print(f"wrote {OUT_DIR} ({total} bytes)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        cmp = filecmp.dircmp(tmp, OUT_DIR)
        bad = []

        def walk(c, rel):
            bad.extend(os.path.join(rel, f) for f in c.left_only + c.right_only + c.diff_files)
            for sub, sc in c.subdirs.items():
                walk(sc, os.path.join(rel, sub))
        walk(cmp, "")
        # dircmp compares shallowly by stat; compare bytes explicitly.
        for dp, _, fs in os.walk(tmp):
            for f in fs:
                a = os.path.join(dp, f)
                b = os.path.join(OUT_DIR, os.path.relpath(a, tmp))
                if os.path.exists(b) and not filecmp.cmp(a, b, shallow=False):
                    bad.append(os.path.relpath(a, tmp))
        if bad:
            print("drift in: " + ", ".join(sorted(set(bad))))
            sys.exit(1)
        print("fixtures match")


if __name__ == "__main__":
    main()
