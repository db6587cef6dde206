#!/usr/bin/env python3
"""check_layers.py [--root DIR]: checks every #include "..." of the source tree against the
layer table scripts/layers.txt. Prints `path:line: ...` for each include a layer may not make
and exits 1; exits 0 when there is none. Run from anywhere, with no arguments, by CI; --root
points it at another tree (the must-fail test's fixture) while the table stays this one.

An include is resolved as the compiler would: "tilefw/<layer>/..." to inc/tilefw/<layer>/,
a file beside the including one to that file, "tilefw_port_backend.hpp" otherwise to the
backend seam, anything else in the backend folders (port/host, port/cortex-m), inc/ and tools/."""
import argparse
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
TABLE = REPO / "scripts" / "layers.txt"
SEAM = "port-seam"
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".c", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read_table(path):
    """Returns ([(layer, [paths])] in table order, {layer: set(allowed)})."""
    layers, allowed = [], {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        cols = [c.strip() for c in line.split("|")]
        if len(cols) != 3 or not cols[0] or not cols[1]:
            raise SystemExit(f"{path}:{number}: expected NAME | PATHS | MAY INCLUDE")
        layers.append((cols[0], cols[1].split()))
        allowed[cols[0]] = set(cols[2].split()) | {cols[0]}
    known = {name for name, _ in layers} | {SEAM}
    for name, deps in allowed.items():
        for d in deps - known:
            raise SystemExit(f"{path}: layer {name} names unknown layer {d}")
    return layers, allowed


def layer_of(rel, layers):
    """The layer owning a repository-relative path (longest matching prefix), or None."""
    best, best_len = None, -1
    for name, paths in layers:
        for p in paths:
            if (rel == p or rel.startswith(p + "/")) and len(p) > best_len:
                best, best_len = name, len(p)
    return best


def resolve(root, source, target, layers):
    """The layer an include names, or None for a file outside every layer."""
    beside = source.parent / target
    if beside.exists():  # a backend's own files include its header by this name too
        return layer_of(beside.resolve().relative_to(root.resolve()).as_posix(), layers)
    if target == "tilefw_port_backend.hpp":
        return SEAM
    if target.startswith("tilefw/"):
        return layer_of("inc/" + target, layers)
    for base in [root / "port/host", root / "port/cortex-m", root / "inc", root / "tools"]:
        candidate = base / target
        if candidate.exists():
            return layer_of(candidate.resolve().relative_to(root.resolve()).as_posix(), layers)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=REPO)
    args = parser.parse_args()
    root = args.root.resolve()
    layers, allowed = read_table(TABLE)
    violations = checked = 0
    for name, paths in layers:
        for p in paths:
            start = root / p
            files = [start] if start.is_file() else sorted(f for f in start.rglob("*") if f.suffix in SOURCE_SUFFIXES)
            for f in files:
                rel = f.relative_to(root).as_posix()
                if layer_of(rel, layers) != name:
                    continue  # a deeper path of another layer owns it
                for number, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    checked += 1
                    target = resolve(root, f, m.group(1), layers)
                    if target is None:
                        print(f"{rel}:{number}: layer {name} includes \"{m.group(1)}\", which belongs to no layer")
                        violations += 1
                    elif target not in allowed[name]:
                        print(f"{rel}:{number}: layer {name} may not include \"{m.group(1)}\" (layer {target}); "
                              f"{name} may include: {' '.join(sorted(allowed[name] - {name})) or 'only itself'}")
                        violations += 1
    if checked == 0:
        print(f"{root}: no includes found under the table's paths", file=sys.stderr)
        return 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
