#!/usr/bin/env python3
"""Bad-input classes of the tools, each with the case that failed before its fix.

Usage: check_interrupts_and_inputs.py TILEFW MODELS_DIR TDB_DIR GEN_CONFIGS_DIR MM0_DIR

- Interrupted runs leave debris: gen's hidden temporary output and run --bmodel's temporary
  folder stayed behind after SIGINT / SIGTERM. Now gen's is removed (signal_cleanup.cpp), run
  --bmodel writes none (the model runs from memory), and the process still ends by the signal.
- Special files: `gen --weights FIFO` opened the FIFO and waited for a writer forever. Now exit 2
  at once, naming it.
- Integer overflow in the generator: moe_intermediate_size x n_shared_experts wrapped 32 bits and
  gen exited 0 with the shared experts silently gone. Now exit 2 naming n_shared_experts.
- Unbounded reads: a 90 MB config.json took gen past 2.5 GiB, a manifest at its old 64 MiB limit
  took run to 2.4 GiB. Now a config is at most 4 MiB and a manifest 8 MiB, refused before
  parsing.
- Quadratic work: a safetensors header with 80,000 entries took gen over 20 s (8 min seen): the
  duplicate-name check walked the object at every entry. Now one SAX pass: under a second of CPU.
- Quadratic work: the SVG legend looked each traced command's op up in a list (a 2 MB ops.json:
  34 s); a long label was copied into every traced command (0.8 MB ops.json: --trace > 2.2
  GiB). Now a hash lookup, and labels longer than 256 bytes are refused.
- validate and run disagreed: a stream zero-padded past run's 128 MiB limit was OK in validate
  and refused by run; `validate --manifest` paired streams by file name, ignoring the manifest's
  cores[] (files that run took as core 0's TIU and GDMA were "cannot tell the engine"). Now
  validate applies run's limit and pairs by cores[].
- Messages that pointed nowhere: `run --bmodel` errors named its temporary, already deleted
  manifest. Now they name the .bmodel.
- Unbounded reads: `validate` held every file at once (20 streams of 120 MiB: 2.4 GiB). Now a
  file's bytes are held only while it (or its TIU/GDMA pair) is checked.
- Memory that scaled with the input: a 256 MiB `expert_tokens` output made run's dropped-token
  report a list of 64 M numbers (past 2.2 GiB). Now at most 65536 counts are reported on.
- Memory that scaled with the model: `run --bmodel` drew the weights of every region (up to
  4 GiB each) before the DDR limit was checked. Now the limit comes first, and weights are drawn
  1 MiB at a time.
Standard library only; a few seconds (the interrupted commands are killed as soon as their
temporary exists).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import shutil

TILEFW, MODELS, TDB, CONFIGS, MM0 = (os.path.abspath(a) for a in sys.argv[1:6])
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def interrupt_when(args, appeared, sig, env=None, cwd=None, limit=120):
    """Starts tilefw, waits until appeared() is true, sends `sig`; returns (exit code, seen)."""
    p = subprocess.Popen([TILEFW, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    t0, seen = time.monotonic(), False
    while p.poll() is None and time.monotonic() - t0 < limit:
        if appeared():
            seen = True
            p.send_signal(sig)
            break
        time.sleep(0.01)
    return p.wait(timeout=limit), seen


tmp = tempfile.mkdtemp()

# gen interrupted while its hidden temporary output exists. On a loaded machine gen can finish
# between the temporary's appearance and the signal (exit 0, the output in place): that run
# interrupted nothing, so it is tried again (up to five times) in an empty folder.
for sig in (signal.SIGINT, signal.SIGTERM):
    for attempt in range(5):
        work = os.path.join(tmp, f"gen-{sig}-{attempt}")
        os.mkdir(work)
        code, seen = interrupt_when(["gen", "--config", os.path.join(MODELS, "deepseek-v3.json"), "--dtype", "bf16",
                                     "--layer", "3", "--phase", "decode", "--batch", "32", "--kv-len", "4096",
                                     "--timing-only", "--out", os.path.join(work, "out")],
                                    lambda: any(".tmp-" in f for f in os.listdir(work)), sig, cwd=work)
        if code != 0:
            break
    check(seen and code == -sig and os.listdir(work) == [],
          f"gen interrupted by {signal.Signals(sig).name}: ended by it ({code}), nothing left {os.listdir(work)}"
          f" (attempt {attempt + 1})")

# run --bmodel interrupted mid-run (TMPDIR is ours). The model is run from memory: no temporary
# folder ever appears, and the run still ends by the signal.
tmpdir = os.path.join(tmp, "tmpdir")
os.mkdir(tmpdir)
env = dict(os.environ, TMPDIR=tmpdir)
started = time.monotonic()
code, seen = interrupt_when(["run", "--bmodel", os.path.join(TDB, "yolov5s_bm1690_f16_core8.bmodel"), "--out",
                             os.path.join(tmp, "yolo-out")],
                            lambda: os.listdir(tmpdir) != [] or time.monotonic() - started > 1.0, signal.SIGINT, env=env)
check(seen and code == -signal.SIGINT and os.listdir(tmpdir) == [],
      f"run --bmodel interrupted: ended by SIGINT ({code}), nothing in TMPDIR {os.listdir(tmpdir)}")

# gen --weights on a FIFO: refused at once, not a wait for a writer.
fifo = os.path.join(tmp, "weights.fifo")
os.mkfifo(fifo)
t0 = time.monotonic()
try:
    r = subprocess.run([TILEFW, "gen", "--config", os.path.join(CONFIGS, "llama_gqa.json"), "--out",
                        os.path.join(tmp, "g-fifo"), "--weights", fifo], capture_output=True, text=True, timeout=20)
    check(r.returncode == 2 and "FIFO" in r.stderr and time.monotonic() - t0 < 10,
          f"gen --weights FIFO: exit 2 at once ({r.stderr.strip()})")
except subprocess.TimeoutExpired:
    check(False, "gen --weights FIFO: still waiting after 20 s")

# moe_intermediate_size x n_shared_experts past 32 bits: refused, naming the key.
cfg = json.load(open(os.path.join(CONFIGS, "deepseek_v3_tiny.json")))
cfg["moe_intermediate_size"] = 1 << 20
cfg["n_shared_experts"] = 1 << 12  # 2^32: wrapped to 0 before
path = os.path.join(tmp, "overflow.json")
json.dump(cfg, open(path, "w"))
r = subprocess.run([TILEFW, "gen", "--config", path, "--out", os.path.join(tmp, "g-over"), "--timing-only", "--layer", "1"],
                   capture_output=True, text=True, timeout=60)
check(r.returncode == 2 and "n_shared_experts" in r.stderr and not os.path.exists(os.path.join(tmp, "g-over")),
      f"moe_intermediate_size x n_shared_experts = 2^32: exit 2 naming it ({r.returncode}: {r.stderr.strip()[:140]})")

# Unbounded reads: oversized config and manifest are refused before they are parsed.
big = json.load(open(os.path.join(CONFIGS, "llama_gqa.json")))
big["padding"] = "x" * (90 << 20)
path = os.path.join(tmp, "big_config.json")
json.dump(big, open(path, "w"))
r = subprocess.run([TILEFW, "gen", "--config", path, "--out", os.path.join(tmp, "g-big")], capture_output=True, text=True,
                   timeout=60)
check(r.returncode == 2 and "above the limit" in r.stderr, f"90 MB config.json: exit 2 before parsing ({r.stderr.strip()[:120]})")
mm0 = os.path.join(tmp, "mm0")
shutil.copytree(MM0, mm0)
man = json.load(open(os.path.join(mm0, "manifest.json")))
man["padding"] = ["y" * 1000] * (60 * 1024)  # 60 MB: under the old limit
json.dump(man, open(os.path.join(mm0, "big.json"), "w"))
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(mm0, "big.json"), "--out", os.path.join(tmp, "o-big")],
                   capture_output=True, text=True, timeout=60)
check(r.returncode == 2 and "above the limit" in r.stderr, f"60 MB manifest: exit 2 before parsing ({r.stderr.strip()[:120]})")

def run_counting_cpu(args, timeout=120):
    """Runs a command; returns it with returncode, stderr and cpu: the CPU seconds (user + system)
    the child itself used. Linear-work checks bound CPU time, not wall time: a test machine
    running other tests on every core stretches wall time several-fold without any more work."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(args, stdout=out, stderr=err)
        t0 = time.monotonic()
        while True:  # os.wait4 reaps the child and reports its own resource usage
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.monotonic() - t0 > timeout:
                p.kill()
            time.sleep(0.005)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        p.stderr = err.read().decode("utf-8", "replace")
        p.cpu = usage.ru_utime + usage.ru_stime
    return p


