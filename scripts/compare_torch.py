#!/usr/bin/python3
"""HeadScope vs PyTorch on this machine, side by side in one run (docs/PERFORMANCE.md).

For each attention configuration (d_model, heads, tokens) the script
  1. writes a one-layer playground model with `headscope save` (PyTorch state_dict
     names: layers.0.self_attn.in_proj_weight, …),
  2. loads exactly those weights into torch.nn.MultiheadAttention,
  3. times `headscope bench DIR --attention-only` (every head's map captured) and
     mha(x, x, x, need_weights=True, average_attn_weights=False) (per-head maps),
and then times 12-layer forwards (128 tokens, all 144 maps) against their FLOP count
divided by the GEMM peak `headscope bench` measures in the same process: a GPT-2-small-
shaped playground spec, the same shape as a Hugging Face GPT-2 checkpoint directory (written
here with random weights in GPT-2's Conv1D layout, vocabulary 50257), and a Llama-shaped
Hugging Face checkpoint (d 768, 12 heads, 4 K/V heads, SwiGLU, RoPE, RMSNorm, vocabulary
32000, written by `headscope save`). Real-model files run through the same runtime as the
playground; the checkpoints carry "headscope_tokenizer": "playground" so no tokenizer
files are needed. The same Llama shape then runs from GGUF files in stored precision (BF16,
Q8_0, Q4_0; scripts/make_big_checkpoint.py, random weights) under HEADSCOPE_MEMORY_LIMIT=256M, so
that each layer is read from the file and converted to f32 as the forward reaches it, as a
model too large for memory runs: ≤ 1.3× the limit for BF16 and Q8_0, ≤ 1.6× for Q4_0.

Every row is judged against the machine (issue 38), not against PyTorch: its limit is its
FLOPs / the GEMM peak `headscope bench` measures in the same process, and it passes at
≤ 1.10× the limit (MHA rows) or ≤ 1.20× (12-layer forwards). A first row checks the packed
kernel's 1024³ GEMM against the multiply-add ceiling measured at the same SIMD level and
threads (twelve independent chains of vector multiply-adds, no memory traffic: the most
FLOP/s any float kernel can reach): ≥ 85 %. PyTorch's times stay in the table for comparison,
and below it each row's share of the ceiling, HeadScope's and PyTorch's.

PyTorch is tuned as the issue describes: 2 threads, OMP_WAIT_POLICY=PASSIVE, glibc
malloc keeping freed memory (MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_, and
MALLOC_MMAP_MAX_=0 for blocks past glibc's 32 MiB threshold, so no per-call page faults).
At the CPU's own level an inherited OPENBLAS_CORETYPE is dropped, so OpenBLAS picks its
kernels for this CPU as a user's PyTorch would (this environment presets Haswell, which
would hold PyTorch's GEMMs to AVX2 on an AVX-512 CPU); --coretype sets one. Both programs
always see the same value, and the header names the kernels OpenBLAS chose.

With --app it also runs the issue's other targets through the app under Xvfb (frame-time p95
of the 12 × 12 grid at 128 tokens, of panning a 4096-token map, and of frames drawn while the
worker computes; live-edit latency for heads and d_model edits) and the peak memory of a
(12 layers, 12 heads, 2048 tokens) forward, each against its target.

  /usr/bin/python3 scripts/compare_torch.py --headscope build/app/headscope
  /usr/bin/python3 scripts/compare_torch.py --headscope build/app/headscope --coretype SkylakeX
  /usr/bin/python3 scripts/compare_torch.py --headscope build/app/headscope --app
  /usr/bin/python3 scripts/compare_torch.py --headscope build/app/headscope --simd avx2
  /usr/bin/python3 scripts/compare_torch.py --headscope build/app/headscope --rounds 5

--rounds R measures every row R times, torch and headscope back to back in each round, and
reports the median of the per-round ratios: on a shared host whose speed drifts by minutes,
a ratio of two programs timed together varies far less than either time.

--simd forces HeadScope's kernel level (HEADSCOPE_SIMD=avx512|avx2|generic); by default it
runs the best level the CPU has. --simd avx2 stands for a CPU without AVX-512, so PyTorch and
both programs' OpenBLAS are held to AVX2 as well (ATEN_CPU_CAPABILITY=avx2,
DNNL_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA=AVX2, MKL_ENABLE_INSTRUCTIONS=AVX2, and
OPENBLAS_CORETYPE=Haswell unless --coretype says otherwise): the baseline an AVX2 machine
would measure. The header names the CPU model and the levels used.
"""
import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

