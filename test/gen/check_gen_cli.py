#!/usr/bin/env python3
"""`tilefw gen` command-line contract (docs/generator.md section 2, and in its section 3 Rule:
config.json as is and Rule: Megatron tensor parallelism; --timing-only as section 2.1 gives it).

Usage: check_gen_cli.py TILEFW CONFIGS_DIR MODELS_DIR [GEN_REF_CHECK]

Checks, each by exit code and by the message naming the key / option / tensor:
  - --help lists every option of the contract;
  - exit 2 on bad configs, bad options, bad --out and bad --weights files, and after every
    failure: no --out created, no hidden `.NAME.tmp-PID` sibling left, an existing --out intact;
  - exit 0: --force, --timing-only (no .bin), extra tensors ignored, F32/F16/BF16 weights
    converted (round to nearest even) to the model dtype byte for byte, manifest weights[] /
    inputs[] / outputs[] / report, the default tp of Rule: Megatron tensor parallelism;
  - end to end: `tilefw run` + gen_ref_check on a layer generated from a safetensors file, and
    again after replacing hidden_states.bin (the output follows the new input).
Python 3 standard library only; the safetensors files are written by the small helper below.
"""
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

FAILURES = []
CHECKS = 0


def check(cond, what):
    global CHECKS
    CHECKS += 1
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what)


def run(args, timeout=120):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


# ---------------------------------------------------------------------------------------------
# safetensors writer and number formats

def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f32_to_bf16_bits(b):
    """binary32 bits -> bfloat16 bits, round to nearest even (finite inputs)."""
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def f32_to_f16_bits(b):
    """binary32 bits -> binary16 bits, round to nearest even (struct 'e' rounds RNE from the
    double, which holds the float exactly)."""
    return struct.unpack("<H", struct.pack("<e", bits_f32(b)))[0]


def f16_bits_to_f32_bits(h):
    return f32_bits(struct.unpack("<e", struct.pack("<H", h))[0])


def encode(values_f32_bits, dtype):
    """A list of binary32 bit patterns -> bytes of `dtype` (F32 exact, F16/BF16 RNE)."""
    if dtype == "F32":
        return struct.pack("<%dI" % len(values_f32_bits), *values_f32_bits)
    conv = f32_to_f16_bits if dtype == "F16" else f32_to_bf16_bits
    return struct.pack("<%dH" % len(values_f32_bits), *[conv(b) for b in values_f32_bits])