# A safetensors header with 80,000 entries: linear work (refused for the missing tensor).
import struct
n = 80000
header = json.dumps({f"model.layers.0.extra{i}": {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]}
                     for i in range(n)}).encode()
path = os.path.join(tmp, "wide.safetensors")
open(path, "wb").write(struct.pack("<Q", len(header)) + header + bytes(4 * n))
r = run_counting_cpu([TILEFW, "gen", "--config", os.path.join(CONFIGS, "llama_gqa.json"), "--out", os.path.join(tmp, "g-wide"),
                       "--weights", path])
check(r.returncode == 2 and "is missing" in r.stderr and r.cpu < 10,
      f"80,000-entry safetensors header: exit 2 after {r.cpu:.2f} s of CPU (< 10 s; quadratic work took minutes)")

# --svg over 45,540 commands each with its own op (1.4 MB ops.json): linear.
layer = os.path.join(tmp, "l8")
r = subprocess.run([TILEFW, "gen", "--config", os.path.join(MODELS, "llama-3-8b.json"), "--seq", "1024", "--out", layer,
                    "--timing-only"], capture_output=True, text=True, timeout=120)
m = json.load(open(os.path.join(layer, "manifest.json")))
ops = {"format": "tilefw-ops-1", "cores": [{e: [[i + 1, f"distinct_op_{e}_{i}"] for i in range(c[e]["commands"])]
                                            for e in ("tiu", "gdma", "sdma")} for c in m["cores"]]}
