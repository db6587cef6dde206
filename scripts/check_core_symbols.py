#!/usr/bin/env python3
"""check_core_symbols.py NM LIBRARY: exits 1 when the core library defines a strong symbol of
the host simulator (namespace tilefw::port::host), printing each; 0 otherwise.

libtilefw.a must hold no simulator code, so a firmware image can never pull it in. Inline
functions the host backend header needs are emitted as weak (COMDAT) copies wherever the core
uses them; those are allowed, strong definitions are not."""
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: check_core_symbols.py NM LIBRARY", file=sys.stderr)
        return 2
    nm, lib = sys.argv[1:]
    out = subprocess.run([nm, "-C", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    bad = []
    member = lib
    for line in out.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            member = line[:-1]
            continue
        parts = line.split(None, 2)
        if len(parts) != 3:
            continue
        kind, name = parts[1], parts[2]
        if kind in "WVwvu":  # weak / unique: inline functions, allowed
            continue
        if "tilefw::port::host::" in name:
            bad.append(f"{member}: {kind} {name}")
    for b in bad:
        print(f"{lib}: defines simulator symbol: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
