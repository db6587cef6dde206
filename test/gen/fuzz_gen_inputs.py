#!/usr/bin/env python3
"""Adversarial inputs for `tilefw gen`: mutated config.json files and .safetensors weights.

Usage: fuzz_gen_inputs.py TILEFW CONFIGS_DIR [--cases N] [--seed S] [--timeout SEC] [--keep]

Each case writes one mutated input (and a valid counterpart) into its own directory and runs
`tilefw gen --out DIR/out ...` under a timeout and an address-space limit (so a request for
terabytes fails as an allocation error instead of swapping). A case fails when the run dies
from a signal, hangs, exits with a code other than 0/1/2, leaves a hidden `.out.tmp-PID` (or
`.out.old-PID`) directory, creates --out on a failure, or exits 0 without a manifest.json.
Config mutations: dropped keys, wrong types, zero / negative / huge / non-finite-looking
numbers, deep nesting, unicode and NUL in strings, random bytes, truncation, duplicate keys,
non-object top levels, mutated rope_scaling. Weights mutations: bytes flipped in the length
prefix, header and data, truncation, huge or off-by-one header lengths, overlapping, reversed,
out-of-range and non-integer data_offsets, bad dtypes and shapes, hostile __metadata__.
Deterministic for a given --seed; the default 300 cases run in well under a minute.
Python 3 standard library only.
"""
import argparse
import json
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

DENSE = ["llama_gqa", "mistral_mqa_f16", "qwen2_bias", "qwen3_qknorm"]
EVIL_VALUES = [0, -1, 1, 2, 3, 7, 2 ** 31, 2 ** 32 + 4, 2 ** 63, 2 ** 64, 2 ** 64 + 1, -2 ** 63, 10 ** 30,
               1e308, -1e308, 1e-320, 0.5, -0.0, 64.0, "64", "", "\u0000", "silu\u0000", "ллама", "\ud83d\ude00",
               None, True, False, [], [64], {}, {"type": "default"}, [[[[1]]]]]


SANITIZED = False  # set in main: AddressSanitizer reserves terabytes of shadow address space


def limit_memory():
    # 3 GB of address space: enough for the tiny layers, far below what a hostile shape asks.
    # Under ASan an address-space limit cannot hold (its shadow mapping alone is ~15 TB of
    # reserved addresses); ASan's own allocator limit (ASAN_OPTIONS below) bounds memory then.
    if not SANITIZED:
        lim = 3 * 1024 ** 3
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def deep(depth, kind):
    return ("[" * depth + "]" * depth) if kind == 0 else ('{"a":' * depth + "1" + "}" * depth)


# ---------------------------------------------------------------------------------------------
# config mutations: each returns the bytes of a config file

