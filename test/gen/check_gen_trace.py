#!/usr/bin/env python3
"""Traces a person reads (issue H item 4): `tilefw gen` writes ops.json next to the streams;
`tilefw run --trace/--svg/--summary` name every command by its layer op.

Checks on a tiny llama layer (2 cores, tp 2) and a tiny deepseek_v3 MoE layer:
  * ops.json covers every command of every stream (first entry id 1, ids increasing, the
    labels are ops of the layer: q_proj tiles "q_proj m0 n0 k0", attention, barrier, end);
  * every X event of --trace has a labelled name, and the class stays in args;
  * --svg has a time axis ("cycles"), per-engine utilisation and a legend entry per op;
  * --summary prints "time per op" with the ops that must dominate (the projections) and
    shares summing to 100 %;
  * a corrupt ops.json is exit 2 naming the file; streams without ops.json keep class names.
Usage: check_gen_trace.py TILEFW CONFIG_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TILEFW, CONFIGS = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="tilefw-gen-trace-")
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def sh(args, expect=0):
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if r.returncode != expect:
        raise SystemExit(f"{' '.join(args)} -> exit {r.returncode}, expected {expect}\n{r.stdout}\n{r.stderr}")
    return r


def case(name, config, *opts, must_have=()):
    d = os.path.join(WORK, name)
    sh([TILEFW, "gen", "--config", os.path.join(CONFIGS, config), "--out", d, *opts])
    ops = json.load(open(os.path.join(d, "ops.json")))
    m = json.load(open(os.path.join(d, "manifest.json")))
    covered = True
    for c, core in enumerate(m["cores"]):
        for e in ("tiu", "gdma", "sdma"):
            runs = ops["cores"][c][e]
            ids = [r[0] for r in runs]
            covered &= (core[e]["commands"] == 0 and not runs) or (ids[0] == 1 and ids == sorted(set(ids))
                                                                   and ids[-1] <= core[e]["commands"])
    check(ops["format"] == "tilefw-ops-1" and covered, f"{name}: ops.json covers every stream from command 1")
    labels = {r[1] for core in ops["cores"] for e in ("tiu", "gdma", "sdma") for r in core[e]}
    for want in must_have:
        check(any(re.fullmatch(want, l) for l in labels), f"{name}: a label matches {want!r}")
    trace, svg = os.path.join(d, "t.json"), os.path.join(d, "t.svg")
    out = sh([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only", "--summary",
              "--trace", trace, "--svg", svg]).stdout
    events = [e for e in json.load(open(trace))["traceEvents"] if e["ph"] == "X"]
    check(events and all(not re.search(r" #\d+$", e["name"]) and "class" in e["args"] for e in events),
          f"{name}: all {len(events)} trace events named by op, class kept in args")
    s = open(svg).read()
    check(">cycles</text>" in s and re.search(r"core 0 tiu +\d+\.\d%", s) is not None,
          f"{name}: svg has a time axis and per-engine utilisation")
    ops_seen = {l.split(" ")[0] for l in labels}
    check(all(f">{o}</text>" in s for o in ops_seen), f"{name}: svg legend names all {len(ops_seen)} ops")
    table = out[out.index("time per op"):] if "time per op" in out else ""
    shares = [float(x) for x in re.findall(r"(\d+\.\d)%\n", table)]
    check(table and abs(sum(shares) - 100.0) < 0.1 * len(shares) + 0.1, f"{name}: --summary time per op, shares sum to {sum(shares):.1f}%")
    return d, table


d, table = case("llama", "llama_gqa.json", "--cores", "2", "--seq", "5",
                must_have=(r"q_proj m0 n0 k0", r"attention", r"barrier", r"end", r"down_proj m0 n\d+ k\d+"))
check(re.search(r"^\s+(q_proj|gate_proj|up_proj|down_proj|o_proj|attention)\s", table, re.M) is not None,
      "llama: the projections and attention appear in the table")
case("deepseek", "deepseek_v3_tiny.json", "--layer", "1", "--seq", "4",
     must_have=(r"expert\.gate_proj e\d+ m0 n0 k0", r"moe_routing", r"moe_dispatch e\d+", r"kv_b_proj\.absorb n\d+",
                r"shared_experts\.down_proj m0 n0 k0", r"q_a_layernorm"))

# a corrupt ops.json: exit 2 naming it; without ops.json the class names stay
open(os.path.join(d, "ops.json"), "w").write('{"format": "tilefw-ops-1", "cores": [{"tiu": [[3, "x"], [2, "y"]]}]}')
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only", "--summary"],
                   capture_output=True, text=True)
check(r.returncode == 2 and "ops.json" in r.stderr, f"corrupt ops.json: exit {r.returncode}, names the file")
# only the views that name ops read it (--summary, --trace, --svg): a plain timing run does not
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only"], capture_output=True, text=True)
check(r.returncode == 0, f"corrupt ops.json, no view that names ops: exit {r.returncode} (not read)")
# the reader streams the file (no document in memory) and still refuses every other shape
bad_files = {
    "not JSON": '{"format": "tilefw-ops-1", "cores": [',
    "wrong format": '{"format": "tilefw-ops-2", "cores": []}',
    "engine missing": '{"format": "tilefw-ops-1", "cores": [{"tiu": [[1, "x"]], "gdma": []}]}',
    "unknown engine": '{"format": "tilefw-ops-1", "cores": [{"tiu": [], "gdma": [], "sdma": [], "npu": []}]}',
    "label not a string": '{"format": "tilefw-ops-1", "cores": [{"tiu": [[1, 2]], "gdma": [], "sdma": []}]}',
    "entry too long": '{"format": "tilefw-ops-1", "cores": [{"tiu": [[1, "x", 3]], "gdma": [], "sdma": []}]}',
    "negative id": '{"format": "tilefw-ops-1", "cores": [{"tiu": [[-1, "x"]], "gdma": [], "sdma": []}]}',
}
for what, text in bad_files.items():
    open(os.path.join(d, "ops.json"), "w").write(text)
    r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only", "--summary"],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "ops.json" in r.stderr, f"ops.json {what}: exit {r.returncode}, names the file")
open(os.path.join(d, "ops.json"), "w").write(
    '{"cores": [{"sdma": [], "gdma": [[1, "b"]], "tiu": [[1, "a"], [5, "c"]]}], "format": "tilefw-ops-1"}')
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only", "--summary"],
                   capture_output=True, text=True)
check(r.returncode == 0, f"ops.json with keys in another order: exit {r.returncode} {r.stderr[-200:]}")
os.remove(os.path.join(d, "ops.json"))
trace = os.path.join(d, "plain.json")
sh([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only", "--trace", trace])
names = [e["name"] for e in json.load(open(trace))["traceEvents"] if e["ph"] == "X"]
check(all(re.search(r" #\d+$", n) for n in names), "without ops.json: events keep '<class> #<id>' names")

shutil.rmtree(WORK, ignore_errors=True)
print(f"{failures} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
