#!/usr/bin/env python3
"""Writes a checkpoint of a real large model's shape with random weights, to measure what
HeadScope needs to open and run such a model (max RSS, time) without downloading one.

  /usr/bin/python3 scripts/make_big_checkpoint.py SHAPE TYPE OUT.gguf
  /usr/bin/python3 scripts/make_big_checkpoint.py SHAPE HF-BF16 OUT_DIR

SHAPE: llama-768 (scripts/compare_torch.py's Llama-shaped forward: d_model 768, 12 layers,
       12 query and 4 key/value heads, d_ff 2048, vocab 32000, tied head; 100e6 parameters),
       llama3-8b (Llama-3-8B: d_model 4096, 32 layers, 32 query and 8 key/value heads,
       d_ff 14336, vocab 128256, separate output head; 8.03e9 parameters) or
       llama3.2-3b (Llama-3.2-3B: 3072, 28 layers, 24 and 8 heads, d_ff 8192, vocab 128256,
       head tied to the embedding; 3.21e9 parameters).
TYPE:  BF16, Q8_0 or Q4_0 for every matrix of a GGUF file (norms stay F32), as llama.cpp's
       quantizer writes them: BF16 the top half of an f32; Q8_0 blocks of an f16 scale and 32
       int8; Q4_0 an f16 scale and 32 four-bit values. HF-BF16: a Hugging Face Llama
       directory (config.json, one model.safetensors of BF16 tensors under the HF names,
       and the SentencePiece tokenizer.model of tests/fixtures/tokenizers/spm_bpe).
The weights are N(0, 0.02²)-like (random quants with scale 0.02/127 or 0.02/8): the
numbers mean nothing; the sizes, shapes and types are the real model's. The tokenizer is
a fixtures' small SentencePiece vocabulary (tests/gen_gguf_fixtures.py), so any English
text tokenizes. Tensors are written in chunks; the script never holds a whole one.
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from gen_gguf_fixtures import ARRAY, STRING, TYPES, Writer, add_spm_vocab, tiny_vocab  # noqa: E402

SHAPES = {
    "llama-768": dict(D=768, L=12, H=12, Hkv=4, F=2048, V=32000, tied=True),
    "llama3-8b": dict(D=4096, L=32, H=32, Hkv=8, F=14336, V=128256, tied=False),
    "llama3.2-3b": dict(D=3072, L=28, H=24, Hkv=8, F=8192, V=128256, tied=True),
}
CHUNK_ROWS_VALUES = 1 << 24  # values per chunk written


def tensor_list(s):
    """(name, rows, cols) of every tensor, (out, in) as the model reads them; cols 0: a vector."""
    D, F, Dh = s["D"], s["F"], s["D"] // s["H"]
    out = [("token_embd.weight", s["V"], D)]
    for il in range(s["L"]):
        b = f"blk.{il}."
        out += [(b + "attn_norm.weight", D, 0), (b + "attn_q.weight", s["H"] * Dh, D),
                (b + "attn_k.weight", s["Hkv"] * Dh, D), (b + "attn_v.weight", s["Hkv"] * Dh, D),
                (b + "attn_output.weight", D, s["H"] * Dh), (b + "ffn_norm.weight", D, 0),
                (b + "ffn_gate.weight", F, D), (b + "ffn_up.weight", F, D), (b + "ffn_down.weight", D, F)]
    out.append(("output_norm.weight", D, 0))
    if not s["tied"]:
        out.append(("output.weight", s["V"], D))
    return out


def stored_bytes(type_name, n):
    _, block_values, block_bytes = TYPES[type_name]
    return n // block_values * block_bytes


def random_chunk(rng, type_name, n):
    """n values of `type_name` as bytes."""
    if type_name == "F32":
        return np.ones(n, np.float32).tobytes()
    if type_name == "BF16":
        f = (rng.standard_normal(n, dtype=np.float32) * 0.02).view(np.uint32)
        return (f >> 16).astype(np.uint16).tobytes()
    blocks = n // 32
    if type_name == "Q8_0":
        out = np.empty((blocks, 34), np.uint8)
        out[:, :2] = np.frombuffer(np.float16(0.02 / 127).tobytes(), np.uint8)
        out[:, 2:] = np.frombuffer(rng.bytes(blocks * 32), np.uint8).reshape(blocks, 32)
        return out.tobytes()
    if type_name == "Q4_0":
        out = np.empty((blocks, 18), np.uint8)
        out[:, :2] = np.frombuffer(np.float16(0.02 / 8).tobytes(), np.uint8)
        out[:, 2:] = np.frombuffer(rng.bytes(blocks * 16), np.uint8).reshape(blocks, 16)
        return out.tobytes()
    raise SystemExit(f"make_big_gguf: unknown type {type_name} (BF16, Q8_0, Q4_0)")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in SHAPES or sys.argv[2] not in ("BF16", "Q8_0", "Q4_0", "HF-BF16"):
        raise SystemExit(__doc__)
    if sys.argv[2] == "HF-BF16":
        write_hf(sys.argv[1], sys.argv[3])
    else:
        write_gguf(sys.argv[1], sys.argv[2], sys.argv[3])


HF_NAMES = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
            "output.weight": "lm_head.weight", "attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj",
            "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj",
            "ffn_norm": "post_attention_layernorm", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
            "ffn_down": "mlp.down_proj"}


def hf_name(gguf_name):
    """blk.3.attn_q.weight -> model.layers.3.self_attn.q_proj.weight"""
    if gguf_name in HF_NAMES:
        return HF_NAMES[gguf_name]
    _, il, part, suffix = gguf_name.split(".")
    return f"model.layers.{il}.{HF_NAMES[part]}.{suffix}"


def write_hf(shape_name, out_dir):
    """A Hugging Face Llama directory; returns its parameter count. Norm weights are 1."""
    s = SHAPES[shape_name]
    os.makedirs(out_dir, exist_ok=True)
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": s["D"],
              "num_hidden_layers": s["L"], "num_attention_heads": s["H"], "num_key_value_heads": s["Hkv"],
              "intermediate_size": s["F"], "vocab_size": s["V"], "max_position_embeddings": 8192,
              "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "tie_word_embeddings": s["tied"],
              "hidden_act": "silu", "torch_dtype": "bfloat16"}
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.copy(os.path.join(here, "..", "tests", "fixtures", "tokenizers", "spm_bpe", "tokenizer.model"), out_dir)

    header, offset, layout = {}, 0, []
    for name, rows, cols in tensor_list(s):
        shape = [rows] if cols == 0 else [rows, cols]
        n = rows * max(cols, 1)
        header[hf_name(name)] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + 2 * n]}
        layout.append((cols == 0, n))
        offset += 2 * n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(20261130)
    path = os.path.join(out_dir, "model.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for is_norm, n in layout:
            for first in range(0, n, CHUNK_ROWS_VALUES):
                count = min(CHUNK_ROWS_VALUES, n - first)
                if is_norm:
                    f.write(np.full(count, 0x3F80, np.uint16).tobytes())  # bf16 1.0
                else:
                    f.write(random_chunk(rng, "BF16", count))
    params = sum(n for _, n in layout)
    print(f"{out_dir}: {params} parameters, {os.path.getsize(path) / 2**30:.2f} GiB")
    return params


def write_gguf(shape_name, type_name, path):
    """Writes the file; returns its parameter count."""
    shape = SHAPES[shape_name]
    D, H = shape["D"], shape["H"]
    meta = Writer()
    meta.add("general.architecture", STRING, "llama")
    meta.add("general.name", STRING, f"random {shape_name} {type_name} (HeadScope memory measurement)")
    for key, value in [("context_length", 8192), ("embedding_length", D), ("block_count", shape["L"]),
                       ("feed_forward_length", shape["F"]), ("attention.head_count", H),
                       ("attention.head_count_kv", shape["Hkv"]), ("rope.dimension_count", D // H)]:
        meta.add("llama." + key, 4, value)
    meta.add("llama.attention.layer_norm_rms_epsilon", 6, 1e-5)
    meta.add("llama.rope.freq_base", 6, 500000.0)
    pieces, scores, types = tiny_vocab()
    add_spm_vocab(meta, pieces, scores, types, eos=2, unk=0)

    tensors = tensor_list(shape)
    align = 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta.meta))
    for key, kind, value, element in meta.meta:
        head += Writer.pack_value(STRING, key) + struct.pack("<I", kind) + Writer.pack_value(kind, value, element)
    offset, layout = 0, []
    for name, rows, cols in tensors:
        t = "F32" if cols == 0 else type_name
        n = rows * max(cols, 1)
        ne = [rows] if cols == 0 else [cols, rows]
        head += Writer.pack_value(STRING, name) + struct.pack("<I", len(ne))
        head += b"".join(struct.pack("<Q", v) for v in ne) + struct.pack("<IQ", TYPES[t][0], offset)
        size = stored_bytes(t, n)
        layout.append((t, n, size))
        offset += size + (-size % align)
    head += b"\0" * (-len(head) % align)

    rng = np.random.default_rng(20261130)
    with open(path, "wb") as f:
        f.write(head)
        for t, n, size in layout:
            for first in range(0, n, CHUNK_ROWS_VALUES):
                f.write(random_chunk(rng, t, min(CHUNK_ROWS_VALUES, n - first)))
            f.write(b"\0" * (-size % align))
    params = sum(n for _, n, _ in layout)
    print(f"{path}: {params} parameters, {os.path.getsize(path) / 2**30:.2f} GiB")
    return params


if __name__ == "__main__":
    main()
