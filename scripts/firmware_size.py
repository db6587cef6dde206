#!/usr/bin/env python3
"""firmware_size.py SIZE_TOOL ELF...: the linked footprint of firmware images (the firmware
footprint measurement).

For each ELF prints text / data / bss of the whole image (SIZE_TOOL, e.g. arm-none-eabi-size,
Berkeley format) and of its tilefw part: the input sections the link kept from libtilefw.a,
read from the link map written beside the ELF (<image>.map, -Wl,-Map). Exits 1 when an image
or its map is missing or unreadable, or when the tilefw part has initialised data (.data must
be 0: a firmware's RAM image holds nothing of tilefw's but its zeroed state)."""
import os
import re
import subprocess
import sys

KINDS = [(".text", "text"), (".rodata", "text"), (".ARM.extab", "text"), (".ARM.exidx", "text"),
         (".data.rel.ro", "text"), (".data", "data"), (".bss", "bss"), ("COMMON", "bss")]
LINE = re.compile(r"^\s*(\S+)?\s+0x[0-9a-fA-F]+\s+0x([0-9a-fA-F]+)\s+(\S+)$")


def kind_of(section):
    for prefix, kind in KINDS:
        if section.startswith(prefix):
            return kind
    return None


def tilefw_part(map_path):
    """Bytes kept from libtilefw.a by kind, from the map's 'Linker script and memory map'."""
    sizes = {"text": 0, "data": 0, "bss": 0}
    lines = open(map_path).read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("Linker script and memory map"))
    pending = None  # a long section name wraps: its address and size follow on the next line
    for line in lines[start:]:
        m = LINE.match(line)
        if m is None:
            stripped = line.strip()
            pending = stripped if stripped.startswith((".", "COMMON")) and " " not in stripped else None
            continue
        section = m.group(1) or pending
        pending = None
        if section is None or "libtilefw.a(" not in m.group(3):
            continue
        kind = kind_of(section)
        if kind is not None:
            sizes[kind] += int(m.group(2), 16)
    return sizes


def main():
    if len(sys.argv) < 3:
        print("usage: firmware_size.py SIZE_TOOL ELF...", file=sys.stderr)
        return 2
    size_tool, images = sys.argv[1], sys.argv[2:]
    failed = False
    print(f"{'image':<14} {'text':>8} {'data':>6} {'bss':>7}   {'tilefw text':>11} {'data':>5} {'bss':>6}")
    for elf in images:
        map_path = os.path.splitext(elf)[0] + ".map"
        out = subprocess.run([size_tool, elf], capture_output=True, text=True, check=True).stdout.split("\n")[1]
        text, data, bss = (int(x) for x in out.split()[:3])
        part = tilefw_part(map_path)
        name = os.path.splitext(os.path.basename(elf))[0]
        print(f"{name:<14} {text:>8} {data:>6} {bss:>7}   {part['text']:>11} {part['data']:>5} {part['bss']:>6}")
        if part["text"] == 0:
            print(f"{map_path}: no libtilefw.a sections found", file=sys.stderr)
            failed = True
        if part["data"] != 0:
            print(f"{name}: tilefw part has {part['data']} B of .data (must be 0)", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
