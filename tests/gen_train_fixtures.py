#!/usr/bin/python3
"""PyTorch reference for the trainer's gradients (issue 13, core/train/).

For each case: a single-stack model of the playground's options (tests/gen_modern_fixtures.py's
plain-torch forward: LayerNorm / RMSNorm pre or post, sinusoidal / learned / rotary
positions, GQA, ReLU / GELU / GELU-tanh / SwiGLU, biases or none, tied or separate LM
head), the next-token cross-entropy over one sequence

    loss = 1/(T−1) Σ_{t<T−1} −log softmax(h_t · W_headᵀ)[ids_{t+1}]

and PyTorch autograd's gradient of it for every parameter. HeadScope's backward is written
out by hand (core/train/*_grad.cpp); tests/train_grad_test.cpp compares the two.

Regenerate (Debian's python3-torch, hence /usr/bin/python3):

    /usr/bin/python3 tests/gen_train_fixtures.py           # (re)write the fixtures
    /usr/bin/python3 tests/gen_train_fixtures.py --check   # verify; exit 1 on drift

It also runs three AdamW steps (torch.optim.AdamW, decay on matrices only, warm-up then
cosine learning rate, torch.nn.utils.clip_grad_norm_) on the llama_block case and writes
the weights after them to tests/fixtures/train/llama_block/after_adamw.safetensors with
the losses and pre-clip gradient norms ("adamw.loss", "adamw.grad_norm"); ADAMW holds the
settings the C++ test repeats.

A checkpoint step (tests/fixtures/train_checkpoint/): one AdamW step on a batch of three
examples, saved as a HeadScope checkpoint, then the weights after a second step on the
same batch, which the trainer repeats from the checkpoint (Trainer::step_on).

Two encoder–decoder cases (nn.Transformer with a tied or separate LM head, SEQ2SEQ_CASES)
check the cross-attention backward the same way, on a source and a target sequence.

Outputs tests/fixtures/train/<case>/: config.json (as core/model/config.cpp writes it),
model.safetensors (HeadScope's state_dict names), input.json {"ids"}, expected.safetensors
with "loss" (1,), "logits" (T, V) and "grad.<parameter name>" for every parameter.
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_torch_fixtures import Drift, causal_mask, write_json, write_safetensors  # noqa: E402
from gen_torch_fixtures import Playground, embed_input  # noqa: E402
from gen_torch_fixtures import config as playground_config  # noqa: E402
from gen_torch_fixtures import randomise as randomise_playground  # noqa: E402
from gen_modern_fixtures import Modern, config, embed, randomise  # noqa: E402

TRAIN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "train")
META = {"generator": "tests/gen_train_fixtures.py"}

# name, config, ids
CASES = [
    # The Llama block: pre-norm RMSNorm, rotate-half RoPE, SwiGLU, 4 query heads on 2 K/V
    # heads, no biases, separate LM head.
    ("llama_block",
     config("decoder", 16, 4, 2, 40, "rope", "pre-ln", "swiglu", "causal", 31, kv_heads=2,
            norm_kind="rmsnorm", bias=False, lm_head="separate", vocab=29),
     [3, 17, 28, 8, 8, 1, 20, 3]),
    # nn.Transformer's default: post-norm LayerNorm, ReLU, learned positions, biases, tied.
    ("postln_relu_learned_tied",
     config("decoder", 12, 3, 2, 20, "learned", "post-ln", "relu", "causal", 32,
            lm_head="tied", vocab=23),
     [1, 5, 9, 22, 5, 9, 0]),
    # GPT-2-like: pre-norm LayerNorm with a final norm, GELU, sinusoidal positions, tied.
    ("preln_gelu_sinusoidal_tied",
     config("decoder", 16, 2, 2, 24, "sinusoidal", "pre-ln", "gelu", "causal", 33,
            lm_head="tied", vocab=19),
     [4, 4, 11, 2, 18, 7]),
    # llama2.c's RoPE pairing, multi-query attention, GELU-tanh, post-norm RMSNorm,
    # separate head, no causal mask (every token sees every other).
    ("interleaved_mqa_gelu_tanh_nomask",
     config("decoder", 24, 3, 1, 32, "rope", "post-ln", "gelu-tanh", "none", 34, kv_heads=1,
            norm_kind="rmsnorm", rope_layout="interleaved", rope_theta=500.0,
            lm_head="separate", vocab=17),
     [2, 16, 5, 5, 9]),
]


# Encoder–decoder cases (nn.Transformer, as gen_torch_fixtures.py builds it, with an LM
# head): name, config, source ids, target ids. The loss is next-token over the target:
#   logits = decoder.norm(decoder(E[target], encoder.norm(encoder(E[source]))))·W_headᵀ
#   loss = 1/(T−1) Σ_{t<T−1} −log softmax(logits_t)[target_{t+1}]
# input.json holds {"source", "target"}.
SEQ2SEQ_CASES = [
    ("encdec_preln_gelu_learned_tied",
     dict(playground_config("encoder-decoder", 16, 4, 2, 24, "learned", "pre-ln", "gelu", "causal", 35,
                            vocab=21), lm_head="tied"),
     [0, 5, 9, 13, 1], [1, 13, 9, 5]),
    ("encdec_postln_relu_sinusoidal_separate",
     dict(playground_config("encoder-decoder", 12, 3, 2, 20, "sinusoidal", "post-ln", "relu", "causal", 36,
                            vocab=17), lm_head="separate"),
     [0, 3, 3, 16, 8, 1], [1, 3, 3, 16, 8]),
]


def seq2seq_model(cfg):
    torch.manual_seed(cfg["seed"])
    model = Playground(cfg)
    if cfg["lm_head"] == "separate":
        model.lm_head = torch.nn.Linear(cfg["d_model"], cfg["vocab"], bias=False)
    randomise_playground(model, 3000 + cfg["seed"])
    return model


def seq2seq_loss_and_logits(model, source, target):
    cfg = model.cfg
    (transformer,) = model._reference
    z = transformer(embed_input(model, source), embed_input(model, target),
                    tgt_mask=causal_mask(len(target)))[0]  # (T, D), decoder.norm included
    w = model.lm_head.weight if cfg["lm_head"] == "separate" else model.embed.weight
    logits = z @ w.T
    loss = F.cross_entropy(logits[:-1], torch.tensor(target[1:], dtype=torch.long))
    return loss, logits


def loss_and_logits(model, ids):
    cfg = model.cfg
    rope = (cfg["rope_layout"], cfg["rope_theta"]) if cfg["pe"] == "rope" else None
    mask = causal_mask(len(ids)) if cfg["mask"] == "causal" else None
    x = embed(model, ids)
    scratch = {}
    for i, layer in enumerate(model.stack.layers):
        x = layer(x, mask, rope, f"layers.{i}", scratch)
    if hasattr(model.stack, "norm"):
        x = model.stack.norm(x)
    w = model.lm_head.weight if cfg["lm_head"] == "separate" else model.embed.weight
    logits = x @ w.T  # (T, V)
    target = torch.tensor(ids[1:], dtype=torch.long)
    loss = F.cross_entropy(logits[:-1], target)  # mean over the T−1 predictions
    return loss, logits


# Settings of the AdamW fixture (tests/train_grad_test.cpp repeats them). eps 1e-3 keeps
# the update a smooth function of the gradient, so float32 sums in another order cannot
# flip the sign of a near-zero element's step.
ADAMW = {"lr": 1e-2, "betas": (0.9, 0.95), "eps": 1e-3, "weight_decay": 0.1,
         "warmup_steps": 1, "total_steps": 3, "min_lr_ratio": 0.1, "clip_norm": 1.0,
         "steps": 3}


def learning_rate_at(step, o):
    """Linear warm-up, then cosine decay to lr · min_lr_ratio (core/train/adamw.cpp)."""
    if o["warmup_steps"] > 0 and step <= o["warmup_steps"]:
        return o["lr"] * step / o["warmup_steps"]
    progress = min(1.0, (step - o["warmup_steps"]) / (o["total_steps"] - o["warmup_steps"]))
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
    return o["lr"] * (o["min_lr_ratio"] + (1.0 - o["min_lr_ratio"]) * cosine)


def adamw_steps(model, ids):
    params = model.state_names()
    decay = [p for _, p in sorted(params.items()) if p.dim() >= 2]
    other = [p for _, p in sorted(params.items()) if p.dim() < 2]
    o = ADAMW
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                             {"params": other, "weight_decay": 0.0}],
                            lr=o["lr"], betas=o["betas"], eps=o["eps"])
    losses, norms = [], []
    for step in range(1, o["steps"] + 1):
        for group in opt.param_groups:
            group["lr"] = learning_rate_at(step, o)
        opt.zero_grad()
        loss, _ = loss_and_logits(model, ids)
        loss.backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(list(params.values()), o["clip_norm"])))
        losses.append(loss.item())
        opt.step()
    out = {k: v.detach().numpy().astype(np.float32) for k, v in params.items()}
    out["adamw.loss"] = np.array(losses, dtype=np.float32)
    out["adamw.grad_norm"] = np.array(norms, dtype=np.float32)
    return out


def write_case(d, cfg, weights, inp, expected, check, drift):
    if check:
        drift.json(os.path.join(d, "config.json"), cfg)
        drift.json(os.path.join(d, "input.json"), inp)
        drift.tensors(os.path.join(d, "model.safetensors"), weights)
        drift.tensors(os.path.join(d, "expected.safetensors"), expected)
    else:
        os.makedirs(d, exist_ok=True)
        write_json(os.path.join(d, "config.json"), cfg)
        write_json(os.path.join(d, "input.json"), inp)
        write_safetensors(os.path.join(d, "model.safetensors"), weights, META)
        write_safetensors(os.path.join(d, "expected.safetensors"), expected, META)


def expected_of(params, loss, logits):
    expected = {"loss": np.array([loss.item()], dtype=np.float32),
                "logits": logits.detach().numpy().astype(np.float32)}
    for k, p in params.items():
        expected["grad." + k] = p.grad.detach().numpy().astype(np.float32)
    return expected


# A training step from a saved checkpoint on a given batch (tests/fixtures/train_checkpoint/):
# the llama_block model takes one AdamW step (ADAMW's settings) on BATCH and is saved as a
# HeadScope checkpoint (model.safetensors after that step, AdamW's moments as
# optimizer_m / optimizer_v.safetensors, trainer.json); then a second step on the same
# batch gives after_step.safetensors: the weights, "step.loss" and "step.grad_norm". The
# batch loss is the mean over every predicted token of the batch, position f−1 … T−2 of
# each example predicting the next token (f = first_target).
CHECKPOINT_DIR = os.path.join(os.path.dirname(TRAIN_DIR), "train_checkpoint")
BATCH = [([0, 5, 9, 1, 5, 9], 4), ([0, 3, 3, 17, 28], 1), ([0, 12, 4, 1, 12, 4, 8], 2)]


def batch_loss(model, batch):
    total, targets = 0.0, 0
    for ids, first in batch:
        _, logits = loss_and_logits(model, ids)
        want = torch.tensor(ids[first:], dtype=torch.long)
        total = total + F.cross_entropy(logits[first - 1:-1], want, reduction="sum")
        targets += len(ids) - first
    return total / targets


def do_checkpoint_step(check, drift):
    name, cfg, _ = CASES[0]
    assert name == "llama_block"
    torch.manual_seed(cfg["seed"])
    model = Modern(cfg)
    randomise(model, 3000 + cfg["seed"])
    params = model.state_names()
    o = ADAMW
    decay = [p for _, p in sorted(params.items()) if p.dim() >= 2]
    other = [p for _, p in sorted(params.items()) if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                             {"params": other, "weight_decay": 0.0}],
                            lr=o["lr"], betas=o["betas"], eps=o["eps"])
    saved = {}
    for step in (1, 2):
        for group in opt.param_groups:
            group["lr"] = learning_rate_at(step, o)
        opt.zero_grad()
        loss = batch_loss(model, BATCH)
        loss.backward()
        norm = float(torch.nn.utils.clip_grad_norm_(list(params.values()), o["clip_norm"]))
        opt.step()
        if step == 1:  # the checkpoint
            saved["model"] = {k: v.detach().numpy().astype(np.float32) for k, v in params.items()}
            saved["m"] = {k: opt.state[p]["exp_avg"].numpy().astype(np.float32) for k, p in params.items()}
            saved["v"] = {k: opt.state[p]["exp_avg_sq"].numpy().astype(np.float32) for k, p in params.items()}
    after = {k: v.detach().numpy().astype(np.float32) for k, v in params.items()}
    after["step.loss"] = np.array([loss.item()], dtype=np.float32)
    after["step.grad_norm"] = np.array([norm], dtype=np.float32)
    trainer = {"format": "headscope-trainer", "steps_taken": 1,
               "task": {"kind": "copy", "vocab": cfg["vocab"], "min_len": 2, "max_len": 2},
               "batch": len(BATCH), "seed": 1,
               "adamw": {"lr": o["lr"], "beta1": o["betas"][0], "beta2": o["betas"][1], "eps": o["eps"],
                         "weight_decay": o["weight_decay"], "warmup_steps": o["warmup_steps"],
                         "total_steps": o["total_steps"], "min_lr_ratio": o["min_lr_ratio"],
                         "clip_norm": o["clip_norm"]}}
    batch = {"examples": [{"ids": ids, "first_target": f} for ids, f in BATCH]}
    d = CHECKPOINT_DIR
    files = {"model.safetensors": saved["model"], "optimizer_m.safetensors": saved["m"],
             "optimizer_v.safetensors": saved["v"], "after_step.safetensors": after}
    jsons = {"config.json": cfg, "trainer.json": trainer, "batch.json": batch}
    if check:
        for f, t in files.items():
            drift.tensors(os.path.join(d, f), t)
        for f, j in jsons.items():
            drift.json(os.path.join(d, f), j)
    else:
        os.makedirs(d, exist_ok=True)
        for f, t in files.items():
            write_safetensors(os.path.join(d, f), t, META)
        for f, j in jsons.items():
            write_json(os.path.join(d, f), j)


def do_seq2seq_case(name, cfg, source, target, check, drift):
    model = seq2seq_model(cfg)
    params = dict(model.named_parameters())
    weights = {k: v.detach().numpy().astype(np.float32) for k, v in params.items()}
    model.zero_grad()
    loss, logits = seq2seq_loss_and_logits(model, source, target)
    loss.backward()
    write_case(os.path.join(TRAIN_DIR, name), cfg, weights, {"source": source, "target": target},
               expected_of(params, loss, logits), check, drift)


def do_case(name, cfg, ids, check, drift):
    d = os.path.join(TRAIN_DIR, name)
    torch.manual_seed(cfg["seed"])
    model = Modern(cfg)
    randomise(model, 3000 + cfg["seed"])
    params = model.state_names()
    weights = {k: v.detach().numpy().astype(np.float32) for k, v in params.items()}
    model.zero_grad()
    loss, logits = loss_and_logits(model, ids)
    loss.backward()
    write_case(d, cfg, weights, {"ids": ids}, expected_of(params, loss, logits), check, drift)
    if name == "llama_block":
        after = adamw_steps(model, ids)
        path = os.path.join(d, "after_adamw.safetensors")
        if check:
            drift.tensors(path, after)
        else:
            write_safetensors(path, after, META)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="verify; write nothing")
    args = ap.parse_args()
    torch.set_default_dtype(torch.float32)
    drift = Drift()
    for name, cfg, ids in CASES:
        do_case(name, cfg, ids, args.check, drift)
        print(f"{'checked' if args.check else 'wrote'} train/{name}")
    for name, cfg, source, target in SEQ2SEQ_CASES:
        do_seq2seq_case(name, cfg, source, target, args.check, drift)
        print(f"{'checked' if args.check else 'wrote'} train/{name}")
    do_checkpoint_step(args.check, drift)
    print(f"{'checked' if args.check else 'wrote'} train_checkpoint")
    if drift.problems:
        print("fixtures drifted:", file=sys.stderr)
        for p in drift.problems:
            print("  " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
