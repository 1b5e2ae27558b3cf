#!/usr/bin/python3
"""PyTorch reference fixtures for tests/torch_agreement_test.cpp.

HeadScope's playground models promise to compute exactly what PyTorch's
nn.MultiheadAttention / nn.TransformerEncoderLayer / nn.TransformerDecoderLayer /
nn.Transformer compute (DESIGN §3, §4). This script builds those modules with fixed
seeds, runs them, and writes what HeadScope must reproduce.

Regenerate (needs Debian's python3-torch and python3-numpy, hence /usr/bin/python3):

    /usr/bin/python3 tests/gen_torch_fixtures.py           # (re)write every fixture
    /usr/bin/python3 tests/gen_torch_fixtures.py --check   # verify, write nothing; exit 1 on drift

Outputs
  tests/fixtures/torch/<case>/            one playground model per case
      config.json          ModelConfig as core/model/config.cpp's config_to_json writes it
      model.safetensors    weights under our state_dict names (core/io/state_dict.h)
      input.json           {"ids": [...], "decoder_ids": [...], "key_padding": [...]}
      expected.safetensors what HeadScope's Trace must contain:
          <stack>.input                    (T, D)    embeddings + positions entering layer 0
          <stack>.layers.<i>.self_weights  (H, T, T) softmax weights per head
          <stack>.layers.<i>.self_scores   (H, T, T) Q_h K_hᵀ / √Dk, before the mask
          <stack>.layers.<i>.self_attn_output (T, D) the attention block's output
          <stack>.layers.<i>.cross_weights / cross_scores (H, T_dec, T_enc), cross_attn_output
          <stack>.layers.<i>.output        (T, D)    hidden state leaving the layer
          <stack>.final_output             (T, D)    after the final norm if any
        <stack> is "main" (the only stack, or the encoder) or "decoder".
  tests/fixtures/torch/mha_<case>/        nn.MultiheadAttention alone
      attention.safetensors  in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias,
                             x_query (T, D), x_memory (S, D), output (T, D),
                             weights (H, T, S), scores (H, T, S)
      input.json             {"heads": H, "causal": bool, "key_padding": [...]}
  tests/fixtures/headscope_saved/<name>/  directories written by HeadScope (save_model_dir);
      this script loads their model.safetensors with load_state_dict(strict=True), writes
      input.json if missing, and writes expected.safetensors as above. Add one with
          build-<you>/cli/headscope save "random:arch=decoder,d_model=16,heads=4,..." \
              tests/fixtures/headscope_saved/<name>
      then re-run this script.

Every attention map comes from calling the layer's own self_attn / multihead_attn with
need_weights=True, average_attn_weights=False on the input the layer uses; the layer
output re-computed from those pieces is asserted equal to the layer's own forward, and
the stack's output equal to nn.TransformerEncoder / nn.Transformer's forward.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_DIR = os.path.join(HERE, "fixtures", "torch")
SAVED_DIR = os.path.join(HERE, "fixtures", "headscope_saved")

# Re-computations must match PyTorch's own forward to this (same float32 ops, other order).
SELF_CHECK_ATOL = 2e-6
# --check: regenerated numbers must match the stored ones to this.
DRIFT_ATOL = 1e-6
# plus this times the tensor's largest magnitude: PyTorch builds and CPUs sum float32 in
# different orders, so logits up to 13 move by a few 1e-6 between machines without the
# model having changed.
DRIFT_RTOL = 1e-6


# ---------------------------------------------------------------------------------------
# safetensors, written and read by hand: u64 LE header length N, N bytes of JSON, data.
# ---------------------------------------------------------------------------------------
def write_safetensors(path, tensors, metadata=None):
    """tensors: dict name -> array-like (converted to contiguous little-endian float32)."""
    header = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(np.asarray(tensors[name], dtype="<f4"))
        data = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # keep the data block 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    os.replace(tmp, path)


def read_safetensors(path):
    """Returns dict name -> float32 numpy array. Only F32 (what HeadScope writes)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} has dtype {entry['dtype']}, expected F32")
        begin, end = entry["data_offsets"]
        arr = np.frombuffer(data[begin:end], dtype="<f4").reshape(entry["shape"])
        out[name] = arr.copy()
    return out


