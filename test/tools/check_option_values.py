#!/usr/bin/env python3
"""Unsigned options refuse negative numbers (every subcommand, one rule in tilefw_main.cpp).

Usage: check_option_values.py TILEFW

Before the rule, CLI11's conversion wrapped "-1" to 2^64 - 1: `gen --seed -1` drew from seed
2^64 - 1 and `run --max-work -1` / `--max-ddr-mib -1` switched those limits off, each with exit 0.
Each case must now exit 2 naming the option, before any file is read.
"""
import subprocess
import sys

TILEFW = sys.argv[1]
failures = 0
cases = [
    ["run", "--manifest", "m.json", "--max-work", "-1"],
    ["run", "--manifest", "m.json", "--max-ddr-mib", "-1"],
    ["run", "--manifest", "m.json", "--max-stream-mib", "-5"],
    ["run", "--manifest", "m.json", "--timeout-cycles", "-1"],
    ["run", "--bmodel", "m.bmodel", "--fill-seed", "-1"],
    ["run", "--manifest", "m.json", "--control-cores", "-1"],
    ["gen", "--config", "c.json", "--out", "o", "--seed", "-1"],
    ["gen", "--config", "c.json", "--out", "o", "--batch", "-2"],
    ["gen", "--config", "c.json", "--out", "o", "--seq", " -1"],
    ["gen", "--config", "c.json", "--out", "o", "--kv-len", "-1"],
    ["gen", "--config", "c.json", "--out", "o", "--layer", "-1"],
    ["gen", "--config", "c.json", "--out", "o", "--cores", "-8"],
]
for args in cases:
    r = subprocess.run([TILEFW, *args], capture_output=True, text=True, timeout=60)
    option = next(a for a in args if a.startswith("--") and args[args.index(a) + 1].strip().startswith("-"))
    ok = r.returncode == 2 and option in r.stderr and ("negative" in r.stderr or "not in range" in r.stderr)
    print(("ok   " if ok else "FAIL ") + " ".join(args) + f": exit {r.returncode} ({r.stderr.strip().splitlines()[0] if r.stderr.strip() else ''})")
    failures += 0 if ok else 1
# A non-negative value is still taken (the rule does not refuse numbers it should not).
r = subprocess.run([TILEFW, "gen", "--config", "/nonexistent.json", "--out", "/nonexistent/o", "--seed", "7"],
                   capture_output=True, text=True, timeout=60)
ok = r.returncode == 2 and "--seed" not in r.stderr
print(("ok   " if ok else "FAIL ") + f"--seed 7 is accepted (the failure is about the config): {r.stderr.strip()[:100]}")
failures += 0 if ok else 1
print(f"{failures} failed")
sys.exit(1 if failures else 0)