TUNED_ENV = {
    "OMP_WAIT_POLICY": "PASSIVE",
    "MALLOC_MMAP_THRESHOLD_": str(32 * 1024 * 1024),
    # glibc's threshold stops at 32 MiB: the (16, 1024, 1024) maps (64 MiB) would still be
    # mapped and faulted in afresh on every call. No mmap at all keeps them on the heap:
    # PyTorch's T=1024 row took 370 ms with mmap and 88 ms without (2026-11-28, Zen 5 guest).
    "MALLOC_MMAP_MAX_": "0",
    "MALLOC_TRIM_THRESHOLD_": str(512 * 1024 * 1024),
}
CONFIGS = [(768, 12, 128), (768, 12, 512), (1024, 16, 1024)]
GPT2_SPEC = ("random:d_model=768,heads=12,layers=12,d_ff=3072,act=gelu,mask=causal,"
             "pe=learned,norm=pre-ln,vocab=1000,max_len=1024,seed=1")
LLAMA_SPEC = ("random:arch=decoder,d_model=768,heads=12,kv_heads=4,layers=12,d_ff=2048,"
              "pe=rope,norm=rmsnorm,act=swiglu,bias=0,lm_head=tied,vocab=32000,max_len=1024,seed=1")
# The yardstick is the machine (issue 38): FLOPs / the GEMM peak measured in the same run.
ATTENTION_LIMIT_TARGET = 1.10  # each MHA row within 1.10× of its limit
FORWARD_LIMIT_TARGET = 1.20    # 12-layer forwards (playground and real layouts) within 1.20×
# The Llama-shaped forward from GGUF files in stored precision, layers read from the file and
# converted as the forward reaches them (issue 40): within 1.3× (BF16, Q8_0), 1.6× (Q4_0).
STORED_LIMIT_TARGETS = (("BF16", 1.30), ("Q8_0", 1.30), ("Q4_0", 1.60))
LAYER_BY_LAYER_LIMIT = "256M"  # HEADSCOPE_MEMORY_LIMIT: the 100e6-parameter model no longer fits as f32
GEMM_CEILING_TARGET = 0.85     # the packed kernel's 1024³ GEMM at ≥ 85 % of the multiply-add ceiling
AVX2_ONLY_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "DNNL_MAX_CPU_ISA": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
}
FRAME_TARGET_MS = 16.7   # UI p95 frame time under Xvfb
EDIT_TARGET_MS = 50.0    # edit -> new heatmaps on screen
MEMORY_TARGET_MIB = 1024.0
WINDOW = "1600x1000"


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--headscope", required=True, help="path to the headscope binary")
    p.add_argument("--repeat", type=int, default=20, help="timed runs per measurement")
    p.add_argument("--threads", type=int, default=2, help="threads for both programs")
    p.add_argument("--coretype", help="OPENBLAS_CORETYPE for both (default: as set)")
    p.add_argument("--simd", choices=["avx512", "avx2", "generic"],
                   help="HEADSCOPE_SIMD for headscope (default: the CPU's best level)")
    p.add_argument("--rounds", type=positive_int, default=1,
                   help="repeat every comparison this many times, alternating the programs, and "
                        "report the median of the per-round ratios (for a shared, noisy host)")
    p.add_argument("--app", action="store_true",
                   help="also measure the UI, live-edit and memory targets (needs xvfb-run)")
    return p.parse_args()