def decode_to_f32_bits(data, dtype):
    if dtype == "F32":
        return list(struct.unpack("<%dI" % (len(data) // 4), data))
    hs = struct.unpack("<%dH" % (len(data) // 2), data)
    if dtype == "F16":
        return [f16_bits_to_f32_bits(h) for h in hs]
    return [h << 16 for h in hs]


def write_safetensors(path, tensors, metadata=None, header_override=None):
    """tensors: list of (name, dtype, shape, bytes). Writes 8-byte LE header length, the JSON
    header (data_offsets relative to the data section), then the data."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    data = b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = (header_override if header_override is not None else json.dumps(header)).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.write(data)


def expected_weights(cfg, layer):
    """(name, shape) of every tensor of model.layers.N, from the config as transformers builds
    the layer (independent of the generator)."""
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads") or nh
    hd = cfg.get("head_dim") or h // nh
    inter, t = cfg["intermediate_size"], cfg["model_type"]
    p = "model.layers.%d." % layer
    w = [(p + "input_layernorm.weight", [h]),
         (p + "self_attn.q_proj.weight", [nh * hd, h]),
         (p + "self_attn.k_proj.weight", [kv * hd, h]),
         (p + "self_attn.v_proj.weight", [kv * hd, h]),
         (p + "self_attn.o_proj.weight", [h, nh * hd]),
         (p + "post_attention_layernorm.weight", [h]),
         (p + "mlp.gate_proj.weight", [inter, h]),
         (p + "mlp.up_proj.weight", [inter, h]),
         (p + "mlp.down_proj.weight", [h, inter])]
    qkv_bias = t == "qwen2" or (t in ("llama", "qwen3") and cfg.get("attention_bias"))
    if qkv_bias:
        w += [(p + "self_attn.q_proj.bias", [nh * hd]), (p + "self_attn.k_proj.bias", [kv * hd]),
              (p + "self_attn.v_proj.bias", [kv * hd])]
    if t in ("llama", "qwen3") and cfg.get("attention_bias"):
        w.append((p + "self_attn.o_proj.bias", [h]))
    if t == "llama" and cfg.get("mlp_bias"):
        w += [(p + "mlp.gate_proj.bias", [inter]), (p + "mlp.up_proj.bias", [inter]), (p + "mlp.down_proj.bias", [h])]
    if t == "qwen3":
        w += [(p + "self_attn.q_norm.weight", [hd]), (p + "self_attn.k_norm.weight", [hd])]
    return w


def tensor_values(rng, name, shape):
    """binary32 bit patterns: norms near 1, linear weights ~ U(-1,1)/sqrt(in), plus a few exact
    rounding ties and f16-subnormal values so the conversion's rounding is exercised."""
    n = 1
    for d in shape:
        n *= d
    if name.endswith("norm.weight"):
        vals = [f32_bits(1.0 + 0.1 * rng.uniform(-1, 1)) for _ in range(n)]
    else:
        scale = 1.0 / math.sqrt(shape[1]) if len(shape) == 2 else 0.1
        vals = [f32_bits(scale * rng.uniform(-1, 1)) for _ in range(n)]
    specials = [0x3F808000, 0x3F818000, 0xBF808000,  # bf16 ties (even down, odd up, negative)
                0x3F801000, 0x3F803000,              # f16 ties: bit 12 set, below zero
                f32_bits(3e-6), f32_bits(-7.5e-7),   # f16 subnormals
                f32_bits(0.0), f32_bits(-0.0)]
    for i, s in enumerate(specials):
        if 3 * i + 1 < n:
            vals[3 * i + 1] = s
    return vals


# ---------------------------------------------------------------------------------------------

class Ctx:
    def __init__(self, tilefw, configs, models, ref_check, work):
        self.tilefw, self.configs, self.models, self.ref, self.work = tilefw, configs, models, ref_check, work
        self.n = 0

    def cfg_path(self, name):
        return os.path.join(self.configs, name + ".json")

    def cfg(self, name):
        with open(self.cfg_path(name)) as f:
            return json.load(f)

    def fresh(self, tag):
        """A new empty parent directory (so its listing can be compared) and an --out in it."""
        self.n += 1
        parent = os.path.join(self.work, "%02d_%s" % (self.n, tag))
        os.makedirs(parent)
        return parent, os.path.join(parent, "out")

    def write_config(self, parent, cfg, name="config.json"):
        path = os.path.join(parent, name)
        with open(path, "w") as f:
            json.dump(cfg, f)
        return path

    def gen(self, args):
        return run([self.tilefw, "gen"] + args)


def listing(d):
    return sorted(os.listdir(d))


def expect_fail(ctx, tag, args, needles, parent_files=(), code=2, out=None, parent=None):
    """Runs gen expecting `code`; the message must contain every needle; the parent directory
    must hold exactly what it held before (no --out, no hidden temporary sibling)."""
    if parent is None:
        parent, out = ctx.fresh(tag)
    before = listing(parent)
    rc, msg = ctx.gen(args + ["--out", out])
    check(rc == code, "%s: exit %d, expected %d: %s" % (tag, rc, code, msg.strip()[-300:]))
    for n in needles:
        check(n in msg, "%s: message does not name %r: %s" % (tag, n, msg.strip()[-300:]))
    check(listing(parent) == before, "%s: parent directory changed: %s -> %s" % (tag, before, listing(parent)))
    return parent, out


def test_help(ctx):
    rc, msg = ctx.gen(["--help"])
    check(rc == 0, "gen --help exits %d" % rc)
    for opt in ["--config", "--out", "--layer", "--phase", "--batch", "--seq", "--kv-len", "--cores", "--tp",
                "--ep", "--dtype", "--weights", "--seed", "--capacity-factor", "--timing-only", "--force",
                "--prefill-chunk", "--decode-chunk"]:
        check(opt in msg, "gen --help does not list " + opt)


def test_bad_configs(ctx):
    base = ctx.cfg("llama_gqa")
    cases = [
        ("model_type", dict(base, model_type="gpt2"), ["model_type"]),
        ("hidden_act", dict(base, hidden_act="relu2"), ["hidden_act"]),
        ("rope_type", dict(base, rope_scaling={"rope_type": "dynamic2", "factor": 2.0}), ["rope_type"]),
        ("rope_type_old", dict(base, rope_scaling={"type": "ntk-by-parts", "factor": 2.0}), ["type"]),
        ("quantization", dict(base, quantization_config={"quant_method": "fp8"}), ["quantization_config"]),
        ("torch_dtype", dict(base, torch_dtype="float32"), ["torch_dtype"]),
        ("negative", dict(base, intermediate_size=-5), ["intermediate_size"]),
        ("string_num", dict(base, hidden_size="64"), ["hidden_size"]),
    ]
    for key in ["hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers", "rms_norm_eps",
                "model_type"]:
        c = dict(base)
        del c[key]
        cases.append(("missing_" + key, c, [key]))
    for tag, cfg, needles in cases:
        parent, out = ctx.fresh("cfg_" + tag)
        path = ctx.write_config(parent, cfg)
        expect_fail(ctx, "config " + tag, ["--config", path, "--seq", "4"], needles, parent=parent, out=out)
    # Malformed JSON, and a --config that does not exist or is a directory.
    parent, out = ctx.fresh("cfg_malformed")
    path = os.path.join(parent, "config.json")
    with open(path, "w") as f:
        f.write(json.dumps(base)[:-20])
    expect_fail(ctx, "malformed JSON", ["--config", path], ["JSON"], parent=parent, out=out)
    expect_fail(ctx, "missing --config", ["--config", os.path.join(ctx.work, "nope.json")], ["--config", "nope.json"])
    expect_fail(ctx, "--config directory", ["--config", ctx.configs], ["--config"])


def test_bad_options(ctx):
    cfg = ctx.cfg_path("llama_gqa")
    c = ["--config", cfg]
    expect_fail(ctx, "--tp 3 with 4 heads", c + ["--tp", "3", "--seq", "4"], ["--tp"])
    expect_fail(ctx, "--tp 0", c + ["--tp", "0", "--seq", "4"], ["--tp"])
    expect_fail(ctx, "--seq 0", c + ["--seq", "0"], ["--seq"])
    expect_fail(ctx, "--seq -1", c + ["--seq", "-1"], ["--seq"])
    expect_fail(ctx, "--batch 0", c + ["--batch", "0", "--seq", "4"], ["--batch"])
    expect_fail(ctx, "decode without --kv-len", c + ["--phase", "decode"], ["--kv-len"])
    expect_fail(ctx, "decode --kv-len 0", c + ["--phase", "decode", "--kv-len", "0"], ["--kv-len"])
    expect_fail(ctx, "--phase bogus", c + ["--phase", "training"], ["--phase"])
    expect_fail(ctx, "--layer >= num_hidden_layers", c + ["--layer", "2", "--seq", "4"], ["--layer", "num_hidden_layers"])
    expect_fail(ctx, "--ep above --cores", c + ["--ep", "9", "--seq", "4"], ["--ep"])
    expect_fail(ctx, "--ep above --cores 4", c + ["--cores", "4", "--ep", "5", "--seq", "4"], ["--ep"])
    expect_fail(ctx, "--cores 9", c + ["--cores", "9", "--seq", "4"], ["--cores"])
    expect_fail(ctx, "--dtype f32", c + ["--dtype", "f32", "--seq", "4"], ["--dtype"])
    expect_fail(ctx, "--capacity-factor nan", c + ["--capacity-factor", "nan", "--seq", "4"], ["--capacity-factor"])
    expect_fail(ctx, "--prefill-chunk not dividing --seq", c + ["--prefill-chunk", "3", "--seq", "8"], ["--prefill-chunk"])
    expect_fail(ctx, "--decode-chunk in prefill", c + ["--decode-chunk", "1", "--seq", "4"], ["--decode-chunk"])
    expect_fail(ctx, "--decode-chunk not dividing --batch",
                c + ["--phase", "decode", "--kv-len", "3", "--batch", "6", "--decode-chunk", "4"], ["--decode-chunk"])
    expect_fail(ctx, "--kv-len beyond max_position_embeddings",
                c + ["--phase", "decode", "--kv-len", "5000"], ["max_position_embeddings"])
    expect_fail(ctx, "unknown option", c + ["--bogus", "1"], ["--bogus"])
    # --out: non-empty without --force is refused and left untouched; '.', '' are refused.
    parent, out = ctx.fresh("out_nonempty")
    os.makedirs(out)
    with open(os.path.join(out, "keep.txt"), "w") as f:
        f.write("user data")
    expect_fail(ctx, "non-empty --out", c + ["--seq", "4"], ["--out", "--force"], parent=parent, out=out)
    check(listing(out) == ["keep.txt"], "non-empty --out was modified")
    # The same refusal with a trailing slash; and a failing generation with --force keeps it.
    expect_fail(ctx, "non-empty --out/", c + ["--seq", "4"], ["--out"], parent=parent, out=out + "/")
    expect_fail(ctx, "--force but bad option", c + ["--seq", "0", "--force"], ["--seq"], parent=parent, out=out)
    check(listing(out) == ["keep.txt"], "non-empty --out was modified by a failed --force run")
    expect_fail(ctx, "--out is a file", c + ["--seq", "4"], ["--out"], parent=out, out=os.path.join(out, "keep.txt"))
    for bad in [".", ""]:
        rc, msg = ctx.gen(c + ["--seq", "4", "--force", "--out", bad])
        check(rc == 2 and "--out" in msg, "--out %r: exit %d: %s" % (bad, rc, msg.strip()[-200:]))
    expect_fail(ctx, "--out parent missing", c + ["--seq", "4"], ["--out"],
                parent=ctx.work, out=os.path.join(ctx.work, "no", "such", "dir"))


def weights_for(ctx, cfg, layer, dtypes, seed=1):
    """[(name, dtype, shape, bytes)] of the layer's tensors, dtypes cycling through `dtypes`,
    and {name: binary32 bits as written} (after the source dtype's own rounding)."""
    rng = random.Random(seed)
    tensors, written = [], {}
    for i, (name, shape) in enumerate(expected_weights(cfg, layer)):
        dt = dtypes[i % len(dtypes)]
        raw = encode(tensor_values(rng, name, shape), dt)
        tensors.append((name, dt, shape, raw))
        written[name] = decode_to_f32_bits(raw, dt)
    return tensors, written


def test_bad_weights(ctx):
    cfgname = "llama_gqa"
    cfg = ctx.cfg(cfgname)
    c = ["--config", ctx.cfg_path(cfgname), "--seq", "4"]
    tensors, _ = weights_for(ctx, cfg, 0, ["BF16"])
    victim = "model.layers.0.self_attn.k_proj.weight"

    def case(tag, needles, **kw):
        parent, out = ctx.fresh("w_" + tag)
        path = os.path.join(parent, "w.safetensors")
        mutate = kw.pop("mutate", None)
        ts = kw.pop("tensors", tensors)
        write_safetensors(path, ts, **kw)
        if mutate:
            with open(path, "rb") as f:
                b = bytearray(f.read())
            b = mutate(b)
            with open(path, "wb") as f:
                f.write(b)
        expect_fail(ctx, "weights " + tag, c + ["--weights", path], needles, parent=parent, out=out)
        return parent, path

    case("missing", [victim], tensors=[t for t in tensors if t[0] != victim])
    case("shape", [victim, "shape"], tensors=[(n, d, [s[1], s[0]] if n == victim else s, r) for n, d, s, r in tensors])
    for bad in ["I8", "I32"]:
        def retype(n, d, s, r, bad=bad):
            if n != victim:
                return (n, d, s, r)
            cnt = s[0] * s[1]
            return (n, bad, s, bytes(cnt * (1 if bad == "I8" else 4)))
        case("dtype_" + bad, [victim, bad], tensors=[retype(*t) for t in tensors])
    case("truncated", ["w.safetensors"], mutate=lambda b: b[:len(b) - 100])
    case("header_json", ["w.safetensors", "JSON"], header_override='{"a": [1, 2')
    case("header_length", ["w.safetensors", "header length"], mutate=lambda b: struct.pack("<Q", len(b)) + b[8:])
    case("header_huge", ["w.safetensors", "header length"], mutate=lambda b: struct.pack("<Q", 2 ** 63) + b[8:])
    case("empty", ["w.safetensors"], mutate=lambda b: b[:0])
    case("header_array", ["w.safetensors"], header_override="[]")
    parent, out = ctx.fresh("w_nofile")
    expect_fail(ctx, "weights file missing", c + ["--weights", os.path.join(parent, "none.safetensors")],
                ["none.safetensors"], parent=parent, out=out)
    # --timing-only does not read the weights but still refuses a wrong file.
    parent, out = ctx.fresh("w_timing")
    path = os.path.join(parent, "w.safetensors")
    write_safetensors(path, [t for t in tensors if t[0] != victim])
    expect_fail(ctx, "timing-only weights missing", c + ["--timing-only", "--weights", path], [victim],
                parent=parent, out=out)


def load_manifest(out):
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def check_conversion(ctx, cfgname, dtypes, dtype_opt, expect_dtype):
    cfg = ctx.cfg(cfgname)
    parent, out = ctx.fresh("conv_%s_%s" % (cfgname, expect_dtype))
    tensors, written = weights_for(ctx, cfg, 1, dtypes, seed=7)
    # Extra tensors (other layers, embeddings, a non-float dtype) are ignored.
    extra = [("model.embed_tokens.weight", "BF16", [4, cfg["hidden_size"]], bytes(8 * cfg["hidden_size"])),
             ("model.layers.0.self_attn.q_proj.weight", "I8", [2, 2], bytes(4)),
             ("lm_head.weight", "F32", [1], bytes(4))]
    path = os.path.join(parent, "w.safetensors")
    write_safetensors(path, extra[:1] + tensors + extra[1:], metadata={"format": "pt"})
    args = ["--config", ctx.cfg_path(cfgname), "--layer", "1", "--seq", "4", "--weights", path, "--out", out]
    rc, msg = ctx.gen(args + dtype_opt)
    check(rc == 0, "conversion %s %s: exit %d: %s" % (cfgname, dtypes, rc, msg.strip()[-300:]))
    if rc != 0:
        return
    m = load_manifest(out)
    conv = {"f16": f32_to_f16_bits, "bf16": f32_to_bf16_bits}[expect_dtype]
    by_name = {w["name"]: w for w in m["weights"]}
    check(set(by_name) == set(written), "conversion: weights[] names %s" % sorted(set(by_name) ^ set(written)))
    blobs = {}
    for name, bits in written.items():
        w = by_name.get(name)
        if w is None:
            continue
        check(w["dtype"] == expect_dtype, "%s: dtype %s, expected %s" % (name, w["dtype"], expect_dtype))
        f = w["file"]
        if f not in blobs:
            with open(os.path.join(out, f), "rb") as fh:
                blobs[f] = fh.read()
        got = blobs[f][w["file_offset"]:w["file_offset"] + w["bytes"]]
        want = struct.pack("<%dH" % len(bits), *[conv(b) for b in bits])
        check(w["bytes"] == len(want), "%s: bytes %d, expected %d" % (name, w["bytes"], len(want)))
        if got != want:
            i = next(k for k in range(0, min(len(got), len(want)), 2) if got[k:k + 2] != want[k:k + 2]) \
                if len(got) == len(want) else -1
            check(False, "%s: converted bytes differ (%s -> %s, first at byte %d)" % (name, dtypes, expect_dtype, i))


def check_manifest_layout(ctx, cfgname, m, layer, batch, seq, kv_len, phase, dtype):
    cfg = ctx.cfg(cfgname)
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads") or nh
    hd = cfg.get("head_dim") or h // nh
    got = sorted((w["name"], w["shape"]) for w in m["weights"])
    check(got == sorted(expected_weights(cfg, layer)), "%s: weights[] %s" % (cfgname, got))
    ins = {i["name"]: i for i in m["inputs"]}
    outs = {o["name"]: o for o in m["outputs"]}
    hs = ins.get("hidden_states", {})
    check(hs.get("dtype") == "f32" and hs.get("shape") == [batch, seq, h], "%s: hidden_states %s" % (cfgname, hs))
    for k in ["name", "shape", "dtype", "device_addr", "bytes", "file", "file_offset"]:
        check(k in hs, "%s: inputs[hidden_states] lacks %s" % (cfgname, k))
    if phase == "decode":
        for n in ["past_key", "past_value"]:
            e = ins.get(n, {})
            check(e.get("shape") == [batch, kv, kv_len, hd] and e.get("dtype") == dtype,
                  "%s: %s %s" % (cfgname, n, e))
    else:
        check("past_key" not in ins, "%s: past_key in prefill" % cfgname)
    o = outs.get("hidden_states_out", {})
    check(o.get("dtype") == "f32" and o.get("shape") == [batch, seq, h], "%s: hidden_states_out %s" % (cfgname, o))
    for n in ["present_key", "present_value"]:
        e = outs.get(n, {})
        check(e.get("shape") == [batch, kv, seq, hd] and e.get("dtype") == dtype, "%s: %s %s" % (cfgname, n, e))
    r = m.get("report", {})
    want = {"model_type": cfg["model_type"], "layer": layer, "phase": phase, "batch": batch, "seq": seq,
            "kv_len": kv_len, "cores": 8, "dtype": dtype}
    for k, v in want.items():
        check(r.get(k) == v, "%s: report.%s = %r, expected %r" % (cfgname, k, r.get(k), v))
    for k in ["tp", "ep", "flops", "bytes_ddr"]:
        check(isinstance(r.get(k), int) and r.get(k) > 0, "%s: report.%s = %r" % (cfgname, k, r.get(k)))
    cmds = r.get("commands", [])
    check(len(cmds) == 8 and all(set(c) >= {"tiu", "gdma", "sdma"} for c in cmds),
          "%s: report.commands %s" % (cfgname, cmds))
    for c, core in zip(cmds, m.get("cores", [])):
        for e in ["tiu", "gdma", "sdma"]:
            check(c.get(e) == core[e]["commands"], "%s: report.commands vs cores[].%s" % (cfgname, e))
    # flops: 2 x multiply-adds of the linear layers, plus QK^T and PV over the causal span.
    q, k = nh * hd, kv * hd
    toks = batch * seq
    lin = 2 * toks * (h * q + 2 * h * k + q * h + 3 * h * cfg["intermediate_size"])
    full = 2 * 2 * batch * nh * seq * (kv_len + seq) * hd
    check(lin < r.get("flops", 0) <= lin + full, "%s: report.flops %r outside (%d, %d]" % (cfgname, r.get("flops"),
                                                                                         lin, lin + full))


def test_success(ctx):
    # Seeded generation: manifest layout in prefill and decode for each dense model type.
    for cfgname, phase in [("llama_gqa", "prefill"), ("qwen2_bias", "decode"), ("qwen3_qknorm", "prefill"),
                           ("mistral_mqa_f16", "decode")]:
        parent, out = ctx.fresh("ok_" + cfgname)
        args = ["--config", ctx.cfg_path(cfgname), "--batch", "2", "--out", out]
        args += ["--phase", "decode", "--kv-len", "5"] if phase == "decode" else ["--seq", "6"]
        rc, msg = ctx.gen(args)
        check(rc == 0, "%s %s: exit %d: %s" % (cfgname, phase, rc, msg.strip()[-300:]))
        if rc == 0:
            dt = {"bfloat16": "bf16", "float16": "f16"}[ctx.cfg(cfgname)["torch_dtype"]]
            check_manifest_layout(ctx, cfgname, load_manifest(out), 0, 2, 1 if phase == "decode" else 6,
                                  5 if phase == "decode" else 0, phase, dt)
            check(listing(parent) == ["out"], "%s: leftovers next to --out: %s" % (cfgname, listing(parent)))
    # --force replaces a non-empty --out; an empty one needs no --force; DIR/ names DIR.
    parent, out = ctx.fresh("force")
    os.makedirs(out)
    with open(os.path.join(out, "stale.txt"), "w") as f:
        f.write("x")
    rc, msg = ctx.gen(["--config", ctx.cfg_path("llama_gqa"), "--seq", "4", "--force", "--out", out + "/"])
    check(rc == 0, "--force: exit %d: %s" % (rc, msg.strip()[-300:]))
    check(os.path.exists(os.path.join(out, "manifest.json")) and not os.path.exists(os.path.join(out, "stale.txt")),
          "--force did not replace --out: %s" % (listing(out) if os.path.isdir(out) else "gone"))
    check(listing(parent) == ["out"], "--force: leftovers next to --out: %s" % listing(parent))
    parent, out = ctx.fresh("empty_out")
    os.makedirs(out)
    rc, msg = ctx.gen(["--config", ctx.cfg_path("llama_gqa"), "--seq", "4", "--out", out])
    check(rc == 0 and os.path.exists(os.path.join(out, "manifest.json")), "empty --out: exit %d: %s" % (rc, msg))
    # --timing-only: streams and manifest, no tensor data files.
    parent, out = ctx.fresh("timing")
    rc, msg = ctx.gen(["--config", ctx.cfg_path("llama_gqa"), "--seq", "4", "--timing-only", "--out", out])
    check(rc == 0, "--timing-only: exit %d: %s" % (rc, msg.strip()[-300:]))
    if rc == 0:
        files = listing(out)
        check("manifest.json" in files and "layer.BD.0" in files and "layer.GDMA.7" in files and "layer.SDMA.3" in files,
              "--timing-only: streams/manifest missing: %s" % files)
        check(not any(f.endswith(".bin") for f in files), "--timing-only wrote data files: %s" % files)
    # Default tp (Rule: Megatron tensor parallelism).
    for cfgpath, want, extra in [(os.path.join(ctx.models, "llama-3-8b.json"), 8, ["--seq", "16"]),
                                 (ctx.cfg_path("mistral_mqa_f16"), 3, ["--seq", "4"]),
                                 (ctx.cfg_path("llama_gqa"), 4, ["--seq", "4"])]:
        parent, out = ctx.fresh("tp")
        rc, msg = ctx.gen(["--config", cfgpath, "--timing-only", "--out", out] + extra)
        tp = load_manifest(out)["report"].get("tp") if rc == 0 else None
        check(rc == 0 and tp == want, "default tp of %s: exit %d, tp %r, expected %d: %s" %
              (os.path.basename(cfgpath), rc, tp, want, msg.strip()[-200:]))
    # Weights conversion: F32 / F16 / BF16 sources to bf16 and to f16 (--dtype overrides).
    check_conversion(ctx, "llama_gqa", ["F32", "F16", "BF16"], [], "bf16")
    check_conversion(ctx, "llama_gqa", ["BF16", "F32", "F16"], ["--dtype", "f16"], "f16")
    check_conversion(ctx, "mistral_mqa_f16", ["F16", "BF16", "F32"], [], "f16")
    check_conversion(ctx, "qwen2_bias", ["F32"], [], "bf16")


def read_f32(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%df" % (len(b) // 4), b)


def test_end_to_end(ctx):
    if not ctx.ref:
        print("SKIP end to end: no gen_ref_check")
        return
    cfgname = "llama_gqa"
    cfg = ctx.cfg(cfgname)
    parent, out = ctx.fresh("e2e")
    tensors, _ = weights_for(ctx, cfg, 1, ["F32", "BF16", "F16"], seed=3)
    path = os.path.join(parent, "w.safetensors")
    write_safetensors(path, tensors)
    rc, msg = ctx.gen(["--config", ctx.cfg_path(cfgname), "--layer", "1", "--batch", "2", "--seq", "5",
                       "--weights", path, "--out", out])
    check(rc == 0, "e2e gen: exit %d: %s" % (rc, msg.strip()[-300:]))
    if rc != 0:
        return
    man = os.path.join(out, "manifest.json")

    def run_and_check(tag):
        rdir = os.path.join(parent, "run_" + tag)
        rc, msg = run([ctx.tilefw, "run", "--manifest", man, "--out", rdir])
        check(rc == 0, "e2e %s: tilefw run exit %d: %s" % (tag, rc, msg.strip()[-300:]))
        rc, msg = run([ctx.ref, "--config", ctx.cfg_path(cfgname), "--gen", out, "--run", rdir])
        check(rc == 0, "e2e %s: gen_ref_check exit %d: %s" % (tag, rc, msg.strip()[-500:]))
        return read_f32(os.path.join(rdir, "hidden_states_out.dat"))

    first = run_and_check("first")
    hs = os.path.join(out, "hidden_states.bin")
    size = os.path.getsize(hs)
    rng = random.Random(11)
    with open(hs, "wb") as f:
        f.write(struct.pack("<%df" % (size // 4), *[rng.uniform(-2, 2) for _ in range(size // 4)]))
    second = run_and_check("replaced_input")
    check(first != second, "e2e: replacing hidden_states.bin did not change the output")


def test_moe_inputs(ctx):
    """MoE bad inputs (docs/generator.md section 2, exit status): each exit 2 naming the key, option or tensor."""
    base = ctx.cfg("mixtral_tiny")
    cases = [
        ("topk_above_experts", dict(base, num_experts_per_tok=6), ["num_experts_per_tok"]),
        ("no_experts_key", {k: v for k, v in base.items() if k != "num_local_experts"}, ["num_local_experts"]),
    ]
    with open(os.path.join(ctx.models, "deepseek-v3.json")) as f:
        ds = json.load(f)
    cases.append(("n_group", dict(ds, n_group=7), ["n_group"]))
    cases.append(("topk_group", dict(ds, topk_group=9), ["topk_group"]))
    cases.append(("scoring_func", dict(ds, scoring_func="softmax"), ["scoring_func"]))
    cases.append(("topk_method", dict(ds, topk_method="greedy"), ["topk_method"]))
    tiny_ds = ctx.cfg("deepseek_v3_nolora")  # 6 experts in 2 groups of 3, 1 group kept
    cases.append(("topk_beyond_kept_groups", dict(tiny_ds, num_experts_per_tok=4), ["num_experts_per_tok"]))
    cases.append(("one_expert_groups", dict(tiny_ds, n_group=6, topk_group=2), ["n_group"]))
    for tag, cfg, needles in cases:
        parent, out = ctx.fresh("moe_" + tag)
        path = ctx.write_config(parent, cfg)
        expect_fail(ctx, "moe config " + tag, ["--config", path, "--seq", "4", "--dtype", "bf16", "--layer", "1"], needles,
                    parent=parent, out=out)
    c = ["--config", ctx.cfg_path("mixtral_tiny"), "--seq", "4"]
    expect_fail(ctx, "moe --ep above --cores", c + ["--cores", "4", "--ep", "6"], ["--ep"])
    # A weights file with every tensor of the layer but the router: exit 2 naming the router.
    parent, out = ctx.fresh("moe_router_missing")
    rc, msg = ctx.gen(c + ["--out", out])
    check(rc == 0, "mixtral gen exits %d: %s" % (rc, msg[-300:]))
    with open(os.path.join(out, "manifest.json")) as f:
        weights = json.load(f)["weights"]
    router = "model.layers.0.block_sparse_moe.gate.weight"
    check(any(w["name"] == router for w in weights), "weights[] lists the router")
    check(sum(".experts." in w["name"] for w in weights) == 3 * base["num_local_experts"],
          "weights[] lists w1/w2/w3 of every expert")
    tensors = []
    for w in weights:
        if w["name"] == router:
            continue
        n = 1
        for d in w["shape"]:
            n *= d
        tensors.append((w["name"], "F32", w["shape"], b"\0" * (4 * n)))
    path = os.path.join(parent, "w.safetensors")
    write_safetensors(path, tensors)
    out2 = os.path.join(parent, "out2")
    expect_fail(ctx, "moe router missing", c + ["--weights", path], [router], parent=parent, out=out2)
    # deepseek_v3: the router's correction bias is a checkpoint tensor like any other.
    parent, out = ctx.fresh("ds_bias_missing")
    d = ["--config", ctx.cfg_path("deepseek_v3_tiny"), "--seq", "4", "--layer", "1"]
    rc, msg = ctx.gen(d + ["--out", out])
    check(rc == 0, "deepseek_v3 gen exits %d: %s" % (rc, msg[-300:]))
    with open(os.path.join(out, "manifest.json")) as f:
        weights = json.load(f)["weights"]
    bias = "model.layers.1.mlp.gate.e_score_correction_bias"
    for want in (bias, "model.layers.1.self_attn.kv_a_proj_with_mqa.weight", "model.layers.1.mlp.shared_experts.down_proj.weight"):
        check(any(w["name"] == want for w in weights), "deepseek_v3 weights[] lists " + want)
    tensors = [(w["name"], "F32", w["shape"], b"\0" * (4 * prod(w["shape"]))) for w in weights if w["name"] != bias]
    path = os.path.join(parent, "w.safetensors")
    write_safetensors(path, tensors)
    expect_fail(ctx, "deepseek_v3 correction bias missing", d + ["--weights", path], [bias], parent=parent,
                out=os.path.join(parent, "out2"))
    # The published DeepSeek-V3 config generates (timing-only) once --dtype replaces its FP8.
    parent, out = ctx.fresh("ds_full")
    rc, msg = ctx.gen(["--config", os.path.join(ctx.models, "deepseek-v3.json"), "--dtype", "bf16", "--layer", "3",
                       "--phase", "decode", "--kv-len", "64", "--timing-only", "--out", out])
    check(rc == 0 and os.path.exists(os.path.join(out, "ops.json")), "DeepSeek-V3 layer 3 decode timing-only: exit %d %s" % (rc, msg[-200:]))


def prod(dims):
    n = 1
    for x in dims:
        n *= x
    return n


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__)
        return 2
    tilefw, configs, models = [os.path.abspath(a) for a in sys.argv[1:4]]
    ref = os.path.abspath(sys.argv[4]) if len(sys.argv) == 5 else None
    if ref is None:
        guess = os.path.join(os.path.dirname(os.path.dirname(tilefw)), "test", "gen", "gen_ref_check")
        ref = guess if os.path.exists(guess) else None
    work = tempfile.mkdtemp(prefix="check_gen_cli_")
    ctx = Ctx(tilefw, configs, models, ref, work)
    try:
        for t in [test_help, test_bad_configs, test_bad_options, test_bad_weights, test_moe_inputs, test_success,
                  test_end_to_end]:
            t(ctx)
        stray = [os.path.join(dp, d) for dp, dn, _ in os.walk(work) for d in dn if ".tmp-" in d or ".old-" in d]
        check(not stray, "temporary directories left behind: %s" % stray)
    finally:
        if FAILURES:
            print("work directory kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("%d checks, %d failures" % (CHECKS, len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
