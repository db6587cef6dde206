#!/usr/bin/env python3
"""`tilefw pto run|print` (docs/pto-text.md): the .pto row softmax runs and writes z.bin (a
softmax of the input within float32 rounding, the same bytes from its canonical text), and bad
text, bad inputs and bad placements exit 2 with the file, line, column and what failed, leaving
no output. Usage: check_pto_cli.py TILEFW SOURCE_ROOT"""
import math
import os
import struct
import subprocess
import sys
import tempfile

TILEFW, ROOT = sys.argv[1], sys.argv[2]
SOFTMAX = os.path.join(ROOT, "examples", "pto_row_softmax.pto")
ROWS, COLS = 8, 200
failures = []


def run(*args):
    p = subprocess.run([TILEFW, "pto", *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


passed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if cond:
        passed.append(what)
    else:
        failures.append(what)


def floats(path):
    with open(path, "rb") as f:
        data = f.read()
    return list(struct.unpack("<%df" % (len(data) // 4), data))


with tempfile.TemporaryDirectory() as tmp:
    xs = [((i * 111 + j * 76) % 229) / 43.0 - 0.75 * i for i in range(ROWS) for j in range(COLS)]
    x_bin = os.path.join(tmp, "x.bin")
    with open(x_bin, "wb") as f:
        f.write(struct.pack("<%df" % len(xs), *xs))
    x32 = floats(x_bin)

    # 1. The softmax runs; z is a softmax of x within float32 rounding.
    out = os.path.join(tmp, "out")
    rc, so, se = run("run", SOFTMAX, "--in", "x=" + x_bin, "--out", out)
    check(rc == 0, "softmax runs (rc %d, %s)" % (rc, se.strip()))
    z_bin = os.path.join(out, "z.bin")
    check(os.path.exists(z_bin) and os.path.getsize(z_bin) == ROWS * COLS * 4, "z.bin has 6400 bytes")
    check(so.strip() == "wrote %s (6400 bytes)" % z_bin, "stdout names the output: " + so.strip())
    check(not os.path.exists(os.path.join(out, "x.bin")), "x (never stored) is not written")
    if os.path.exists(z_bin):
        z = floats(z_bin)
        worst = 0.0
        for r in range(ROWS):
            row = x32[r * COLS:(r + 1) * COLS]
            m = max(row)
            e = [math.exp(v - m) for v in row]
            s = sum(e)
            for j in range(COLS):
                want = e[j] / s
                worst = max(worst, abs(z[r * COLS + j] - want) / max(want, 1e-30))
        check(worst < 1e-5, "z within 1e-5 relative of a float64 softmax (worst %.2e)" % worst)

    # 2. print gives canonical text that runs to the same bytes.
    rc, canon, se = run("print", SOFTMAX)
    check(rc == 0 and canon.startswith("module {\n  func.func @row_softmax("), "print gives canonical text")
    canon_path = os.path.join(tmp, "canon.pto")
    with open(canon_path, "w") as f:
        f.write(canon)
    rc, again, _ = run("print", canon_path)
    check(again == canon, "print of the canonical text is the same text")
    out2 = os.path.join(tmp, "out2")
    rc, _, se = run("run", canon_path, "--in", "x=" + x_bin, "--out", out2)
    same = rc == 0 and open(os.path.join(out2, "z.bin"), "rb").read() == open(z_bin, "rb").read()
    check(same, "the canonical text gives the same z.bin bytes")

    # 2b. print --form rewrites every instruction; each form runs to the same bytes.
    for form, marker in (("asm", " = trowsum %y_2 : "), ("ssa", " = pto.trowsum %y_2, %tmp : "), ("dps", "pto.trowsum ins(")):
        rc, text, se = run("print", "--form", form, SOFTMAX)
        path = os.path.join(tmp, form + ".pto")
        with open(path, "w") as f:
            f.write(text)
        outf = os.path.join(tmp, "out_" + form)
        rc2, _, se2 = run("run", path, "--in", "x=" + x_bin, "--out", outf)
        same = rc == 0 and rc2 == 0 and open(os.path.join(outf, "z.bin"), "rb").read() == open(z_bin, "rb").read()
        check(same and marker in text, "--form %s runs to the same z.bin (%s%s)" % (form, se.strip(), se2.strip()))
    rc, _, se = run("print", "--form", "mlir", SOFTMAX)
    check(rc == 2 and "--form" in se, "an unknown --form is refused: " + se.strip().splitlines()[0])

    # 3. Bad text: exit 2, FILE:line:column naming the token, nothing written.
    bad = os.path.join(tmp, "bad.pto")
    with open(bad, "w") as f:
        f.write(open(SOFTMAX).read().replace("pto.texp ins(", "pto.tfoo ins("))
    out3 = os.path.join(tmp, "out3")
    rc, _, se = run("run", bad, "--in", "x=" + x_bin, "--out", out3)
    check(rc == 2 and se.strip() == "tilefw pto: %s:25:5: unknown operation 'pto.tfoo'" % bad, "unknown op: " + se.strip())
    check(not os.path.exists(out3), "no output (not even --out) after bad text")
    rc, _, se = run("print", bad)
    check(rc == 2 and "25:5: unknown operation 'pto.tfoo'" in se, "print refuses bad text too")
    garbage = os.path.join(tmp, "garbage.pto")
    with open(garbage, "wb") as f:
        f.write(b"module {\x00\xff")
    rc, _, se = run("print", garbage)
    check(rc == 2 and se.strip() == "tilefw pto: %s:1:9: unexpected byte 0x00" % garbage, "garbage: " + se.strip())
    huge = os.path.join(tmp, "huge.pto")
    with open(huge, "wb") as f:
        f.write(b" " * (4 * 1024 * 1024 + 1))
    rc, _, se = run("print", huge)
    check(rc == 2 and "above the limit" in se, "a huge file is refused: " + se.strip())

    # 4. Inputs: wrong size, unknown name, unreadable file, malformed option.
    short = os.path.join(tmp, "short.bin")
    with open(short, "wb") as f:
        f.write(b"\0" * 100)
    rc, _, se = run("run", SOFTMAX, "--in", "x=" + short, "--out", out3)
    check(rc == 2 and se.strip() == "tilefw pto: --in x: 100 bytes, the tensor view of %x takes 6400", "size: " + se.strip())
    rc, _, se = run("run", SOFTMAX, "--in", "q=" + x_bin, "--out", out3)
    check(rc == 2 and "the kernel has no pointer argument %q" in se, "unknown --in name: " + se.strip())
    rc, _, se = run("run", SOFTMAX, "--in", "x=" + os.path.join(tmp, "missing.bin"), "--out", out3)
    check(rc == 2 and se.startswith("tilefw pto: --in x: "), "missing --in file: " + se.strip())
    rc, _, se = run("run", SOFTMAX, "--in", "x", "--out", out3)
    check(rc == 2 and "expected NAME=FILE" in se, "malformed --in: " + se.strip())
    rc, _, se = run("run", SOFTMAX, "--in", "x=" + x_bin, "--out", out3, "--chip", "a7")
    check(rc == 2 and se.strip() == "tilefw pto: --chip a7: expected a2a3 or a5", "--chip a7 refused: " + se.strip())

    # 4b. --chip a5: the kernel runs on the A5 profile. Its rows of 200 floats are summed as A5
    # sums them (each 64-lane repeat's tree, added in order; the C++ twin on an A5 core gives
    # the same bits, test_pto_text), so z differs from a2a3's in the last bits only.
    out_a5 = os.path.join(tmp, "out_a5")
    rc, so, se = run("run", SOFTMAX, "--in", "x=" + x_bin, "--out", out_a5, "--chip", "a5")
    check(rc == 0, "softmax runs on a5 (rc %d, %s)" % (rc, se.strip()))
    a5_z = os.path.join(out_a5, "z.bin")
    a5_bytes = open(a5_z, "rb").read() if os.path.exists(a5_z) else b""
    a2_bytes = open(z_bin, "rb").read() if os.path.exists(z_bin) else b""
    close = len(a5_bytes) == len(a2_bytes) == 6400
    if close:
        a5_v = struct.unpack("<1600f", a5_bytes)
        a2_v = struct.unpack("<1600f", a2_bytes)
        close = all(abs(p - q) <= 4e-7 * abs(q) for p, q in zip(a5_v, a2_v))
    check(close and a5_bytes != a2_bytes, "a5's z.bin: A5's rounding of the row sums (close to a2a3's, not equal)")

    # 5. A tile placed outside UB: exit 2 naming the tile, nothing written.
    outside = os.path.join(tmp, "outside.pto")
    text = open(SOFTMAX).read().replace("    pto.tload ins(", "    pto.tassign %xt, @tile(0x2F000)\n    pto.tload ins(", 1)
    with open(outside, "w") as f:
        f.write(text)
    rc, _, se = run("run", outside, "--in", "x=" + x_bin, "--out", out3)
    want = "tilefw pto: %s:22:5: tile %%xt (6400 bytes at 0x2f000) does not lie inside UB (196608 bytes, a2a3): tile_out_of_bounds" % outside
    check(rc == 2 and se.strip() == want, "outside UB: " + se.strip())
    # A5's UB is 256 KB: the same address is inside it, and every instruction touching the tile
    # there runs (its bounds are A5's), giving the A5 bits of 4b; 0x3F000 + 6400 bytes is not inside.
    out_hi = os.path.join(tmp, "out_a5_hi")
    rc, _, se = run("run", outside, "--in", "x=" + x_bin, "--out", out_hi, "--chip", "a5")
    hi_z = os.path.join(out_hi, "z.bin")
    same = rc == 0 and os.path.exists(hi_z) and open(hi_z, "rb").read() == a5_bytes
    check(same, "a tile at 0x2f000 (above a2a3's UB) runs on a5 with the same bits (rc %d, %s)" % (rc, se.strip()))
    outside5 = os.path.join(tmp, "outside5.pto")
    with open(outside5, "w") as f:
        f.write(text.replace("@tile(0x2F000)", "@tile(0x3F000)"))
    rc, _, se = run("run", outside5, "--in", "x=" + x_bin, "--out", out3, "--chip", "a5")
    want = "tilefw pto: %s:22:5: tile %%xt (6400 bytes at 0x3f000) does not lie inside UB (262144 bytes, a5): tile_out_of_bounds" % outside5
    check(rc == 2 and se.strip() == want, "outside A5's UB: " + se.strip())
    check(not os.path.exists(os.path.join(out3, "z.bin")), "no output after a bad placement")

    # 5b. An instruction the simulator refuses (TEXP into the 8 x 1 tile %m): exit 1, the PTO
    # failure line after the file and position, nothing written.
    lines = open(SOFTMAX).read().split("\n")
    col_type = next(l for l in lines if l.strip().startswith("%m = pto.alloc_tile")).split(" : ", 1)[1]
    k = next(i for i, l in enumerate(lines) if l.strip().startswith("pto.texp ins("))
    lines[k] = lines[k].split(" outs(")[0] + " outs(%m : " + col_type + ")"
    refused = os.path.join(tmp, "refused.pto")
    with open(refused, "w") as f:
        f.write("\n".join(lines))
    out5 = os.path.join(tmp, "out5")
    rc, _, se = run("run", refused, "--in", "x=" + x_bin, "--out", out5)
    check(rc == 1 and se.startswith("tilefw pto: %s:%d:5: pto: TEXP failed: " % (refused, k + 1)), "simulator refusal: " + se.strip())
    check(not os.path.exists(out5), "no output (not even --out) after a refused instruction")

    # 6. The output is never written through a symbolic link.
    out4 = os.path.join(tmp, "out4")
    os.mkdir(out4)
    os.symlink(x_bin, os.path.join(out4, "z.bin"))
    rc, _, se = run("run", SOFTMAX, "--in", "x=" + x_bin, "--out", out4)
    check(rc == 2 and "is a symbolic link" in se, "a link at DIR/z.bin is refused: " + se.strip())

    # 7. An output never replaces an input: the kernel's own file or an --in file at DIR/NAME.bin
    # (an in-place kernel storing %x, run with --in x=DIR/x.bin) is refused, both left intact.
    out6 = os.path.join(tmp, "out6")
    os.mkdir(out6)
    with open(SOFTMAX) as f:
        text = f.read()
    kernel_at_z = os.path.join(out6, "z.bin")
    with open(kernel_at_z, "w") as f:
        f.write(text)
    rc, _, se = run("run", kernel_at_z, "--in", "x=" + x_bin, "--out", out6)
    check(rc == 2 and "is the input" in se and open(kernel_at_z).read() == text,
          "an output at the kernel's file is refused, the file intact: " + se.strip())
    in_place = os.path.join(tmp, "in_place.pto")
    with open(in_place, "w") as f:
        f.write(text.replace("%gz = pto.partition_view %tz", "%gz = pto.partition_view %tx"))
    x_in_out = os.path.join(out6, "x.bin")
    with open(x_bin, "rb") as f:
        x_bytes = f.read()
    with open(x_in_out, "wb") as f:
        f.write(x_bytes)
    rc, _, se = run("run", in_place, "--in", "x=" + x_in_out, "--out", out6)
    check(rc == 2 and "is the input" in se and open(x_in_out, "rb").read() == x_bytes,
          "an output at an --in file is refused, the input intact: " + se.strip())
    out7 = os.path.join(tmp, "out7")
    rc, _, se = run("run", in_place, "--in", "x=" + x_bin, "--out", out7)
    check(rc == 0 and os.path.getsize(os.path.join(out7, "x.bin")) == ROWS * COLS * 4,
          "the in-place kernel writes x.bin elsewhere: " + se.strip())

    # 8. An output name the file system refuses (a pointer argument of 300 characters): exit 2,
    # and the --out directory the run made is taken back.
    long_name = os.path.join(tmp, "long_name.pto")
    with open(long_name, "w") as f:
        f.write(text.replace("%z", "%" + "z" * 300))
    out8 = os.path.join(tmp, "out8")
    rc, _, se = run("run", long_name, "--in", "x=" + x_bin, "--out", out8)
    check(rc == 2 and "File name too long" in se, "an output name past NAME_MAX: exit 2: " + se.strip()[-60:])
    check(not os.path.exists(out8), "no --out directory left after an output that cannot be written")

    # 9. TFILLPAD and TSELS (examples/pto_select_pad.pto): y is x's 5 x 40 corner padded with
    # +inf, z the same (TSELS mode 0 takes its second source); on a2a3 and A5 alike.
    select_pad = os.path.join(ROOT, "examples", "pto_select_pad.pto")
    sx = [((i * 37 + 1) % 211) / 7.0 - 13.0 for i in range(8 * 64)]
    sw = [((i * 37 + 2) % 211) / 7.0 - 13.0 for i in range(8 * 64)]
    for name, vals in (("sx.bin", sx), ("sw.bin", sw)):
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(struct.pack("<%df" % len(vals), *vals))
    sx32 = floats(os.path.join(tmp, "sx.bin"))
    want = [sx32[i] if (i // 64) < 5 and (i % 64) < 40 else math.inf for i in range(8 * 64)]
    for chip in ("a2a3", "a5"):
        out9 = os.path.join(tmp, "out9_" + chip)
        rc, _, se = run("run", select_pad, "--in", "x=" + os.path.join(tmp, "sx.bin"), "--in",
                        "w=" + os.path.join(tmp, "sw.bin"), "--out", out9, "--chip", chip)
        check(rc == 0, "pto_select_pad runs on %s (rc %d, %s)" % (chip, rc, se.strip()))
        for out_name in ("y.bin", "z.bin"):
            path = os.path.join(out9, out_name)
            check(os.path.exists(path) and floats(path) == want, "%s %s: padded corner of x, +inf elsewhere" % (chip, out_name))

    # 10. The transpose and column-product kernel: y is x transposed (its bits), p the column
    # products (the rows multiplied in order, each product rounded to float32).
    out10 = os.path.join(tmp, "out10")
    x10 = [1.0 + ((i * 37) % 101) / 512.0 for i in range(16 * 24)]
    x10_bin = os.path.join(tmp, "x10.bin")
    with open(x10_bin, "wb") as f:
        f.write(struct.pack("<%df" % len(x10), *x10))
    x10 = floats(x10_bin)
    rc, _, se = run("run", os.path.join(ROOT, "examples", "pto_transpose_colprod.pto"), "--in", "x=" + x10_bin,
                    "--out", out10)
    check(rc == 0, "the transpose and column-product kernel runs (rc %d, %s)" % (rc, se.strip()))
    if rc == 0:
        y10 = floats(os.path.join(out10, "y.bin"))
        check(y10 == [x10[j * 24 + i] for i in range(24) for j in range(16)], "y.bin is x transposed")
        p10 = floats(os.path.join(out10, "p.bin"))
        want = []
        for j in range(24):
            acc = x10[j]
            for i in range(1, 16):
                acc = struct.unpack("<f", struct.pack("<f", acc * x10[i * 24 + j]))[0]
            want.append(acc)
        check(p10 == want, "p.bin is the column products rounded to float32 at each step")

    # 11. TCMP, TCMPS and TSEL (examples/pto_compare_select.pto): m holds the predicate x > w
    # (bit j % 8 of byte j / 8 of each row's first 8 bytes; NaN compares false), y = x > w ? x :
    # w, z = x < 0 ? w : x, bit for bit; A5 refuses the compare when it runs (exit 1, naming the chip).
    cmp_sel = os.path.join(ROOT, "examples", "pto_compare_select.pto")
    cx = [float((i * 37 + 1) % 23) - 11.0 for i in range(8 * 64)]
    cw = [float((i * 37 + 2) % 23) - 11.0 for i in range(8 * 64)]
    with open(os.path.join(tmp, "cx.bin"), "wb") as f:
        f.write(struct.pack("<%df" % len(cx), *cx))
    with open(os.path.join(tmp, "cw.bin"), "wb") as f:
        raw = bytearray(struct.pack("<%df" % len(cw), *cw))
        raw[4 * 9:4 * 10] = struct.pack("<I", 0x7FC00077)  # a NaN in w
        f.write(bytes(raw))
    cw32 = floats(os.path.join(tmp, "cw.bin"))
    gt = [cx[i] > cw32[i] for i in range(8 * 64)]  # Python's compares are IEEE's: NaN is false
    want_m = bytes(sum(1 << k for k in range(8) if gt[r * 64 + b * 8 + k]) for r in range(8) for b in range(8))
    out11 = os.path.join(tmp, "out11")
    rc, _, se = run("run", cmp_sel, "--in", "x=" + os.path.join(tmp, "cx.bin"), "--in",
                    "w=" + os.path.join(tmp, "cw.bin"), "--out", out11)
    check(rc == 0, "pto_compare_select runs on a2a3 (rc %d, %s)" % (rc, se.strip()))
    mpath = os.path.join(out11, "m.bin")
    got_m = b""
    if os.path.exists(mpath):
        with open(mpath, "rb") as f:
            data = f.read()
        got_m = b"".join(data[r * 32:r * 32 + 8] for r in range(8))
    check(got_m == want_m, "m.bin: the predicate x > w, LSB first")
    with open(os.path.join(tmp, "cx.bin"), "rb") as f:
        xb = f.read()
    with open(os.path.join(tmp, "cw.bin"), "rb") as f:
        wb = f.read()

    def pick(take_x, i):
        return (xb if take_x else wb)[4 * i:4 * i + 4]

    def read(name):
        path = os.path.join(out11, name)
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    want_y = b"".join(pick(gt[i], i) for i in range(8 * 64))
    want_z = b"".join(pick(not cx[i] < 0, i) for i in range(8 * 64))
    check(read("y.bin") == want_y, "y.bin: x where x > w, else w (the NaN's payload kept)")
    check(read("z.bin") == want_z, "z.bin: w where x < 0, else x")
    out11b = os.path.join(tmp, "out11_a5")
    rc, _, se = run("run", cmp_sel, "--in", "x=" + os.path.join(tmp, "cx.bin"), "--in",
                    "w=" + os.path.join(tmp, "cw.bin"), "--out", out11b, "--chip", "a5")
    check(rc == 1 and "TCMP failed: unsupported (chip" in se, "A5 refuses TCMP naming the chip (exit 1): " + se.strip()[-80:])
    check(not os.path.exists(os.path.join(out11b, "m.bin")), "no output left after the refusal")

print("%d passed, %d failed" % (len(passed), len(failures)))
sys.exit(1 if failures else 0)