# ---------------------------------------------------------------------------------------
# The playground model as PyTorch modules, with HeadScope's state_dict names.
# ---------------------------------------------------------------------------------------
class Playground(nn.Module):
    """embed (+ pos_embed) + nn.TransformerEncoder layers (encoder / decoder arch) or
    nn.Transformer's encoder + decoder (encoder-decoder). The full reference stack
    (nn.TransformerEncoder or nn.Transformer) is kept in a tuple so it is not registered
    twice and its state_dict names do not appear."""

    def __init__(self, cfg):
        super().__init__()
        d, h, L = cfg["d_model"], cfg["heads"], cfg["layers"]
        pre = cfg["norm"] == "pre-ln"
        common = dict(dim_feedforward=cfg["d_ff"], dropout=0.0, activation=cfg["activation"],
                      layer_norm_eps=cfg["norm_eps"], batch_first=True, norm_first=pre)
        self.cfg = cfg
        self.embed = nn.Embedding(cfg["vocab"], d)
        if cfg["pe"] == "learned":
            self.pos_embed = nn.Embedding(cfg["max_len"], d)
        if cfg["arch"] == "encoder-decoder":
            t = nn.Transformer(d_model=d, nhead=h, num_encoder_layers=L, num_decoder_layers=L,
                               **common)
            self.encoder = t.encoder
            self.decoder = t.decoder
            self._reference = (t,)
        else:
            layer = nn.TransformerEncoderLayer(d, h, **common)
            norm = nn.LayerNorm(d, eps=cfg["norm_eps"]) if pre else None
            stack = nn.TransformerEncoder(layer, L, norm=norm, enable_nested_tensor=False)
            self.layers = stack.layers
            if pre:
                self.norm = stack.norm
            self._reference = (stack,)


