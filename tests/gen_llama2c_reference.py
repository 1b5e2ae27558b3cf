#!/usr/bin/env python3
"""Reference for tests/llama2c_test.cpp: reads stories260K (llama2.c legacy format) and
its tokenizer directly, runs an independent NumPy implementation of the architecture in
float64, and writes tests/fixtures/stories260k_layer_ref.json with the prompt's ids and the
per-head attention weights of layer 2 (plus layer 2's output and the next-token logits).

Architecture (llama2.c run.c / Llama): pre-norm RMSNorm, RoPE on adjacent pairs
(2i, 2i+1) with theta 10000, grouped-query attention (query head h reads KV head
h // (H // Hkv)), SwiGLU w2(silu(w1 x) * w3 x), final RMSNorm, classifier tied to the
token embedding when vocab_size > 0.

Usage: /usr/bin/python3 tests/gen_llama2c_reference.py [path/to/stories260K]
"""
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared",
                                                                "models", "stories260K")
PROMPT = "Once upon a time, there was a little girl named Lily."
LAYER = 2
DOCUMENTED = ("Once upon a time, there was a little girl named Lily. "
              "She loved to play outside in the park.")


def load_checkpoint(path):
    data = open(path, "rb").read()
    dim, hidden, n_layers, n_heads, n_kv, vocab, seq_len = struct.unpack_from("<7i", data, 0)
    shared = vocab > 0
    vocab = abs(vocab)
    floats = np.frombuffer(data, dtype="<f4", offset=28).astype(np.float64)
    head = dim // n_heads
    kv_dim = n_kv * head
    at = 0

    def take(*shape):
        nonlocal at
        n = int(np.prod(shape))
        out = floats[at:at + n].reshape(shape)
        at += n
        return out

    w = {"emb": take(vocab, dim), "rms_att": take(n_layers, dim),
         "wq": take(n_layers, dim, dim), "wk": take(n_layers, kv_dim, dim),
         "wv": take(n_layers, kv_dim, dim), "wo": take(n_layers, dim, dim),
         "rms_ffn": take(n_layers, dim), "w1": take(n_layers, hidden, dim),
         "w2": take(n_layers, dim, hidden), "w3": take(n_layers, hidden, dim),
         "rms_final": take(dim)}
    take(seq_len * head)  # freq_cis_real, freq_cis_imag
    w["cls"] = w["emb"] if shared else take(vocab, dim)
    assert at == floats.size, "checkpoint size does not match its header"
    cfg = dict(dim=dim, hidden=hidden, n_layers=n_layers, n_heads=n_heads, n_kv=n_kv,
               vocab=vocab, seq_len=seq_len, head=head)
    return cfg, w


def load_tokenizer(path, vocab):
    data = open(path, "rb").read()
    at = 4
    pieces, scores = [], []
    for _ in range(vocab):
        score, length = struct.unpack_from("<fi", data, at)
        at += 8
        pieces.append(data[at:at + length])
        scores.append(score)
        at += length
    return pieces, scores


def encode(text, pieces, scores):
    """SentencePiece-style BPE by score, as llama2.c's encode(): BOS, dummy ' ' prefix,
    code points or <0xNN> byte tokens (id = byte + 3), then best-score pair merges."""
    index = {}
    for i, p in enumerate(pieces):
        index.setdefault(p, i)
    ids = [1]
    if text:
        ids.append(index[b" "])
        for ch in text:
            b = ch.encode("utf-8")
            ids.extend([index[b]] if b in index else [x + 3 for x in b])
        while True:
            best = None
            for i in range(1, len(ids) - 1):
                merged = index.get(pieces[ids[i]] + pieces[ids[i + 1]])
                if merged is not None and (best is None or scores[merged] > best[0]):
                    best = (scores[merged], merged, i)
            if best is None:
                break
            ids[best[2]:best[2] + 2] = [best[1]]
    return ids


def rmsnorm(x, w):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * w


