#!/usr/bin/python3
"""PyTorch reference fixtures for the playground's modern options (issue 11).

The playground can turn an nn.Transformer block into a Llama block one option at a time:
RMSNorm (norm=rmsnorm), rotary positions (pe=rope, rotate-half or interleaved pairs),
SwiGLU and GELU-tanh feed-forwards, grouped-query attention (kv_heads=K) and no biases
(bias=0), plus an LM head. PyTorch 1.13 has no module for most of these, so this script
writes the forward pass out in plain torch operations, independently of HeadScope:

    norm      LayerNorm: F.layer_norm;  RMSNorm: x · rsqrt(mean(x²) + eps) · γ
    rope      rotate-half: x·cos + rotate_half(x)·sin (as HF Llama);
              interleaved: complex multiplication of (x_2i + i·x_2i+1) by e^{i·p·θ_i}
              (as Meta's llama / llama2.c), θ_i = theta^(−2i/Dh)
    GQA       K and V heads repeated with repeat_interleave (H / Hkv each)
    FFN       relu, gelu (erf), gelu-tanh (F.gelu approximate="tanh"),
              swiglu: linear2(silu(gate(x)) ⊙ linear1(x))
    layers    post-norm x = norm(x + f(x)); pre-norm x = x + f(norm(x)), as nn.Transformer

Regenerate (Debian's python3-torch, hence /usr/bin/python3):

    /usr/bin/python3 tests/gen_modern_fixtures.py           # (re)write the fixtures
    /usr/bin/python3 tests/gen_modern_fixtures.py --check   # verify; exit 1 on drift

It also reads the Hugging Face Llama directories HeadScope saved into
tests/fixtures/headscope_saved_hf/<name>/ (config.json + model.safetensors under HF names,
written by `headscope save` of a Llama-shaped playground decoder) as an independent Llama
would: q_proj/k_proj/v_proj, rotate-half RoPE, gate/up/down. It writes input.json if
missing and expected.safetensors there. Add one with
    build-<you>/app/headscope save "random:arch=decoder,…,pe=rope,norm=rmsnorm,act=swiglu,bias=0" \
        tests/fixtures/headscope_saved_hf/<name>
then re-run this script.

Outputs tests/fixtures/torch/modern_<case>/ in the layout of tests/gen_torch_fixtures.py
(config.json as core/model/config.cpp writes it, model.safetensors under HeadScope's state_dict
names, input.json, expected.safetensors with main./decoder. input, per-layer
self/cross weights and scores, attention outputs, outputs, final_output), plus
"next_token_logits" (1, V) for models with an LM head. tests/torch_agreement_test.cpp reads
every case directory, so these run through the same checks as the nn.Transformer ones.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_torch_fixtures import (TORCH_DIR, METADATA, Drift, assert_close, causal_mask,  # noqa: E402
                                read_safetensors, sinusoidal, write_json, write_safetensors)

SAVED_HF_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                            "headscope_saved_hf")


class Norm(nn.Module):
    """LayerNorm (γ, β) or RMSNorm (γ only)."""

    def __init__(self, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.rms = cfg.get("norm_kind") == "rmsnorm"
        self.eps = cfg["norm_eps"]
        self.weight = nn.Parameter(torch.ones(d))
        if not self.rms:
            self.bias = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        if self.rms:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


def rope_angles(T, dh, theta):
    """(T, Dh/2) angles p·θ_i, θ_i = theta^(−2i/Dh), in float64."""
    i = torch.arange(dh // 2, dtype=torch.float64)
    freq = theta ** (-2.0 * i / dh)
    return torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]


def rope_rotate_half(x, theta):
    """x (heads, T, Dh): pairs (i, i + Dh/2), HF Llama's rotate_half form."""
    T, dh = x.shape[1], x.shape[2]
    ang = rope_angles(T, dh, theta)
    cos = torch.cat([ang.cos(), ang.cos()], dim=-1).float()
    sin = torch.cat([ang.sin(), ang.sin()], dim=-1).float()
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