def ensure_tuned_environment(args):
    """Re-executes this script once with the tuned environment (malloc reads it at start)."""
    env = dict(os.environ)
    env.update(TUNED_ENV)
    env["OMP_NUM_THREADS"] = str(args.threads)
    env["HEADSCOPE_THREADS"] = str(args.threads)
    if args.simd == "avx2":  # an AVX2 machine: the baseline may not use AVX-512 either
        env.update(AVX2_ONLY_ENV)
        env["OPENBLAS_CORETYPE"] = "Haswell"  # --coretype below may say otherwise
    elif not args.coretype:  # the CPU's own level: OpenBLAS's own choice for this CPU
        env.pop("OPENBLAS_CORETYPE", None)
    if args.coretype:
        env["OPENBLAS_CORETYPE"] = args.coretype
    if args.simd:
        env["HEADSCOPE_SIMD"] = args.simd
    else:
        env.pop("HEADSCOPE_SIMD", None)
    if os.environ.get("HEADSCOPE_SIMD") != env.get("HEADSCOPE_SIMD"):
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    watched = set(TUNED_ENV) | set(AVX2_ONLY_ENV) | {"OPENBLAS_CORETYPE"}
    if all(os.environ.get(k) == env.get(k) for k in watched):
        return
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def openblas_core():
    """The kernels the BLAS loaded into this process (PyTorch's) chose, when it is OpenBLAS."""
    import ctypes
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if re.search(r"/lib(open)?blas[^/]*\.so", line)}
    for path in sorted(paths):
        try:
            get = ctypes.CDLL(path).openblas_get_corename
        except (OSError, AttributeError):
            continue
        get.restype = ctypes.c_char_p
        return get().decode()
    return "not OpenBLAS"


def read_safetensors(path):
    """{name: torch.Tensor} for the F32 tensors of a safetensors file."""
    import torch
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise SystemExit(f"{path}: tensor {name} is {info['dtype']}, expected F32")
        a, b = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32)
        out[name] = t.reshape(info["shape"])
    return out


def write_safetensors(path, tensors):
    """{name: torch.Tensor} as F32 safetensors (8-byte aligned header)."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        b = tensors[name].contiguous().float().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for b in blobs:
            f.write(b)


def write_gpt2_checkpoint(d, D=768, H=12, L=12, F=3072, V=50257, P=1024):
    """A GPT-2-small-shaped Hugging Face directory with random weights (Conv1D (in, out))."""
    import torch
    os.makedirs(d, exist_ok=True)
    g = torch.Generator().manual_seed(3)
    r = lambda *shape: torch.randn(*shape, generator=g) * 0.02  # noqa: E731
    t = {"wte.weight": r(V, D), "wpe.weight": r(P, D),
         "ln_f.weight": torch.ones(D), "ln_f.bias": torch.zeros(D)}
    for i in range(L):
        p = f"h.{i}."
        t.update({p + "ln_1.weight": torch.ones(D), p + "ln_1.bias": torch.zeros(D),
                  p + "attn.c_attn.weight": r(D, 3 * D), p + "attn.c_attn.bias": r(3 * D),
                  p + "attn.c_proj.weight": r(D, D), p + "attn.c_proj.bias": r(D),
                  p + "ln_2.weight": torch.ones(D), p + "ln_2.bias": torch.zeros(D),
                  p + "mlp.c_fc.weight": r(D, F), p + "mlp.c_fc.bias": r(F),
                  p + "mlp.c_proj.weight": r(F, D), p + "mlp.c_proj.bias": r(D)})
    write_safetensors(os.path.join(d, "model.safetensors"), t)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_embd": D, "n_head": H, "n_layer": L, "n_inner": F,
                   "n_positions": P, "vocab_size": V, "activation_function": "gelu_new",
                   "headscope_tokenizer": "playground"}, f)


def headscope_bench(args, model, tokens, attention_only, memory_limit=None):
    cmd = [args.headscope, "bench", model, "--tokens", str(tokens), "--repeat", str(args.repeat)]
    if attention_only:
        cmd.append("--attention-only")
    env = dict(os.environ)
    if memory_limit:
        env["HEADSCOPE_MEMORY_LIMIT"] = memory_limit
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    if memory_limit and "read one layer at a time" not in out:
        raise SystemExit(f"{model} did not open layer by layer under HEADSCOPE_MEMORY_LIMIT={memory_limit}:\n" + out)
    m = re.search(r"result:\s+(.*)", out)
    if not m:
        raise SystemExit("headscope bench printed no result line:\n" + out)
    pairs = (kv.split("=") for kv in m.group(1).split())
    return {k: (v if k == "simd" else float(v)) for k, v in pairs}


def torch_attention_ms(mha, tokens, d_model, repeat):
    import torch
    x = torch.randn(1, tokens, d_model)
    with torch.inference_mode():
        for _ in range(3):  # warm-up
            mha(x, x, x, need_weights=True, average_attn_weights=False)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            out, weights = mha(x, x, x, need_weights=True, average_attn_weights=False)
            times.append((time.perf_counter() - t0) * 1e3)
    assert weights.shape == (1, mha.num_heads, tokens, tokens)
    return statistics.median(times)


def torch_cpu_capability(torch):
    """The vector level ATen's kernels use ("CPU capability usage: AVX2" in its config)."""
    m = re.search(r"CPU capability usage: (\S+)", torch.__config__.show())
    return m.group(1) if m else "?"