def rope(x, n_heads, head):
    """x: (T, n_heads*head); rotate pairs (2i, 2i+1) of each head by t * 10000^(-2i/head)."""
    T = x.shape[0]
    x = x.reshape(T, n_heads, head // 2, 2).copy()
    freq = 10000.0 ** (-np.arange(0, head, 2) / head)           # (head/2)
    ang = np.arange(T)[:, None] * freq[None, :]                 # (T, head/2)
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    a, b = x[..., 0].copy(), x[..., 1].copy()
    x[..., 0] = a * c - b * s
    x[..., 1] = a * s + b * c
    return x.reshape(T, n_heads * head)


def forward(cfg, w, ids):
    """Returns logits (T, V), per-layer attention weights [L][H](T, T), layer outputs."""
    H, Hkv, Dh = cfg["n_heads"], cfg["n_kv"], cfg["head"]
    T = len(ids)
    x = w["emb"][ids]
    maps, outputs = [], []
    causal = np.triu(np.ones((T, T), dtype=bool), k=1)
    for l in range(cfg["n_layers"]):
        h = rmsnorm(x, w["rms_att"][l])
        q = rope(h @ w["wq"][l].T, H, Dh)
        k = rope(h @ w["wk"][l].T, Hkv, Dh)
        v = h @ w["wv"][l].T
        heads, layer_maps = [], []
        for hq in range(H):
            g = hq // (H // Hkv)
            qh, kh, vh = (m[:, i * Dh:(i + 1) * Dh] for m, i in ((q, hq), (k, g), (v, g)))
            s = qh @ kh.T / np.sqrt(Dh)
            s[causal] = -np.inf
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            layer_maps.append(a)
            heads.append(a @ vh)
        x = x + np.concatenate(heads, axis=1) @ w["wo"][l].T
        h = rmsnorm(x, w["rms_ffn"][l])
        g1 = h @ w["w1"][l].T
        x = x + ((g1 / (1 + np.exp(-g1))) * (h @ w["w3"][l].T)) @ w["w2"][l].T
        maps.append(layer_maps)
        outputs.append(x)
    x = rmsnorm(x, w["rms_final"])
    return x @ w["cls"].T, maps, outputs


def decode(ids, pieces):
    out = b""
    for i, t in enumerate(ids):
        p = pieces[t]
        if i == 0 and p.startswith(b" "):
            p = p[1:]
        if len(p) == 6 and p.startswith(b"<0x") and p.endswith(b">"):
            p = bytes([int(p[3:5], 16)])
        out += p
    return out.decode("utf-8", errors="replace")


def main():
    cfg, w = load_checkpoint(os.path.join(MODEL_DIR, "stories260K.bin"))
    pieces, scores = load_tokenizer(os.path.join(MODEL_DIR, "tok512.bin"), cfg["vocab"])

    # Sanity check against the documented greedy output before writing anything.
    ids = [1]
    while len(ids) < 40:
        logits, _, _ = forward(cfg, w, ids)
        ids.append(int(np.argmax(logits[-1])))
    text = decode(ids[1:], pieces)
    assert text.startswith(DOCUMENTED), text
    print("greedy from BOS:", text)

    prompt_ids = encode(PROMPT, pieces, scores)
    logits, maps, outputs = forward(cfg, w, prompt_ids)
    ref = {
        "model": "stories260K/stories260K.bin",
        "prompt": PROMPT,
        "ids": prompt_ids,
        "layer": LAYER,
        "heads": cfg["n_heads"],
        "kv_heads": cfg["n_kv"],
        "greedy_from_bos_ids": ids,
        "weights": [np.round(m, 8).tolist() for m in maps[LAYER]],
        "layer_output": np.round(outputs[LAYER], 7).tolist(),
        "last_logits": np.round(logits[-1], 6).tolist(),
    }
    out = os.path.join(HERE, "fixtures", "stories260k_layer_ref.json")
    with open(out, "w") as f:
        json.dump(ref, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", out, "ids", prompt_ids)


if __name__ == "__main__":
    main()
