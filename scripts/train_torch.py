#!/usr/bin/python3
"""PyTorch baseline for `headscope train` (issue 13): the same model, task, optimizer and
schedule, written as a PyTorch user would (batched, padded), to compare loss curves,
time to an induction head and tokens/s on the same machine.

Model: a decoder-only transformer with the playground's names and defaults (pre-LN
LayerNorm with a final norm, learned positions, causal mask, ReLU FFN of 4·d, biases,
LM head tied to the embedding); embeddings N(0, 0.02²), every other weight as PyTorch's
nn.TransformerEncoderLayer / nn.MultiheadAttention initialise it (core/train/trainer.h).
`--init DIR` starts from a HeadScope model directory instead (config.json +
model.safetensors, e.g. `headscope train induction --steps 1 --save DIR` … or any saved
playground decoder), so both programs start from the very same weights.

Task `induction` (core/train/tasks.h): BOS + r + f + r, |r| uniform in [8, 20], filler of
0 … 16 symbols, symbols uniform in [2, vocab); every next token is a target.
AdamW: β (0.9, 0.95), eps 1e-8, weight decay on matrices, linear warm-up then cosine to
0.1·lr, gradients clipped to norm 1 (core/train/adamw.h).

Every --every steps it prints step, loss, held-out loss, tokens/s (real tokens, not
padding) and each head's induction score on BOS + r + r (m = 12 distinct symbols, as
core/train/head_trajectory.cpp): mean over the second copy of A[i, i − m + 1].

    /usr/bin/python3 scripts/train_torch.py --steps 1500 --batch 32 --threads 2
    /usr/bin/python3 scripts/train_torch.py --init /tmp/start --steps 1500
"""
import argparse
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# A head counts as an induction head from this score: HeadScope's role-label threshold
# (core/analysis/head_labels.h, LabelThresholds::induction), so both report the same event.
INDUCTION_FORMED = 0.3

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import read_safetensors  # noqa: E402  (F32 tensors by name)

BOS = 0


class Layer(nn.Module):
    def __init__(self, d, heads, d_ff):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.self_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(d)
        self.linear1 = nn.Linear(d, d_ff)
        self.linear2 = nn.Linear(d_ff, d)

    def attend(self, x, mask):
        """Self-attention written out so the weights per head are at hand: (B, H, T, T)."""
        B, T, D = x.shape
        H = self.heads
        qkv = F.linear(x, self.self_attn.in_proj_weight, self.self_attn.in_proj_bias)
        q, k, v = qkv.view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // H) + mask  # (B, H, T, T)
        weights = scores.softmax(-1)
        out = (weights @ v).transpose(1, 2).reshape(B, T, D)
        return self.self_attn.out_proj(out), weights

    def forward(self, x, mask):
        a, weights = self.attend(self.norm1(x), mask)
        x = x + a
        x = x + self.linear2(F.relu(self.linear1(self.norm2(x))))
        return x, weights


class Decoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.embed = nn.Embedding(cfg["vocab"], d)
        self.pos_embed = nn.Embedding(cfg["max_len"], d)
        self.layers = nn.ModuleList(Layer(d, cfg["heads"], cfg["d_ff"]) for _ in range(cfg["layers"]))
        self.norm = nn.LayerNorm(d)
        with torch.no_grad():
            self.embed.weight.normal_(0.0, 0.02)
            self.pos_embed.weight.normal_(0.0, 0.02)

    def forward(self, ids):
        T = ids.shape[1]
        mask = torch.full((T, T), float("-inf")).triu(1)
        x = self.embed(ids) + self.pos_embed.weight[:T]
        all_weights = []
        for layer in self.layers:
            x, w = layer(x, mask)
            all_weights.append(w)
        return self.norm(x) @ self.embed.weight.T, all_weights


def example(rng, vocab):
    sym = lambda n: [rng.randint(2, vocab - 1) for _ in range(n)]  # noqa: E731
    r = sym(rng.randint(8, 20))
    return [BOS] + r + sym(rng.randint(0, 16)) + r