def words(n, modulo=None):
    return " ".join(f"w{i % modulo if modulo else i}" for i in range(n))


def app_percentiles(args, label, model, text, *extra):
    """(p50, p95, max) of the app's bench line `label N  p50 X ms  p95 Y ms  max Z ms` under Xvfb."""
    cmd = ["xvfb-run", "-a", "-s", f"-screen 0 {WINDOW}x24", args.headscope,
           "--no-settings", "--size", WINDOW, "--model", model, "--text", text, *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    m = re.search(rf"^{re.escape(label)} \d+  p50 ([\d.]+) ms  p95 ([\d.]+) ms  max ([\d.]+) ms", out, re.M)
    if not m:
        raise SystemExit(f"no '{label}' line from {' '.join(cmd[:8])} …:\n{out}")
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def forward_memory_mib(args, *cli_args):
    """(attention maps kept in memory, peak resident set size) of one CLI forward, MiB.
    The maps come from forward's stderr line "attention maps: K of N blocks kept in memory
    (M MiB)" (printed when the map budget dropped blocks), the peak from GNU time."""
    err = subprocess.run(["/usr/bin/time", "-v", args.headscope, *cli_args], capture_output=True,
                         text=True, timeout=600).stderr
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    maps = re.search(r"attention maps: \d+ of \d+ blocks kept in memory \((\d+) MiB\)", err)
    if not rss or not maps:
        raise SystemExit("no map or peak-memory figure from the forward:\n" + err)
    return float(maps.group(1)), int(rss.group(1)) / 1024.0


def app_rows(args, tmp):
    """(case, measured, target, verdict) rows for the UI, live-edit and memory targets."""
    grid = "random:d_model=768,heads=12,layers=12,max_len=256"
    single = "random:d_model=64,heads=1,layers=1,max_len=4096"
    edits = "random:d_model=512,heads=8,layers=6"
    rows = []

    def frame_row(name, p95, target, unit="ms", note=""):
        rows.append((name, f"p95 {p95:.1f} {unit}{note}", f"<= {target:g} {unit}",
                     "ok" if p95 <= target else "MISSED"))
        return p95 <= target
    ok = True
    _, p95, _ = app_percentiles(args, "frames", grid, words(128), "--bench-frames", "300")
    ok &= frame_row("UI grid 12x12 T=128", p95, FRAME_TARGET_MS)
    _, p95, _ = app_percentiles(args, "pan frames", single, words(4096, 997), "--bench-pan",
                             "--bench-frames", "300")
    ok &= frame_row("UI pan 4096-token map", p95, FRAME_TARGET_MS)
    _, p95, _ = app_percentiles(args, "busy frames", grid, words(128), "--bench-busy",
                             "--bench-frames", "300")
    ok &= frame_row("UI grid, forward running", p95, FRAME_TARGET_MS)
    # 60 edits: the p95 of 20 would be their second slowest, i.e. the first two edits,
    # which also grow the heap for the second model (shown apart as "max").
    for what in ("heads", "d_model"):
        _, p95, slowest = app_percentiles(args, "edits", edits, words(64), "--bench-edits", "60",
                                          "--bench-edit", what)
        ok &= frame_row(f"live edit ({what})", p95, EDIT_TARGET_MS, note=f", max {slowest:.0f}")
    text_file = os.path.join(tmp, "words2048.txt")
    with open(text_file, "w") as f:
        f.write(words(2048, 997))
    # The target sizes the maps (layers × heads × tokens²); the weights depend on d_model,
    # which the issue leaves open: the process peak is printed beside it.
    maps, rss = forward_memory_mib(args, "forward",
                                   "random:d_model=768,heads=12,layers=12,max_len=2048",
                                   "--text-file", text_file, "--quiet")
    rows.append(("maps 12L 12H T=2048 (d 768)", f"{maps:.0f} MiB (RSS {rss:.0f})",
                 f"<= {MEMORY_TARGET_MIB:g} MiB", "ok" if maps <= MEMORY_TARGET_MIB else "MISSED"))
    ok &= maps <= MEMORY_TARGET_MIB
    return rows, ok


def main():
    args = parse_args()
    ensure_tuned_environment(args)
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {args.threads} threads, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}, "
          f"MALLOC_MMAP_THRESHOLD_={os.environ.get('MALLOC_MMAP_THRESHOLD_')}, "
          f"MALLOC_MMAP_MAX_={os.environ.get('MALLOC_MMAP_MAX_')}, "
          f"repeat {args.repeat} (medians)")
    print(f"CPU: {cpu_model()}; headscope SIMD level: "
          f"{os.environ.get('HEADSCOPE_SIMD', 'best of this CPU')}; torch CPU capability: "
          f"{torch_cpu_capability(torch)}; OpenBLAS kernels: {openblas_core()}")
    rows = []  # (case, torch ms, headscope ms, limit ms, ratio text, target text, verdict)
    shares = []  # (case, headscope ms, share of the multiply-add ceiling, torch's share)
    ok = True

    all_runs = []  # every headscope bench result: each measured the GEMM peak and the ceiling

    def limit_row(name, pt, runs, target):
        """A row judged by ms / limit_ms, the median over rounds of each round's ratio."""
        all_runs.extend(runs)
        ratio = statistics.median(r["ms"] / r["limit_ms"] for r in runs)
        hs_ms = statistics.median(r["ms"] for r in runs)
        rows.append((name, pt, hs_ms, statistics.median(r["limit_ms"] for r in runs),
                     f"{ratio:.2f}x limit", f"<= {target:.2f}x", "ok" if ratio <= target else "MISSED"))
        ceiling = statistics.median(r["ceiling_gflops"] for r in runs)
        flops = runs[0]["flops"]
        shares.append((name, hs_ms, flops / (hs_ms * 1e6) / ceiling,
                       flops / (pt * 1e6) / ceiling if pt == pt else float("nan")))
        return ratio <= target

    with tempfile.TemporaryDirectory() as tmp:
        for d_model, heads, tokens in CONFIGS:
            model_dir = os.path.join(tmp, f"mha_{d_model}_{heads}_{tokens}")
            spec = f"random:d_model={d_model},heads={heads},layers=1,max_len={tokens},seed=7"
            subprocess.run([args.headscope, "save", spec, model_dir], check=True,
                           capture_output=True)
            w = read_safetensors(os.path.join(model_dir, "model.safetensors"))
            mha = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
            mha.eval()
            with torch.no_grad():  # identical weights: the file HeadScope runs
                mha.in_proj_weight.copy_(w["layers.0.self_attn.in_proj_weight"])
                mha.in_proj_bias.copy_(w["layers.0.self_attn.in_proj_bias"])
                mha.out_proj.weight.copy_(w["layers.0.self_attn.out_proj.weight"])
                mha.out_proj.bias.copy_(w["layers.0.self_attn.out_proj.bias"])
            torch_ms, runs = [], []  # the two measured back to back in each round
            for _ in range(args.rounds):
                runs.append(headscope_bench(args, model_dir, tokens, attention_only=True))
                torch_ms.append(torch_attention_ms(mha, tokens, d_model, args.repeat))
            ok &= limit_row(f"MHA d={d_model} h={heads} T={tokens}", statistics.median(torch_ms), runs,
                            ATTENTION_LIMIT_TARGET)
        gpt2_dir = os.path.join(tmp, "gpt2_hf")
        write_gpt2_checkpoint(gpt2_dir)
        llama_dir = os.path.join(tmp, "llama_hf")
        subprocess.run([args.headscope, "save", LLAMA_SPEC, llama_dir], check=True,
                       capture_output=True)
        for name, model in (("GPT-2-small 12L T=128", GPT2_SPEC),
                            ("  same, HF GPT-2 files", gpt2_dir),
                            ("  Llama-shaped HF files", llama_dir)):
            # the limit comes from the GEMM peak measured in the same process as the forward
            runs = [headscope_bench(args, model, 128, attention_only=False) for _ in range(args.rounds)]
            ok &= limit_row(name, float("nan"), runs, FORWARD_LIMIT_TARGET)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from make_big_checkpoint import write_gguf
        for type_name, target in STORED_LIMIT_TARGETS:
            path = os.path.join(tmp, f"llama_{type_name}.gguf")
            write_gguf("llama-768", type_name, path)
            runs = [headscope_bench(args, path, 128, attention_only=False, memory_limit=LAYER_BY_LAYER_LIMIT)
                    for _ in range(args.rounds)]
            ok &= limit_row(f"  Llama GGUF {type_name}, by layer", float("nan"), runs, target)
        g = runs[-1]
        peak, ceiling, level = g["peak_gflops"], g["ceiling_gflops"], g.get("simd", "?")
        # the packed kernel's 1024³ GEMM against the ceiling, measured beside every row
        kernel_share = statistics.median(r["kernel_gflops"] / r["ceiling_gflops"] for r in all_runs)
        ok &= kernel_share >= GEMM_CEILING_TARGET
        rows.insert(0, ("GEMM 1024^3, packed kernel", float("nan"), float("nan"), float("nan"),
                        f"{100 * kernel_share:.0f} % ceiling", f">= {100 * GEMM_CEILING_TARGET:.0f} %",
                        "ok" if kernel_share >= GEMM_CEILING_TARGET else "MISSED"))
    head = ("case", "torch ms", "headscope ms", "limit ms", "ratio", "target", "")
    print(f"{head[0]:<26}{head[1]:>10}{head[2]:>14}{head[3]:>10}  {head[4]:<16}{head[5]:<10}")
    def fmt(v):
        return "-" if v != v else f"{v:.2f}"
    for name, pt, hs_ms, lim, ratio_s, target, verdict in rows:
        print(f"{name:<26}{fmt(pt):>10}{fmt(hs_ms):>14}{fmt(lim):>10}  {ratio_s:<16}{target:<10}{verdict}")
    if args.rounds > 1:
        print(f"{args.rounds} rounds; times, limits and ratios are medians over rounds "
              "(a ratio's median is taken over its rounds, not computed from the median times); "
              "the peak below is the last round's")
    print(f"GEMM peak measured by headscope in this run: {peak:.1f} GFLOP/s "
          f"(BLAS {g['blas_gflops']:.1f}, packed kernel {g['kernel_gflops']:.1f}; limit ms = FLOPs / peak); "
          f"kernels ran at SIMD level {level}")
    print(f"multiply-add ceiling (headscope bench, same threads, no memory traffic): "
          f"{ceiling:.1f} GFLOP/s, i.e. the GEMM peak is {100 * peak / ceiling:.0f} % of it")
    print("share of the ceiling each row ran at (FLOPs / time / ceiling):")
    for name, hs_ms, ours, theirs in shares:
        torch_part = "" if theirs != theirs else f", torch {100 * theirs:.0f} %"
        print(f"  {name.strip():<26} headscope {hs_ms:7.2f} ms = {100 * ours:3.0f} %{torch_part}")
    if args.app:
        with tempfile.TemporaryDirectory() as tmp:
            rows, app_ok = app_rows(args, tmp)
        ok &= app_ok
        print(f"\n{'app target (Xvfb ' + WINDOW + ', stock backend)':<30}{'measured':<24}{'target':<14}")
        for name, measured, target, verdict in rows:
            print(f"{name:<30}{measured:<24}{target:<14}{verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