def mutate_config(rng, cfg):
    text = json.dumps(cfg)
    keys = list(cfg)
    op = rng.randrange(12)
    c = dict(cfg)
    if op == 0:  # drop 1..3 keys
        for k in rng.sample(keys, rng.randint(1, 3)):
            c.pop(k, None)
    elif op in (1, 2, 3):  # one key, one evil value
        c[rng.choice(keys)] = rng.choice(EVIL_VALUES)
    elif op == 4:  # several keys at once
        for k in rng.sample(keys, 4):
            c[k] = rng.choice(EVIL_VALUES)
    elif op == 5:  # deep nesting under a key (read or ignored)
        k = rng.choice(keys + ["unrelated_key"])
        body = json.dumps({x: v for x, v in c.items() if x != k})
        return (body[:-1] + (", " if len(body) > 2 else "") + json.dumps(k) + ": " +
                deep(rng.choice([100, 10000, 200000]), rng.randrange(2)) + "}").encode()
    elif op == 6:  # rope_scaling / rope_parameters
        rs = rng.choice([{"rope_type": "yarn"}, {"type": "linear"}, {"rope_type": "llama3", "factor": 8.0},
                         {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
                          "original_max_position_embeddings": 0},
                         {"rope_type": "yarn", "factor": rng.choice(EVIL_VALUES), "beta_fast": rng.choice(EVIL_VALUES)},
                         {"rope_type": rng.choice(EVIL_VALUES)}, {"factor": 2.0}, "default", [1, 2],
                         {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2 ** 40,
                          "attention_factor": -1}])
        c[rng.choice(["rope_scaling", "rope_parameters"])] = rs
        c["rope_theta"] = rng.choice([10000.0, 1.0, 0, -5, 1e300, "1e4", None])
    elif op == 7:  # random bytes, or a valid prefix followed by bytes
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        return raw if rng.random() < 0.5 else text.encode()[:rng.randint(0, len(text))] + raw
    elif op == 8:  # truncation
        return text.encode()[:rng.randint(0, len(text) - 1)]
    elif op == 9:  # duplicate keys, the later one hostile
        k = rng.choice(keys)
        return (text[:-1] + ", " + json.dumps(k) + ": " + json.dumps(rng.choice(EVIL_VALUES)) + "}").encode()
    elif op == 10:  # a non-object top level, or unicode noise in keys/strings
        if rng.random() < 0.5:
            return json.dumps(rng.choice([[cfg], "config", 42, None, [], True])).encode()
        c = {(k + "\u200b" if rng.random() < 0.2 else k): v for k, v in c.items()}
        c["model_type"] = rng.choice(["llama", "LLAMA", "llama ", "l\u0000lama", "qwen3\u2028", "ллама"])
    else:  # shapes that are consistent but large, or inconsistent with each other
        c["num_attention_heads"] = rng.choice([1, 3, 5, 64, 1 << 20])
        c["num_key_value_heads"] = rng.choice([1, 2, 3, 64, 1 << 20])
        c["head_dim"] = rng.choice([2, 8, 33, 1024, 1 << 20, None])
        c["hidden_size"] = rng.choice([8, 64, 4096, 1 << 20])
        c["intermediate_size"] = rng.choice([1, 160, 1 << 20])
    enc = json.dumps(c, ensure_ascii=rng.random() < 0.5)
    return enc.encode("utf-8", "surrogatepass")


# ---------------------------------------------------------------------------------------------
# safetensors mutations: each returns the bytes of a weights file

def expected_weights(cfg, layer=0):
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads") or nh
    hd = cfg.get("head_dim") or h // nh
    inter, t = cfg["intermediate_size"], cfg["model_type"]
    p = "model.layers.%d." % layer
    w = [("input_layernorm.weight", [h]), ("self_attn.q_proj.weight", [nh * hd, h]),
         ("self_attn.k_proj.weight", [kv * hd, h]), ("self_attn.v_proj.weight", [kv * hd, h]),
         ("self_attn.o_proj.weight", [h, nh * hd]), ("post_attention_layernorm.weight", [h]),
         ("mlp.gate_proj.weight", [inter, h]), ("mlp.up_proj.weight", [inter, h]), ("mlp.down_proj.weight", [h, inter])]
    if t == "qwen2":
        w += [("self_attn.q_proj.bias", [nh * hd]), ("self_attn.k_proj.bias", [kv * hd]),
              ("self_attn.v_proj.bias", [kv * hd])]
    if t == "qwen3":
        w += [("self_attn.q_norm.weight", [hd]), ("self_attn.k_norm.weight", [hd])]
    return [(p + n, s) for n, s in w]


def build_weights(rng, cfg):
    """A valid file: header dict, data bytes (values small, BF16 or F32)."""
    header, data = {"__metadata__": {"format": "pt"}}, bytearray()
    for name, shape in expected_weights(cfg):
        n = 1
        for d in shape:
            n *= d
        dt = rng.choice(["BF16", "F32", "F16"])
        size = {"F32": 4}.get(dt, 2)
        raw = bytearray(n * size)
        for i in range(0, len(raw), size):  # a value in about [-0.25, 0.25]: top byte 0x3e/0xbe
            raw[i + size - 1] = rng.choice([0x3E, 0xBE]) if dt != "F16" else rng.choice([0x34, 0xB4])
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    return header, data


def pack(header_text, data, length=None):
    h = header_text.encode("utf-8", "surrogatepass") if isinstance(header_text, str) else header_text
    return struct.pack("<Q", len(h) if length is None else length) + h + bytes(data)