json.dump(ops, open(os.path.join(layer, "ops.json"), "w"))
r = run_counting_cpu([TILEFW, "run", "--manifest", os.path.join(layer, "manifest.json"), "--timing-only", "--svg",
                       os.path.join(tmp, "l8.svg")])
check(r.returncode == 0 and r.cpu < 10, f"--svg with {sum(len(v) for c in ops['cores'] for v in c.values())} distinct ops: "
                                        f"exit {r.returncode} after {r.cpu:.2f} s of CPU (< 10 s; quadratic work took 34 s)")
# A label of 100,000 bytes: refused, naming the limit.
ops["cores"][0]["tiu"][0][1] = "x" * 100000
json.dump(ops, open(os.path.join(layer, "ops.json"), "w"))
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(layer, "manifest.json"), "--timing-only", "--trace",
                    os.path.join(tmp, "l8.json")], capture_output=True, text=True, timeout=120)
check(r.returncode == 2 and "longer than 256 bytes" in r.stderr, f"a 100 KB op label: exit 2 ({r.stderr.strip()[:120]})")

# validate and run agree on a padded stream and on streams the manifest names.
pad = os.path.join(tmp, "pad")
shutil.copytree(MM0, pad)
bd5 = os.path.join(pad, "mm0.BD.5")
data = open(bd5, "rb").read()
open(bd5, "wb").write(data + bytes((129 << 20) - len(data)))
v = subprocess.run([TILEFW, "validate", "--manifest", os.path.join(pad, "manifest.json"), bd5], capture_output=True,
                   text=True, timeout=60)
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(pad, "manifest.json"), "--timing-only"], capture_output=True,
                   text=True, timeout=60)
check(v.returncode == 2 and r.returncode == 2 and "above the limit of 134217728" in v.stdout
      and "above the limit of 134217728" in r.stderr, f"a stream padded past 128 MiB: validate and run both exit 2 "
                                                     f"({v.stdout.strip()[:90]} | {r.stderr.strip()[:90]})")