def batch_tensors(examples):
    """Padded inputs and targets; padding's targets are −100 (ignored by the loss)."""
    T = max(len(e) for e in examples) - 1
    ids = torch.zeros((len(examples), T), dtype=torch.long)
    target = torch.full((len(examples), T), -100, dtype=torch.long)
    for b, e in enumerate(examples):
        ids[b, : len(e) - 1] = torch.tensor(e[:-1])
        target[b, : len(e) - 1] = torch.tensor(e[1:])
    return ids, target


def lr_at(step, lr, warmup, total, min_ratio=0.1):
    if warmup > 0 and step <= warmup:
        return lr * step / warmup
    if total <= warmup:
        return lr
    progress = min(1.0, (step - warmup) / (total - warmup))
    return lr * (min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress)))


def induction_scores(model, vocab, m=12, seed=7):
    """Per (layer, head): mean over the second copy of A[i, i − m + 1] on BOS + r + r."""
    r = random.Random(seed).sample(range(2, vocab), min(m, vocab - 2))
    m = len(r)
    ids = torch.tensor([[BOS] + r + r])
    with torch.no_grad():
        _, weights = model(ids)
    rows = torch.arange(1 + m, 1 + 2 * m)
    return [[w[0, h, rows, rows - m + 1].mean().item() for h in range(w.shape[1])] for w in weights]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=32)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--init", help="a HeadScope model directory to start from")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=-1, help="default min(100, steps/10)")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    cfg = {"d_model": args.d_model, "heads": args.heads, "layers": args.layers, "vocab": args.vocab,
           "max_len": args.max_len, "d_ff": 4 * args.d_model}
    if args.init:
        with open(os.path.join(args.init, "config.json")) as f:
            c = json.load(f)
        cfg = {k: c[k] for k in ("d_model", "heads", "layers", "vocab", "max_len", "d_ff")}
        if (c.get("arch"), c.get("norm"), c.get("pe"), c.get("activation")) != ("decoder", "pre-ln", "learned", "relu"):
            sys.exit("--init: this script's model is a pre-LN, learned-position, ReLU decoder")
    model = Decoder(cfg)
    if args.init:
        state = read_safetensors(os.path.join(args.init, "model.safetensors"))
        missing = model.load_state_dict(state, strict=True)
        assert not missing.missing_keys and not missing.unexpected_keys
    warmup = args.warmup if args.warmup >= 0 else min(100, args.steps // 10)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": other, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    rng = random.Random(args.seed)
    held_out = batch_tensors([example(random.Random(10_000 + i), cfg["vocab"]) for i in range(64)])
    print(f"torch {torch.__version__}, {args.threads} threads; d_model {cfg['d_model']}, heads {cfg['heads']}, "
          f"layers {cfg['layers']}, batch {args.batch}, lr {args.lr}, warm-up {warmup}, steps {args.steps}")
    tokens, start, first_induction = 0, time.perf_counter(), None
    for step in range(1, args.steps + 1):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, args.lr, warmup, args.steps)
        examples = [example(rng, cfg["vocab"]) for _ in range(args.batch)]
        tokens += sum(len(e) for e in examples)
        ids, target = batch_tensors(examples)
        logits, _ = model(ids)
        loss = F.cross_entropy(logits.reshape(-1, cfg["vocab"]), target.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % args.every == 0 or step == args.steps:
            elapsed = time.perf_counter() - start
            with torch.no_grad():
                h_logits, _ = model(held_out[0])
                h_loss = F.cross_entropy(h_logits.reshape(-1, cfg["vocab"]), held_out[1].reshape(-1)).item()
            scores = induction_scores(model, cfg["vocab"])
            best = max(max(s) for s in scores)
            if first_induction is None and best >= INDUCTION_FORMED:
                first_induction = (step, elapsed)
            per_head = " | ".join(" ".join(f"{s:.2f}" for s in layer) for layer in scores)
            print(f"step {step:5d}  loss {loss.item():.4f}  held-out {h_loss:.4f}  {tokens / elapsed:.0f} tokens/s  "
                  f"{elapsed:.1f} s  induction [{per_head}]", flush=True)
    if first_induction:
        print(f"first induction head (score ≥ {INDUCTION_FORMED}) at step {first_induction[0]} "
              f"({first_induction[1]:.1f} s)")
    else:
        print(f"no head reached an induction score of {INDUCTION_FORMED}")


if __name__ == "__main__":
    main()