def randomise(model, seed):
    """Non-trivial values for every parameter (PyTorch's init leaves biases at 0 and
    LayerNorm at 1/0, which would hide bias and γ/β bugs)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith("embed.weight"):
                p.copy_(torch.randn(p.shape, generator=g))
            elif "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g))
            elif name.endswith("bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
            else:  # (out, in) projection: N(0, 1/in) keeps activations O(1)
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[1]))


def sinusoidal(T, D):
    """PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(same); computed in float64."""
    pe = np.zeros((T, D))
    for p in range(T):
        for i in range(0, D, 2):
            angle = p / (10000.0 ** (i / D))
            pe[p, i] = math.sin(angle)
            if i + 1 < D:
                pe[p, i + 1] = math.cos(angle)
    return torch.tensor(pe, dtype=torch.float32)


def embed_input(model, ids):
    """(1, T, D) = embed.weight[ids] + PE (no √D scaling)."""
    cfg = model.cfg
    idx = torch.tensor(ids, dtype=torch.long)
    x = model.embed.weight[idx]
    if cfg["pe"] == "sinusoidal":
        x = x + sinusoidal(len(ids), cfg["d_model"])
    elif cfg["pe"] == "learned":
        x = x + model.pos_embed.weight[: len(ids)]
    return x.unsqueeze(0)


def causal_mask(T):
    """Bool (T, T): True where key j > query i is hidden."""
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def padding_mask(S, key_padding):
    """Bool (1, S): True at padded key positions; None without padding."""
    if not key_padding:
        return None
    m = torch.zeros(1, S, dtype=torch.bool)
    m[0, key_padding] = True
    return m


def assert_close(what, got, want, atol=SELF_CHECK_ATOL):
    diff = (got - want).abs().max().item()
    if not diff <= atol:
        raise AssertionError(f"{what}: max abs diff {diff:.3g} > {atol:.3g}")


def scaled_scores(mha, xq, xm):
    """(H, T, S) = Q_h K_hᵀ / √Dk from in_proj, before any mask. xq (1, T, D), xm (1, S, D)."""
    D, H = mha.embed_dim, mha.num_heads
    dk = D // H
    W, b = mha.in_proj_weight, mha.in_proj_bias
    q = xq[0] @ W[:D].T + b[:D]            # (T, D)
    k = xm[0] @ W[D:2 * D].T + b[D:2 * D]  # (S, D)
    qh = q.reshape(q.shape[0], H, dk).transpose(0, 1)  # (H, T, Dk)
    kh = k.reshape(k.shape[0], H, dk).transpose(0, 1)  # (H, S, Dk)
    return qh @ kh.transpose(1, 2) / math.sqrt(dk)


def attend(what, mha, xq, xm, attn_mask, kpm):
    """Calls the module itself; checks its weights against softmax(scores + mask).
    Returns (output (1, T, D), weights (H, T, S), scores (H, T, S))."""
    out, w = mha(xq, xm, xm, key_padding_mask=kpm, attn_mask=attn_mask,
                 need_weights=True, average_attn_weights=False)
    scores = scaled_scores(mha, xq, xm)
    hidden = torch.zeros(scores.shape[1:], dtype=torch.bool)
    if attn_mask is not None:
        hidden |= attn_mask
    if kpm is not None:
        hidden |= kpm[0].unsqueeze(0)
    manual = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
    assert_close(what + " weights vs softmax(scores + mask)", w[0], manual)
    return out, w[0], scores


def activation(cfg, x):
    return F.relu(x) if cfg["activation"] == "relu" else F.gelu(x)  # gelu: erf form


def feed_forward(cfg, layer, x):
    return layer.linear2(activation(cfg, layer.linear1(x)))


def encoder_layer(cfg, layer, x, attn_mask, kpm, name, out):
    """nn.TransformerEncoderLayer re-computed from its parts; records maps and output."""
    pre = cfg["norm"] == "pre-ln"
    h = layer.norm1(x) if pre else x
    a, w, s = attend(name + ".self_attn", layer.self_attn, h, h, attn_mask, kpm)
    if pre:
        x1 = x + a
        y = x1 + feed_forward(cfg, layer, layer.norm2(x1))
    else:
        x1 = layer.norm1(x + a)
        y = layer.norm2(x1 + feed_forward(cfg, layer, x1))
    assert_close(name + " output vs layer.forward", y,
                 layer(x, src_mask=attn_mask, src_key_padding_mask=kpm))
    out[name + ".self_weights"] = w
    out[name + ".self_scores"] = s
    out[name + ".self_attn_output"] = a[0]
    out[name + ".output"] = y[0]
    return y


def decoder_layer(cfg, layer, x, memory, tgt_mask, memory_kpm, name, out):
    """nn.TransformerDecoderLayer re-computed from its parts."""
    pre = cfg["norm"] == "pre-ln"
    h = layer.norm1(x) if pre else x
    a, w, s = attend(name + ".self_attn", layer.self_attn, h, h, tgt_mask, None)
    x1 = x + a if pre else layer.norm1(x + a)
    h2 = layer.norm2(x1) if pre else x1
    c, cw, cs = attend(name + ".cross_attn", layer.multihead_attn, h2, memory, None, memory_kpm)
    x2 = x1 + c if pre else layer.norm2(x1 + c)
    if pre:
        y = x2 + feed_forward(cfg, layer, layer.norm3(x2))
    else:
        y = layer.norm3(x2 + feed_forward(cfg, layer, x2))
    assert_close(name + " output vs layer.forward", y,
                 layer(x, memory, tgt_mask=tgt_mask, memory_key_padding_mask=memory_kpm))
    out[name + ".self_weights"] = w
    out[name + ".self_scores"] = s
    out[name + ".self_attn_output"] = a[0]
    out[name + ".cross_weights"] = cw
    out[name + ".cross_scores"] = cs
    out[name + ".cross_attn_output"] = c[0]
    out[name + ".output"] = y[0]
    return y


def run_model(model, inp):
    """All expected tensors for one model and input, as float32 numpy arrays."""
    cfg = model.cfg
    model.eval()
    # Grad stays enabled on purpose: PyTorch 1.13's inference fast path (nested tensors)
    # would zero padded rows; the ordinary path is the documented semantics.
    ids, kp = inp["ids"], inp.get("key_padding", [])
    T = len(ids)
    kpm = padding_mask(T, kp)
    self_mask = causal_mask if cfg["mask"] == "causal" else (lambda n: None)
    out = {}
    x = embed_input(model, ids)
    out["main.input"] = x[0]
    if cfg["arch"] != "encoder-decoder":
        (stack,) = model._reference
        m = self_mask(T)
        y = x
        for i, layer in enumerate(model.layers):
            y = encoder_layer(cfg, layer, y, m, kpm, f"main.layers.{i}", out)
        if cfg["norm"] == "pre-ln":
            y = model.norm(y)
        assert_close("main stack vs nn.TransformerEncoder", y,
                     stack(x, mask=m, src_key_padding_mask=kpm))
        out["main.final_output"] = y[0]
    else:
        (transformer,) = model._reference
        dec_ids = inp["decoder_ids"]
        y = x
        for i, layer in enumerate(model.encoder.layers):
            y = encoder_layer(cfg, layer, y, None, kpm, f"main.layers.{i}", out)
        memory = model.encoder.norm(y)
        out["main.final_output"] = memory[0]
        xd = embed_input(model, dec_ids)
        out["decoder.input"] = xd[0]
        m = self_mask(len(dec_ids))
        z = xd
        for i, layer in enumerate(model.decoder.layers):
            z = decoder_layer(cfg, layer, z, memory, m, kpm, f"decoder.layers.{i}", out)
        z = model.decoder.norm(z)
        assert_close("encoder-decoder vs nn.Transformer", z,
                     transformer(x, xd, tgt_mask=m, src_key_padding_mask=kpm,
                                 memory_key_padding_mask=kpm))
        out["decoder.final_output"] = z[0]
    return {k: v.detach().numpy().astype(np.float32) for k, v in out.items()}


# ---------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------
def config(arch, d_model, heads, layers, d_ff, pe, norm, act, mask, seed,
           vocab=50, max_len=16, norm_eps=1e-5):
    return {"format": "headscope-playground", "arch": arch, "d_model": d_model,
            "heads": heads, "layers": layers, "d_ff": d_ff,
            "vocab": vocab, "max_len": max_len, "pe": pe, "norm": norm, "activation": act,
            "mask": mask, "norm_eps": norm_eps, "seed": seed}


# name, config, ids, decoder_ids, key_padding (positions of ids)
MODEL_CASES = [
    ("enc_postln_relu_sinusoidal",
     config("encoder", 16, 4, 2, 32, "sinusoidal", "post-ln", "relu", "none", 1),
     [3, 17, 42, 8, 8, 0, 49], [], []),
    ("enc_preln_gelu_learned_padding",
     config("encoder", 16, 2, 2, 24, "learned", "pre-ln", "gelu", "none", 2),
     [5, 11, 23, 7, 30, 1], [], [4, 5]),
    ("enc_one_head",
     config("encoder", 8, 1, 2, 16, "sinusoidal", "post-ln", "relu", "none", 3),
     [1, 2, 3, 4, 5], [], []),
    ("enc_heads_equal_d_model",
     config("encoder", 8, 8, 2, 16, "learned", "pre-ln", "gelu", "none", 4),
     [9, 8, 7, 6, 5, 4], [], []),
    ("enc_one_token",
     config("encoder", 16, 4, 2, 32, "sinusoidal", "pre-ln", "relu", "none", 5),
     [12], [], []),
    ("enc_causal_postln_gelu",
     config("encoder", 12, 3, 1, 20, "none", "post-ln", "gelu", "causal", 6),
     [4, 4, 19, 33, 2], [], []),
    ("enc_padding_postln_no_pe",
     config("encoder", 32, 4, 2, 48, "none", "post-ln", "relu", "none", 7),
     [0, 10, 20, 30, 40, 45, 46, 47, 48], [], [0, 3, 8]),
    ("dec_causal_preln_gelu",
     config("decoder", 16, 4, 3, 32, "sinusoidal", "pre-ln", "gelu", "causal", 8),
     [2, 7, 1, 8, 2, 8, 1, 8], [], []),
    ("dec_causal_postln_relu_learned_padding",
     config("decoder", 16, 2, 2, 32, "learned", "post-ln", "relu", "causal", 9),
     [31, 41, 5, 9, 26, 5, 3], [], [5, 6]),
    ("dec_one_token",
     config("decoder", 16, 4, 2, 32, "learned", "pre-ln", "gelu", "causal", 10),
     [44], [], []),
    ("encdec_postln_relu_sinusoidal",
     config("encoder-decoder", 16, 4, 2, 32, "sinusoidal", "post-ln", "relu", "causal", 11),
     [3, 1, 4, 1, 5, 9], [2, 6, 5, 3, 5], []),
    ("encdec_preln_gelu_learned_padding",
     config("encoder-decoder", 16, 2, 2, 24, "learned", "pre-ln", "gelu", "causal", 12),
     [10, 20, 30, 40, 11, 0, 0], [1, 2, 3, 4], [5, 6]),
    ("encdec_nomask_one_head_no_pe",
     config("encoder-decoder", 8, 1, 2, 16, "none", "post-ln", "gelu", "none", 13),
     [7, 7, 3, 1], [9, 8, 7, 6, 5, 4], [2]),
    ("encdec_heads_equal_d_model_one_token",
     config("encoder-decoder", 8, 8, 2, 16, "sinusoidal", "pre-ln", "relu", "causal", 14),
     [4, 5, 6], [1], []),
]

# name, D, H, T, S (None: self-attention), causal, key_padding, seed
MHA_CASES = [
    ("mha_self_causal_padding", 12, 3, 6, None, True, [5], 101),
    ("mha_cross_padding", 16, 2, 4, 7, False, [1, 6], 102),
    ("mha_self_one_head_one_token", 8, 1, 1, None, False, [], 103),
]


def build_case(cfg):
    torch.manual_seed(cfg["seed"])
    model = Playground(cfg)
    randomise(model, 1000 + cfg["seed"])
    return model


def state_dict_arrays(model):
    return {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}


def load_into_torch(cfg, weights_path):
    """A fresh Playground with the file's tensors; strict=True (no missing, no extra)."""
    model = Playground(cfg)
    tensors = read_safetensors(weights_path)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=True)
    return model


