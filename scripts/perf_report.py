#!/usr/bin/env python3
"""The performance report of generated layers at full size (docs/performance.md): for each model and
request, `tilefw gen --timing-only` then `tilefw run --timing-only --report --summary` (8 cores,
timing model v2), and one markdown table row with the simulated time per layer, MFU, tokens/s,
bytes from DDR, bound_seconds and the ratio to it, the op that takes most engine time, the wall
time of gen and of the run, the peak RSS of each, and simulated commands per second. A request
the generator cannot map prints its reason instead of figures.

With --whole: the whole models instead (docs/whole-model.md): `tilefw gen --model --timing-only`
on the chips of each row, `tilefw run --timing-only --report` (MoE routing `balanced`), and one row
with TTFT or TPOT, tokens/s, the bound and the ratio to it, where the time goes (communication,
pipeline bubble, control core), MFU, the fullest chip's DDR, gen and run wall time and peak RSS.

Usage: scripts/perf_report.py TILEFW MODELS_DIR [--quick] [--only=TEXT] [--whole]
  --quick: one row per model; --only=TEXT: the rows whose "model request" contains TEXT
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

TILEFW, MODELS = sys.argv[1], sys.argv[2]
QUICK = "--quick" in sys.argv
ONLY = next((a.split("=", 1)[1] for a in sys.argv[3:] if a.startswith("--only=")), None)

# (label, config, phase options); DeepSeek-V3 layer 3 is its first MoE layer.
CASES = [
    ("Llama-3-8B", "llama-3-8b.json", "prefill 2048", ["--seq", "2048"]),
    ("Llama-3-8B", "llama-3-8b.json", "decode b1 kv 2048", ["--phase", "decode", "--batch", "1", "--kv-len", "2048"]),
    ("Llama-3-8B", "llama-3-8b.json", "decode b16 kv 2048", ["--phase", "decode", "--batch", "16", "--kv-len", "2048"]),
    ("Qwen3-8B", "qwen3-8b.json", "prefill 2048", ["--seq", "2048"]),
    ("Qwen3-8B", "qwen3-8b.json", "decode b16 kv 2048", ["--phase", "decode", "--batch", "16", "--kv-len", "2048"]),
    ("Qwen3-30B-A3B", "qwen3-30b-a3b.json", "prefill 2048", ["--seq", "2048", "--capacity-factor", "1.25"]),
    ("Qwen3-30B-A3B", "qwen3-30b-a3b.json", "decode b32 kv 2048",
     ["--phase", "decode", "--batch", "32", "--kv-len", "2048", "--capacity-factor", "1.25"]),
    ("Mixtral-8x7B", "mixtral-8x7b.json", "prefill 2048", ["--seq", "2048", "--capacity-factor", "1.25"]),
    ("Mixtral-8x7B", "mixtral-8x7b.json", "decode b32 kv 2048",
     ["--phase", "decode", "--batch", "32", "--kv-len", "2048", "--capacity-factor", "1.25"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", "prefill 4096", ["--seq", "4096", "--layer", "3", "--dtype", "bf16",
                                                           "--capacity-factor", "1.25"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", "decode b1 kv 4096", ["--phase", "decode", "--batch", "1", "--kv-len", "4096",
                                                                "--layer", "3", "--dtype", "bf16", "--capacity-factor", "1.25"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", "decode b32 kv 4096", ["--phase", "decode", "--batch", "32", "--kv-len", "4096",
                                                                 "--layer", "3", "--dtype", "bf16", "--capacity-factor", "1.25"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", "decode b128 kv 4096", ["--phase", "decode", "--batch", "128", "--kv-len", "4096",
                                                                  "--layer", "3", "--dtype", "bf16", "--capacity-factor", "1.25"]),
]


DS = ["--dtype", "bf16"]
WHOLE = [
    ("Llama-3-8B", "llama-3-8b.json", "1 chip", [], "prefill 4096", ["--seq", "4096"]),
    ("Llama-3-8B", "llama-3-8b.json", "1 chip", [], "decode b1 kv 4096", ["--phase", "decode", "--kv-len", "4096"]),
    ("Llama-3-8B", "llama-3-8b.json", "1 chip", [], "decode b32 kv 4096", ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("Llama-3-8B", "llama-3-8b.json", "2 chips tp 2", ["--chips", "2", "--tp", "2"], "decode b1 kv 4096",
     ["--phase", "decode", "--kv-len", "4096"]),
    ("Llama-3-8B", "llama-3-8b.json", "4 chips tp 4", ["--chips", "4", "--tp", "4"], "decode b1 kv 4096",
     ["--phase", "decode", "--kv-len", "4096"]),
    ("Llama-3-8B", "llama-3-8b.json", "8 chips tp 8", ["--chips", "8", "--tp", "8"], "decode b1 kv 4096",
     ["--phase", "decode", "--kv-len", "4096"]),
    ("Llama-3-70B", "llama-3-70b.json", "8 chips pp 8", ["--chips", "8", "--pp", "8"], "prefill 4096", ["--seq", "4096"]),
    ("Llama-3-70B", "llama-3-70b.json", "8 chips pp 8, 8 micro-batches", ["--chips", "8", "--pp", "8", "--microbatches", "8"],
     "prefill 8 x 512", ["--batch", "8", "--seq", "512"]),
    ("Llama-3-70B", "llama-3-70b.json", "8 chips pp 8", ["--chips", "8", "--pp", "8"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("Llama-3-70B", "llama-3-70b.json", "8 chips pp 4 dp 2", ["--chips", "8", "--pp", "4", "--dp", "2"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("Llama-3-70B", "llama-3-70b.json", "8 chips tp 8", ["--chips", "8", "--tp", "8"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("Qwen3-235B-A22B", "qwen3-235b-a22b.json", "8 chips pp 8", ["--chips", "8", "--pp", "8"], "prefill 4096", ["--seq", "4096"]),
    ("Qwen3-235B-A22B", "qwen3-235b-a22b.json", "8 chips pp 8", ["--chips", "8", "--pp", "8"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("DeepSeek-V3", "deepseek-v3.json", "16 chips pp 16", ["--chips", "16", "--pp", "16"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096", *DS]),
    ("DeepSeek-V3", "deepseek-v3.json", "32 chips pp 32", ["--chips", "32", "--pp", "32"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096", *DS]),
    ("DeepSeek-V3", "deepseek-v3.json", "64 chips pp 32 dp 2", ["--chips", "64", "--pp", "32", "--dp", "2"],
     "decode b32 kv 4096", ["--phase", "decode", "--batch", "32", "--kv-len", "4096", *DS]),
    ("DeepSeek-V3", "deepseek-v3.json", "32 chips pp 32, 8 control cores", ["--chips", "32", "--pp", "32"],
     "decode b32 kv 4096", ["--phase", "decode", "--batch", "32", "--kv-len", "4096", *DS], ["--control-cores", "8"]),
    ("DeepSeek-V3", "deepseek-v3.json", "32 chips pp 32, static experts", ["--chips", "32", "--pp", "32"],
     "decode b32 kv 4096", ["--phase", "decode", "--batch", "32", "--kv-len", "4096", "--static-experts", *DS]),
    ("DeepSeek-V3", "deepseek-v3.json", "32 chips pp 32", ["--chips", "32", "--pp", "32"], "prefill 4096", ["--seq", "4096", *DS]),
    ("DeepSeek-V3", "deepseek-v3.json", "64 chips pp 32 dp 2", ["--chips", "64", "--pp", "32", "--dp", "2"],
     "prefill 2 x 4096", ["--batch", "2", "--seq", "4096", *DS]),
]


def timed(args):
    """Runs args; returns (CompletedProcess, wall seconds, peak RSS MB of that child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return r, wall, max(after, before) / 1024.0


def whole():
    work = tempfile.mkdtemp(prefix="tilefw-perf-model-")
    print("| model | chips | request | TTFT or TPOT | tokens/s | bound | x bound | comm | bubble | control core | MFU |"
          " DDR fullest chip | gen wall | run wall | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, cfg, lay, chips, req, opts, *run_opts in WHOLE:
        if ONLY is not None and ONLY not in f"{label} {lay} {req}":
            continue
        out = os.path.join(work, "m")
        shutil.rmtree(out, ignore_errors=True)
        g, gwall, grss = timed([TILEFW, "gen", "--config", os.path.join(MODELS, cfg), "--out", out, "--model",
                                "--timing-only", *chips, *opts])
        if g.returncode != 0:
            msg = (g.stderr.strip().splitlines() or ["?"])[-1].replace("|", "/")
            print(f"| {label} | {lay} | {req} | not generated: {msg} | | | | | | | | | {gwall:.1f} s | | |")
            continue
        rep = os.path.join(work, "report.json")
        r, rwall, rrss = timed([TILEFW, "run", "--manifest", os.path.join(out, "manifest.json"), "--timing-only",
                                "--routing", "balanced", "--report", rep, "--max-stream-mib", "16384",
                                *(run_opts[0] if run_opts else [])])
        if r.returncode != 0:
            print(f"| {label} | {lay} | {req} | run failed: {(r.stdout + r.stderr).strip()[-200:]} |")
            continue
        j = json.load(open(rep))
        m = json.load(open(os.path.join(out, "manifest.json")))["report"]
        ddr = max(m["ddr_bytes"].values())
        s = j["seconds"]
        print(f"| {label} | {lay} | {req} | {s * 1e3:.1f} ms | {j['tokens_per_second']:,.1f} | "
              f"{j['bound_seconds'] * 1e3:.1f} ms | {s / j['bound_seconds']:.2f} | {j['comm_seconds'] * 1e3:.2f} ms | "
              f"{j['bubble_seconds'] * 1e3:.1f} ms | {j['control_seconds'] * 1e3:.1f} ms | {j['mfu']:.4f} | "
              f"{ddr / 1e9:.1f} GB | {gwall:.1f} s | {rwall:.1f} s | {max(grss, rrss):.0f} MB |", flush=True)
    shutil.rmtree(work, ignore_errors=True)


def main():
    if "--whole" in sys.argv:
        whole()
        return
    work = tempfile.mkdtemp(prefix="tilefw-perf-")
    print("| model | request | layer time | MFU | tokens/s | bytes DDR | bound | time/bound | top op (share) |"
          " gen wall | run wall | commands | sim cmd/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    seen = set()
    for label, cfg, req, opts in CASES:
        if (QUICK and label in seen) or (ONLY is not None and ONLY not in f"{label} {req}"):
            continue
        seen.add(label)
        out = os.path.join(work, re.sub(r"\W+", "_", label + req))
        g, gwall, _ = timed([TILEFW, "gen", "--config", os.path.join(MODELS, cfg), "--out", out, "--timing-only", *opts])
        if g.returncode != 0:
            msg = (g.stderr.strip().splitlines() or ["?"])[-1].replace("|", "/")
            print(f"| {label} | {req} | not mapped: {msg} | | | | | | | {gwall:.2f} s | | | |")
            continue
        rep = os.path.join(out, "report.json")
        # A run reads at most 256 MiB of streams by default; a larger layer (DeepSeek-V3 prefill
        # 4096: ~1 GB) is allowed exactly its size.
        mib = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.startswith("layer.")) // 2**20 + 1
        limit = ["--max-stream-mib", str(mib)] if mib > 256 else []
        r, rwall, _ = timed([TILEFW, "run", "--manifest", os.path.join(out, "manifest.json"), "--timing-only",
                             "--report", rep, "--summary", *limit])
        if r.returncode != 0:
            print(f"| {label} | {req} | run failed: {r.stderr.strip()[-200:]} |")
            continue
        j = json.load(open(rep))
        top = re.search(r"time per op.*?\n.*?\n\s+(\S+)\s+\d+\s+\d+\s+\d+\s+([\d.]+)%", r.stdout, re.S)
        tps = j.get("tokens_per_second")
        print(f"| {label} | {req} | {j['seconds'] * 1e3:.3f} ms | {j.get('mfu', 0):.3f} | "
              f"{f'{tps:,.0f}' if tps else '-'} | {json.load(open(os.path.join(out, 'manifest.json')))['report']['bytes_ddr'] / 1e9:.2f} GB | "
              f"{j['bound_seconds'] * 1e3:.3f} ms | {j['seconds'] / j['bound_seconds']:.2f} | "
              f"{top.group(1) + ' (' + top.group(2) + ' %)' if top else '?'} | {gwall:.2f} s | {rwall:.2f} s | "
              f"{j['commands']:,} | {j['sim_commands_per_second'] / 1e6:.2f} M |")
        shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
