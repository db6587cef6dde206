#!/usr/bin/env python3
"""size_report.py [--tools PREFIX] [--top N] LIBRARY

Prints the code size of a Cortex-M libtilefw.a per layer, attributed by the namespace of the
code, not by the object file it was compiled into: header-inline code such as desc::validate()
lands in the issue and plan objects but belongs to desc, and header-only layers (chip, tile)
show up at all. The library is built with -ffunction-sections -fdata-sections, so every
function and object has its own section named after its mangled symbol (string literals too:
.rodata.<function>.str1.1); a section is attributed by the namespace of that name (tilefw::desc::
-> desc, ..., the rest of tilefw:: -> base), and sections without a C++ name (GCC's switch
tables, merged strings) by the object's folder (src/<layer>/, port/). An inline function or
variable that several objects carry (a COMDAT section, weak symbol) counts once, as the linker
keeps one. text = code + read-only data (flash), data and bss = RAM.
--top N also lists each layer's N largest sections, demangled (c++filt)."""
import argparse
import re
import subprocess
import sys
from collections import defaultdict

LAYERS = ["base", "chip", "desc", "issue", "plan", "tile", "cmd", "rt", "port", "other"]
NAMED = set(LAYERS) - {"base", "other"}
TEXT, DATA, BSS = 0, 1, 2
# Section prefixes by kind, longest first so .data.rel.ro wins over .data.
KINDS = [(".data.rel.ro", TEXT), (".rodata", TEXT), (".text", TEXT), (".data", DATA),
         (".bss", BSS), (".tbss", BSS), (".tdata", DATA)]


def source_names(mangled: str, count: int) -> list:
    """The first `count` components of a mangled (Itanium ABI) name, e.g.
    _ZNK6tilefw4plan4Plan11issue_countEv -> ['tilefw', 'plan']. Handles local entities (_ZZ),
    internal linkage (L), vtables and guard variables (TV, GV), cv/ref qualifiers; [] if the
    name does not start with a plain source name."""
    if not mangled.startswith("_Z"):
        return []
    s = mangled[2:]
    for prefix in ("TV", "TT", "GV", "GR"):
        if s.startswith(prefix):
            s = s[2:]
            break
    if s.startswith("Z"):  # local entity: the enclosing function's name comes first
        s = s[1:]
    if s.startswith("L"):
        s = s[1:]
    if s.startswith("N"):
        s = s[1:]
        while s[:1] in ("K", "V", "r", "R", "O"):
            s = s[1:]
    names = []
    while len(names) < count:
        m = re.match(r"(\d+)", s)
        if not m:
            break
        start, n = len(m.group(1)), int(m.group(1))
        names.append(s[start:start + n])
        s = s[start + n:]
    return names


def layer_of_symbol(mangled: str) -> str:
    names = source_names(mangled, 2)
    if not names or names[0] != "tilefw":
        return ""
    return names[1] if len(names) > 1 and names[1] in NAMED else "base"


def layer_of_object(obj: str) -> str:
    name = obj.rsplit("/", 1)[-1]
    m = re.match(r"src_([a-z]+)_", name)
    if m and m.group(1) in NAMED | {"base"}:
        return m.group(1)
    return "port" if name.startswith("port_") else "other"


def split_section(section: str):
    """(kind, symbol) of an allocated section name, or None for debug/metadata sections."""
    for prefix, kind in KINDS:
        if section == prefix or section.startswith(prefix + "."):
            rest = section[len(prefix) + 1:]
            rest = re.sub(r"(^|\.)str\d+\.\d+$", "", rest)  # merged string literals
            return kind, rest
    return None


def run(cmd: list) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def comdat_sections(nm: str, lib: str) -> set:
    """Sections holding weak (COMDAT) definitions: the same section in several objects is
    one copy after linking."""
    out = run([nm, "-f", "sysv", "--defined-only", lib])
    sections = set()
    for line in out.splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) == 7 and cols[2] in ("W", "V"):
            sections.add(cols[6])
    return sections


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", default="arm-none-eabi-", help="binutils prefix")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("library")
    args = ap.parse_args()
    comdat = comdat_sections(args.tools + "nm", args.library)
    out = run([args.tools + "size", "-A", args.library])
    totals = defaultdict(lambda: [0, 0, 0])
    biggest = defaultdict(list)
    counted_comdat = set()
    obj = ""
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+\(ex ", line)
        if m:
            obj = m.group(1)
            continue
        parts = line.split()
        if len(parts) != 3 or not parts[1].isdigit() or int(parts[1]) == 0:
            continue
        section, size = parts[0], int(parts[1])
        split = split_section(section)
        if split is None:
            continue
        if section in comdat:
            if section in counted_comdat:
                continue
            counted_comdat.add(section)
        kind, symbol = split
        layer = layer_of_symbol(symbol) or layer_of_object(obj)
        totals[layer][kind] += size
        biggest[layer].append((size, symbol if symbol.startswith("_Z") else section))
    print(f"{'layer':<8} {'text':>8} {'data':>6} {'bss':>6}   (bytes, Cortex-M -Os, by namespace)")
    grand = [0, 0, 0]
    for layer in LAYERS:
        t = totals.get(layer, [0, 0, 0])
        grand = [g + x for g, x in zip(grand, t)]
        print(f"{layer:<8} {t[0]:>8} {t[1]:>6} {t[2]:>6}")
        if args.top and biggest[layer]:
            top = sorted(biggest[layer], reverse=True)[:args.top]
            demangled = subprocess.run(["c++filt"], input="\n".join(n for _, n in top),
                                       capture_output=True, text=True).stdout.splitlines()
            for (size, _), name in zip(top, demangled):
                print(f"         {size:>8}  {name[:100]}")
    print(f"{'total':<8} {grand[0]:>8} {grand[1]:>6} {grand[2]:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
