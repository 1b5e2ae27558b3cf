#!/usr/bin/python3
"""GGUF fixtures and an independent reference for HeadScope's GGUF reader (issue 40).

Written from ggml's docs/gguf.md and the block layouts of ggml-common.h, in numpy and
torch, sharing no code with core/formats/gguf.cpp or core/kernels/stored_types.cpp:

1. tests/fixtures/gguf/blocks.gguf: one tensor per readable stored type (F32, F16, BF16,
   Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL), shape (2, 256),
   whose blocks are random bytes with finite f16 scales (every bit of every field is
   exercised), plus metadata of every value type; tests/fixtures/gguf/blocks_expected.json
   holds each tensor dequantised by the vectorised numpy decoders below.
2. tests/fixtures/gguf/tiny_llama.gguf: a 2-layer llama (d 32, 4 heads, 2 key/value
   heads, F16 and Q8_0 weights, a 300-piece SentencePiece vocabulary with byte pieces),
   the file the malformed-input tests damage; tiny_llama_expected.json holds its next-token
   logits for one prompt from the torch forward below; tiny_vocab_only.gguf has its
   metadata and no tensors (a tokenizer-only file, as llama.cpp's vocab files are).
3. tests/fixtures/gguf/shared_reference.json: greedy continuations and last-position
   logits of the real files in ../shared/models/gguf, from the torch forward over the
   numpy-dequantised weights (float32 throughout, like HeadScope).

The torch forward is Meta's llama as llama.cpp runs GGUF "llama": pre-norm RMSNorm,
rotary on adjacent pairs (x_2i, x_2i+1) rotated by p·θ_i, θ_i = base^(−2i/Dh), grouped
K/V heads, SwiGLU down(silu(gate x) ⊙ up x), final RMSNorm, output (or token_embd).
For "qwen2" the q/k/v projections add their biases and rotary pairs dimension i with
i + Dh/2 (llama.cpp's NEOX mode, Hugging Face's rotate_half).

4. tests/fixtures/gguf/tiny_qwen2.gguf: a 2-layer qwen2 (q/k/v biases) whose tokenizer is
   the byte-level BPE of tests/fixtures/tokenizers/qwen2_tiny/tokenizer.json written the
   GGUF way (tokens, merges "a b", token types, pre "qwen2"); tiny_qwen2_expected.json
   holds its logits for fixed ids.
5. tests/fixtures/gguf/tiny_llama_rope_freqs.gguf: tiny_llama.gguf plus a rope_freqs tensor
   (Llama-3.1's rope scaling, θ_i divided by rope_freqs[i]) and its torch logits.
6. tests/fixtures/gguf/tiny_qwen3.gguf: a 2-layer qwen3: no biases, attn_q_norm /
   attn_k_norm (an RMSNorm of every head's q and k over its Dh, before the rotation), and
   a head size of 16 set by attention.key_length (4 heads × 16 = 64 ≠ d_model 32), the
   qwen2 fixture's tokenizer; tiny_qwen3_expected.json holds its logits.
7. tests/fixtures/gguf/tiny_gemma.gguf, tiny_gemma2.gguf, tiny_gemma3.gguf (tiny_gemma_fixture):
   Gemma's GeGLU and scaled embeddings; Gemma 2's sandwich norms, soft-caps and local
   layers; Gemma 3's qk-norm, L L G layers with their own rope base and linear scaling;
   tiny_<arch>_expected.json holds their logits from gemma_logits below.
8. tests/fixtures/gguf/tiny_gpt2.gguf, tiny_gptneox.gguf, tiny_phi3.gguf (tiny_fused_fixture):
   one attn_qkv tensor each; GPT-2's learned positions, GPT-NeoX's partial rotary and
   parallel block, Phi-3's [gate; up] ffn_up, partial rotary and window; logits from
   fused_logits below.

9. tests/fixtures/gguf/tiny_bert.gguf (tiny_bert_fixture): a 2-layer BERT encoder as
   llama.cpp's converter writes one: separate attn_q/k/v with biases, post-norm
   (attn_output_norm, layer_output_norm), learned positions, token_types, token_embd_norm,
   no head; its WordPiece vocabulary is tests/fixtures/tokenizers/wordpiece_uncased/vocab.txt
   in llama.cpp's spelling (a continuation "##x" stored as "x", any other token as "\u2581"
   + token, control tokens as they are). tiny_bert_expected.json holds the last layer's
   output for fixed ids from bert_hidden below (Hugging Face's BertModel, written out).

Regenerate:   /usr/bin/python3 tests/gen_gguf_fixtures.py
Verify only:  /usr/bin/python3 tests/gen_gguf_fixtures.py --check
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures", "gguf")
SHARED = os.path.join(HERE, "..", "..", "shared", "models", "gguf")

# ---------------------------------------------------------------------------------------
# GGUF reading and writing

VALUE_FORMATS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
STRING, ARRAY = 8, 9

# name: (ggml type number, values per block, bytes per block)
TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "BF16": (30, 1, 2),
    "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24),
    "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
    "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "IQ4_NL": (20, 32, 18),
}
TYPE_NAMES = {number: name for name, (number, _, _) in TYPES.items()}


class Reader:
    def __init__(self, path):
        self.data = open(path, "rb").read()
        self.at = 0

    def take(self, fmt):
        value = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return value[0]

    def string(self):
        n = self.take("Q")
        s = self.data[self.at:self.at + n].decode("utf-8")
        self.at += n
        return s

    def value(self, kind):
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            element, count = self.take("I"), self.take("Q")
            return [self.value(element) for _ in range(count)]
        return self.take(VALUE_FORMATS[kind])


def read_gguf(path):
    """(metadata dict, {name: float32 array shaped (ne[-1], …, ne[0])})."""
    r = Reader(path)
    assert r.data[:4] == b"GGUF", path
    r.at = 4
    version, n_tensors, n_kv = r.take("I"), r.take("Q"), r.take("Q")
    assert version in (2, 3)
    meta = {}
    for _ in range(n_kv):
        key = r.string()
        meta[key] = r.value(r.take("I"))
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        ne = [r.take("Q") for _ in range(r.take("I"))]
        infos.append((name, ne, r.take("I"), r.take("Q")))
    align = meta.get("general.alignment", 32)
    start = (r.at + align - 1) // align * align
    tensors = {}
    for name, ne, number, offset in infos:
        type_name = TYPE_NAMES[number]
        _, per_block, block_bytes = TYPES[type_name]
        count = int(np.prod(ne))
        raw = np.frombuffer(r.data, np.uint8, count // per_block * block_bytes, start + offset)
        tensors[name] = dequantize(type_name, raw, count).reshape(list(reversed(ne)))
    return meta, tensors


class Writer:
    def __init__(self):
        self.meta = []
        self.tensors = []  # (name, ne, type number, raw bytes)

    def add(self, key, kind, value, element=None):
        self.meta.append((key, kind, value, element))

    def tensor(self, name, ne, type_name, raw):
        self.tensors.append((name, ne, TYPES[type_name][0], bytes(raw)))

    @staticmethod
    def pack_value(kind, value, element=None):
        if kind == STRING:
            b = value.encode("utf-8")
            return struct.pack("<Q", len(b)) + b
        if kind == ARRAY:  # an array of arrays holds arrays of u32
            inner = 4 if element == ARRAY else None
            return struct.pack("<IQ", element, len(value)) + b"".join(Writer.pack_value(element, v, inner) for v in value)
        return struct.pack("<" + VALUE_FORMATS[kind], value)

    def write(self, path, align=32):
        head = b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(self.meta))
        for key, kind, value, element in self.meta:
            head += self.pack_value(STRING, key) + struct.pack("<I", kind) + self.pack_value(kind, value, element)
        offset, body = 0, b""
        for name, ne, number, raw in self.tensors:
            head += self.pack_value(STRING, name) + struct.pack("<I", len(ne))
            head += b"".join(struct.pack("<Q", n) for n in ne) + struct.pack("<IQ", number, offset)
            padded = raw + b"\0" * (-len(raw) % align)
            body += padded
            offset += len(padded)
        head += b"\0" * (-len(head) % align)
        with open(path, "wb") as f:
            f.write(head + body)


# ---------------------------------------------------------------------------------------
# Block decoders, vectorised over blocks (rows of `b`, one block per row).

IQ4_LEVELS = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113], np.float32)


def f16(b, at):
    return b[:, at:at + 2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)


def nibbles(qs):
    """Byte j: value j in the low nibble, value j + 16 (j + half) in the high one."""
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int32)


def fifth_bits(qh_bytes):
    qh = qh_bytes.copy().view("<u4").astype(np.int64)  # (blocks, 1)
    return ((qh >> np.arange(32)) & 1).astype(np.int32)  # bit j → value j


def scale_min_k4(p):
    """Q4_K / Q5_K: 8 six-bit (scale, min) pairs from 12 bytes, each (blocks, 8)."""
    p = p.astype(np.int32)
    sc = np.concatenate([p[:, 0:4] & 63, (p[:, 8:12] & 15) | ((p[:, 0:4] >> 6) << 4)], axis=1)
    mn = np.concatenate([p[:, 4:8] & 63, (p[:, 8:12] >> 4) | ((p[:, 4:8] >> 6) << 4)], axis=1)
    return sc.astype(np.float32), mn.astype(np.float32)


def decode_q2_k(b):
    scales, qs = b[:, 0:16].astype(np.int32), b[:, 16:80].astype(np.int32)
    d, dmin = f16(b, 80), f16(b, 82)
    q = qs.reshape(-1, 2, 1, 2, 16) >> (2 * np.arange(4)).reshape(1, 1, 4, 1, 1) & 3  # half, shift, side, l
    g = scales.reshape(-1, 2, 4, 2, 1)
    dl = (d[:, :, None, None, None] * (g & 15).astype(np.float32))
    ml = (dmin[:, :, None, None, None] * (g >> 4).astype(np.float32))
    return (dl * q.astype(np.float32) - ml).reshape(-1, 256)


def decode_q3_k(b):
    hmask, qs, p = b[:, 0:32].astype(np.int32), b[:, 32:96].astype(np.int32), b[:, 96:108].astype(np.int32)
    d = f16(b, 108)
    s = np.arange(16)
    low = np.where(s < 8, p[:, s % 8] & 15, p[:, s % 8] >> 4)
    high = (p[:, 8 + s % 4] >> (2 * (s // 4))) & 3
    scale = ((low | (high << 4)) - 32).reshape(-1, 2, 4, 2, 1).astype(np.float32)
    shift = np.arange(4).reshape(1, 1, 4, 1, 1)
    q = qs.reshape(-1, 2, 1, 2, 16) >> (2 * shift) & 3
    bit = 1 << (4 * np.arange(2).reshape(1, 2, 1, 1, 1) + shift)
    h = hmask.reshape(-1, 1, 1, 2, 16) & bit
    v = q - np.where(h != 0, 0, 4)
    return ((d[:, :, None, None, None] * scale) * v.astype(np.float32)).reshape(-1, 256)


def decode_k4_k5(b, five):
    d, dmin = f16(b, 0), f16(b, 2)
    sc, mn = scale_min_k4(b[:, 4:16])
    qs = b[:, 48:176] if five else b[:, 16:144]
    qs = qs.astype(np.int32).reshape(-1, 4, 1, 32)
    q = np.concatenate([qs & 15, qs >> 4], axis=2)  # (blocks, chunk, nibble, 32)
    if five:
        qh = b[:, 16:48].astype(np.int32).reshape(-1, 1, 1, 32)
        bit = 1 << (2 * np.arange(4).reshape(1, 4, 1, 1) + np.arange(2).reshape(1, 1, 2, 1))
        q = q + np.where(qh & bit, 16, 0)
    ds = (d * sc).reshape(-1, 4, 2, 1)
    dm = (dmin * mn).reshape(-1, 4, 2, 1)
    return (ds * q.astype(np.float32) - dm).reshape(-1, 256)


def decode_q6_k(b):
    ql, qh = b[:, 0:128].astype(np.int32), b[:, 128:192].astype(np.int32)
    sc = b[:, 192:208].copy().view(np.int8).astype(np.float32)
    d = f16(b, 208)
    out = np.zeros((b.shape[0], 256), np.float32)
    for half in range(2):
        lo = ql[:, 64 * half:64 * half + 64]
        hi = qh[:, 32 * half:32 * half + 32]
        parts = [(lo[:, :32] & 15), (lo[:, 32:] & 15), (lo[:, :32] >> 4), (lo[:, 32:] >> 4)]
        for k in range(4):
            q = (parts[k] | (((hi >> (2 * k)) & 3) << 4)) - 32
            scale = np.repeat(sc[:, 8 * half + 2 * k:8 * half + 2 * k + 2], 16, axis=1)
            out[:, 128 * half + 32 * k:128 * half + 32 * k + 32] = (d * scale) * q.astype(np.float32)
    return out


def dequantize(type_name, raw, count):
    if type_name == "F32":
        return raw.view(np.float32).copy()
    if type_name == "F16":
        return raw.view(np.float16).astype(np.float32)
    if type_name == "BF16":
        return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    _, per_block, block_bytes = TYPES[type_name]
    b = raw.reshape(-1, block_bytes)
    if type_name == "Q8_0":
        y = f16(b, 0) * b[:, 2:].copy().view(np.int8).astype(np.float32)
    elif type_name == "Q4_0":
        y = (nibbles(b[:, 2:]) - 8).astype(np.float32) * f16(b, 0)
    elif type_name == "Q4_1":
        y = nibbles(b[:, 4:]).astype(np.float32) * f16(b, 0) + f16(b, 2)
    elif type_name == "Q5_0":
        y = ((nibbles(b[:, 6:]) | (fifth_bits(b[:, 2:6]) << 4)) - 16).astype(np.float32) * f16(b, 0)
    elif type_name == "Q5_1":
        y = (nibbles(b[:, 8:]) | (fifth_bits(b[:, 4:8]) << 4)).astype(np.float32) * f16(b, 0) + f16(b, 2)
    elif type_name == "IQ4_NL":
        y = f16(b, 0) * IQ4_LEVELS[nibbles(b[:, 2:])]
    elif type_name == "Q2_K":
        y = decode_q2_k(b)
    elif type_name == "Q3_K":
        y = decode_q3_k(b)
    elif type_name in ("Q4_K", "Q5_K"):
        y = decode_k4_k5(b, type_name == "Q5_K")
    elif type_name == "Q6_K":
        y = decode_q6_k(b)
    else:
        raise ValueError(type_name)
    return y.reshape(-1)[:count].astype(np.float32)


# Where each type keeps its f16 scales (byte offsets in a block), set to finite values.
SCALE_OFFSETS = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "IQ4_NL": [0],
                 "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}


def random_blocks(rng, type_name, count):
    """Raw bytes of `count` values: random bits, finite scales in ±[1e-3, 1)."""
    if type_name == "F32":
        return rng.standard_normal(count).astype(np.float32).view(np.uint8)
    if type_name == "F16":
        return rng.standard_normal(count).astype(np.float16).view(np.uint8)
    if type_name == "BF16":
        return (rng.standard_normal(count).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
    _, per_block, block_bytes = TYPES[type_name]
    b = rng.integers(0, 256, (count // per_block, block_bytes), dtype=np.uint8)
    for at in SCALE_OFFSETS[type_name]:
        scale = (rng.uniform(1e-3, 1.0, b.shape[0]) * rng.choice([-1, 1], b.shape[0])).astype(np.float16)
        b[:, at:at + 2] = scale.view(np.uint8).reshape(-1, 2)
    return b.reshape(-1)


# ---------------------------------------------------------------------------------------
# The llama forward (torch, float32)

def rms_norm(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def rope_cos_sin(T, Dh, base, divisors):
    """cos, sin of position · base^(−2i/Dh) / divisors[i] (llama.cpp's rope_freqs, Llama-3.1's
    scaling), each (T, Dh/2), computed in double."""
    theta = base ** (-torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
    if divisors is not None:
        theta = theta / torch.as_tensor(divisors, dtype=torch.float64)
    angle = torch.arange(T, dtype=torch.float64)[:, None] * theta[None, :]
    return torch.cos(angle).float(), torch.sin(angle).float()


def rope_halves(x, base, divisors=None):
    """x: (heads, T, Dh); dimension i paired with i + Dh/2 (HF's rotate_half, llama.cpp's NEOX)."""
    heads, T, Dh = x.shape
    cos, sin = rope_cos_sin(T, Dh, base, divisors)
    a, b = x[..., :Dh // 2], x[..., Dh // 2:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


def rope_adjacent(x, base, divisors=None):
    """x: (heads, T, Dh); pairs (2i, 2i+1) rotated (meta's llama, llama.cpp's "normal" mode)."""
    heads, T, Dh = x.shape
    cos, sin = rope_cos_sin(T, Dh, base, divisors)
    a, b = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def rms_block_shape(meta):
    """arch, D, L, H, Hkv, RMSNorm ε, rope base and head size Dh from an RMSNorm file's keys."""
    arch = meta["general.architecture"]
    D, H = meta[f"{arch}.embedding_length"], meta[f"{arch}.attention.head_count"]
    return (arch, D, meta[f"{arch}.block_count"], H, meta.get(f"{arch}.attention.head_count_kv", H),
            meta[f"{arch}.attention.layer_norm_rms_epsilon"], meta.get(f"{arch}.rope.freq_base", 10000.0),
            meta.get(f"{arch}.attention.key_length", D // H))


def llama_logits(meta, w, ids):
    """Logits (T, V) of a GGUF llama for token ids."""
    arch, D, L, H, Hkv, eps, base, Dh = rms_block_shape(meta)
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    x = t["token_embd.weight"][ids]
    T = len(ids)
    mask = torch.full((T, T), float("-inf")).triu(1)
    for il in range(L):
        p = f"blk.{il}."
        h = rms_norm(x, t[p + "attn_norm.weight"], eps)
        bias = (lambda name: t[p + name + ".bias"]) if arch == "qwen2" else (lambda name: 0)
        q = (h @ t[p + "attn_q.weight"].T + bias("attn_q")).view(T, H, Dh).transpose(0, 1)
        k = (h @ t[p + "attn_k.weight"].T + bias("attn_k")).view(T, Hkv, Dh).transpose(0, 1)
        v = (h @ t[p + "attn_v.weight"].T + bias("attn_v")).view(T, Hkv, Dh).transpose(0, 1)
        if arch == "qwen3":  # each head's q and k RMS-normalised over Dh, before the rotation
            q, k = rms_norm(q, t[p + "attn_q_norm.weight"], eps), rms_norm(k, t[p + "attn_k_norm.weight"], eps)
        rope = rope_halves if arch in ("qwen2", "qwen3") else rope_adjacent
        divisors = w.get("rope_freqs.weight")
        q, k = rope(q, base, divisors), rope(k, base, divisors)
        k, v = k.repeat_interleave(H // Hkv, 0), v.repeat_interleave(H // Hkv, 0)
        a = torch.softmax(q @ k.transpose(1, 2) / Dh ** 0.5 + mask, -1)
        x = x + (a @ v).transpose(0, 1).reshape(T, H * Dh) @ t[p + "attn_output.weight"].T
        h = rms_norm(x, t[p + "ffn_norm.weight"], eps)
        g = torch.nn.functional.silu(h @ t[p + "ffn_gate.weight"].T) * (h @ t[p + "ffn_up.weight"].T)
        x = x + g @ t[p + "ffn_down.weight"].T
    x = rms_norm(x, t["output_norm.weight"], eps)
    head = t.get("output.weight", t["token_embd.weight"])
    return x @ head.T


def gemma_logits(meta, w, ids):
    """Logits (T, V) of a GGUF gemma / gemma2 / gemma3 as llama.cpp runs them, written from
    Hugging Face's Gemma modelling code: token embeddings × √D; RMSNorm weights used as
    stored (llama.cpp's converter stores Gemma's 1 + w); q and k (Gemma 3: each head
    RMS-normalised first) rotated in halves (NEOX); scores × 1/√Dh, Gemma 2's soft-cap
    c·tanh(s/c); causal, and in a local layer only the last `sliding_window` keys (Gemma 2:
    even layers; Gemma 3: all but every pattern-th); Gemma 3's local layers rotate with base
    10000, its global ones with freq_base and the linear rope scaling; GELU-tanh gate; Gemma
    2/3 normalise the attention's and the feed-forward's outputs before the residual; tied
    head; Gemma 2's final soft-cap."""
    arch, D, L, H, Hkv, eps, base, Dh = rms_block_shape(meta)
    sandwich = arch in ("gemma2", "gemma3")
    cap = meta.get(f"{arch}.attn_logit_softcapping") if arch == "gemma2" else None
    final_cap = meta.get(f"{arch}.final_logit_softcapping") if arch == "gemma2" else None
    window = meta.get(f"{arch}.attention.sliding_window")
    pattern = 2 if arch == "gemma2" else meta.get(f"{arch}.attention.sliding_window_pattern", 6)
    factor = meta.get(f"{arch}.rope.scaling.factor", 1.0)
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    x = t["token_embd.weight"][ids] * math.sqrt(D)
    T = len(ids)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    gelu_tanh = lambda v: torch.nn.functional.gelu(v, approximate="tanh")
    for il in range(L):
        p = f"blk.{il}."
        local = sandwich and (il + 1) % pattern != 0
        hidden = (j > i) | ((j <= i - window) if local else torch.zeros(T, T, dtype=torch.bool))
        h = rms_norm(x, t[p + "attn_norm.weight"], eps)
        q = (h @ t[p + "attn_q.weight"].T).view(T, H, Dh).transpose(0, 1)
        k = (h @ t[p + "attn_k.weight"].T).view(T, Hkv, Dh).transpose(0, 1)
        v = (h @ t[p + "attn_v.weight"].T).view(T, Hkv, Dh).transpose(0, 1)
        if arch == "gemma3":
            q, k = rms_norm(q, t[p + "attn_q_norm.weight"], eps), rms_norm(k, t[p + "attn_k_norm.weight"], eps)
        if arch == "gemma3" and local:
            q, k = rope_halves(q, 10000.0), rope_halves(k, 10000.0)
        else:
            divisors = [factor] * (Dh // 2) if arch == "gemma3" else None
            q, k = rope_halves(q, base, divisors), rope_halves(k, base, divisors)
        k, v = k.repeat_interleave(H // Hkv, 0), v.repeat_interleave(H // Hkv, 0)
        s = q @ k.transpose(1, 2) / Dh ** 0.5
        if cap:
            s = torch.tanh(s / cap) * cap
        a = torch.softmax(s.masked_fill(hidden, float("-inf")), -1)
        o = (a @ v).transpose(0, 1).reshape(T, H * Dh) @ t[p + "attn_output.weight"].T
        x = x + (rms_norm(o, t[p + "post_attention_norm.weight"], eps) if sandwich else o)
        h = rms_norm(x, t[p + "ffn_norm.weight"], eps)
        f = (gelu_tanh(h @ t[p + "ffn_gate.weight"].T) * (h @ t[p + "ffn_up.weight"].T)) @ t[p + "ffn_down.weight"].T
        x = x + (rms_norm(f, t[p + "post_ffw_norm.weight"], eps) if sandwich else f)
    x = rms_norm(x, t["output_norm.weight"], eps)
    logits = x @ t["token_embd.weight"].T
    return torch.tanh(logits / final_cap) * final_cap if final_cap else logits


def rope_partial_halves(x, R, base):
    """x: (heads, T, Dh); the first R dims rotated in halves (i with i + R/2), the rest pass
    (GPT-NeoX's rotary_pct, Phi-4-mini's partial_rotary_factor)."""
    return torch.cat([rope_halves(x[..., :R], base), x[..., R:]], dim=-1)


def fused_logits(meta, w, ids):
    """Logits (T, V) of a GGUF gpt2, gptneox or phi3 (one attn_qkv tensor [q; k; v]), written
    from Hugging Face's modelling code: gpt2 adds position_embd and uses GELU-tanh; gptneox
    turns the first rope.dimension_count dims of each head (halves) and runs attention and
    feed-forward side by side (use_parallel_residual), GELU with erf; both LayerNorm with
    biases everywhere. phi3: RMSNorm, rotary (halves) on rope.dimension_count dims, a sliding
    window of attention.sliding_window keys, ffn_up = [gate; up] through SiLU."""
    arch = meta["general.architecture"]
    D, L = meta[f"{arch}.embedding_length"], meta[f"{arch}.block_count"]
    H = meta[f"{arch}.attention.head_count"]
    Hkv = meta.get(f"{arch}.attention.head_count_kv", H)
    Dh = D // H
    R = meta.get(f"{arch}.rope.dimension_count", Dh)
    base = meta.get(f"{arch}.rope.freq_base", 10000.0)
    window = meta.get(f"{arch}.attention.sliding_window")
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    T = len(ids)
    if arch == "phi3":
        eps = meta[f"{arch}.attention.layer_norm_rms_epsilon"]
        norm = lambda x, name: rms_norm(x, t[name + ".weight"], eps)
    else:
        eps = meta[f"{arch}.attention.layer_norm_epsilon"]
        norm = lambda x, name: torch.nn.functional.layer_norm(x, (D,), t[name + ".weight"], t[name + ".bias"], eps)
    lin = lambda x, name: x @ t[name + ".weight"].T + (t[name + ".bias"] if name + ".bias" in t else 0)
    x = t["token_embd.weight"][ids]
    if arch == "gpt2":
        x = x + t["position_embd.weight"][:T]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    hidden = (j > i) | ((j <= i - window) if window else torch.zeros(T, T, dtype=torch.bool))
    F_ = meta[f"{arch}.feed_forward_length"]
    for il in range(L):
        p = f"blk.{il}."
        h = norm(x, p + "attn_norm")
        qkv = lin(h, p + "attn_qkv")
        q = qkv[:, :H * Dh].reshape(T, H, Dh).transpose(0, 1)
        k = qkv[:, H * Dh:(H + Hkv) * Dh].reshape(T, Hkv, Dh).transpose(0, 1)
        v = qkv[:, (H + Hkv) * Dh:].reshape(T, Hkv, Dh).transpose(0, 1)
        if arch != "gpt2":
            q, k = rope_partial_halves(q, R, base), rope_partial_halves(k, R, base)
        k, v = k.repeat_interleave(H // Hkv, 0), v.repeat_interleave(H // Hkv, 0)
        a = torch.softmax((q @ k.transpose(1, 2) / Dh ** 0.5).masked_fill(hidden, float("-inf")), -1)
        o = lin((a @ v).transpose(0, 1).reshape(T, H * Dh), p + "attn_output")
        if arch == "phi3":
            x = x + o
            up = lin(norm(x, p + "ffn_norm"), p + "ffn_up")
            x = x + lin(torch.nn.functional.silu(up[:, :F_]) * up[:, F_:], p + "ffn_down")
            continue
        gelu = (lambda v_: torch.nn.functional.gelu(v_, approximate="tanh")) if arch == "gpt2" else torch.nn.functional.gelu
        mlp = lambda y: lin(gelu(lin(norm(y, p + "ffn_norm"), p + "ffn_up")), p + "ffn_down")
        if arch == "gptneox" and meta.get("gptneox.use_parallel_residual", True):
            x = x + o + mlp(x)
        else:
            x = x + o
            x = x + mlp(x)
    x = norm(x, "output_norm")
    return x @ t.get("output.weight", t["token_embd.weight"]).T


def greedy(meta, w, ids, n):
    ids = list(ids)
    for _ in range(n):
        ids.append(int(llama_logits(meta, w, ids)[-1].argmax()))
    return ids


# ---------------------------------------------------------------------------------------
# Fixtures

def blocks_fixture():
    rng = np.random.default_rng(40)
    writer = Writer()
    writer.add("general.architecture", STRING, "blocks")
    for number, fmt in VALUE_FORMATS.items():  # one metadata value of every scalar type
        value = {"f": 0.5, "d": -2.25, "?": True, "b": -7, "h": -300, "i": -70000, "q": -(1 << 40)}.get(fmt, 7)
        writer.add(f"test.{fmt}_{number}", number, value)
    writer.add("test.string", STRING, "héllo ▁wörld")
    writer.add("test.floats", ARRAY, [0.5, -1.0, 3.0], 6)
    writer.add("test.strings", ARRAY, ["a", "", "▁b"], STRING)
    writer.add("test.nested", ARRAY, [[1, 2], [3]], ARRAY)  # arrays of u32
    expected = {}
    rows, cols = 2, 256
    for name in TYPES:
        raw = random_blocks(rng, name, rows * cols)
        writer.tensor(name.lower(), [cols, rows], name, raw)
        expected[name.lower()] = dequantize(name, raw, rows * cols).tolist()
    return writer, expected


VOCAB_WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "and", "then", "she", "he",
               "was", "happy", "big", "red", "ball", "Lily", "Tom", "park"]


def tiny_vocab():
    """SentencePiece-like pieces: <unk> <s> </s>, 256 byte pieces, characters, ▁words."""
    pieces, scores, types = ["<unk>", "<s>", "</s>"], [0.0, 0.0, 0.0], [2, 3, 3]
    for b in range(256):
        pieces.append(f"<0x{b:02X}>")
        scores.append(0.0)
        types.append(6)
    chars = sorted(set("".join(VOCAB_WORDS)) | set(".,!") | {"▁"})
    merged = []
    for word in VOCAB_WORDS:
        for end in range(2, len(word) + 1):
            merged.append(word[:end])
        merged.append("▁" + word)
    for piece in chars + sorted(set(merged), key=lambda p: (len(p), p)):
        if piece not in pieces and len(pieces) < 400:
            pieces.append(piece)
            scores.append(-float(len(pieces)) if len(piece) > 1 else 0.0)
            types.append(1)
    return pieces, scores, types


def add_spm_vocab(writer, pieces, scores, types, eos=None, unk=None):
    """tokenizer.ggml.* of a SentencePiece vocabulary (model "llama"): pieces, scores, types,
    <s> = 1 and, when given, the end and unknown ids."""
    writer.add("tokenizer.ggml.model", STRING, "llama")
    writer.add("tokenizer.ggml.tokens", ARRAY, pieces, STRING)
    writer.add("tokenizer.ggml.scores", ARRAY, scores, 6)
    writer.add("tokenizer.ggml.token_type", ARRAY, types, 5)
    writer.add("tokenizer.ggml.bos_token_id", 4, 1)
    if eos is not None:
        writer.add("tokenizer.ggml.eos_token_id", 4, eos)
    if unk is not None:
        writer.add("tokenizer.ggml.unknown_token_id", 4, unk)


def spm_encode(pieces, scores, types, text):
    """SentencePiece BPE the slow way: BOS, " " + text with spaces as ▁, one symbol per
    character; while some adjacent pair joins into a piece, join the pair with the best
    score (the leftmost of equals); symbols that are no piece become <0xNN> pieces."""
    index = {p: i for i, p in enumerate(pieces)}
    symbols = list(("▁" + text).replace(" ", "▁"))
    while True:
        best = None
        for i in range(len(symbols) - 1):
            joined = symbols[i] + symbols[i + 1]
            if joined in index and (best is None or scores[index[joined]] > best[0]):
                best = (scores[index[joined]], i)
        if best is None:
            break
        i = best[1]
        symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
    ids = [1]
    for sym in symbols:
        if sym in index:
            ids.append(index[sym])
        else:
            ids.extend(index[f"<0x{b:02X}>"] for b in sym.encode("utf-8"))
    return ids


def tiny_llama_fixture(rope_divisors=None):
    rng = np.random.default_rng(41)
    D, L, H, Hkv, F, = 32, 2, 4, 2, 64
    pieces, scores, types = tiny_vocab()
    V = len(pieces)
    writer = Writer()
    writer.add("general.architecture", STRING, "llama")
    writer.add("general.name", STRING, "tiny llama (HeadScope test fixture)")
    for key, value in [("context_length", 64), ("embedding_length", D), ("block_count", L),
                       ("feed_forward_length", F), ("attention.head_count", H),
                       ("attention.head_count_kv", Hkv), ("rope.dimension_count", D // H)]:
        writer.add("llama." + key, 4, value)
    writer.add("llama.attention.layer_norm_rms_epsilon", 6, 1e-5)
    writer.add("llama.rope.freq_base", 6, 10000.0)
    add_spm_vocab(writer, pieces, scores, types, eos=2, unk=0)
    w = {}

    def tensor(name, rows, cols, type_name, scale):
        count = rows * cols
        values = (rng.standard_normal(count) * scale).astype(np.float32)
        if type_name == "F32":
            raw = values.view(np.uint8)
        elif type_name == "F16":
            raw = values.astype(np.float16).view(np.uint8)
        else:  # Q8_0: per block of 32, d = max|x| / 127, q = round(x / d)
            blocks = values.reshape(-1, 32)
            d = (np.abs(blocks).max(1) / 127).astype(np.float16)
            q = np.round(blocks / np.where(d == 0, 1, d.astype(np.float32))[:, None]).clip(-127, 127).astype(np.int8)
            raw = np.concatenate([d.view(np.uint8).reshape(-1, 2), q.view(np.uint8)], axis=1).reshape(-1)
        ne = [cols] if rows == 1 else [cols, rows]
        writer.tensor(name, ne, type_name, raw)
        w[name] = dequantize(type_name, np.asarray(raw, np.uint8), count).reshape(list(reversed(ne)))

    tensor("token_embd.weight", V, D, "F16", 0.5)
    for il in range(L):
        p = f"blk.{il}."
        tensor(p + "attn_norm.weight", 1, D, "F32", 1.0)
        tensor(p + "attn_q.weight", D, D, "Q8_0", 0.3)
        tensor(p + "attn_k.weight", Hkv * D // H, D, "Q8_0", 0.3)
        tensor(p + "attn_v.weight", Hkv * D // H, D, "F16", 0.3)
        tensor(p + "attn_output.weight", D, D, "Q8_0", 0.3)
        tensor(p + "ffn_norm.weight", 1, D, "F32", 1.0)
        tensor(p + "ffn_gate.weight", F, D, "Q8_0", 0.3)
        tensor(p + "ffn_up.weight", F, D, "F16", 0.3)
        tensor(p + "ffn_down.weight", D, F, "Q8_0", 0.3)
    tensor("output_norm.weight", 1, D, "F32", 1.0)
    if rope_divisors is not None:
        writer.tensor("rope_freqs.weight", [len(rope_divisors)], "F32", np.asarray(rope_divisors, np.float32).view(np.uint8))
        w["rope_freqs.weight"] = np.asarray(rope_divisors, np.float32)
    vocab_only = Writer()  # the same metadata and no tensors: what `tokenize` needs
    vocab_only.meta = list(writer.meta)
    meta = {k: v for k, _, v, _ in writer.meta}
    text = "the cat sat on the mat"
    ids = spm_encode(pieces, scores, types, text)
    logits = llama_logits(meta, w, ids)
    expected = {"text": text, "ids": ids,
                "unknown_text": "Lily ate 猫 pie!", "unknown_ids": spm_encode(pieces, scores, types, "Lily ate 猫 pie!"),
                "next_token_logits": logits[-1].tolist(), "logits_first": logits[0].tolist()}
    return writer, vocab_only, expected


def tiny_qwen_fixture(arch="qwen2"):
    rng = np.random.default_rng(42 if arch == "qwen2" else 43)
    D, L, H, Hkv, F = 32, 2, 4, 2, 48
    Dh = D // H if arch == "qwen2" else 16  # qwen3: attention.key_length 16, I = 64 ≠ D
    I, Ikv = H * Dh, Hkv * Dh
    tj = json.load(open(os.path.join(HERE, "fixtures", "tokenizers", "qwen2_tiny", "tokenizer.json")))
    by_id = {i: t for t, i in tj["model"]["vocab"].items()}
    for a in tj["added_tokens"]:
        by_id[a["id"]] = a["content"]
    tokens = [by_id[i] for i in range(len(by_id))]
    types = [3 if any(a["id"] == i for a in tj["added_tokens"]) else 1 for i in range(len(tokens))]
    merges = [" ".join(m) if isinstance(m, list) else m for m in tj["model"]["merges"]]
    V = len(tokens)
    writer = Writer()
    writer.add("general.architecture", STRING, arch)
    for key, value in [("context_length", 128), ("embedding_length", D), ("block_count", L),
                       ("feed_forward_length", F), ("attention.head_count", H), ("attention.head_count_kv", Hkv)]:
        writer.add(arch + "." + key, 4, value)
    if arch == "qwen3":
        writer.add("qwen3.attention.key_length", 4, Dh)
        writer.add("qwen3.attention.value_length", 4, Dh)
    writer.add(arch + ".attention.layer_norm_rms_epsilon", 6, 1e-6)
    writer.add(arch + ".rope.freq_base", 6, 1000000.0)
    writer.add("tokenizer.ggml.model", STRING, "gpt2")
    writer.add("tokenizer.ggml.pre", STRING, "qwen2")
    writer.add("tokenizer.ggml.tokens", ARRAY, tokens, STRING)
    writer.add("tokenizer.ggml.token_type", ARRAY, types, 5)
    writer.add("tokenizer.ggml.merges", ARRAY, merges, STRING)
    writer.add("tokenizer.ggml.eos_token_id", 4, 31)
    writer.add("tokenizer.ggml.bos_token_id", 4, 31)
    writer.add("tokenizer.ggml.add_bos_token", 7, False)
    w = {}
    if arch == "qwen2":  # (this order fixes the draws of the committed qwen2 fixture)
        attention = [("attn_q.weight", (I, D)), ("attn_q.bias", (I,)), ("attn_k.weight", (Ikv, D)),
                     ("attn_k.bias", (Ikv,)), ("attn_v.weight", (Ikv, D)), ("attn_v.bias", (Ikv,))]
    else:
        attention = [("attn_q.weight", (I, D)), ("attn_k.weight", (Ikv, D)), ("attn_v.weight", (Ikv, D)),
                     ("attn_q_norm.weight", (Dh,)), ("attn_k_norm.weight", (Dh,))]
    for name, shape in [("token_embd.weight", (V, D)), ("output_norm.weight", (D,))] + [
            (f"blk.{il}.{n}", s) for il in range(L) for n, s in [("attn_norm.weight", (D,))] + attention + [
                ("attn_output.weight", (D, I)), ("ffn_norm.weight", (D,)), ("ffn_gate.weight", (F, D)),
                ("ffn_up.weight", (F, D)), ("ffn_down.weight", (D, F))]]:
        values = (rng.standard_normal(shape) * (1.0 if name.endswith("norm.weight") else 0.3)).astype(np.float32)
        type_name = "F32" if len(shape) == 1 else "F16"
        raw = values.view(np.uint8) if type_name == "F32" else values.astype(np.float16).view(np.uint8)
        writer.tensor(name, list(reversed(shape)), type_name, raw.reshape(-1))
        w[name] = dequantize(type_name, raw.reshape(-1), values.size).reshape(shape)
    meta = {k: v for k, _, v, _ in writer.meta}
    ids = [7, 3, 12, 25, 30, 9, 18]
    logits = llama_logits(meta, w, ids)
    return writer, {"ids": ids, "next_token_logits": logits[-1].tolist(), "logits_first": logits[0].tolist()}


def tiny_gemma_fixture(arch):
    """A gemma / gemma2 / gemma3 file in llama.cpp's layout: its SentencePiece vocabulary
    (tiny_vocab), norm weights stored as 1 + w (near 1), F16 matrices. gemma2: 2 layers,
    soft-caps 2 (scores) and 5 (logits), a window of 3 keys in layer 0; gemma3: 3 layers
    L L G (sliding_window_pattern 3), qk-norm, key_length 16 (4 × 16 = 64 ≠ D 32), one
    key/value head, freq_base 1e6 with linear rope scaling 4 in the global layer."""
    rng = np.random.default_rng({"gemma": 44, "gemma2": 45, "gemma3": 46}[arch])
    D, H, F = 32, 4, 48
    L = 3 if arch == "gemma3" else 2
    Hkv = 1 if arch == "gemma3" else 2
    Dh = 16 if arch == "gemma3" else D // H
    I, Ikv = H * Dh, Hkv * Dh
    pieces, scores, types = tiny_vocab()
    V = len(pieces)
    writer = Writer()
    writer.add("general.architecture", STRING, arch)
    for key, value in [("context_length", 64), ("embedding_length", D), ("block_count", L),
                       ("feed_forward_length", F), ("attention.head_count", H), ("attention.head_count_kv", Hkv),
                       ("attention.key_length", Dh), ("attention.value_length", Dh)]:
        writer.add(arch + "." + key, 4, value)
    writer.add(arch + ".attention.layer_norm_rms_epsilon", 6, 1e-6)
    writer.add(arch + ".rope.freq_base", 6, 1000000.0 if arch == "gemma3" else 10000.0)
    if arch == "gemma2":
        writer.add("gemma2.attn_logit_softcapping", 6, 2.0)
        writer.add("gemma2.final_logit_softcapping", 6, 5.0)
        writer.add("gemma2.attention.sliding_window", 4, 3)
    if arch == "gemma3":
        writer.add("gemma3.attention.sliding_window", 4, 3)
        writer.add("gemma3.attention.sliding_window_pattern", 4, 3)
        writer.add("gemma3.rope.scaling.type", STRING, "linear")
        writer.add("gemma3.rope.scaling.factor", 6, 4.0)
    add_spm_vocab(writer, pieces, scores, types, eos=2)
    layer = [("attn_norm.weight", (D,)), ("attn_q.weight", (I, D)), ("attn_k.weight", (Ikv, D)),
             ("attn_v.weight", (Ikv, D))]
    if arch == "gemma3":
        layer += [("attn_q_norm.weight", (Dh,)), ("attn_k_norm.weight", (Dh,))]
    layer += [("attn_output.weight", (D, I))]
    if arch != "gemma":
        layer += [("post_attention_norm.weight", (D,))]
    layer += [("ffn_norm.weight", (D,)), ("ffn_gate.weight", (F, D)), ("ffn_up.weight", (F, D)),
              ("ffn_down.weight", (D, F))]
    if arch != "gemma":
        layer += [("post_ffw_norm.weight", (D,))]
    w = {}
    for name, shape in [("token_embd.weight", (V, D)), ("output_norm.weight", (D,))] + [
            (f"blk.{il}.{n}", s) for il in range(L) for n, s in layer]:
        if name.endswith("norm.weight"):  # 1 + w, as the converter stores them
            values = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            values = (rng.standard_normal(shape) * (0.5 if name == "token_embd.weight" else 0.3)).astype(np.float32)
        type_name = "F32" if len(shape) == 1 else "F16"
        raw = values.view(np.uint8) if type_name == "F32" else values.astype(np.float16).view(np.uint8)
        writer.tensor(name, list(reversed(shape)), type_name, raw.reshape(-1))
        w[name] = dequantize(type_name, raw.reshape(-1), values.size).reshape(shape)
    meta = {k: v for k, _, v, _ in writer.meta}
    ids = spm_encode(pieces, scores, types, "the cat sat on the mat and then she ran")
    logits = gemma_logits(meta, w, ids)
    return writer, {"ids": ids, "next_token_logits": logits[-1].tolist(), "logits_first": logits[0].tolist()}


def add_random_tensors(writer, rng, tensors):
    """Each (name, shape) of `tensors` with random values written to `writer` (norm weights
    near 1, biases and matrices normal; vectors F32, matrices F16), and returned as read back."""
    w = {}
    for name, shape in tensors:
        if name.endswith("norm.weight"):
            values = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            values = (rng.standard_normal(shape) * (0.2 if name.endswith("bias") else 0.3)).astype(np.float32)
        type_name = "F32" if len(shape) == 1 else "F16"
        raw = values.view(np.uint8) if type_name == "F32" else values.astype(np.float16).view(np.uint8)
        writer.tensor(name, list(reversed(shape)), type_name, raw.reshape(-1))
        w[name] = dequantize(type_name, raw.reshape(-1), values.size).reshape(shape)
    return w


def tiny_fused_fixture(arch):
    """gpt2 (learned positions, tied head), gptneox (partial rotary 4 of 8 dims, parallel
    attention + MLP, separate output) or phi3 (fused attn_qkv with 2 key/value heads, ffn_up
    = [gate; up], rotary on 6 of 8 dims, a window of 3 keys), each 2 layers of D 32 with
    F16 matrices; gpt2 and gptneox with the qwen2 fixture's byte-level BPE vocabulary
    (pre "gpt-2"), phi3 with the SentencePiece one (tiny_vocab)."""
    rng = np.random.default_rng({"gpt2": 47, "gptneox": 48, "phi3": 49}[arch])
    D, L, H, F, T_max = 32, 2, 4, 48, 64
    Hkv = 2 if arch == "phi3" else H
    Dh = D // H
    writer = Writer()
    writer.add("general.architecture", STRING, arch)
    for key, value in [("context_length", T_max), ("embedding_length", D), ("block_count", L),
                       ("feed_forward_length", F), ("attention.head_count", H)]:
        writer.add(arch + "." + key, 4, value)
    if arch == "phi3":
        writer.add("phi3.attention.head_count_kv", 4, Hkv)
        writer.add("phi3.attention.layer_norm_rms_epsilon", 6, 1e-5)
        writer.add("phi3.rope.dimension_count", 4, 6)
        writer.add("phi3.rope.freq_base", 6, 10000.0)
        writer.add("phi3.attention.sliding_window", 4, 3)
    else:
        writer.add(arch + ".attention.layer_norm_epsilon", 6, 1e-5)
    if arch == "gptneox":
        writer.add("gptneox.rope.dimension_count", 4, 4)
        writer.add("gptneox.use_parallel_residual", 7, True)
    if arch == "phi3":
        pieces, scores, types = tiny_vocab()
        add_spm_vocab(writer, pieces, scores, types)
        ids = spm_encode(pieces, scores, types, "the cat sat on the mat and then she ran")
        V = len(pieces)
    else:
        tj = json.load(open(os.path.join(HERE, "fixtures", "tokenizers", "qwen2_tiny", "tokenizer.json")))
        by_id = {i: tok for tok, i in tj["model"]["vocab"].items()}
        for added in tj["added_tokens"]:
            by_id[added["id"]] = added["content"]
        tokens = [by_id[i] for i in range(len(by_id))]
        merges = [" ".join(m) if isinstance(m, list) else m for m in tj["model"]["merges"]]
        writer.add("tokenizer.ggml.model", STRING, "gpt2")
        writer.add("tokenizer.ggml.pre", STRING, "gpt-2")
        writer.add("tokenizer.ggml.tokens", ARRAY, tokens, STRING)
        writer.add("tokenizer.ggml.merges", ARRAY, merges, STRING)
        ids = [7, 3, 12, 25, 30, 9, 18]
        V = len(tokens)
    lnorm = [] if arch == "phi3" else ["bias"]
    layer = [("attn_norm.weight", (D,))] + [("attn_norm.bias", (D,))] * bool(lnorm)
    layer += [("attn_qkv.weight", ((H + 2 * Hkv) * Dh, D))] + ([("attn_qkv.bias", (3 * D,))] if lnorm else [])
    layer += [("attn_output.weight", (D, D))] + ([("attn_output.bias", (D,))] if lnorm else [])
    layer += [("ffn_norm.weight", (D,))] + ([("ffn_norm.bias", (D,))] if lnorm else [])
    layer += [("ffn_up.weight", ((2 * F if arch == "phi3" else F), D))] + ([("ffn_up.bias", (F,))] if lnorm else [])
    layer += [("ffn_down.weight", (D, F))] + ([("ffn_down.bias", (D,))] if lnorm else [])
    tensors = [("token_embd.weight", (V, D))]
    if arch == "gpt2":
        tensors.append(("position_embd.weight", (T_max, D)))
    tensors += [(f"blk.{il}.{n}", s) for il in range(L) for n, s in layer]
    tensors += [("output_norm.weight", (D,))] + ([("output_norm.bias", (D,))] if lnorm else [])
    if arch != "gpt2":
        tensors.append(("output.weight", (V, D)))
    w = add_random_tensors(writer, rng, tensors)
    meta = {k: v for k, _, v, _ in writer.meta}
    logits = fused_logits(meta, w, ids)
    return writer, {"ids": ids, "next_token_logits": logits[-1].tolist(), "logits_first": logits[0].tolist()}


def bert_hidden(meta, w, ids):
    """The last layer's output (T, D) of a GGUF bert, as Hugging Face's BertModel computes
    it: word + position + token-type-0 embeddings, LayerNorm; per layer x = LN(x + attn(x))
    (no mask, scores / sqrt(Dh)), x = LN(x + down(gelu(up x))) with GELU's erf form."""
    D, L = meta["bert.embedding_length"], meta["bert.block_count"]
    H = meta["bert.attention.head_count"]
    Dh, eps, T = D // H, meta["bert.attention.layer_norm_epsilon"], len(ids)
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    norm = lambda x, name: torch.nn.functional.layer_norm(x, (D,), t[name + ".weight"], t[name + ".bias"], eps)
    lin = lambda x, name: x @ t[name + ".weight"].T + t[name + ".bias"]
    x = norm(t["token_embd.weight"][ids] + t["position_embd.weight"][:T] + t["token_types.weight"][0], "token_embd_norm")
    for il in range(L):
        p = f"blk.{il}."
        q, k, v = (lin(x, p + n).reshape(T, H, Dh).transpose(0, 1) for n in ("attn_q", "attn_k", "attn_v"))
        a = torch.softmax(q @ k.transpose(1, 2) / Dh ** 0.5, -1)
        x = norm(x + lin((a @ v).transpose(0, 1).reshape(T, D), p + "attn_output"), p + "attn_output_norm")
        x = norm(x + lin(torch.nn.functional.gelu(lin(x, p + "ffn_up")), p + "ffn_down"), p + "layer_output_norm")
    return x


def tiny_bert_fixture():
    """tiny_bert.gguf (2 layers, D 32, 4 heads, F 48, F16 matrices) and its reference."""
    rng = np.random.default_rng(50)
    D, L, H, F, T_max, types_n = 32, 2, 4, 48, 64, 2
    vocab = open(os.path.join(HERE, "fixtures", "tokenizers", "wordpiece_uncased", "vocab.txt"),
                 encoding="utf-8").read().splitlines()
    control = [tok.startswith("[") and tok.endswith("]") for tok in vocab]
    tokens = [tok if c else tok[2:] if tok.startswith("##") else "\u2581" + tok for tok, c in zip(vocab, control)]
    writer = Writer()
    writer.add("general.architecture", STRING, "bert")
    for key, value in [("context_length", T_max), ("embedding_length", D), ("block_count", L),
                       ("feed_forward_length", F), ("attention.head_count", H)]:
        writer.add("bert." + key, 4, value)
    writer.add("bert.attention.layer_norm_epsilon", 6, 1e-12)
    writer.add("bert.attention.causal", 7, False)
    writer.add("bert.pooling_type", 4, 2)  # CLS, as llama.cpp writes it (HeadScope shows every position)
    writer.add("tokenizer.ggml.model", STRING, "bert")
    writer.add("tokenizer.ggml.token_type_count", 4, types_n)
    writer.add("tokenizer.ggml.tokens", ARRAY, tokens, STRING)
    writer.add("tokenizer.ggml.token_type", ARRAY, [3 if c else 1 for c in control], 5)
    for key, token in [("unknown_token_id", "[UNK]"), ("seperator_token_id", "[SEP]"), ("padding_token_id", "[PAD]"),
                       ("cls_token_id", "[CLS]"), ("mask_token_id", "[MASK]")]:
        writer.add("tokenizer.ggml." + key, 4, vocab.index(token))
    V = len(tokens)
    layer = []
    for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
        layer += [(n + ".weight", (D, D)), (n + ".bias", (D,))]
    layer += [("attn_output_norm.weight", (D,)), ("attn_output_norm.bias", (D,))]
    layer += [("ffn_up.weight", (F, D)), ("ffn_up.bias", (F,)), ("ffn_down.weight", (D, F)), ("ffn_down.bias", (D,))]
    layer += [("layer_output_norm.weight", (D,)), ("layer_output_norm.bias", (D,))]
    tensors = [("token_embd.weight", (V, D)), ("token_types.weight", (types_n, D)), ("position_embd.weight", (T_max, D)),
               ("token_embd_norm.weight", (D,)), ("token_embd_norm.bias", (D,))]
    tensors += [(f"blk.{il}.{n}", shape) for il in range(L) for n, shape in layer]
    w = add_random_tensors(writer, rng, tensors)
    meta = {k: v for k, _, v, _ in writer.meta}
    ids = [2, 5, 7, 8, 6, 9, 3]
    hidden = bert_hidden(meta, w, ids)
    return writer, {"ids": ids, "hidden_first": hidden[0].tolist(), "hidden_last": hidden[-1].tolist()}


def shared_reference():
    prompt = "Once upon a time"
    out = {}
    for name in ["stories260K-F32.gguf", "TinyStories-656K-Q8_0.gguf"]:
        meta, w = read_gguf(os.path.join(SHARED, name))
        prompt_ids = spm_encode(meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.scores"],
                                meta["tokenizer.ggml.token_type"], prompt)
        ids = greedy(meta, w, prompt_ids, 32)
        out[name] = {"prompt": prompt, "prompt_ids": prompt_ids, "greedy_ids": ids,
                     "prompt_logits": llama_logits(meta, w, prompt_ids)[-1].tolist()}
    return out


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="verify the committed fixtures; exit 1 on drift")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    blocks, blocks_expected = blocks_fixture()
    tiny, tiny_vocab_only, tiny_expected = tiny_llama_fixture()
    qwen2, qwen2_expected = tiny_qwen_fixture("qwen2")
    qwen3, qwen3_expected = tiny_qwen_fixture("qwen3")
    # Llama-3.1-style rope scaling: the short wavelengths kept, the long ones stretched.
    scaled, _, scaled_expected = tiny_llama_fixture(rope_divisors=[1.0, 1.0, 2.5, 8.0])
    tiny_models = {arch: tiny_gemma_fixture(arch) for arch in ("gemma", "gemma2", "gemma3")}
    tiny_models.update({arch: tiny_fused_fixture(arch) for arch in ("gpt2", "gptneox", "phi3")})
    tiny_models["bert"] = tiny_bert_fixture()
    shared = shared_reference()
    if args.check:
        drift = False
        for name, want in [("blocks_expected.json", blocks_expected), ("tiny_llama_expected.json", tiny_expected),
                           ("tiny_qwen2_expected.json", qwen2_expected), ("tiny_qwen3_expected.json", qwen3_expected),
                           ("tiny_llama_rope_freqs_expected.json", scaled_expected), ("shared_reference.json", shared)] + [
                               (f"tiny_{arch}_expected.json", expected) for arch, (_, expected) in tiny_models.items()]:
            got = json.load(open(os.path.join(OUT, name)))
            if json.dumps(got, sort_keys=True) != json.dumps(json.loads(json.dumps(want)), sort_keys=True):
                print("drift:", name)
                drift = True
        sys.exit(1 if drift else 0)
    blocks.write(os.path.join(OUT, "blocks.gguf"))
    tiny.write(os.path.join(OUT, "tiny_llama.gguf"))
    tiny_vocab_only.write(os.path.join(OUT, "tiny_vocab_only.gguf"))
    qwen2.write(os.path.join(OUT, "tiny_qwen2.gguf"))
    qwen3.write(os.path.join(OUT, "tiny_qwen3.gguf"))
    dump(os.path.join(OUT, "tiny_qwen3_expected.json"), qwen3_expected)
    scaled.write(os.path.join(OUT, "tiny_llama_rope_freqs.gguf"))
    dump(os.path.join(OUT, "tiny_llama_rope_freqs_expected.json"), scaled_expected)
    dump(os.path.join(OUT, "tiny_qwen2_expected.json"), qwen2_expected)
    dump(os.path.join(OUT, "blocks_expected.json"), blocks_expected)
    dump(os.path.join(OUT, "tiny_llama_expected.json"), tiny_expected)
    dump(os.path.join(OUT, "shared_reference.json"), shared)
    for arch, (model, expected) in tiny_models.items():
        model.write(os.path.join(OUT, f"tiny_{arch}.gguf"))
        dump(os.path.join(OUT, f"tiny_{arch}_expected.json"), expected)
    # The reader reads back what the writer wrote (a check of the script itself).
    meta, tensors = read_gguf(os.path.join(OUT, "tiny_llama.gguf"))
    assert meta["llama.block_count"] == 2 and tensors["token_embd.weight"].shape[1] == 32
    for name, info in shared.items():
        print(name, "greedy ids:", info["greedy_ids"])


if __name__ == "__main__":
    main()
