#!/usr/bin/python3
"""Reference values for the worked examples (tests/worked_example_test.cpp).

Reads every assets/examples/*.json and computes each intermediate of multi-head
attention in float64 with NumPy, per head and in textbook convention (Q_h = X·W_Q^h),
independently of the core's fused PyTorch layout:

    Q_h, K_h, V_h : (T, Dk)  = X · W_{Q,K,V}^h
    raw_h         : (T, T)   = Q_h · K_hᵀ
    scaled_h      : (T, T)   = raw_h / √Dk
    masked_h      : (T, T)   = scaled_h, −∞ above the diagonal when mask = causal
    weights_h     : (T, T)   = row softmax of masked_h
    head_h        : (T, Dk)  = weights_h · V_h
    concat        : (T, H·Dk) = [head_1 | … | head_H]
    output        : (T, D_out) = concat · W_O   (W_O = identity when absent)

Writes tests/fixtures/worked_examples_expected.json; −∞ is written as null.
Run: /usr/bin/python3 tests/gen_worked_example_reference.py
"""
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "assets" / "examples"
OUT = ROOT / "tests" / "fixtures" / "worked_examples_expected.json"


def per_head(w, heads):
    """W as a list of heads × (D, Dk) arrays, from either JSON form."""
    a = np.asarray(w, dtype=np.float64)
    if a.ndim == 3:
        assert a.shape[0] == heads
        return [a[h] for h in range(heads)]
    dk = a.shape[1] // heads
    return [a[:, h * dk:(h + 1) * dk] for h in range(heads)]


def softmax_rows(s):
    out = np.zeros_like(s)
    for i, row in enumerate(s):
        finite = np.isfinite(row)
        if not finite.any():
            continue
        e = np.where(finite, np.exp(row - row[finite].max()), 0.0)
        out[i] = e / e.sum()
    return out


def to_list(m):
    return [[None if np.isneginf(v) else float(v) for v in row] for row in np.asarray(m)]


def compute(ex):
    x = np.asarray(ex["X"], dtype=np.float64)
    t = x.shape[0]
    wq0 = ex["W_Q"]
    heads = ex.get("heads", len(wq0) if np.asarray(wq0).ndim == 3 else 1)
    wq, wk, wv = (per_head(ex[k], heads) for k in ("W_Q", "W_K", "W_V"))
    dk = wq[0].shape[1]
    causal = ex.get("mask", "none") == "causal"
    r = {k: [] for k in ("q_heads", "k_heads", "v_heads", "raw_scores", "scaled_scores",
                         "masked_scores", "weights", "head_outputs")}
    for h in range(heads):
        q, k, v = x @ wq[h], x @ wk[h], x @ wv[h]
        raw = q @ k.T
        scaled = raw / np.sqrt(dk)
        masked = scaled.copy()
        if causal:
            masked[np.triu(np.ones((t, t), dtype=bool), k=1)] = -np.inf
        a = softmax_rows(masked)
        head = a @ v
        for key, val in (("q_heads", q), ("k_heads", k), ("v_heads", v), ("raw_scores", raw),
                         ("scaled_scores", scaled), ("masked_scores", masked), ("weights", a),
                         ("head_outputs", head)):
            r[key].append(val)
    concat = np.concatenate(r["head_outputs"], axis=1)
    w_o = np.asarray(ex["W_O"], dtype=np.float64) if "W_O" in ex else np.eye(concat.shape[1])
    out = {key: [to_list(m) for m in mats] for key, mats in r.items()}
    out.update({
        "heads": heads,
        "d_k": dk,
        "scale": 1.0 / np.sqrt(dk),
        "q": to_list(np.concatenate(r["q_heads"], axis=1)),
        "k": to_list(np.concatenate(r["k_heads"], axis=1)),
        "v": to_list(np.concatenate(r["v_heads"], axis=1)),
        "concat": to_list(concat),
        "output": to_list(concat @ w_o),
    })
    return out


def main():
    result = {}
    for path in sorted(EXAMPLES.glob("*.json")):
        with open(path, encoding="utf-8") as f:
            result[path.stem] = compute(json.load(f))
    doc = {
        "generator": "tests/gen_worked_example_reference.py (NumPy " + np.__version__ + ", float64)",
        "examples": result,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {', '.join(result)}")


if __name__ == "__main__":
    main()
