#!/usr/bin/env python3
"""MoE layers in two phases at full size, timing only: the table of bench/RESULTS.md.

Usage: bench/moe_phases.py TILEFW MODELS_DIR [--quick]

For each request, `tilefw gen --timing-only` once, then `tilefw run --timing-only --routing R
--report` for R in balanced and uniform:0 (eight control cores, one per TPU core: the default). Prints one markdown
row per run: time, the honest bound (only the experts that received tokens), time / bound, MFU,
the control core's time, the engines alone over the bound, commands generated at run time, and
the op where most engine time goes (--summary). --quick: decode b1 only.
"""
import json, os, re, subprocess, sys, tempfile, time

tilefw, models = sys.argv[1], sys.argv[2]
quick = "--quick" in sys.argv
requests = [
    ("DeepSeek-V3 L3", "deepseek-v3.json", ["--dtype", "bf16", "--layer", "3"], "decode b1 kv 4096",
     ["--phase", "decode", "--batch", "1", "--kv-len", "4096"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", ["--dtype", "bf16", "--layer", "3"], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", ["--dtype", "bf16", "--layer", "3"], "decode b128 kv 4096",
     ["--phase", "decode", "--batch", "128", "--kv-len", "4096"]),
    ("DeepSeek-V3 L3", "deepseek-v3.json", ["--dtype", "bf16", "--layer", "3"], "prefill 4096", ["--seq", "4096"]),
    ("Qwen3-30B-A3B L0", "qwen3-30b-a3b.json", [], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("Qwen3-30B-A3B L0", "qwen3-30b-a3b.json", [], "prefill 2048", ["--seq", "2048"]),
    ("Mixtral-8x7B L0", "mixtral-8x7b.json", [], "decode b32 kv 4096",
     ["--phase", "decode", "--batch", "32", "--kv-len", "4096"]),
    ("Mixtral-8x7B L0", "mixtral-8x7b.json", [], "prefill 2048", ["--seq", "2048"]),
]
if quick:
    requests = requests[:1]
tmp = tempfile.mkdtemp()
print("| layer | request | routing | time | bound | x bound | MFU | control core | engines / bound | commands generated | most engine time | run wall |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for i, (layer, cfg, model_opts, what, opts) in enumerate(requests):
    out = os.path.join(tmp, str(i))
    g = subprocess.run([tilefw, "gen", "--config", os.path.join(models, cfg), "--out", out, "--timing-only",
                        *model_opts, *opts], capture_output=True, text=True)
    if g.returncode != 0:
        print(f"| {layer} | {what} | - | gen exit {g.returncode}: {g.stderr.strip()[:80]} |")
        continue
    for routing in ("balanced", "uniform:0"):
        rep = os.path.join(tmp, f"{i}-{routing}.json")
        t0 = time.monotonic()
        r = subprocess.run([tilefw, "run", "--manifest", os.path.join(out, "manifest.json"), "--timing-only",
                            "--routing", routing, "--report", rep, "--summary"], capture_output=True, text=True)
        wall = time.monotonic() - t0
        if r.returncode != 0:
            print(f"| {layer} | {what} | {routing} | run exit {r.returncode}: {(r.stdout + r.stderr).strip()[-80:]} |")
            continue
        j = json.load(open(rep))
        top = re.search(r"^\s+(\S+)\s+\d+\s+\d+\s+\d+\s+(\d+\.\d)%", r.stdout[r.stdout.find("time per op"):], re.M)
        s, b, c = j["seconds"], j["bound_seconds"], j["control_seconds"]
        print(f"| {layer} | {what} | {routing} | {s * 1e3:.3f} ms | {b * 1e3:.3f} ms | {s / b:.2f} | {j.get('mfu', 0):.3f} | "
              f"{c * 1e3:.2f} ms | {(s - c) / b:.2f} | {j['control_commands']:,} | "
              f"{top.group(1) + ' (' + top.group(2) + ' %)' if top else '-'} | {wall:.2f} s |", flush=True)
