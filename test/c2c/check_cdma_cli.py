#!/usr/bin/env python3
"""The CDMA and multi-chip contract of `tilefw dump` and `tilefw validate` (docs/cli.md sections
2, 3 and 5): a 2-chip manifest whose streams are encoded here (cdma_streams.py), then each
class of bad input. Usage: check_cdma_cli.py TILEFW"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdma_streams as cs  # noqa: E402

TILEFW = sys.argv[1]
failures = []


def run(*args):
    p = subprocess.run([TILEFW, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def exchange(d, recv_on_chip1=True, topology="ring:2", chips=2, peer=1, extra=None):
    """Chip 0 sends 64 FP32 to chip 1, which adds them into its buffer; chip 1 sends back."""
    a = cs.ddr(1, 0x0)
    y = cs.ddr(1, 0x1000)
    write(d, "c0.CDMA", cs.send(a, cs.FP32, 64, psum=True) + cs.recv(y, cs.FP32, 64) + cs.end())
    c1 = (cs.recv(y, cs.FP32, 64, cs.ADD) if recv_on_chip1 else b"") + cs.send(a, cs.FP32, 64) + cs.end()
    write(d, "c1.CDMA", c1)
    regions = [{"chip": c, "tag": 1, "device_addr": hex(cs.ddr(1, 0)), "bytes": 0x2000} for c in range(chips)]
    m = {"system": {"chips": chips, "topology": topology},
         "memory": {"ddr_regions": regions},
         "cores": [],
         "cdma": [{"chip": 0, "peer": peer, "file": "c0.CDMA"}, {"chip": peer, "peer": 0, "file": "c1.CDMA"}],
         "outputs": [{"chip": 1, "name": "y", "device_addr": hex(y), "bytes": 256}]}
    if extra:
        m.update(extra)
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(m, f)
    return os.path.join(d, "manifest.json")


with tempfile.TemporaryDirectory() as d:
    man = exchange(d)
    rc, out, err = run("validate", "--manifest", man)
    expect(rc == 0, "valid 2-chip manifest: exit 0, got %d: %s %s" % (rc, out, err))
    expect("[chip0.cdma->1]: 3 commands" in out and "[chip1.cdma->0]: 3 commands" in out, "OK lines per port: " + out)

    rc, out, err = run("dump", os.path.join(d, "c0.CDMA"))
    expect(rc == 0, "dump of a .CDMA file: exit 0")
    lines = out.splitlines()
    expect(len(lines) == 3, "one line per CDMA command: %r" % out)
    expect(" send " in lines[0] and "psum_op=0x1" in lines[0] and "src_wsize=0x40" in lines[0], "send decoded: " + lines[0])
    expect(" recv " in lines[1] and "data_format=0x2" in lines[1], "recv decoded: " + lines[1])
    expect(" sys " in lines[2], "chain_end decoded: " + lines[2])
    rc, out, _ = run("dump", "--json", os.path.join(d, "c0.CDMA"))
    j = json.loads(out)
    expect(j[0]["engine"] == "cdma" and j[0]["commands"][0]["class"] == "send", "JSON dump names engine and class")

    rc, out, _ = run("validate", os.path.join(d, "c1.CDMA"))
    expect(rc == 0 and "OK" in out, "a lone .CDMA file validates: " + out)

    # A send whose receiver lost its recv: unmatched, named by chip, peer, command and offset.
    man = exchange(d, recv_on_chip1=False)
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1, "unmatched send: exit 1")
    expect("INVALID %s[chip0.cdma->1]: cmd_unmatched_transfer at command 1, byte offset 0" % man in out and
           "(chip 0, peer chip 1)" in out, "unmatched send named: " + out)

    # No link between the chips.
    man = exchange(d, topology="chain:3", chips=3, peer=2)
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1 and "cmd_no_route" in out, "no route: " + out)

    # A chip past the system, a system with zero bandwidth, a bad preset: exit 2 naming the key.
    for extra, key in [({"system": {"chips": 2, "link_gbytes_per_s": 0}}, "system.link_gbytes_per_s"),
                       ({"system": {"chips": 2, "topology": "mesh:3"}}, "system.topology"),
                       ({"system": {"chips": 65}}, "system.chips"),
                       ({"system": {"chips": 2, "bogus": 1}}, "system.bogus")]:
        man = exchange(d, extra=extra)
        rc, _, err = run("validate", "--manifest", man)
        expect(rc == 2 and key in err, "%s: exit 2 naming the key, got %d %s" % (key, rc, err))
    man = exchange(d)
    with open(man) as f:
        m = json.load(f)
    m["outputs"][0]["chip"] = 2
    with open(man, "w") as f:
        json.dump(m, f)
    rc, _, err = run("validate", "--manifest", man)
    expect(rc == 2 and "outputs[0].chip" in err and "chip 2" in err, "a chip past N: " + err)

    # Truncated and garbage CDMA streams.
    man = exchange(d)
    write(d, "c0.CDMA", cs.send(cs.ddr(1, 0), cs.FP32, 64)[:20])
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1 and "cmd_truncated" in out, "truncated: " + out)
    write(d, "c0.CDMA", bytes([0xF0] * 32))
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1 and "cmd_unknown_class" in out, "garbage: " + out)
    write(d, "c0.CDMA", cs.sys(cs.TX_WAIT, 600 % 512, 0) + cs.end())
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1 and "cmd_bad_field" in out, "message count 0: " + out)

# run: chip 0's vector arrives at chip 1 and is added to what chip 1 holds (FP32, one rounding
# per element, exact here: the values are small multiples of 1/8); the report names chips and
# links; timing-only runs the same streams.
with tempfile.TemporaryDirectory() as d:
    man = exchange(d)
    a0 = [i / 8.0 for i in range(64)]
    y1 = [1.0 + i for i in range(64)]
    a1 = [-i / 4.0 for i in range(64)]
    img0 = cs.f32(a0) + bytes(0x2000 - 256)
    img1 = cs.f32(a1) + bytes(0x1000 - 256) + cs.f32(y1) + bytes(0x1000 - 256)
    write(d, "chip0.bin", img0)
    write(d, "chip1.bin", img1)
    with open(man) as f:
        m = json.load(f)
    m["memory"]["ddr_regions"][0]["init_file"] = "chip0.bin"
    m["memory"]["ddr_regions"][1]["init_file"] = "chip1.bin"
    m["outputs"].append({"chip": 0, "name": "y0", "device_addr": hex(cs.ddr(1, 0x1000)), "bytes": 256})
    with open(man, "w") as f:
        json.dump(m, f)
    out_dir = os.path.join(d, "out")
    rc, out, err = run("run", "--manifest", man, "--out", out_dir, "--report", os.path.join(d, "r.json"))
    expect(rc == 0, "multi-chip run: exit 0, got %d: %s %s" % (rc, out, err))
    if rc == 0:
        import struct
        y = struct.unpack("<64f", open(os.path.join(out_dir, "y.dat"), "rb").read())
        expect(list(y) == [y1[i] + a0[i] for i in range(64)], "chip 1 holds y + chip 0's vector")
        y0 = struct.unpack("<64f", open(os.path.join(out_dir, "y0.dat"), "rb").read())
        expect(list(y0) == a1, "chip 0 holds chip 1's vector")
        r = json.load(open(os.path.join(d, "r.json")))
        expect(set(r["chips"]) == {"0", "1"} and "0->1" in r["links"] and r["links"]["0->1"]["bytes"] == 256,
               "report: chips and links: %s" % json.dumps(r.get("links")))
        expect("chip 0:" in out and "chip 1:" in out, "one line per chip: " + out)
    # --svg: one band per chip (its engines' and CDMA threads' rows), a c2c band, a row per link.
    svg = os.path.join(d, "run.svg")
    rc, out, err = run("run", "--manifest", man, "--timing-only", "--svg", svg)
    expect(rc == 0 and "gantt: %s (one band per chip, a row per link)" % svg in out, "multi-chip --svg: %s %s" % (out, err))
    if rc == 0:
        import xml.etree.ElementTree as ET
        root = ET.parse(svg).getroot()
        texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
        bands = [t for t in texts if t in ("chip 0", "chip 1", "c2c")]
        expect(bands == ["chip 0", "chip 1", "c2c"], "bands in order: %r" % bands)
        # Each port: send and recv of 256 B together, alpha 250 + ceil(256 / 11.2) = 273 cycles, then
        # chain_end (1); each link busy in the data phase only: 23 of 274 cycles.
        rows = [t.split() for t in texts if t.startswith("  ")]
        expect(rows == [["cdma->1", "tx", "100.0%"], ["cdma->1", "rx", "99.6%"], ["cdma->0", "tx", "100.0%"],
                        ["cdma->0", "rx", "99.6%"], ["link", "0->1", "8.4%"], ["link", "1->0", "8.4%"]],
               "a row per port thread and per link: %r" % rows)
        titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
        expect(titles == ["send #1: cycles 0..273, 256 bytes", "sys #3: cycles 273..274", "recv #2: cycles 0..273, 256 bytes",
                          "send #2: cycles 0..273, 256 bytes", "sys #3: cycles 273..274", "recv #1: cycles 0..273, 256 bytes",
                          "busy: cycles 250..273", "busy: cycles 250..273"], "bars: %r" % titles)
    rc, out, _ = run("run", "--manifest", man, "--timing-only", "--summary")
    expect(rc == 0 and "total:" in out, "timing-only multi-chip run: " + out)
    expect("0->1         256" in out and "1->0         256" in out, "--summary lists the links: " + out)
    # A send with no receiver: refused before anything runs, naming chip, peer and command.
    man = exchange(d, recv_on_chip1=False)
    rc, out, _ = run("run", "--manifest", man, "--timing-only")
    expect(rc == 1 and "chip 0 cdma->1 command 1: cmd_unmatched_transfer" in out, "run refuses unmatched: " + out)
    # --system replaces the manifest's system; a zero-bandwidth system file is exit 2.
    man = exchange(d)
    write(d, "sys.json", json.dumps({"chips": 2, "topology": "ring:2", "link_gbytes_per_s": 0}).encode())
    rc, _, err = run("run", "--manifest", man, "--timing-only", "--system", os.path.join(d, "sys.json"))
    expect(rc == 2 and "link_gbytes_per_s" in err, "--system with zero bandwidth: " + err)

# The message check (Rule: reachable message waits): a wait no order of the chip's engines can
# release is refused before anything runs, naming chip, port or core and engine, command, byte
# offset and what it waits for.
with tempfile.TemporaryDirectory() as d:
    man = exchange(d)
    y = cs.ddr(1, 0x1000)
    write(d, "c1.CDMA", cs.recv(y, cs.FP32, 64, cs.ADD) + cs.sys(cs.RX_WAIT, 42, 2) + cs.send(cs.ddr(1, 0), cs.FP32, 64) +
          cs.end())
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1, "unsatisfiable CDMA wait: exit 1")
    expect("INVALID %s[chip1.cdma->0]: cmd_unsatisfiable_message at command 2, byte offset 32: a message wait for "
           "more sends than its chip makes of that id (msg_cnt) (waits for msg 42 count 2: needs 2 sends of it, "
           "chip 1 makes 0 that can count) (chip 1, peer chip 0)" % man in out, "unsatisfiable CDMA wait named: " + out)
    expect("OK %s[chip0.cdma->1]" % man in out, "the other port still listed OK: " + out)
    rc, out, _ = run("run", "--manifest", man, "--timing-only")
    expect(rc == 1 and "error: chip 1 cdma->0 command 2: cmd_unsatisfiable_message at byte offset 32 of " in out and
           "c1.CDMA: a message wait for more sends than its chip makes of that id field msg_cnt (waits for msg 42 "
           "count 2: needs 2 sends of it, chip 1 makes 0 that can count)" in out and "total:" not in out,
           "run refuses the wait before anything runs: " + out)
    # A chip 0 core whose TIU waits for msg 7 before its own only send of it.
    write(d, "c1.CDMA", cs.recv(y, cs.FP32, 64, cs.ADD) + cs.send(cs.ddr(1, 0), cs.FP32, 64) + cs.end())
    write(d, "t0.TIU", cs.tiu_sys(cs.TIU_WAIT, 7, 1) + cs.tiu_sys(cs.TIU_SEND, 7, 1) + cs.tiu_end())
    write(d, "g0.GDMA", cs.dma_end())
    with open(man) as f:
        m = json.load(f)
    m["cores"] = [{"chip": 0, "core": 2, "tiu": {"file": "t0.TIU"}, "gdma": {"file": "g0.GDMA"}}]
    with open(man, "w") as f:
        json.dump(m, f)
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 1 and "INVALID %s[chip0.core2.tiu]: cmd_unsatisfiable_message at command 1, byte offset 0: a "
           "message wait that needs sends following it on its own in-order thread (msg_cnt) (waits for msg 7 count 1: "
           "needs 1 sends of it, chip 0 makes 0 that can count)" % man in out, "TIU wait named: " + out)
    rc, out, _ = run("run", "--manifest", man, "--timing-only")
    expect(rc == 1 and "error: chip 0 core 2 tiu command 1: cmd_unsatisfiable_message at byte offset 0 of " in out,
           "run refuses the TIU wait: " + out)
    # One chip (no system): the same TIU stream, refused by `run` before anything runs.
    one = {"memory": {"ddr_regions": [{"tag": 1, "device_addr": hex(cs.ddr(1, 0)), "bytes": 0x2000}]},
           "cores": [{"core": 2, "tiu": {"file": "t0.TIU"}, "gdma": {"file": "g0.GDMA"}}], "outputs": []}
    one_man = os.path.join(d, "one.json")
    with open(one_man, "w") as f:
        json.dump(one, f)
    rc, out, _ = run("run", "--manifest", one_man, "--timing-only")
    expect(rc == 1 and "error: core 2 tiu command 1: cmd_unsatisfiable_message at byte offset 0 of " in out and
           "t0.TIU: a message wait that needs sends following it on its own in-order thread field msg_cnt (waits "
           "for msg 7 count 1: needs 1 sends of it, chip 0 makes 0 that can count)" in out, "one chip: " + out)
    rc, out, _ = run("validate", "--manifest", one_man)
    expect(rc == 1 and "INVALID %s[core2.tiu]: cmd_unsatisfiable_message at command 1" % one_man in out, "one chip validate: " + out)
    # Send first: valid, and it runs.
    write(d, "t0.TIU", cs.tiu_sys(cs.TIU_SEND, 7, 1) + cs.tiu_sys(cs.TIU_WAIT, 7, 1) + cs.tiu_end())
    rc, out, _ = run("validate", "--manifest", man)
    expect(rc == 0, "send before wait validates: " + out)
    rc, out, _ = run("run", "--manifest", man, "--timing-only")
    expect(rc == 0 and "total:" in out, "and runs: " + out)
    rc, out, _ = run("run", "--manifest", one_man, "--timing-only")
    expect(rc == 0, "and runs on one chip: " + out)

# Real data: ResNet-50's 8-core .bmodel passes the message check; with one HAU send of its
# barrier id 48 moved to id 300, the barriers of 48 are one send short: the last wait on 48 (core
# 7's HAU) is refused, and the run refuses it before anything runs.
BMODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sg2260-tdb",
                      "resnet50_v2_bm1690_f16_core8.bmodel")
with tempfile.TemporaryDirectory() as d:
    data = bytearray(open(BMODEL, "rb").read())
    send48 = (1 | (32 << 8) | (48 << 15)).to_bytes(8, "little")
    at = data.find(bytes([1, 0, 0, 0, 0, 0, 0, 0]) + bytes(32) + send48)
    expect(at >= 0, "a HAU send of msg 48 in the model")
    data[at + 40:at + 48] = (1 | (32 << 8) | (300 << 15)).to_bytes(8, "little")
    cut = os.path.join(d, "short.bmodel")
    open(cut, "wb").write(data)
    rc, out, _ = run("validate", BMODEL)
    expect(rc == 0 and "INVALID" not in out, "the real model passes the message check: " + out[-300:])
    rc, out, _ = run("validate", cut)
    bad = [l for l in out.splitlines() if l.startswith("INVALID")]
    expect(rc == 1 and len(bad) == 1 and bad[0].startswith("INVALID %s[core7.hau]: cmd_unsatisfiable_message at command " % cut)
           and "the waits of this message id need more sends than its chip makes" in bad[0] and
           "(waits for msg 48 count 32: needs " in bad[0], "one HAU send short: " + "\n".join(bad))
    if bad:
        import re
        m = re.search(r"needs (\d+) sends of it, chip 0 makes (\d+) that can count", bad[0])
        expect(m is not None and int(m.group(1)) % 32 == 0 and int(m.group(2)) == int(m.group(1)) - 1,
               "needed a multiple of 32, made one fewer: " + bad[0])
    rc, out, _ = run("run", "--bmodel", cut, "--timing-only")
    expect(rc == 1 and "error: core 7 hau command " in out and "cmd_unsatisfiable_message" in out and "total" not in out,
           "run --bmodel refuses it before anything runs: " + out[-300:])

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
