#!/usr/bin/env python3
"""size_report.py SIZE LIBRARY

Prints the code size of a Cortex-M libtilefw.a per layer (text/data/bss summed over the
object files of src/<layer>/ and port/), from `arm-none-eabi-size` output."""
import re
import subprocess
import sys
from collections import defaultdict


def layer_of(obj: str) -> str:
    name = obj.rsplit("/", 1)[-1]
    m = re.match(r"src_([a-z]+)_", name)
    if m:
        return m.group(1)
    if name.startswith("port_"):
        return "port"
    return "other"


def main() -> int:
    size, lib = sys.argv[1], sys.argv[2]
    out = subprocess.run([size, lib], capture_output=True, text=True, check=True).stdout
    totals = defaultdict(lambda: [0, 0, 0])
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 6:
            continue
        text, data, bss = int(parts[0]), int(parts[1]), int(parts[2])
        obj = parts[5]
        t = totals[layer_of(obj)]
        t[0] += text
        t[1] += data
        t[2] += bss
    print(f"{'layer':<8} {'text':>8} {'data':>6} {'bss':>6}")
    grand = [0, 0, 0]
    for layer in ["base", "chip", "desc", "issue", "plan", "tile", "cmd", "rt", "port", "other"]:
        if layer not in totals:
            continue
        t = totals[layer]
        grand = [g + x for g, x in zip(grand, t)]
        print(f"{layer:<8} {t[0]:>8} {t[1]:>6} {t[2]:>6}")
    print(f"{'total':<8} {grand[0]:>8} {grand[1]:>6} {grand[2]:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