def mutate_weights(rng, cfg):
    header, data = build_weights(rng, cfg)
    names = [k for k in header if k != "__metadata__"]
    text = json.dumps(header)
    op = rng.randrange(12)
    if op == 0:  # flip bytes anywhere in the header text
        b = bytearray(text.encode())
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return pack(bytes(b), data)
    if op == 1:  # flip bytes in the data (any value is a valid float: must succeed or refuse)
        for _ in range(rng.randint(1, 50)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return pack(text, data)
    if op == 2:  # truncate the file anywhere
        full = pack(text, data)
        return full[:rng.randrange(len(full))]
    if op == 3:  # header length: huge, off by a little, or beyond the file
        full_len = len(text.encode())
        length = rng.choice([2 ** 64 - 1, 2 ** 63, 2 ** 32, 100 * 1000 * 1000 + 1, full_len + 1, full_len - 1,
                             full_len + len(data), full_len + len(data) + 1, 0, 1])
        return pack(text, data, length)
    if op == 4:  # flip bytes in the 8-byte length prefix
        b = bytearray(pack(text, data))
        b[rng.randrange(8)] ^= 1 << rng.randrange(8)
        return bytes(b)
    e = header[rng.choice(names)]
    if op == 5:  # overlapping / aliased spans of the right size
        other = header[rng.choice(names)]
        size = e["data_offsets"][1] - e["data_offsets"][0]
        start = rng.choice([0, other["data_offsets"][0], max(0, len(data) - size), 1])
        e["data_offsets"] = [start, start + size]
    elif op == 6:  # wrong offsets
        a, b = e["data_offsets"]
        e["data_offsets"] = rng.choice([[b, a], [a, b + 2], [a, len(data) + 8], [a - 1 if a else 1, b], [a],
                                        [a, b, b], [float(a), float(b)], [-1, b], [a, 2 ** 64], ["0", "2"],
                                        None, {"a": 1}])
    elif op == 7:  # wrong dtype
        e["dtype"] = rng.choice(["I8", "I32", "U8", "F64", "BOOL", "F8_E4M3", "F4", "bf16", "", "F32\u0000", 16,
                                 None, ["F32"]])
    elif op == 8:  # wrong shape
        s = e["shape"]
        e["shape"] = rng.choice([s[::-1], s + [1], [1] + s, [], [0], [-1] + s[1:], [2 ** 40, 2 ** 40],
                                 [2 ** 64 - 1, 2], [1.0] * len(s), ["1"], None, [[1]]])
    elif op == 9:  # hostile metadata, entries and names
        header["__metadata__"] = rng.choice([[], "x", {"a": {"b": [1] * 1000}}, {"k": 1}, None,
                                             json.loads(deep(200, 0))])
        header[rng.choice(["", "\u0000", "model.layers.0.ln\ud800", "x" * 10000])] = rng.choice(
            [1, [], {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, {}])
    elif op == 10:  # deep nesting inside an entry, or a non-object header
        if rng.random() < 0.5:
            raw = text[:-1] + ', "zz": ' + deep(rng.choice([1000, 100000]), rng.randrange(2)) + "}"
            return pack(raw, data)
        return pack(json.dumps(rng.choice([[], 1, "s", None])), data)
    else:  # duplicate tensor name (the later one hostile), or trailing padding (allowed)
        if rng.random() < 0.5:
            n = rng.choice(names)
            raw = text[:-1] + ", " + json.dumps(n) + ': {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}'
            return pack(raw, data)
        return pack(text + " " * rng.randint(1, 7), data)
    return pack(json.dumps(header, ensure_ascii=rng.random() < 0.5), data)


# ---------------------------------------------------------------------------------------------

def random_options(rng):
    opts = []
    if rng.random() < 0.3:
        opts += ["--phase", "decode", "--kv-len", str(rng.choice([1, 3, 17]))]
    else:
        opts += ["--seq", str(rng.choice([1, 3, 8]))]
    if rng.random() < 0.2:
        opts += ["--batch", str(rng.choice([1, 2, 3]))]
    if rng.random() < 0.15:
        opts += ["--tp", str(rng.choice([1, 2, 3, 4, 8]))]
    if rng.random() < 0.1:
        opts += ["--cores", str(rng.choice([1, 2, 4]))]
    if rng.random() < 0.1:
        opts += ["--dtype", rng.choice(["f16", "bf16"])]
    if rng.random() < 0.15:
        opts += ["--timing-only"]
    return opts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tilefw")
    ap.add_argument("configs")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    global SANITIZED
    with open(a.tilefw, "rb") as f:
        SANITIZED = b"__asan_init" in f.read()
    if SANITIZED:  # bound the allocator instead of the address space; report, do not abort
        os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":max_allocation_size_mb=3072:allocator_may_return_null=1"
        a.cases = min(a.cases, 100)  # each instrumented run is ~10x slower; the plain build runs them all
    rng = random.Random(a.seed)
    cfgs = {}
    for n in DENSE:
        with open(os.path.join(a.configs, n + ".json")) as f:
            cfgs[n] = json.load(f)
    work = tempfile.mkdtemp(prefix="fuzz_gen_")
    failures, codes, t0 = [], {}, time.time()
    for i in range(a.cases):
        name = rng.choice(DENSE)
        cfg = cfgs[name]
        d = os.path.join(work, "%03d" % i)
        os.makedirs(d)
        cpath, wpath = os.path.join(d, "config.json"), os.path.join(d, "w.safetensors")
        kind = "weights" if rng.random() < 0.45 else "config"
        args = [a.tilefw, "gen", "--config", cpath, "--out", os.path.join(d, "out")]
        if kind == "config":
            with open(cpath, "wb") as f:
                f.write(mutate_config(rng, cfg))
            args += random_options(rng)
            if rng.random() < 0.2:  # a valid weights file next to a hostile config
                header, data = build_weights(rng, cfg)
                with open(wpath, "wb") as f:
                    f.write(pack(json.dumps(header), data))
                args += ["--weights", wpath]
        else:
            with open(cpath, "w") as f:
                json.dump(cfg, f)
            with open(wpath, "wb") as f:
                f.write(mutate_weights(rng, cfg))
            args += ["--weights", wpath, "--seq", str(rng.choice([1, 4]))]
            if rng.random() < 0.15:
                args += ["--timing-only"]
        before = set(os.listdir(d))
        what = "case %d (%s, %s): %s" % (i, name, kind, " ".join(args[2:]))
        try:
            p = subprocess.run(args, capture_output=True, timeout=a.timeout, preexec_fn=limit_memory)
        except subprocess.TimeoutExpired:
            failures.append(what + ": hung (> %g s)" % a.timeout)
            continue
        rc = p.returncode
        codes[rc] = codes.get(rc, 0) + 1
        err = p.stderr.decode("utf-8", "replace").strip()[-300:]
        after = set(os.listdir(d))
        if rc < 0:
            failures.append("%s: killed by signal %d: %s" % (what, -rc, err))
        elif rc not in (0, 1, 2):
            failures.append("%s: exit %d: %s" % (what, rc, err))
        elif rc != 0 and not err:
            failures.append("%s: exit %d without a message" % (what, rc))
        stray = sorted(x for x in after - before if x != "out" or rc != 0)
        if stray:
            failures.append("%s: exit %d left %s" % (what, rc, stray))
        if rc == 0 and not os.path.exists(os.path.join(d, "out", "manifest.json")):
            failures.append("%s: exit 0 without out/manifest.json" % what)
        if a.keep:
            with open(os.path.join(d, "result.txt"), "w") as f:
                f.write("%s\nexit %d\n%s\n" % (what, rc, err))
        else:
            shutil.rmtree(d, ignore_errors=True)
    took = time.time() - t0
    for f in failures:
        print("FAIL: " + f)
    print("%d cases in %.1f s, exit codes %s, %d failures" %
          (a.cases, took, dict(sorted(codes.items())), len(failures)))
    if a.keep or failures:
        print("work directory: " + work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
