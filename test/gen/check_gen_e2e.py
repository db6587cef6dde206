#!/usr/bin/env python3
"""End-to-end checks of generated layers on tiny configs (docs/generator.md section 7: numerics,
error bound and the reference).

For each config and request: `tilefw gen` -> `tilefw validate --manifest` (every stream) ->
`tilefw run --strict` (zero hazards) -> gen_ref_check (the independent float64 reference in
test/gen/ref, which shares no code with the generator) within its stated bound. Then:
  * every valid tensor-parallel degree gives a result within the reference bound, and the
    largest difference between degrees is printed (f32 summation order only, see README);
  * `--order reverse` and `--order random` give bit-identical outputs;
  * decode in passes of batch rows (--decode-chunk) is bit-identical to one pass;
  * decode batch 1 on a MoE config splits its few routed experts over the cores, within the
    reference's bound;
  * prefill of S tokens, then a decode step fed with that run's present_key/present_value,
    equals the last position of a prefill of S + 1 tokens (the same seed draws the same
    weights; the inputs are cut from the S + 1 prefill's hidden_states).
Usage: check_gen_e2e.py TILEFW GEN_REF_CHECK CONFIG_DIR [config names...]
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TILEFW, REF, CONFIGS = sys.argv[1], sys.argv[2], sys.argv[3]
NAMES = sys.argv[4:] or ["llama_gqa", "mistral_mqa_f16", "qwen2_bias", "qwen3_qknorm", "llama31_rope_f16", "qwen3_yarn",
                         "mixtral_tiny", "qwen3_moe_tiny", "deepseek_v3_tiny", "deepseek_v3_nolora", "qwen3_odd_wide"]
WORK = tempfile.mkdtemp(prefix="tilefw-gen-e2e-")
failures = []


def sh(args, expect=0):
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if r.returncode != expect:
        raise RuntimeError(f"{' '.join(args)} -> exit {r.returncode} (expected {expect})\n{r.stdout}\n{r.stderr}")
    return r


def has_strict():
    return "--strict" in sh([TILEFW, "run", "--help"]).stdout


STRICT = has_strict()


def gen(cfg, name, *opts):
    """deepseek_v3 configs generate their first MoE layer (first_k_dense_replace) unless the
    case names a layer: MLA and the MoE block together."""
    out = os.path.join(WORK, name)
    c = json.load(open(cfg))
    if "--layer" not in opts and c["model_type"] == "deepseek_v3":
        opts = (*opts, "--layer", str(c.get("first_k_dense_replace", 0)))
    sh([TILEFW, "gen", "--config", cfg, "--out", out, "--force", *opts])
    return out


def validate(d):
    m = json.load(open(os.path.join(d, "manifest.json")))
    files = [os.path.join(d, c[e]["file"]) for c in m["cores"] for e in ("tiu", "gdma", "sdma")]
    sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json"), *files])


def run(d, tag="run", *opts):
    out = d + "." + tag
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    args = [TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--out", out, *opts]
    if STRICT:
        args.append("--strict")
    sh(args)
    return out


def ref(cfg, d, r):
    res = sh([REF, "--config", cfg, "--gen", d, "--run", r])
    worst = max(float(l.split("max_err/bound=")[1].split()[0]) for l in res.stdout.splitlines() if "max_err/bound=" in l)
    return worst


def floats(path):
    b = open(path, "rb").read()
    return struct.unpack(f"<{len(b) // 4}f", b)


def check(label, fn):
    try:
        msg = fn()
        print(f"ok   {label}" + (f": {msg}" if msg else ""))
    except Exception as e:  # noqa: BLE001 - report every failure, keep going
        failures.append(label)
        print(f"FAIL {label}: {e}")


def heads_of(cfg):
    c = json.load(open(cfg))
    return c["num_attention_heads"], c["num_key_value_heads"]


def valid_tps(cfg, cores=8):
    h, kv = heads_of(cfg)
    return [t for t in range(1, cores + 1) if h % t == 0 and (kv % t == 0 or t % kv == 0)]


def layer_case(cfg, name, opts):
    def body():
        base = None
        notes = []
        for tp in valid_tps(cfg):
            d = gen(cfg, f"{name}.tp{tp}", *opts, "--tp", str(tp))
            validate(d)
            r = run(d)
            worst = ref(cfg, d, r)
            out = floats(os.path.join(r, "hidden_states_out.dat"))
            if base is None:
                base = out
            diff = max(abs(a - b) for a, b in zip(base, out))
            notes.append(f"tp{tp} err/bound {worst:.3f} |diff vs tp1| {diff:.2e}")
        return "; ".join(notes)
    return body


def shared_slots_case(cfg, name):
    """Decode at the LMEM limit: at this kv_len the attention's weight slots fit only in the
    bytes of the attention's own buffers (latent cache rows, scores), which they take in turn
    (docs/generator.md section 5, MLA weight slots; the generator refused the request before).
    The hand-over between the two users must keep the run hazard-free and the result exact."""
    def body():
        d = gen(cfg, name, "--phase", "decode", "--kv-len", "23552", "--tp", "4")
        validate(d)
        r = run(d)
        return f"tp4 err/bound {ref(cfg, d, r):.3f}"
    return body


def is_moe(cfg):
    return json.load(open(cfg))["model_type"] in ("mixtral", "qwen3_moe", "deepseek_v3")


def ep_case(cfg, name, opts):
    """Every expert-parallel degree 1..8 (uneven expert counts per core included) against the
    reference; the result differs between degrees only by the f32 order of the partial sums."""
    def body():
        base, notes = None, []
        for ep in range(1, 9):
            d = gen(cfg, f"{name}.ep{ep}", *opts, "--ep", str(ep))
            validate(d)
            r = run(d)
            worst = ref(cfg, d, r)
            out = floats(os.path.join(r, "hidden_states_out.dat"))
            base = base or out
            notes.append(f"ep{ep} {worst:.3f}/{max(abs(a - b) for a, b in zip(base, out)):.1e}")
        return "err/bound / |diff vs ep1|: " + ", ".join(notes)
    return body


def split_case(cfg, name):
    """Decode batch 1 at ep 8: fewer routed experts (top_k) than cores, so the experts' phase
    splits each routed expert's intermediate columns over several cores (docs/moe-phases.md,
    split experts). The split must happen (more expert blocks than routed experts: every tiny
    expert's gate_proj is one weight tile, a load and an MM2 per block) and the sum of the
    slices must match the reference."""
    def body():
        d = gen(cfg, name, "--phase", "decode", "--kv-len", "5", "--batch", "1", "--ep", "8")
        validate(d)
        r = d + ".run"
        shutil.rmtree(r, ignore_errors=True)
        os.makedirs(r)
        args = [TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--out", r, "--summary"]
        res = sh(args + (["--strict"] if STRICT else []))
        gate = [l.split() for l in res.stdout.splitlines() if l.strip().startswith("expert.gate_proj ")]
        blocks = int(gate[0][1]) // 2 if gate else 0
        c = json.load(open(cfg))
        top_k = c["num_experts_per_tok"]
        if blocks <= top_k:
            raise RuntimeError(f"{blocks} expert blocks for {top_k} routed experts: not split")
        worst = ref(cfg, d, r)
        return f"{top_k} routed experts in {blocks} slices, err/bound {worst:.3f}"
    return body


def capacity_case(cfg, name):
    """--capacity-factor 0.5: some expert gets more tokens than its capacity; the run still
    completes, reports the dropped tokens, and matches the reference's dropping rule."""
    def body():
        d = gen(cfg, name + ".cap", "--seq", "12", "--capacity-factor", "0.5")
        r = d + ".run"
        shutil.rmtree(r, ignore_errors=True)
        os.makedirs(r)
        rep = d + ".report.json"
        res = sh([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--out", r, "--report", rep])
        counts = floats(os.path.join(r, "expert_tokens.dat"))
        cap = json.load(open(os.path.join(d, "manifest.json")))["report"]["capacity"]
        dropped = sum(max(0, int(c) - cap) for c in counts)
        if dropped == 0:
            raise RuntimeError(f"expected dropped tokens at capacity {cap}, counts {counts}")
        reported = json.load(open(rep))["dropped_tokens"]["total"]
        if reported != dropped or "dropped" not in res.stderr:
            raise RuntimeError(f"run reported {reported} dropped (stderr: {res.stderr!r}), counts say {dropped}")
        worst = ref(cfg, d, r)
        return f"capacity {cap}, counts {[int(c) for c in counts]}, {dropped} dropped, err/bound {worst:.3f}"
    return body


def order_case(cfg, name, opts):
    def body():
        d = gen(cfg, name + ".order", *opts)
        outs = []
        for order in ("core-major", "reverse", "random"):
            r = run(d, order, "--order", order, "--seed", "7")
            outs.append({f: open(os.path.join(r, f), "rb").read() for f in sorted(os.listdir(r))})
        if not (outs[0] == outs[1] == outs[2]):
            raise RuntimeError("outputs differ between scheduler orders")
        return "bit-identical under core-major, reverse, random"
    return body


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def consistency_case(cfg, name, S=4, B=2):
    def body():
        full = gen(cfg, name + ".full", "--seq", str(S + 1), "--batch", str(B))
        rf = run(full)
        hs = open(os.path.join(full, "hidden_states.bin"), "rb").read()
        H = len(hs) // 4 // B // (S + 1)
        row = lambda b, s: hs[((b * (S + 1) + s) * H) * 4:((b * (S + 1) + s + 1) * H) * 4]
        pre = gen(cfg, name + ".pre", "--seq", str(S), "--batch", str(B))
        write(os.path.join(pre, "hidden_states.bin"), b"".join(row(b, s) for b in range(B) for s in range(S)))
        rp = run(pre)
        dec = gen(cfg, name + ".dec", "--phase", "decode", "--kv-len", str(S), "--batch", str(B))
        write(os.path.join(dec, "hidden_states.bin"), b"".join(row(b, S) for b in range(B)))
        caches = (("present_kv_latent", "past_kv_latent"), ("present_k_rope", "past_k_rope")) \
            if json.load(open(cfg))["model_type"] == "deepseek_v3" else \
            (("present_key", "past_key"), ("present_value", "past_value"))
        inputs = {i["name"]: i["file"] for i in json.load(open(os.path.join(dec, "manifest.json")))["inputs"]}
        for present, past in caches:  # MLA: the latent cache alone carries the past
            shutil.copy(os.path.join(rp, present + ".dat"), os.path.join(dec, inputs[past]))
        rd = run(dec)
        a = floats(os.path.join(rf, "hidden_states_out.dat"))
        d = floats(os.path.join(rd, "hidden_states_out.dat"))
        worst = 0.0
        for b in range(B):
            for i in range(H):
                x, y = a[(b * (S + 1) + S) * H + i], d[b * H + i]
                worst = max(worst, abs(x - y) / max(1.0, abs(x)))
        # The decode step sees the same bf16/f16 cache rows and the same per-row arithmetic as
        # the last row of the longer prefill (the mask adds exact zeros there): equal bits are
        # expected; 1e-6 relative leaves room for nothing but f32 rounding.
        if worst > 1e-6:
            raise RuntimeError(f"decode differs from the prefill's last position by {worst:.3e} (relative)")
        return f"max relative difference {worst:.1e}"
    return body


def chunk_case(cfg, name):
    """Chunked prefill (--prefill-chunk: each chunk attends to the earlier chunks' present rows,
    read back from DDR): within the reference bound, and close to the one-pass result (the
    one pass also sums exp(-30)-clamped masked positions the chunks never see, and a bf16
    rounding downstream may flip, so equality is not expected)."""
    def body():
        notes = []
        one = gen(cfg, name + ".one", "--seq", "8", "--kv-len", "3")
        base = floats(os.path.join(run(one), "hidden_states_out.dat"))
        for chunk, tp in (("2", []), ("4", ["--tp", "1"])):
            d = gen(cfg, f"{name}.c{chunk}", "--seq", "8", "--kv-len", "3", "--prefill-chunk", chunk, *tp)
            validate(d)
            r = run(d)
            worst = ref(cfg, d, r)
            out = floats(os.path.join(r, "hidden_states_out.dat"))
            diff = max(abs(a - b) / max(1.0, abs(a)) for a, b in zip(base, out))
            if diff > 1e-2:
                raise RuntimeError(f"chunks of {chunk}: {diff:.2e} relative from the one-pass result")
            notes.append(f"chunks of {chunk}{' tp1' if tp else ''}: err/bound {worst:.3f}, vs one pass {diff:.1e}")
        return "; ".join(notes)
    return body


def decode_chunk_case(cfg, name, B=4):
    """Decode in passes of batch rows (--decode-chunk: each pass is the layer over its rows,
    with their own caches): within the reference bound and bit-identical to the one-pass run
    (decode rows never meet: the same per-row arithmetic in the same order, the partial sums
    reduced in the same core order). MoE layers number the experts' slots across the passes and
    run each expert once over them on its owner core: expert_tokens is the one-pass count too, and
    the one-pass run compared bit for bit places its experts on their owners as well
    (--expert-placement owner; the default spreads them by load, which changes the order of the
    partial sums, and is checked against the reference everywhere else)."""
    def body():
        opts = ["--phase", "decode", "--kv-len", "5", "--batch", str(B)]
        one_dir = gen(cfg, name + ".one", *opts)
        one = run(one_dir, "run", "--expert-placement", "owner") if is_moe(cfg) else run(one_dir)
        if is_moe(cfg):  # the default placement: within the reference bound
            ref(cfg, one_dir, run(one_dir, "balanced"))
        notes = []
        for rows in ("2", "1"):
            d = gen(cfg, f"{name}.r{rows}", *opts, "--decode-chunk", rows)
            rep = json.load(open(os.path.join(d, "manifest.json")))["report"]
            if rep["chunks"] != B // int(rows) or rep["chunk_batch"] != int(rows):
                raise RuntimeError(f"--decode-chunk {rows}: report says {rep['chunks']} passes of {rep['chunk_batch']}")
            validate(d)
            r = run(d)
            worst = ref(cfg, d, r)
            for f in sorted(os.listdir(one)):
                a, b = open(os.path.join(one, f), "rb").read(), open(os.path.join(r, f), "rb").read()
                if a != b:
                    raise RuntimeError(f"passes of {rows} rows: {f} differs from the one-pass run")
            notes.append(f"passes of {rows}: err/bound {worst:.3f}, bit-identical")
        return "; ".join(notes)
    return body


def pass_capacity_case(cfg, name):
    """--capacity-factor with passes (a pass of rows, a chunk of tokens): Rule: capacity's
    C = ceil(F x request tokens x top_k / E) is the request's, the slots are numbered across the
    passes in token order, so an expert keeps the same tokens as in one pass: report.capacity and
    expert_tokens equal the one-pass run's, the output too (bit-identical for rows, which never
    meet; chunks within 1e-2 relative), and the reference (capacity in token order) agrees."""
    def body():
        notes = []
        for tag, opts, extra in (("rows", ["--phase", "decode", "--kv-len", "5", "--batch", "8"], ["--decode-chunk", "4"]),
                                 ("chunks", ["--seq", "8"], ["--prefill-chunk", "4"])):
            one_dir = gen(cfg, f"{name}.{tag}1", *opts, "--capacity-factor", "1.0")
            one = run(one_dir, "run", "--expert-placement", "owner")  # as in passes (decode_chunk_case)
            d = gen(cfg, f"{name}.{tag}", *opts, *extra, "--capacity-factor", "1.0")
            rep = json.load(open(os.path.join(d, "manifest.json")))["report"]
            rep1 = json.load(open(os.path.join(one_dir, "manifest.json")))["report"]
            if rep["chunks"] < 2 or rep["capacity"] != rep1["capacity"]:
                raise RuntimeError(f"{tag}: {rep['chunks']} passes, capacity {rep['capacity']} vs one pass {rep1['capacity']}")
            r = run(d)
            counts = floats(os.path.join(r, "expert_tokens.dat"))
            if list(counts) != list(floats(os.path.join(one, "expert_tokens.dat"))):
                raise RuntimeError(f"{tag}: expert_tokens {counts} differ from the one-pass run's")
            dropped = sum(max(0, int(c) - rep["capacity"]) for c in counts)
            a = floats(os.path.join(one, "hidden_states_out.dat"))
            b = floats(os.path.join(r, "hidden_states_out.dat"))
            diff = max(abs(x - y) / max(1.0, abs(x)) for x, y in zip(a, b))
            if diff > (0.0 if tag == "rows" else 1e-2):
                raise RuntimeError(f"{tag}: {diff:.2e} relative from the one-pass run")
            worst = ref(cfg, d, r)
            notes.append(f"{rep['chunks']} {tag} at capacity {rep['capacity']}: {dropped} dropped, "
                         f"vs one pass {diff:.1e}, err/bound {worst:.3f}")
        return "; ".join(notes)
    return body


def main():
    print(f"work dir {WORK}; hazard check with --strict: {'yes' if STRICT else 'not available'}")
    for n in NAMES:
        cfg = os.path.join(CONFIGS, n + ".json")
        check(f"{n} prefill seq 5 (every tp)", layer_case(cfg, n + ".prefill", ["--seq", "5"]))
        check(f"{n} prefill batch 2 seq 70 kv-len 3 (row groups > 64)", layer_case(cfg, n + ".long", ["--seq", "70", "--batch", "2", "--kv-len", "3"]))
        check(f"{n} decode batch 3 kv-len 9 (every tp)", layer_case(cfg, n + ".decode", ["--phase", "decode", "--kv-len", "9", "--batch", "3"]))
        check(f"{n} scheduler orders", order_case(cfg, n, ["--seq", "3", "--batch", "2"]))
        check(f"{n} prefill/decode consistency", consistency_case(cfg, n + ".cons"))
        check(f"{n} chunked prefill seq 8 kv-len 3", chunk_case(cfg, n + ".chunk"))
        if n in ("llama_gqa", "qwen3_moe_tiny", "deepseek_v3_tiny"):  # dense GQA, MoE, MLA + MoE
            check(f"{n} decode batch 4 in passes of rows", decode_chunk_case(cfg, n + ".rows"))
        if json.load(open(cfg))["model_type"] == "deepseek_v3":
            check(f"{n} dense layer 0 (MLA + MLP) prefill seq 5 and decode", layer_case(cfg, n + ".dense", ["--seq", "5", "--layer", "0"]))
            check(f"{n} dense layer 0 decode batch 2 kv-len 6", layer_case(cfg, n + ".densed", ["--phase", "decode", "--kv-len", "6", "--batch", "2", "--layer", "0"]))
        if n == "deepseek_v3_tiny":
            check(f"{n} decode kv-len 23552 (weight slots in the attention's bytes)", shared_slots_case(cfg, n + ".shared"))
        if is_moe(cfg):
            check(f"{n} prefill seq 6, every ep", ep_case(cfg, n + ".ep", ["--seq", "6"]))
            check(f"{n} decode batch 4 kv-len 5, every ep", ep_case(cfg, n + ".epd", ["--phase", "decode", "--kv-len", "5", "--batch", "4"]))
            check(f"{n} decode batch 1 at ep 8, experts split over cores", split_case(cfg, n + ".split"))
            check(f"{n} capacity factor", capacity_case(cfg, n))
            if n in ("qwen3_moe_tiny", "deepseek_v3_tiny"):
                check(f"{n} capacity per pass", pass_capacity_case(cfg, n + ".passcap"))
    if not failures:
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