def rope_interleaved(x, theta):
    """x (heads, T, Dh): pairs (2i, 2i+1) as complex numbers times e^{i·angle}."""
    T, dh = x.shape[1], x.shape[2]
    ang = rope_angles(T, dh, theta)
    rot = torch.complex(ang.cos().float(), ang.sin().float())  # (T, Dh/2)
    xc = torch.view_as_complex(x.reshape(x.shape[0], T, dh // 2, 2).contiguous())
    return torch.view_as_real(xc * rot).reshape(x.shape)


class Attention(nn.Module):
    """in_proj_weight (H·Dh + 2·Hkv·Dh, D) = [W_q; W_k; W_v], out_proj (D, H·Dh)."""

    def __init__(self, cfg):
        super().__init__()
        d, H = cfg["d_model"], cfg["heads"]
        self.H = H
        self.Hkv = cfg.get("kv_heads", 0) or H
        self.dh = d // H
        rows = (H + 2 * self.Hkv) * self.dh
        self.in_proj_weight = nn.Parameter(torch.empty(rows, d))
        if cfg.get("qkv_bias", True):
            self.in_proj_bias = nn.Parameter(torch.empty(rows))
        else:
            self.in_proj_bias = None
        self.out_proj = nn.Linear(H * self.dh, d, bias=cfg.get("out_bias", True))

    def forward(self, xq, xm, mask, rope):
        """xq (T, D), xm (S, D); mask bool (T, S) True = hidden; rope None or (layout, theta).
        Returns output (T, D), weights (H, T, S), scores (H, T, S) before the mask."""
        H, Hkv, dh = self.H, self.Hkv, self.dh
        W, b = self.in_proj_weight, self.in_proj_bias
        q = xq @ W[: H * dh].T
        k = xm @ W[H * dh: (H + Hkv) * dh].T
        v = xm @ W[(H + Hkv) * dh:].T
        if b is not None:
            q = q + b[: H * dh]
            k = k + b[H * dh: (H + Hkv) * dh]
            v = v + b[(H + Hkv) * dh:]
        q = q.reshape(-1, H, dh).transpose(0, 1)    # (H, T, Dh)
        k = k.reshape(-1, Hkv, dh).transpose(0, 1)  # (Hkv, S, Dh)
        v = v.reshape(-1, Hkv, dh).transpose(0, 1)
        if rope is not None:
            layout, theta = rope
            turn = rope_rotate_half if layout == "rotate-half" else rope_interleaved
            q, k = turn(q, theta), turn(k, theta)
        k = k.repeat_interleave(H // Hkv, dim=0)     # query head h reads K/V head h // (H/Hkv)
        v = v.repeat_interleave(H // Hkv, dim=0)
        scores = q @ k.transpose(1, 2) / math.sqrt(dh)
        masked = scores if mask is None else scores.masked_fill(mask, float("-inf"))
        w = torch.softmax(masked, dim=-1)
        heads = (w @ v).transpose(0, 1).reshape(xq.shape[0], H * dh)
        return self.out_proj(heads), w, scores


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, f, bias = cfg["d_model"], cfg["d_ff"], cfg.get("mlp_bias", True)
        self.act = cfg["activation"]
        self.linear1 = nn.Linear(d, f, bias=bias)
        self.linear2 = nn.Linear(f, d, bias=bias)
        if self.act == "swiglu":
            self.gate = nn.Linear(d, f, bias=bias)

    def forward(self, x):
        h = self.linear1(x)
        if self.act == "relu":
            h = F.relu(h)
        elif self.act == "gelu":
            h = F.gelu(h)
        elif self.act == "gelu-tanh":
            h = F.gelu(h, approximate="tanh")
        else:
            h = F.silu(self.gate(x)) * h
        return self.linear2(h)


class Layer(nn.Module):
    def __init__(self, cfg, cross):
        super().__init__()
        self.pre = cfg["norm"] == "pre-ln"
        self.self_attn = Attention(cfg)
        if cross:
            self.multihead_attn = Attention(cfg)
        self.ffn = FeedForward(cfg)
        self.norm1, self.norm2 = Norm(cfg), Norm(cfg)
        if cross:
            self.norm3 = Norm(cfg)

    def forward(self, x, mask, rope, name, out, memory=None):
        cross = memory is not None
        h = self.norm1(x) if self.pre else x
        a, w, s = self.self_attn(h, h, mask, rope)
        x = x + a if self.pre else self.norm1(x + a)
        out[name + ".self_weights"], out[name + ".self_scores"] = w, s
        out[name + ".self_attn_output"] = a
        if cross:
            h = self.norm2(x) if self.pre else x
            c, cw, cs = self.multihead_attn(h, memory, None, None)
            x = x + c if self.pre else self.norm2(x + c)
            out[name + ".cross_weights"], out[name + ".cross_scores"] = cw, cs
            out[name + ".cross_attn_output"] = c
        last = self.norm3 if cross else self.norm2
        y = x + self.ffn(last(x)) if self.pre else last(x + self.ffn(x))
        out[name + ".output"] = y
        return y


class Stack(nn.Module):
    def __init__(self, cfg, cross, final_norm):
        super().__init__()
        self.layers = nn.ModuleList([Layer(cfg, cross) for _ in range(cfg["layers"])])
        if final_norm:
            self.norm = Norm(cfg)


class Modern(nn.Module):
    """State dict names as core/io/state_dict.h: embed, pos_embed, layers.i.… (or
    encoder./decoder.), norm, lm_head. The FFN's linear1/linear2/gate sit directly in the
    layer, as nn.TransformerEncoderLayer has them."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        d = cfg["d_model"]
        self.embed = nn.Embedding(cfg["vocab"], d)
        if cfg["pe"] == "learned":
            self.pos_embed = nn.Embedding(cfg["max_len"], d)
        pre = cfg["norm"] == "pre-ln"
        if cfg["arch"] == "encoder-decoder":
            self.encoder = Stack(cfg, False, True)
            self.decoder = Stack(cfg, True, True)
        else:
            self.stack = Stack(cfg, False, pre)
        if cfg.get("lm_head") == "separate":
            self.lm_head = nn.Linear(d, cfg["vocab"], bias=False)

    def state_names(self):
        """Our names for the parameters: drop the module nesting HeadScope does not have."""
        out = {}
        for name, p in self.named_parameters():
            n = name.replace("stack.", "").replace("ffn.", "")
            out[n] = p
        return out


def randomise(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.state_names().items()):
            if name.endswith("embed.weight"):
                p.copy_(torch.randn(p.shape, generator=g))
            elif "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=g))
            elif name.endswith("bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[1]))


def embed(model, ids):
    cfg = model.cfg
    x = model.embed.weight[torch.tensor(ids, dtype=torch.long)]
    if cfg["pe"] == "sinusoidal":
        x = x + sinusoidal(len(ids), cfg["d_model"])
    elif cfg["pe"] == "learned":
        x = x + model.pos_embed.weight[: len(ids)]
    return x


def run_model(model, inp):
    cfg = model.cfg
    rope = (cfg["rope_layout"], cfg["rope_theta"]) if cfg["pe"] == "rope" else None
    causal = cfg["mask"] == "causal"
    out = {}
    ids = inp["ids"]
    x = embed(model, ids)
    out["main.input"] = x
    enc_dec = cfg["arch"] == "encoder-decoder"
    stack = model.encoder if enc_dec else model.stack
    mask = causal_mask(len(ids)) if causal and not enc_dec else None
    for i, layer in enumerate(stack.layers):
        x = layer(x, mask, rope, f"main.layers.{i}", out)
    if hasattr(stack, "norm"):
        x = stack.norm(x)
    out["main.final_output"] = x
    final = x
    if enc_dec:
        dec_ids = inp["decoder_ids"]
        y = embed(model, dec_ids)
        out["decoder.input"] = y
        dmask = causal_mask(len(dec_ids)) if causal else None
        for i, layer in enumerate(model.decoder.layers):
            y = layer(y, dmask, rope, f"decoder.layers.{i}", out, memory=x)
        y = model.decoder.norm(y)
        out["decoder.final_output"] = y
        final = y
    head = cfg.get("lm_head", "none")
    if head != "none":
        w = model.lm_head.weight if head == "separate" else model.embed.weight
        out["next_token_logits"] = (final[-1] @ w.T)[None, :]  # (1, V)
    return {k: v.detach().numpy().astype(np.float32) for k, v in out.items()}


def config(arch, d_model, heads, layers, d_ff, pe, norm, act, mask, seed, kv_heads=0,
           norm_kind="layernorm", bias=True, rope_layout="rotate-half", rope_theta=10000.0,
           lm_head="none", vocab=50, max_len=16, norm_eps=1e-5):
    """Exactly the keys core/model/config.cpp's config_to_json writes for this config."""
    c = {"format": "headscope-playground", "arch": arch, "d_model": d_model, "heads": heads,
         "layers": layers, "d_ff": d_ff, "vocab": vocab, "max_len": max_len, "pe": pe,
         "norm": norm, "activation": act, "mask": mask, "norm_eps": norm_eps, "seed": seed}
    if norm_kind != "layernorm":
        c["norm_kind"] = norm_kind
    if kv_heads:
        c["kv_heads"] = kv_heads
    if pe == "rope":
        c["rope_layout"] = rope_layout
        c["rope_theta"] = rope_theta
    if not bias:
        c["qkv_bias"] = c["out_bias"] = c["mlp_bias"] = False
    if lm_head != "none":
        c["lm_head"] = lm_head
    return c


# name, config, ids, decoder_ids
CASES = [
    # The Llama block: pre-norm RMSNorm, rotate-half RoPE, SwiGLU, 4 query heads on 2 K/V
    # heads, no biases, separate LM head.
    ("modern_llama_block",
     config("decoder", 16, 4, 2, 40, "rope", "pre-ln", "swiglu", "causal", 21, kv_heads=2,
            norm_kind="rmsnorm", bias=False, lm_head="separate"),
     [3, 17, 42, 8, 8, 1, 49], []),
    # llama2.c's pairing of RoPE dims, multi-query attention (one K/V head), GELU-tanh,
    # LayerNorm with biases, tied LM head, theta 500.
    ("modern_interleaved_mqa_gelu_tanh",
     config("decoder", 24, 3, 2, 32, "rope", "pre-ln", "gelu-tanh", "causal", 22, kv_heads=1,
            rope_layout="interleaved", rope_theta=500.0, lm_head="tied"),
     [5, 11, 23, 7, 30, 2], []),
    # Post-norm RMSNorm encoder with sinusoidal positions and SwiGLU with biases.
    ("modern_encoder_postrms_swiglu",
     config("encoder", 16, 2, 2, 24, "sinusoidal", "post-ln", "swiglu", "none", 23,
            norm_kind="rmsnorm"),
     [9, 8, 7, 6, 5], []),
    # Encoder-decoder with grouped-query self- and cross-attention, RoPE in both stacks'
    # self-attention, pre-norm RMSNorm, no biases.
    ("modern_encdec_gqa_rope",
     config("encoder-decoder", 16, 4, 2, 32, "rope", "pre-ln", "relu", "causal", 24,
            kv_heads=2, norm_kind="rmsnorm", bias=False),
     [4, 1, 4, 1, 5, 9], [2, 6, 5, 3]),
]


def do_case(name, cfg, ids, dec_ids, check, drift):
    d = os.path.join(TORCH_DIR, name)
    torch.manual_seed(cfg["seed"])
    model = Modern(cfg)
    randomise(model, 2000 + cfg["seed"])
    inp = {"ids": ids, "decoder_ids": dec_ids, "key_padding": []}
    weights = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_names().items()}
    with torch.no_grad():
        expected = run_model(model, inp)
    # Self-check: the rotations keep each pair's length, and the two layouts agree after
    # permuting a head's dims (2i, 2i+1) -> (i, i + Dh/2).
    x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(7))
    perm = [2 * i for i in range(4)] + [2 * i + 1 for i in range(4)]
    assert_close("rope layouts agree up to a permutation", rope_interleaved(x, 100.0)[..., perm],
                 rope_rotate_half(x[..., perm], 100.0))
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
        write_safetensors(os.path.join(d, "expected.safetensors"), expected,
                          {"generator": "tests/gen_modern_fixtures.py"})


def from_hf_llama(d):
    """A Modern model holding the HF Llama directory's tensors, read by their HF names."""
    with open(os.path.join(d, "config.json")) as f:
        hf = json.load(f)
    H, Hkv = hf["num_attention_heads"], hf.get("num_key_value_heads", hf["num_attention_heads"])
    head = ("none" if hf.get("headscope_lm_head") == "none"
            else "tied" if hf.get("tie_word_embeddings", False) else "separate")
    cfg = config("decoder", hf["hidden_size"], H, hf["num_hidden_layers"],
                 hf["intermediate_size"], "rope", "pre-ln", "swiglu", "causal", 0,
                 kv_heads=Hkv if Hkv != H else 0, norm_kind="rmsnorm",
                 bias=hf.get("attention_bias", False), rope_theta=hf.get("rope_theta", 10000.0),
                 lm_head=head, vocab=hf["vocab_size"], max_len=hf["max_position_embeddings"],
                 norm_eps=hf["rms_norm_eps"])
    cfg["mlp_bias"] = False
    t = read_safetensors(os.path.join(d, "model.safetensors"))
    ours = {"embed.weight": t["model.embed_tokens.weight"], "norm.weight": t["model.norm.weight"]}
    for i in range(cfg["layers"]):
        p, q = f"model.layers.{i}.", f"layers.{i}."
        a = p + "self_attn."
        ours[q + "self_attn.in_proj_weight"] = np.concatenate(
            [t[a + "q_proj.weight"], t[a + "k_proj.weight"], t[a + "v_proj.weight"]])
        ours[q + "self_attn.out_proj.weight"] = t[a + "o_proj.weight"]
        if cfg.get("qkv_bias", True):
            ours[q + "self_attn.in_proj_bias"] = np.concatenate(
                [t[a + "q_proj.bias"], t[a + "k_proj.bias"], t[a + "v_proj.bias"]])
            ours[q + "self_attn.out_proj.bias"] = t[a + "o_proj.bias"]
        ours[q + "norm1.weight"] = t[p + "input_layernorm.weight"]
        ours[q + "norm2.weight"] = t[p + "post_attention_layernorm.weight"]
        ours[q + "gate.weight"] = t[p + "mlp.gate_proj.weight"]
        ours[q + "linear1.weight"] = t[p + "mlp.up_proj.weight"]
        ours[q + "linear2.weight"] = t[p + "mlp.down_proj.weight"]
    if head == "separate":
        ours["lm_head.weight"] = t["lm_head.weight"]
    model = Modern(cfg)
    params = model.state_names()
    assert set(params) == set(ours), (sorted(set(params) ^ set(ours)))
    with torch.no_grad():
        for k, v in ours.items():
            params[k].copy_(torch.from_numpy(v))
    return model


def do_saved_hf(d, check, drift):
    model = from_hf_llama(d)
    inp_path = os.path.join(d, "input.json")
    if os.path.exists(inp_path):
        with open(inp_path) as f:
            inp = json.load(f)
    else:
        g = torch.Generator().manual_seed(99)
        inp = {"ids": torch.randint(1, model.cfg["vocab"], (7,), generator=g).tolist(),
               "decoder_ids": [], "key_padding": []}
    with torch.no_grad():
        expected = run_model(model, inp)
    if check:
        drift.json(inp_path, inp)
        drift.tensors(os.path.join(d, "expected.safetensors"), expected)
    else:
        if not os.path.exists(inp_path):
            write_json(inp_path, inp)
        write_safetensors(os.path.join(d, "expected.safetensors"), expected,
                          {"generator": "tests/gen_modern_fixtures.py"})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="verify; write nothing")
    args = ap.parse_args()
    torch.set_default_dtype(torch.float32)
    drift = Drift()
    for name, cfg, ids, dec_ids in CASES:
        do_case(name, cfg, ids, dec_ids, args.check, drift)
        print(f"{'checked' if args.check else 'wrote'} torch/{name}")
    if os.path.isdir(SAVED_HF_DIR):
        for entry in sorted(os.listdir(SAVED_HF_DIR)):
            d = os.path.join(SAVED_HF_DIR, entry)
            if os.path.isfile(os.path.join(d, "model.safetensors")):
                do_saved_hf(d, args.check, drift)
                print(f"{'checked' if args.check else 'wrote'} headscope_saved_hf/{entry}")
    if drift.problems:
        print("fixtures drifted:", file=sys.stderr)
        for p in drift.problems:
            print("  " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