os.remove(bd5)
shutil.copy(os.path.join(MM0, "mm0.BD.5"), bd5)
shutil.copy(os.path.join(MM0, "mm0.BD.0"), os.path.join(pad, "core0_tiu.bin"))
shutil.copy(os.path.join(MM0, "mm0.GDMA.0"), os.path.join(pad, "core0_dma.bin"))
man = json.load(open(os.path.join(pad, "manifest.json")))
man["cores"][0]["tiu"]["file"], man["cores"][0]["gdma"]["file"] = "core0_tiu.bin", "core0_dma.bin"
json.dump(man, open(os.path.join(pad, "renamed.json"), "w"))
v = subprocess.run([TILEFW, "validate", "--manifest", os.path.join(pad, "renamed.json"), os.path.join(pad, "core0_tiu.bin"),
                    os.path.join(pad, "core0_dma.bin")], capture_output=True, text=True, timeout=60)
r = subprocess.run([TILEFW, "run", "--manifest", os.path.join(pad, "renamed.json"), "--timing-only"], capture_output=True,
                   text=True, timeout=60)
check(v.returncode == 0 and r.returncode == 0 and v.stdout.count("OK ") == 2,
      f"streams named by cores[] only: validate pairs them as run does, both exit 0 ({v.stdout.strip()[:120]})")

# run --bmodel: a refusal names the .bmodel, not the temporary manifest.
yolo = os.path.join(TDB, "yolov5s_bm1690_f16_core8.bmodel")
r = subprocess.run([TILEFW, "run", "--bmodel", yolo, "--max-ddr-mib", "1", "--out", os.path.join(tmp, "yo")],
                   capture_output=True, text=True, timeout=60)
last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
check(r.returncode == 2 and last.startswith(f"tilefw run: {yolo}: ") and "--max-ddr-mib" in last
      and "tilefw-bmodel-" not in r.stderr, f"run --bmodel refused: the message names the .bmodel ({last[:140]})")
# ... and the DDR limit holds before any region is built (weights were drawn for every region first).
code, seen = interrupt_when(["run", "--bmodel", yolo, "--max-ddr-mib", "1", "--out", os.path.join(tmp, "yo")],
                            lambda: False, signal.SIGINT, env=env, limit=30)
check(code == 2 and os.listdir(tmpdir) == [], f"run --bmodel over --max-ddr-mib: exit 2 before building regions ({code})")

# validate on 20 names of one 120 MiB stream (hard links: no disk cost): memory of one pair.
big = os.path.join(tmp, "big.GDMA.0")
data = open(os.path.join(MM0, "mm0.GDMA.0"), "rb").read()
with open(big, "wb") as f:
    f.write(data)
    f.truncate(120 << 20)  # zero padding after the end command (sparse)
names = [big]
for i in range(1, 20):
    names.append(os.path.join(tmp, f"big{i}.GDMA.0"))
    os.link(big, names[-1])
p = subprocess.Popen([TILEFW, "validate", *names], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
rss = usage.ru_maxrss / 1024
check(os.waitstatus_to_exitcode(status) in (0, 1) and rss < 1200,
      f"validate of 20 streams of 120 MiB: peak RSS {rss:.0f} MiB (< 1200; all at once was 2.4 GiB)")

# A 256 MiB expert_tokens output in a manifest that reports a capacity.
et = os.path.join(tmp, "et")
shutil.copytree(MM0, et)
man = json.load(open(os.path.join(et, "manifest.json")))
man.setdefault("report", {}).update(capacity=1, experts=8)
addr = (5 << 40)
man["memory"]["ddr_regions"].append({"tag": 5, "device_addr": hex(addr), "bytes": 256 << 20})
man["outputs"].append({"name": "expert_tokens", "device_addr": hex(addr), "bytes": 256 << 20, "dtype": "f32",
                       "shape": [64 << 20]})
json.dump(man, open(os.path.join(et, "et.json"), "w"))
p = subprocess.Popen([TILEFW, "run", "--manifest", os.path.join(et, "et.json"), "--out", os.path.join(et, "out"),
                      "--report", os.path.join(et, "rep.json")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(p.pid, 0)
err = p.stderr.read().decode()
rss = usage.ru_maxrss / 1024
check(os.waitstatus_to_exitcode(status) == 0 and rss < 1500 and "no dropped-token report" in err,
      f"a 256 MiB expert_tokens output: exit {os.waitstatus_to_exitcode(status)}, peak RSS {rss:.0f} MiB (< 1500)")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
