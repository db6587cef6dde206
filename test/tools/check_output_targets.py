#!/usr/bin/env python3
"""The output-target rule: tilefw never replaces, nor writes through, a path that is not an
ordinary file, and never replaces an --out that someone else filled while it worked.

Usage: check_output_targets.py TILEFW MM0_DIR GEN_CONFIGS_DIR

`run --report/--trace/--svg` and the output tensors are written under a temporary name and
renamed over their final path; before the rule, a character device (/dev/null as root), a
FIFO or a symbolic link there was replaced by a regular file and the run exited 0. `gen --out`
checked for an empty directory only at the start, so a second gen to the same --out replaced
the first one's result. Each case below did the wrong thing before the fix. Standard library
only; a few seconds.
"""
import os
import stat
import subprocess
import sys
import tempfile

TILEFW, MM0, CONFIGS = (os.path.abspath(a) for a in sys.argv[1:4])
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def tilefw(*args):
    return subprocess.run([TILEFW, *args], capture_output=True, text=True, timeout=120)


tmp = tempfile.mkdtemp()
manifest = os.path.join(MM0, "manifest.json")
mode = lambda p: os.lstat(p).st_mode

# A character device: /dev/null stays a device (as root a rename would replace it).
if os.path.exists("/dev/null"):
    r = tilefw("run", "--manifest", manifest, "--out", os.path.join(tmp, "o1"), "--report", "/dev/null")
    check(r.returncode == 2 and "character device" in r.stderr and stat.S_ISCHR(mode("/dev/null")),
          f"--report /dev/null: exit 2, still a device ({r.returncode}: {r.stderr.strip()})")

# A FIFO stays a FIFO (and nobody has to open its other end).
fifo = os.path.join(tmp, "trace.fifo")
os.mkfifo(fifo)
r = tilefw("run", "--manifest", manifest, "--out", os.path.join(tmp, "o2"), "--trace", fifo)
check(r.returncode == 2 and "FIFO" in r.stderr and stat.S_ISFIFO(mode(fifo)),
      f"--trace FIFO: exit 2, still a FIFO ({r.returncode}: {r.stderr.strip()})")

# A symbolic link is neither replaced nor written through; its target keeps its bytes.
victim = os.path.join(tmp, "victim.txt")
open(victim, "w").write("keep me\n")
link = os.path.join(tmp, "gantt.svg")
os.symlink(victim, link)
r = tilefw("run", "--manifest", manifest, "--out", os.path.join(tmp, "o3"), "--svg", link)
check(r.returncode == 2 and "symbolic link" in r.stderr and stat.S_ISLNK(mode(link))
      and open(victim).read() == "keep me\n", f"--svg symlink: exit 2, link and target intact ({r.stderr.strip()})")

# An output tensor's file inside --out that is a link: refused before the run, naming the tensor.
o4 = os.path.join(tmp, "o4")
os.mkdir(o4)
os.symlink(victim, os.path.join(o4, "4_f32.dat"))
r = tilefw("run", "--manifest", manifest, "--out", o4)
check(r.returncode == 2 and "output 4_f32" in r.stderr and "symbolic link" in r.stderr
      and open(victim).read() == "keep me\n", f"output tensor over a symlink: exit 2 ({r.stderr.strip()})")

# A directory where the report goes.
d = os.path.join(tmp, "adir")
os.mkdir(d)
r = tilefw("run", "--manifest", manifest, "--out", os.path.join(tmp, "o5"), "--report", d)
check(r.returncode == 2 and "directory" in r.stderr and os.path.isdir(d), f"--report DIR: exit 2 ({r.stderr.strip()})")

# A regular file is still replaced (the ordinary case), and nothing temporary is left.
rep = os.path.join(tmp, "report.json")
open(rep, "w").write("old")
r = tilefw("run", "--manifest", manifest, "--out", os.path.join(tmp, "o6"), "--report", rep)
check(r.returncode == 0 and open(rep).read().startswith("{"), f"--report over a regular file: replaced ({r.returncode})")
check(not any(".tmp-" in f for f in os.listdir(tmp)), "no temporary file left beside the outputs")

# gen --out that is a link to a directory: the link is not replaced by a directory.
real = os.path.join(tmp, "real_out")
os.mkdir(real)
glink = os.path.join(tmp, "gen_link")
os.symlink(real, glink)
cfg = os.path.join(CONFIGS, "llama_gqa.json")
r = tilefw("gen", "--config", cfg, "--out", glink, "--timing-only", "--force")
check(r.returncode == 2 and "symbolic link" in r.stderr and stat.S_ISLNK(mode(glink)) and os.listdir(real) == [],
      f"gen --out symlink: exit 2, link intact ({r.stderr.strip()})")

# Two gens to one --out at once: exactly one wins; the other exits 2 (before: both exited 0 and
# the second silently replaced the first).
shared = os.path.join(tmp, "shared_out")
procs = [subprocess.Popen([TILEFW, "gen", "--config", cfg, "--out", shared, "--seq", "5", "--seed", str(s)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for s in (1, 2)]
codes = sorted(p.wait(timeout=120) for p in procs)
errs = " ".join(p.stderr.read().strip() for p in procs)
check(codes == [0, 2] and ("not empty" in errs or "no longer empty" in errs or "appeared while generating" in errs),
      f"two gens to one --out: one exit 0, one exit 2 ({codes}: {errs})")
check(not any(f.startswith(".shared_out.") for f in os.listdir(tmp)), "no hidden temporary --out left")

print(f"{len(FAILURES)} failed")
sys.exit(1 if FAILURES else 0)