def run_mha(name, D, H, T, S, causal, key_padding, seed):
    torch.manual_seed(seed)
    mha = nn.MultiheadAttention(D, H, dropout=0.0, batch_first=True)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for pname, p in sorted(mha.named_parameters()):
            if pname.endswith("bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[1]))
    xq = torch.randn(1, T, D, generator=g)
    xm = xq if S is None else torch.randn(1, S, D, generator=g)
    S = xm.shape[1]
    attn_mask = causal_mask(T) if causal else None
    kpm = padding_mask(S, key_padding)
    out, w, s = attend(name, mha, xq, xm, attn_mask, kpm)
    tensors = {
        "in_proj_weight": mha.in_proj_weight, "in_proj_bias": mha.in_proj_bias,
        "out_proj.weight": mha.out_proj.weight, "out_proj.bias": mha.out_proj.bias,
        "x_query": xq[0], "x_memory": xm[0], "output": out[0], "weights": w, "scores": s,
    }
    tensors = {k: v.detach().numpy().astype(np.float32) for k, v in tensors.items()}
    inp = {"heads": H, "causal": causal, "key_padding": key_padding}
    return tensors, inp


# ---------------------------------------------------------------------------------------
# Writing and checking
# ---------------------------------------------------------------------------------------
METADATA = {"generator": "tests/gen_torch_fixtures.py"}


class Drift:
    def __init__(self):
        self.problems = []

    def json(self, path, want):
        if not os.path.exists(path):
            self.problems.append(f"{path} is missing")
            return
        with open(path) as f:
            got = json.load(f)
        if got != want:
            self.problems.append(f"{path} differs: {got} != {want}")

    def tensors(self, path, want):
        if not os.path.exists(path):
            self.problems.append(f"{path} is missing")
            return
        got = read_safetensors(path)
        if set(got) != set(want):
            self.problems.append(f"{path}: names differ: only stored {sorted(set(got) - set(want))},"
                                 f" only regenerated {sorted(set(want) - set(got))}")
            return
        for k in sorted(want):
            if got[k].shape != want[k].shape:
                self.problems.append(f"{path}: {k} shape {got[k].shape} != {want[k].shape}")
            elif np.abs(got[k] - want[k]).max(initial=0.0) > \
                    DRIFT_ATOL + DRIFT_RTOL * np.abs(want[k]).max(initial=0.0):
                d = np.abs(got[k] - want[k]).max()
                self.problems.append(f"{path}: {k} max abs diff {d:.3g}")


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def do_model_case(name, cfg, ids, dec_ids, key_padding, check, drift):
    d = os.path.join(TORCH_DIR, name)
    model = build_case(cfg)
    inp = {"ids": ids, "decoder_ids": dec_ids, "key_padding": key_padding}
    weights = state_dict_arrays(model)
    expected = run_model(model, inp)
    if check:
        drift.json(os.path.join(d, "config.json"), cfg)
        drift.json(os.path.join(d, "input.json"), inp)
        drift.tensors(os.path.join(d, "model.safetensors"), weights)
        drift.tensors(os.path.join(d, "expected.safetensors"), expected)
    else:
        os.makedirs(d, exist_ok=True)
        write_json(os.path.join(d, "config.json"), cfg)
        write_json(os.path.join(d, "input.json"), inp)
        write_safetensors(os.path.join(d, "model.safetensors"), weights, METADATA)
        write_safetensors(os.path.join(d, "expected.safetensors"), expected, METADATA)
    # Round trip through the file on disk: strict load into fresh modules, same numbers.
    path = os.path.join(d, "model.safetensors")
    if os.path.exists(path):
        reloaded = run_model(load_into_torch(cfg, path), inp)
        for k in expected:
            assert_close(f"{name}: {k} after reloading model.safetensors",
                         torch.from_numpy(reloaded[k]), torch.from_numpy(expected[k]), 0.0)


def do_mha_case(case, check, drift):
    name = case[0]
    d = os.path.join(TORCH_DIR, name)
    tensors, inp = run_mha(*case)
    if check:
        drift.json(os.path.join(d, "input.json"), inp)
        drift.tensors(os.path.join(d, "attention.safetensors"), tensors)
    else:
        os.makedirs(d, exist_ok=True)
        write_json(os.path.join(d, "input.json"), inp)
        write_safetensors(os.path.join(d, "attention.safetensors"), tensors, METADATA)


def default_saved_input(cfg):
    """Deterministic ids for a HeadScope-saved model (written once, kept afterwards)."""
    g = torch.Generator().manual_seed(cfg.get("seed", 0) + 77)
    T = min(7, cfg["max_len"])
    inp = {"ids": torch.randint(0, cfg["vocab"], (T,), generator=g).tolist(),
           "decoder_ids": [], "key_padding": []}
    if cfg["arch"] == "encoder-decoder":
        inp["decoder_ids"] = torch.randint(0, cfg["vocab"], (max(1, T - 2),), generator=g).tolist()
        inp["key_padding"] = [T - 1]
    return inp


def do_saved_dir(d, check, drift):
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    inp_path = os.path.join(d, "input.json")
    if os.path.exists(inp_path):
        with open(inp_path) as f:
            inp = json.load(f)
    else:
        inp = default_saved_input(cfg)
    model = load_into_torch(cfg, os.path.join(d, "model.safetensors"))  # strict=True
    expected = run_model(model, inp)
    if check:
        drift.json(inp_path, inp)
        drift.tensors(os.path.join(d, "expected.safetensors"), expected)
    else:
        if not os.path.exists(inp_path):
            write_json(inp_path, inp)
        write_safetensors(os.path.join(d, "expected.safetensors"), expected, METADATA)


def total_bytes(root):
    n = 0
    for base, _, files in os.walk(root):
        n += sum(os.path.getsize(os.path.join(base, f)) for f in files)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="verify existing fixtures against a fresh run; write nothing")
    args = ap.parse_args()
    torch.set_default_dtype(torch.float32)
    drift = Drift()
    for name, cfg, ids, dec_ids, kp in MODEL_CASES:
        do_model_case(name, cfg, ids, dec_ids, kp, args.check, drift)
        print(f"{'checked' if args.check else 'wrote'} torch/{name}")
    for case in MHA_CASES:
        do_mha_case(case, args.check, drift)
        print(f"{'checked' if args.check else 'wrote'} torch/{case[0]}")
    if os.path.isdir(SAVED_DIR):
        for entry in sorted(os.listdir(SAVED_DIR)):
            d = os.path.join(SAVED_DIR, entry)
            if os.path.isfile(os.path.join(d, "model.safetensors")):
                do_saved_dir(d, args.check, drift)
                print(f"{'checked' if args.check else 'wrote'} headscope_saved/{entry}"
                      " (load_state_dict strict=True ok)")
    size = total_bytes(TORCH_DIR) + (total_bytes(SAVED_DIR) if os.path.isdir(SAVED_DIR) else 0)
    print(f"fixtures total {size / 1e6:.2f} MB")
    if drift.problems:
        print("fixtures drifted:", file=sys.stderr)
        for p in drift.problems:
            print("  " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
