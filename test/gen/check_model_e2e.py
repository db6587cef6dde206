#!/usr/bin/env python3
"""End-to-end checks of whole-model generation (docs/whole-model.md) on tiny configs.

For each config: `tilefw gen --model` (prefill, 2 batch rows) -> `tilefw validate --manifest`
(every step's streams) -> `tilefw run --strict` (zero hazards) -> model_ref_check (the
independent float64 whole-model reference in test/gen/ref, which shares no code with the
generator) when given. Then, per config:
  * next_token equals the lowest index of the largest logit of each batch row's last position
    (the TPU's argmax checked against the TPU's own logits: exact);
  * prefill of S tokens, then a decode step fed that run's present caches and token S of a
    prefill of S + 1 tokens: the decode passes the reference itself, and its first layer's new
    cache rows equal that prefill's position S bit for bit (later layers may differ by a masked
    exp(-30) rounding, see decode_case);
  * replacing input_ids changes the logits (nothing about the tokens is baked in);
  * a timing-only run takes exactly the cycles of the functional run (dense configs), and reusing
    the timing of steps of one kind equals simulating every step (--no-reuse).
And the command-line contract: a config without vocab_size is exit 2 naming it; a model that
does not fit the chip's DDR is exit 1 naming the chip and the shortfall; --trace on a whole
model is exit 2.
  * with --layouts: the same request on 2 chips (2 stages; 2 replicas) and on 4 (2 stages x 2
    replicas x 2 micro-batches) validates, runs hazard-free across chips and gives bit-identical
    outputs.
  * with --tp (instead of the cases above): tensor parallelism across chips on dense configs:
    prefill and decode on --chips 2 --tp 2, --chips 4 --tp 2 --pp 2 (also with 2 micro-batches)
    and --chips 4 --tp 2 --dp 2 validate, run hazard-free, pass the reference (the reduction order differs from one chip:
    checked against the bound, not bit for bit), a timing-only run takes the functional run's
    cycles and reuse equals full simulation; a MoE config whose kv heads do not split over
    --tp 4 is exit 2 naming --tp and the heads.
  * with --ep (instead of the cases above): experts over the chips of an expert-parallel group on
    MoE configs: prefill on --chips 2 --ep 2, --chips 4 --ep 4 (when the experts split in 4),
    --chips 4 --ep 2 --pp 2 (also with 2 micro-batches) and --chips 4 --ep 2 --dp 2 validates,
    runs hazard-free and passes the reference, and so does a decode step on each; batch 4 splits
    over every group (data-parallel attention: dispatch all-gathers, combine reduce-scatters, each
    chip's rows' caches on it), batch 3 on 2 chips, 6 and 1 on 4 and 1 on 2 do not (tensor-
    parallel attention where the heads split: attention parts all-reduced, GQA caches in parts
    per chip, MLA latent caches copied from the group's first chip; else replicated attention,
    the caches copied), nor does an explicit --chips 2 --tp 2 at batch 4 (tensor-parallel
    attention); prefill then decode = the prefill of S + 1 on --chips 2 --ep 2 (batch 2 and 1),
    --chips 4 --ep 4 (batch 4 and 1) and --chips 2 --tp 2; a checkpoint from weights[] on
    --chips 2 --tp 2 reproduces the drawn model; reuse = full simulation; decode timing-only runs; --static-experts on 2 chips passes the reference; an --ep that is not the stage's
    chips, experts that do not split and --ep on a dense model are exit 2 naming --ep. MoE layers
    in passes (replicated attention) on --chips 2 --ep 2 and --chips 4 --ep 4: chunked prefill
    and decode row passes validate, run hazard-free and pass the reference; reuse = full
    simulation; with every token routed to every expert (known counts) the chunked prefill's
    timing-only cycles equal the functional run's; the MoE part of data-parallel attention in
    passes is exit 1 naming --ep.
Usage: check_model_e2e.py TILEFW MODEL_REF_CHECK|- CONFIG_DIR [--layouts | --tp | --ep] config names...
"""
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TILEFW, REF, CONFIGS = sys.argv[1], sys.argv[2], sys.argv[3]
NAMES = [n for n in sys.argv[4:] if not n.startswith("--")]
LAYOUT_TOO = "--layouts" in sys.argv[4:]  # also every chips layout (slower)
TP_ONLY = "--tp" in sys.argv[4:]  # only the tensor-parallel cases
EP_ONLY = "--ep" in sys.argv[4:]  # only the expert-parallel cases
# The sanitizer build: with --ep, one layout or request of each scheme where two take the same
# code path (the optimised build runs them all).
QUICK = "--quick" in sys.argv[4:]
WORK = tempfile.mkdtemp(prefix="tilefw-model-e2e-")
failures = []


def sh(args, expect=0):
    r = subprocess.run(args, capture_output=True, text=True, timeout=900)
    if r.returncode != expect:
        raise RuntimeError(f"{' '.join(args)} -> exit {r.returncode} (expected {expect})\n{r.stdout}\n{r.stderr}")
    return r


def gen(cfg, name, *opts):
    out = os.path.join(WORK, name)
    sh([TILEFW, "gen", "--config", cfg, "--out", out, "--force", "--model", *opts])
    return out


def run(d, *opts, tag="run"):
    out = d + "." + tag
    shutil.rmtree(out, ignore_errors=True)
    rep = out + ".report.json"
    sh([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--out", out, "--report", rep, *opts])
    return out, json.load(open(rep))


def floats(path):
    b = open(path, "rb").read()
    return struct.unpack(f"<{len(b) // 4}f", b)


def ints(path):
    b = open(path, "rb").read()
    return struct.unpack(f"<{len(b) // 4}i", b)


def inputs_of(d):
    return {i["name"]: i for i in json.load(open(os.path.join(d, "manifest.json")))["inputs"]}


def vocab(cfg):
    return json.load(open(cfg))["vocab_size"]


def argmax_case(cfg, d, r, B, S):
    V = vocab(cfg)
    lg = floats(os.path.join(r, "logits.dat"))
    nt = ints(os.path.join(r, "next_token.dat"))
    for b in range(B):
        row = lg[(b * S + S - 1) * V:(b * S + S) * V]
        want = row.index(max(row))
        if nt[b] != want:
            raise RuntimeError(f"next_token[{b}] = {nt[b]}, the logits' argmax is {want}")


def decode_case(cfg, name, S=4, B=2, lay=()):
    full = gen(cfg, name + ".full", "--seq", str(S + 1), "--batch", str(B), *lay)
    rf, _ = run(full)
    ids = open(inputs_of(full)["input_ids"]["file"] if os.path.isabs(inputs_of(full)["input_ids"]["file"])
               else os.path.join(full, inputs_of(full)["input_ids"]["file"]), "rb").read()
    tok = lambda b, s: ids[(b * (S + 1) + s) * 4:(b * (S + 1) + s + 1) * 4]
    pre = gen(cfg, name + ".pre", "--seq", str(S), "--batch", str(B), *lay)
    open(os.path.join(pre, inputs_of(pre)["input_ids"]["file"]), "wb").write(
        b"".join(tok(b, s) for b in range(B) for s in range(S)))
    rp, _ = run(pre)
    dec = gen(cfg, name + ".dec", "--phase", "decode", "--kv-len", str(S), "--batch", str(B), *lay)
    din = inputs_of(dec)
    open(os.path.join(dec, din["input_ids"]["file"]), "wb").write(b"".join(tok(b, S) for b in range(B)))
    for n, i in din.items():
        if n.startswith("past_"):
            shutil.copy(os.path.join(rp, "present_" + n[len("past_"):] + ".dat"), os.path.join(dec, i["file"]))
    rd, _ = run(dec)
    V = vocab(cfg)
    a, d = floats(os.path.join(rf, "logits.dat")), floats(os.path.join(rd, "logits.dat"))
    worst = 0.0
    for b in range(B):
        for v in range(V):
            x, y = a[(b * (S + 1) + S) * V + v], d[b * V + v]
            worst = max(worst, abs(x - y) / max(1.0, abs(x)))
    # The cache rows the decode reads come from a prefill of S tokens, the longer prefill's from
    # one of S + 1: in layers after the first, a row's keys and values follow the attention of
    # the earlier layers, whose softmax adds exp(-30) (the clamped exponent of a masked score) per
    # masked position, and S and S + 1 tokens mask different counts. That moves an f32 result
    # by an ulp now and then, a bf16 cache rounding may flip, and the flip travels: equal bits
    # are not promised beyond the first layer. So: the decode run must pass the independent
    # reference on its own, and its first layer's new cache row (computed from the embedding
    # alone) must equal the longer prefill's row S bit for bit; the logits' difference is shown.
    if REF != "-":
        sh([REF, "--config", cfg, "--gen", dec, "--run", rd])
    first = [n for n in os.listdir(rd) if n.startswith("present_") and n.endswith(".0.dat")]
    if not first:
        raise RuntimeError("no present_*.0 output")
    for n in first:
        full_t = open(os.path.join(rf, n), "rb").read()
        dec_t = open(os.path.join(rd, n), "rb").read()
        # [B, heads, S', d] (GQA) or [B, S', width] (MLA): rows of one position are contiguous in
        # the last dimension; the position is dimension 2 or 1.
        shape = next(o["shape"] for o in json.load(open(os.path.join(full, "manifest.json")))["outputs"]
                     if o["name"] + ".dat" == n)
        width = shape[-1] * (len(full_t) // (shape[0] * (S + 1) * shape[-1] * (shape[1] if len(shape) == 4 else 1)))
        groups = shape[0] * (shape[1] if len(shape) == 4 else 1)
        for g in range(groups):
            want = full_t[(g * (S + 1) + S) * width:(g * (S + 1) + S + 1) * width]
            got = dec_t[g * width:(g + 1) * width]
            if want != got:
                raise RuntimeError(f"{n}: the decode's first-layer cache row differs from the prefill's position {S}")
    return f"decode's first-layer cache rows = the prefill's; logits within {worst:.1e} of its last position" + \
        (", decode passes the reference" if REF != "-" else "")


def input_case(cfg, d, r):
    f = os.path.join(d, inputs_of(d)["input_ids"]["file"])
    ids = bytearray(open(f, "rb").read())
    ids[0:4] = struct.pack("<i", (struct.unpack("<i", bytes(ids[0:4]))[0] + 1) % vocab(cfg))
    open(f, "wb").write(bytes(ids))
    r2, _ = run(d, tag="run2")
    if floats(os.path.join(r, "logits.dat")) == floats(os.path.join(r2, "logits.dat")):
        raise RuntimeError("changing input_ids did not change the logits")


def control_keys(t1, t2, moe):
    """The whole-model report's control-core command counts (docs/whole-model.md): per step and in
    total (the steps' sum), the same with and without reuse, some commands on MoE models only,
    copied ones a part of them."""
    for k in ("control_commands", "control_commands_copied"):
        if k not in t1 or any(k not in s for s in t1["steps"]):
            raise RuntimeError(f"the report lacks {k} (in total or on a step)")
        if t1[k] != sum(s[k] for s in t1["steps"]) or t1[k] != t2[k]:
            raise RuntimeError(f"{k}: total {t1[k]}, steps' sum {sum(s[k] for s in t1['steps'])}, without reuse {t2[k]}")
    if (t1["control_commands"] > 0) != moe or t1["control_commands_copied"] > t1["control_commands"]:
        raise RuntimeError(f"control commands {t1['control_commands']} ({t1['control_commands_copied']} copied), moe {moe}")


def timing_case(cfg, d, rep):
    moe = "experts" in json.dumps(json.load(open(cfg))) or json.load(open(cfg))["model_type"] in ("mixtral", "qwen3_moe", "deepseek_v3")
    opts = ["--timing-only"] + (["--routing", "balanced"] if moe else [])
    _, t1 = run(d, *opts, tag="t1")
    _, t2 = run(d, *opts, "--no-reuse", tag="t2")
    if t1["cycles_total"] != t2["cycles_total"]:
        raise RuntimeError(f"reused timing {t1['cycles_total']} != simulated {t2['cycles_total']}")
    reused = sum(1 for s in t1["steps"] if s["reused"])
    control_keys(t1, t2, moe)
    if not moe and t1["cycles_total"] != rep["cycles_total"]:
        raise RuntimeError(f"timing-only {t1['cycles_total']} != functional {rep['cycles_total']} cycles")
    return f"{t1['cycles_total']} cycles, {reused} steps reused exactly"


LAYOUTS = (("--chips", "2", "--pp", "2"), ("--chips", "2", "--dp", "2"),
           ("--chips", "4", "--pp", "2", "--dp", "2", "--microbatches", "2"))


def layout_case(cfg, name, r1):
    """The same request spread over chips (pipeline stages, replicas, micro-batches): every step
    and transfer validates, the run is hazard-free across chips, and every output is bit-identical
    to the one-chip run (each row sees the same arithmetic wherever it runs)."""
    notes = []
    for lay in LAYOUTS:
        tag = "".join(lay).replace("--", "-")
        d = gen(cfg, name + tag, "--seq", "5", "--batch", "4", *lay)
        sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
        r, rep = run(d, "--strict")
        for f in sorted(os.listdir(r1)):
            if open(os.path.join(r1, f), "rb").read() != open(os.path.join(r, f), "rb").read():
                raise RuntimeError(f"{' '.join(lay)}: {f} differs from the one-chip run")
        if len(rep["chips"]) != int(lay[1]):
            raise RuntimeError(f"{' '.join(lay)}: the report has {len(rep['chips'])} chips")
        notes.append(f"{' '.join(lay)}: bubble {rep['bubble_seconds'] * 1e6:.1f} us, comm {rep['comm_seconds'] * 1e6:.1f} us")
    return "identical outputs on " + "; ".join(notes)


def config_case(name):
    cfg = os.path.join(CONFIGS, name + ".json")
    B, S = 2, 5
    d = gen(cfg, name, "--seq", str(S), "--batch", str(B))
    sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
    r, rep = run(d, "--strict")
    notes = []
    if REF != "-":
        out = sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout.strip().splitlines()
        notes.append(out[-1] if out else "reference ok")
    argmax_case(cfg, d, r, B, S)
    notes.append(timing_case(cfg, d, rep))
    notes.append(decode_case(cfg, name))
    input_case(cfg, d, r)
    if LAYOUT_TOO:
        d4 = gen(cfg, name + ".b4", "--seq", "5", "--batch", "4")
        r4, _ = run(d4, "--strict")
        notes.append(layout_case(cfg, name, r4))
    return "; ".join(notes)


TP_LAYOUTS = (("--chips", "2", "--tp", "2"), ("--chips", "4", "--tp", "2", "--pp", "2"),
              ("--chips", "4", "--tp", "2", "--dp", "2"), ("--chips", "4", "--tp", "2", "--pp", "2", "--microbatches", "2"))


def tp_case(name):
    """Tensor parallelism across chips: each layout and phase validates, runs with --strict and
    passes the independent reference; timing-only = functional cycles, reuse = full simulation."""
    cfg = os.path.join(CONFIGS, name + ".json")
    notes = []
    for phase in (("--phase", "prefill", "--seq", "5"), ("--phase", "decode", "--seq", "1", "--kv-len", "6")):
        for lay in TP_LAYOUTS:
            tag = "".join(lay + phase[:2]).replace("--", "-")
            d = gen(cfg, name + tag, "--batch", "4", *phase, *lay)
            sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
            r, rep = run(d, "--strict")
            if REF != "-":
                out = sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout
                if "PASS" not in out:
                    raise RuntimeError(f"{' '.join(lay)} {phase[1]}: the reference did not pass:\n{out}")
            if rep["layout"]["tp"] != 2 or len(rep["chips"]) != int(lay[1]):
                raise RuntimeError(f"{' '.join(lay)}: the report's layout {rep['layout']}")
            timing_case(cfg, d, rep)
            argmax_case(cfg, d, r, 4, int(phase[3]))  # the merged next token = the gathered logits' argmax
            notes.append(f"{' '.join(lay)} {phase[1]}: comm {rep['comm_seconds'] * 1e6:.1f} us")
    return "reference passed on " + "; ".join(notes)


def tp_weights_case(name, lay=("--chips", "2", "--tp", "2")):
    """With --tp (or --ep), weights[] lists each checkpoint tensor once, whole, under its published name:
    a checkpoint written from those entries, given with --weights, reproduces the drawn model's
    outputs on the same tp layout bit for bit (the chips' slices are cut from it alike)."""
    cfg = os.path.join(CONFIGS, name + ".json")
    d = gen(cfg, name + ".tpdrawn", "--seq", "3", "--batch", "2", "--seed", "7", *lay)
    r, _ = run(d)
    m = json.load(open(os.path.join(d, "manifest.json")))
    st = {"bf16": "BF16", "f16": "F16", "f32": "F32"}
    tensors = []
    for w in m["weights"]:
        with open(os.path.join(d, w["file"]), "rb") as f:
            f.seek(w["file_offset"])
            tensors.append((w["name"], st[w["dtype"]], w["shape"], f.read(w["bytes"])))
    if len(set(t[0] for t in tensors)) != len(tensors):
        raise RuntimeError("weights[] names a tensor twice")
    path = os.path.join(WORK, name + ".tp.safetensors")
    write_safetensors(path, tensors)
    d2 = gen(cfg, name + ".tpfile", "--seq", "3", "--batch", "2", "--seed", "8", "--weights", path, *lay)
    shutil.copy(os.path.join(d, "input_ids.bin"), os.path.join(d2, "input_ids.bin"))
    r2, _ = run(d2)
    for f in sorted(os.listdir(r)):
        if open(os.path.join(r, f), "rb").read() != open(os.path.join(r2, f), "rb").read():
            raise RuntimeError(f"--weights {' '.join(lay)}: {f} differs from the drawn model's")
    return f"{len(tensors)} checkpoint tensors, outputs identical"


def tp_mesh_case(name):
    """A group of 4 inside 8 chips: ring:8 does not close its ring (exit 2 naming the chips), a
    mesh does; that layout validates, runs hazard-free and passes the reference."""
    cfg = os.path.join(CONFIGS, name + ".json")
    lay = ("--chips", "8", "--tp", "4", "--pp", "2", "--batch", "4", "--seq", "5")
    r = sh([TILEFW, "gen", "--config", cfg, "--out", os.path.join(WORK, "ring8"), "--model", *lay], expect=2)
    if "chips 3 and 0" not in r.stderr:
        raise RuntimeError("--tp 4 on ring:8: the message does not name the chips: " + r.stderr)
    mesh = os.path.join(WORK, "mesh8.json")
    json.dump({"chips": 8, "topology": "mesh:8"}, open(mesh, "w"))
    d = gen(cfg, name + ".mesh", *lay, "--system", mesh)
    sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
    r, rep = run(d, "--strict")
    if REF != "-" and "PASS" not in sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout:
        raise RuntimeError("--chips 8 --tp 4 --pp 2 on mesh:8: the reference did not pass")
    return f"ring:8 refused, mesh:8 passes the reference (comm {rep['comm_seconds'] * 1e6:.1f} us)"


def tp_gather_case(name, layouts=((), ("--chips", "2", "--tp", "2"))):
    """More token rows x chips than a manifest has parts (16 x 130 x 2 > 4096): the logits are
    gathered on the group's first chip with the candidates (on 4 chips block by block, each chip
    forwarding the blocks of the chips above it); and rows beyond the first 64 (the head's row
    groups) pick their next token right, on one chip and on two or four."""
    cfg = os.path.join(CONFIGS, name + ".json")
    notes = []
    for lay in layouts:
        d = gen(cfg, name + ".rows" + "".join(lay), "--batch", "16", "--seq", "130", *lay)
        sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
        r, _ = run(d, "--strict")
        if lay and any("parts" in o for o in json.load(open(os.path.join(d, "manifest.json")))["outputs"] if o["name"] == "logits"):
            raise RuntimeError(f"logits of 2080 rows x {lay[1]} chips listed in parts")
        if REF != "-" and "PASS" not in sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout:
            raise RuntimeError(f"batch 16 seq 130 {' '.join(lay)}: the reference did not pass")
        argmax_case(cfg, d, r, 16, 130)
        notes.append(" ".join(lay) or "1 chip")
    return "reference passed on " + ", ".join(notes)


def tp_refused_case():
    """--tp on a MoE model splits its attention by heads (section 3.2 of docs/whole-model.md): heads
    or kv heads that do not split over the chips are exit 2 naming --tp and the heads."""
    r = sh([TILEFW, "gen", "--config", os.path.join(CONFIGS, "qwen3_moe_ep_tiny3.json"), "--out", os.path.join(WORK, "z"),
            "--model", "--chips", "4", "--tp", "4"], expect=2)
    if "--tp 4" not in r.stderr or "heads" not in r.stderr:
        raise RuntimeError("a MoE model's 2 kv heads over --tp 4: the message does not name --tp 4 and the heads: " + r.stderr)
    return "a MoE model's kv heads that do not split over --tp 4 refused (exit 2)"


EP_LAYOUTS = (("--chips", "2", "--ep", "2"), ("--chips", "4", "--ep", "4"), ("--chips", "4", "--ep", "2", "--pp", "2"),
              ("--chips", "4", "--ep", "2", "--dp", "2"), ("--chips", "4", "--ep", "2", "--pp", "2", "--microbatches", "2"))


def step_names(d):
    return [st["name"] for st in json.load(open(os.path.join(d, "manifest.json")))["model"]["steps"]]


def heads_split(cfg, n):
    """Whether a config's attention heads (GQA: and kv heads) split over n chips."""
    c = json.load(open(cfg))
    return c["num_attention_heads"] % n == 0 and (is_mla(cfg) or c["num_key_value_heads"] % n == 0)


def is_mla(cfg):
    return json.load(open(cfg)).get("model_type") == "deepseek_v3"


def ep_scheme(d, lay, dp, decode, tpa=False, mla=False):
    """The slots of the group's scheme: data-parallel attention (the batch rows split over the
    group) has the dispatch all-gathers and the combine reduce-scatters (all-reduces at a stage's end), and its
    decode holds each chip's rows' caches (parts on every chip, no cache copy slot); the
    replicated scheme all-reduces and its decode copies the caches from the group's first chip;
    tensor-parallel attention (`tpa`) has the attention parts (`.attn` steps) all-reduced, its
    GQA caches in parts (each chip's kv heads, no copy), its MLA latent caches whole on the
    first chip and copied."""
    names = step_names(d)
    has = lambda p: any(n.startswith(p) for n in names)
    want = {"allgather.": dp, "reducescatter.": dp, "cachecast.": decode and not dp and (not tpa or mla)}
    if not dp and tpa != any(n.endswith(".attn") for n in names):
        raise RuntimeError(f"{' '.join(lay)}{' decode' if decode else ''}: attention parts {'missing' if tpa else 'present'}")
    for p, w in want.items():
        if has(p) != w and not (p == "reducescatter." and "--pp" in lay):  # a stage of one MoE layer: an all-reduce
            raise RuntimeError(f"{' '.join(lay)}{' decode' if decode else ''}: {p} slots {'missing' if w else 'present'}")
    if decode:
        m = json.load(open(os.path.join(d, "manifest.json")))
        for i in m["inputs"]:
            if i["name"].startswith("past_"):
                chips = {p["chip"] for p in i.get("parts", [])} or {i.get("chip", 0)}
                replicas = int(lay[lay.index("--dp") + 1]) if "--dp" in lay else 1  # a layer's cache: its stage's groups
                want_chips = replicas * (int(lay[3]) if dp or (tpa and not mla) else 1)
                if len(chips) != want_chips:
                    raise RuntimeError(f"{' '.join(lay)} decode: {i['name']} on chips {sorted(chips)}")


def ep_layout(cfg, name, lay, B):
    """One layout, batch B: prefill validates, runs with --strict, passes the reference, reuse =
    full simulation, the merged next token = the logits' argmax; its decode step likewise, and
    timing-only."""
    tag = "".join(lay).replace("--", "-") + f".b{B}"
    opt = lambda o: int(lay[lay.index(o) + 1]) if o in lay else 1
    # A step's rows split over the group (and --tp not given): data-parallel attention; else
    # tensor-parallel attention when the heads split, else replicated.
    dp = "--tp" not in lay and B // opt("--dp") // opt("--microbatches") % int(lay[3]) == 0
    tpa = not dp and heads_split(cfg, int(lay[3]))
    scheme = "data-parallel" if dp else "tensor-parallel" if tpa else "replicated"
    d = gen(cfg, name + tag, "--batch", str(B), "--seq", "5", *lay)
    sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
    ep_scheme(d, lay, dp, False, tpa, is_mla(cfg))
    r, rep = run(d, "--strict")
    if REF != "-":
        out = sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout
        if "PASS" not in out:
            raise RuntimeError(f"{' '.join(lay)}: the reference did not pass:\n{out}")
    if rep["layout"]["ep"] != int(lay[3]) or len(rep["chips"]) != int(lay[1]):
        raise RuntimeError(f"{' '.join(lay)}: the report's layout {rep['layout']}")
    names = [w["name"] for w in json.load(open(os.path.join(d, "manifest.json")))["weights"]]
    if len(set(names)) != len(names):
        raise RuntimeError(f"{' '.join(lay)}: weights[] names a tensor twice")
    timing_case(cfg, d, rep)
    argmax_case(cfg, d, r, B, 5)
    dd = gen(cfg, name + tag + ".dec", "--batch", str(B), "--phase", "decode", "--kv-len", "6", *lay)
    sh([TILEFW, "validate", "--manifest", os.path.join(dd, "manifest.json")])
    ep_scheme(dd, lay, dp, True, tpa, is_mla(cfg))
    rd, drep = run(dd, "--strict")
    if REF != "-" and "PASS" not in sh([REF, "--config", cfg, "--gen", dd, "--run", rd]).stdout:
        raise RuntimeError(f"{' '.join(lay)} decode: the reference did not pass")
    argmax_case(cfg, dd, rd, B, 1)
    dt = gen(cfg, name + tag + ".dect", "--batch", str(B), "--phase", "decode", "--kv-len", "6", "--timing-only", *lay)
    sh([TILEFW, "validate", "--manifest", os.path.join(dt, "manifest.json")])
    run(dt, "--timing-only", "--routing", "balanced", tag="t")
    return f"{' '.join(lay)} b{B} ({scheme} attention): comm {rep['comm_seconds'] * 1e6:.1f} us, " \
        f"decode {drep['seconds'] * 1e6:.1f} us"


def ep_case(name):
    """Experts over the chips of an expert-parallel group: batch 4 on every layout (its rows split
    over the group: data-parallel attention), batch 3 on 2 chips and 6 on 4 (they do not: the
    replicated scheme); prefill then decode = the prefill of S + 1 on --chips 2 --ep 2 and
    --chips 4 --ep 4 (data-parallel)."""
    cfg = os.path.join(CONFIGS, name + ".json")
    c = json.load(open(cfg))
    experts = c.get("num_experts") or c.get("num_local_experts") or c.get("n_routed_experts")
    notes = []
    # Rows that do not split (batch 3 on 2 chips, 6 and 1 on 4, 1 on 2): tensor-parallel
    # attention where the heads split, else replicated; an explicit --tp 2 with rows that split
    # (batch 4): tensor-parallel attention.
    cases = [(lay, 4) for lay in EP_LAYOUTS] + [(("--chips", "2", "--ep", "2"), 3), (("--chips", "4", "--ep", "4"), 6),
                                                (("--chips", "2", "--ep", "2"), 1), (("--chips", "4", "--ep", "4"), 1),
                                                (("--chips", "2", "--tp", "2"), 4)]
    # --quick leaves out stages without micro-batches (the micro-batched layout runs the same
    # plan) and the replicated scheme on 4 chips (as on 2).
    same_path = ((("--chips", "4", "--ep", "2", "--pp", "2"), 4), (("--chips", "4", "--ep", "4"), 6))
    for lay, B in cases:
        if experts % int(lay[3]) == 0 and not (QUICK and (lay, B) in same_path):
            notes.append(ep_layout(cfg, name, lay, B))
    decodes = ((("--chips", "2", "--ep", "2"), 2), (("--chips", "4", "--ep", "4"), 4), (("--chips", "2", "--ep", "2"), 1),
               (("--chips", "4", "--ep", "4"), 1), (("--chips", "2", "--tp", "2"), 2))
    for lay, B in decodes[:1] + decodes[2:3] + decodes[4:] if QUICK else decodes:  # --quick: 2 chips' data-parallel and tensor-parallel decodes
        if experts % int(lay[3]) == 0:
            notes.append(f"{' '.join(lay)} b{B}: " + decode_case(cfg, name + "".join(lay).replace("--", "-"), B=B, lay=lay))
    # The single static program (every local expert on its capacity slots) over the chips too.
    d = gen(cfg, name + ".ep.static", "--batch", "4", "--seq", "5", "--chips", "2", "--ep", "2", "--static-experts")
    sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
    r, _ = run(d, "--strict")
    if REF != "-" and "PASS" not in sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout:
        raise RuntimeError("--chips 2 --ep 2 --static-experts: the reference did not pass")
    if not QUICK:  # --quick: the owner rows run inside the all-to-all's cases
        notes.append(owner_rows_case(cfg, name, c, experts))
    notes.append(alltoall_case(cfg, name, c, experts))
    return "reference passed on " + "; ".join(notes) + "; --static-experts on 2 chips"


def check_choices(c, experts, path, T, where):
    """moe_choice: every token's top-k expert ids, distinct integers below the expert count, and
    with group-limited routing from at most topk_group groups."""
    k = c.get("num_experts_per_tok")
    ids = floats(path)
    if len(ids) != T * k:
        raise RuntimeError(f"{where}: {path} holds {len(ids)} ids, want {T} tokens x {k}")
    per_group = experts // c["n_group"] if c.get("n_group") else experts
    for t in range(T):
        row = ids[t * k:(t + 1) * k]
        if any(v != int(v) or not 0 <= v < experts for v in row) or len(set(row)) != k:
            raise RuntimeError(f"{where}: token {t}'s choices {row} are not {k} distinct experts")
        if c.get("n_group") and len({int(v) // per_group for v in row}) > c.get("topk_group", c["n_group"]):
            raise RuntimeError(f"{where}: token {t}'s choices {row} span more than topk_group groups")


def alltoall_case(cfg, name, c, experts):
    """--ep-comm alltoall: the combine of data-parallel attention is generated at run time from
    the stored choices (steps "combine.*" with an "alltoall" object and no streams, no
    reduce-scatter left); prefill and decode on 4 chips of mesh:4, prefill on 2 chips of the
    default ring:2 and on 2 stages of 2 (a stage's last MoE layer keeps its all-reduce) pass the
    reference with --strict; the default ring:4 is exit 2 naming --ep-comm (a chip does not
    forward); a timing-only decode runs."""
    mesh = os.path.join(WORK, "mesh4.json")
    json.dump({"chips": 4, "topology": "mesh:4"}, open(mesh, "w"))
    out = []
    cases = ((("--chips", "4", "--ep", "4", "--system", mesh), ("--seq", "5")),
             (("--chips", "4", "--ep", "4", "--system", mesh), ("--phase", "decode", "--kv-len", "6")),
             (("--chips", "2", "--ep", "2"), ("--seq", "5")),
             (("--chips", "4", "--ep", "2", "--pp", "2"), ("--seq", "5")),
             (("--chips", "2", "--ep", "2", "--static-experts"), ("--seq", "5")),  # owner rows in the static program
             (("--chips", "4", "--ep", "2", "--dp", "2"), ("--seq", "5")))  # two groups' combines in one slot
    for lay, phase in cases:
        # --quick (the sanitizer build): one group of 4 chips, and two groups in one slot.
        if experts % int(lay[3]) != 0 or (QUICK and (phase[0] != "--seq" or "--system" not in lay and "--dp" not in lay)):
            continue
        where = " ".join(a for a in lay if a not in (mesh, "--system")) + " --ep-comm alltoall " + phase[1]
        tag = "".join(lay[:4]).replace("--", "-") + ("-pp2" if "--pp" in lay else "") + \
            ("-static" if "--static-experts" in lay else "") + ("-dp2" if "--dp" in lay else "") + ".a2a." + phase[1]
        d = gen(cfg, name + tag, "--batch", "4", *phase, *lay, "--ep-comm", "alltoall")
        v = sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")]).stdout
        names = step_names(d)
        combines = [n for n in names if n.startswith("combine.")]
        # A stage whose only MoE layer is its last has no combine (its all-reduce stays).
        if (not combines and "--pp" not in lay) or any(n.startswith("reducescatter.") for n in names) or \
                (combines and "generated at run time" not in v):
            raise RuntimeError(f"{where}: steps {names}")
        r, rep = run(d, "--strict")
        if REF != "-" and "PASS" not in sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout:
            raise RuntimeError(f"{where}: the reference did not pass")
        for o in json.load(open(os.path.join(d, "manifest.json")))["outputs"]:
            if o["name"].startswith("moe_choice."):
                check_choices(c, experts, os.path.join(r, o["name"] + ".dat"), o["shape"][0], where)
        times = {st["name"]: st["cycles"] for st in rep["steps"] if st["name"].startswith("combine.")}
        slots = {}
        for n, cyc in times.items():  # the groups' combines of one slot run together: one time for them all
            slots.setdefault(n.split(".")[1], set()).add(cyc)
        if any(len(v) != 1 for v in slots.values()):
            raise RuntimeError(f"{where}: combines of one slot report different times: {times}")
        transfers = [st for st in rep["steps"] if not re.match(r"c\d+\.", st["name"])]
        comm = sum(st["cycles"] for st in transfers if not st["name"].startswith("combine.")) + \
            sum(next(iter(v)) for v in slots.values())
        if abs(comm - rep["comm_seconds"] * 1e9) > 1:  # 1 GHz: a slot's combines counted once
            raise RuntimeError(f"{where}: communication {rep['comm_seconds'] * 1e9:.0f} cycles, the transfer steps {comm}")
        out.append(f"{where}: {len(combines)} combines, comm {rep['comm_seconds'] * 1e6:.1f} us")
    if experts % 4 == 0 and not QUICK:
        r = sh([TILEFW, "gen", "--config", cfg, "--out", os.path.join(WORK, "a2a-ring4"), "--model", "--batch", "4",
                "--seq", "5", "--chips", "4", "--ep", "4", "--ep-comm", "alltoall"], expect=2)
        if "--ep-comm alltoall" not in r.stderr or "ring:4" not in r.stderr:
            raise RuntimeError("--ep-comm alltoall on ring:4: the message does not name the option: " + r.stderr)
        dt = gen(cfg, name + ".a2a.dect", "--batch", "4", "--phase", "decode", "--kv-len", "6", "--timing-only",
                 "--chips", "4", "--ep", "4", "--system", mesh, "--ep-comm", "alltoall")
        _, trep = run(dt, "--timing-only", "--routing", "balanced", tag="t")
        out.append(f"ring:4 refused; timing-only decode {trep['seconds'] * 1e6:.1f} us")
    return "alltoall " + "; ".join(out)


def owner_rows_case(cfg, name, c, experts):
    """Owner rows (the token-selective combine's first stage): on data-parallel attention each chip
    adds the residual and the shared experts of its own rows only and the MoE part stores every
    token's top-k ids; the ring's reduce-scatter still sums the partials. Prefill on 2 chips and
    decode on 4 pass the reference with --strict; the stored choices are well-formed."""
    out = []
    for lay, phase in ((("--chips", "2", "--ep", "2"), ("--seq", "5")),
                       (("--chips", "4", "--ep", "4"), ("--phase", "decode", "--kv-len", "6"))):
        if experts % int(lay[3]) != 0:
            continue
        tag = "".join(lay).replace("--", "-") + ".own." + phase[1]
        d = gen(cfg, name + tag, "--batch", "4", *phase, *lay, "--ep-owner-rows")
        sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
        r, rep = run(d, "--strict")
        where = " ".join(lay) + " --ep-owner-rows " + phase[1]
        if REF != "-" and "PASS" not in sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout:
            raise RuntimeError(f"{where}: the reference did not pass")
        m = json.load(open(os.path.join(d, "manifest.json")))
        choices = [o for o in m["outputs"] if o["name"].startswith("moe_choice.")]
        if not choices:
            raise RuntimeError(f"{where}: no moe_choice outputs")
        for o in choices:
            check_choices(c, experts, os.path.join(r, o["name"] + ".dat"), o["shape"][0], where)
        out.append(f"{where}: {len(choices)} layers' choices")
    return "owner rows " + ", ".join(out)


EP_PASS_LAYOUTS = (("--chips", "2", "--ep", "2"), ("--chips", "4", "--ep", "4"))
EP_PASSES = (("prefill in 2 chunks", ["--batch", "1", "--seq", "8", "--prefill-chunk", "4"], "prefill_chunk", 1, 8),
             ("decode in 3 row passes", ["--batch", "3", "--phase", "decode", "--kv-len", "6", "--decode-chunk", "1"],
              "decode_chunk", 3, 1))  # 3 rows do not split over 2 or 4 chips: the attention stays replicated


def every_expert_config(cfg, name):
    """The config with every token routed to every expert (top_k = experts, deepseek_v3 keeping
    every group): the counts are then known without running, each expert gets every token, which
    is what --routing balanced gives, so a timing-only run times the functional run's work."""
    c = json.load(open(cfg))
    experts = c.get("num_experts") or c.get("num_local_experts") or c.get("n_routed_experts")
    c["num_experts_per_tok"] = experts
    if "n_group" in c:
        c["topk_group"] = c["n_group"]
    out = os.path.join(WORK, name + ".every.json")
    json.dump(c, open(out, "w"))
    return out


def moe_commands(d):
    """Commands of the two-phase (MoE) steps' routing phases in a model manifest."""
    m = json.load(open(os.path.join(d, "manifest.json")))
    return sum(e["commands"] for st in m["model"]["steps"] if st.get("two_phase") for c in st["cores"]
               for e in (c["tiu"], c["gdma"], c["sdma"]))


def ep_passes_case(name):
    """MoE layers in passes on an expert-parallel group (each chip's passes run its own experts):
    chunked prefill and decode row passes on --chips 2 --ep 2 and --chips 4 --ep 4 validate, run
    with --strict and pass the independent reference; next_token = the logits' argmax; reuse =
    full simulation; with every token on every expert, timing-only = functional cycles."""
    cfg = os.path.join(CONFIGS, name + ".json")
    c = json.load(open(cfg))
    experts = c.get("num_experts") or c.get("num_local_experts") or c.get("n_routed_experts")
    every = every_expert_config(cfg, name)
    notes = []
    for lay in EP_PASS_LAYOUTS:
        if experts % int(lay[3]) != 0:
            continue
        tag = "".join(lay).replace("--", "-")
        for what, req, key, B, S in EP_PASSES:
            d = gen(cfg, name + tag + ".p." + key, *req, *lay)
            # In passes the routing phase also dispatches each pass's tokens: its streams differ
            # from the one-pass layer's (which the tiny request maps to without the option).
            one = gen(cfg, name + tag + ".one." + key, *req[:-2], *lay)
            if json.load(open(os.path.join(d, "manifest.json")))["model"]["generator"][key] != int(req[-1]) or \
                    moe_commands(d) == moe_commands(one):
                raise RuntimeError(f"{' '.join(lay)} {what}: the MoE steps do not run in passes")
            sh([TILEFW, "validate", "--manifest", os.path.join(d, "manifest.json")])
            r, rep = run(d, "--strict")
            if REF != "-":
                out = sh([REF, "--config", cfg, "--gen", d, "--run", r]).stdout
                if "PASS" not in out:
                    raise RuntimeError(f"{' '.join(lay)} {what}: the reference did not pass:\n{out}")
            argmax_case(cfg, d, r, B, S)
            timing_case(cfg, d, rep)
            if key != "prefill_chunk":
                continue
            # Timing-only = functional cycles, the counts known (every expert gets every token).
            df = gen(every, name + tag + ".every", *req, *lay)
            rf, frep = run(df, "--strict")
            if REF != "-" and "PASS" not in sh([REF, "--config", every, "--gen", df, "--run", rf]).stdout:
                raise RuntimeError(f"{' '.join(lay)} {what}, every token on every expert: the reference did not pass")
            dt = gen(every, name + tag + ".every.t", *req, *lay, "--timing-only")
            _, trep = run(dt, "--timing-only", "--routing", "balanced", tag="t")
            if trep["cycles_total"] != frep["cycles_total"]:
                raise RuntimeError(f"{' '.join(lay)} {what}: timing-only {trep['cycles_total']} != functional "
                                   f"{frep['cycles_total']} cycles")
            notes.append(f"{' '.join(lay)}: prefill in passes {rep['seconds'] * 1e6:.1f} us")
    # The MoE part of data-parallel attention (4 rows split over 2 chips) in passes: exit 1.
    r = sh([TILEFW, "gen", "--config", cfg, "--out", os.path.join(WORK, "z"), "--model", "--batch", "4", "--phase",
            "decode", "--kv-len", "6", "--decode-chunk", "2", "--chips", "2", "--ep", "2"], expect=1)
    if "--ep 2" not in r.stderr or "passes" not in r.stderr:
        raise RuntimeError(f"data-parallel attention in passes: the message does not name --ep and passes: {r.stderr}")
    return "reference passed; " + "; ".join(notes) + "; data-parallel attention in passes exit 1"


def ep_refused_case():
    moe, dense = os.path.join(CONFIGS, "qwen3_moe_tiny3.json"), os.path.join(CONFIGS, "llama_tiny3.json")
    for cfg, opts, word in ((moe, ["--chips", "4", "--ep", "4"], "--ep 4"), (moe, ["--chips", "4", "--ep", "2"], "--ep 2"),
                            (dense, ["--chips", "2", "--ep", "2"], "--ep 2"),
                            (os.path.join(CONFIGS, "qwen3_moe_ep_tiny3.json"), ["--chips", "4", "--tp", "4"], "--tp 4")):
        r = sh([TILEFW, "gen", "--config", cfg, "--out", os.path.join(WORK, "z"), "--model", *opts], expect=2)
        if word not in r.stderr:
            raise RuntimeError(f"{' '.join(opts)}: the message does not name {word}: {r.stderr}")
    return "bad expert-parallel requests exit 2 naming the option"


def write_safetensors(path, tensors):
    """tensors: (name, dtype, shape, bytes); 8-byte LE header length, JSON header, data."""
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def weights_case(name):
    """--weights: the whole checkpoint under its published names (written here from a drawn
    model's weights[] entries, whose files hold each tensor as transformers does) gives the same
    outputs as the drawn model, on one chip and on two stages; a missing tensor is exit 2 naming
    it; with the weights file the drawing seed no longer matters for the weights."""
    cfg = os.path.join(CONFIGS, name + ".json")
    d = gen(cfg, name + ".drawn", "--seq", "3", "--batch", "2", "--seed", "7")
    r, _ = run(d)
    m = json.load(open(os.path.join(d, "manifest.json")))
    st = {"bf16": "BF16", "f16": "F16", "f32": "F32"}
    tensors = []
    for w in m["weights"]:
        with open(os.path.join(d, w["file"]), "rb") as f:
            f.seek(w["file_offset"])
            tensors.append((w["name"], st[w["dtype"]], w["shape"], f.read(w["bytes"])))
    names = [t[0] for t in tensors]
    for must in ("model.embed_tokens.weight", "model.norm.weight", "model.layers.0.input_layernorm.weight"):
        if must not in names:
            raise RuntimeError(f"weights[] lacks {must}")
    path = os.path.join(WORK, name + ".safetensors")
    write_safetensors(path, tensors)
    for lay in ((), ("--chips", "2", "--pp", "2")):
        # Another seed: only the token ids would follow it, so they are copied from the drawn run.
        d2 = gen(cfg, name + ".file" + "".join(lay), "--seq", "3", "--batch", "2", "--seed", "8", "--weights", path, *lay)
        shutil.copy(os.path.join(d, "input_ids.bin"), os.path.join(d2, "input_ids.bin"))
        r2, _ = run(d2)
        for f in sorted(os.listdir(r)):
            if open(os.path.join(r, f), "rb").read() != open(os.path.join(r2, f), "rb").read():
                raise RuntimeError(f"--weights {' '.join(lay)}: {f} differs from the drawn model's")
    head = "model.embed_tokens.weight" if "lm_head.weight" not in names else "lm_head.weight"
    write_safetensors(path, [t for t in tensors if t[0] != head])
    r = sh([TILEFW, "gen", "--config", cfg, "--out", os.path.join(WORK, "w"), "--model", "--weights", path], expect=2)
    if head not in r.stderr:
        raise RuntimeError(f"a checkpoint without {head}: the message does not name it: {r.stderr}")
    return f"{len(tensors)} checkpoint tensors read, outputs identical on 1 chip and 2 stages"


def whatif_case():
    """A chip what-if (--chip-config): Llama-3-8B decode is DDR-bound, so twice the DDR bandwidth
    takes between half and two thirds of the time (the weights stream at the new rate; the rest
    does not speed up), twice the clock leaves the seconds within 5 % (the same bytes per second);
    the peak is refused as a key (it follows the clock), and so is a capacity given twice."""
    llama8b = os.path.join(CONFIGS, "..", "..", "data", "models", "llama-3-8b.json")
    d = gen(llama8b, "whatif", "--phase", "decode", "--kv-len", "512", "--timing-only")
    cfgs = {}
    for name, body in (("ddr2x", {"ddr_gbytes_per_s": 1092.224}), ("clock2x", {"clock_ghz": 2.0}),
                       ("peak", {"peak_tflops": 300}), ("typo", {"ddr_gbyte_per_s": 1})):
        cfgs[name] = os.path.join(WORK, name + ".json")
        json.dump(body, open(cfgs[name], "w"))
    _, base = run(d, "--timing-only", tag="base")
    _, ddr = run(d, "--timing-only", "--chip-config", cfgs["ddr2x"], tag="ddr")
    _, clk = run(d, "--timing-only", "--chip-config", cfgs["clock2x"], tag="clk")
    ratio = ddr["seconds"] / base["seconds"]
    if not 0.5 <= ratio <= 0.67:
        raise RuntimeError(f"twice the DDR bandwidth: {ratio:.3f} of the time")
    if abs(clk["seconds"] / base["seconds"] - 1) > 0.05 or clk["cycles_total"] < 1.9 * base["cycles_total"]:
        raise RuntimeError(f"twice the clock: {clk['seconds']} s, {clk['cycles_total']} cycles vs {base['seconds']} s")
    for bad, word in (("peak", "peak_tflops"), ("typo", "ddr_gbyte_per_s")):
        r = sh([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--timing-only", "--chip-config", cfgs[bad]],
               expect=2)
        if word not in r.stderr:
            raise RuntimeError(f"--chip-config {bad}: the message does not name {word}: {r.stderr}")
    r = sh([TILEFW, "gen", "--config", llama8b, "--out", os.path.join(WORK, "z"), "--model", "--timing-only",
            "--chip-config", cfgs["ddr2x"], "--ddr-capacity-gib", "8"], expect=2)
    return f"2x DDR bandwidth: {ratio:.3f} of the time; 2x clock: {clk['seconds'] / base['seconds']:.3f}"


def cli_case():
    cfg = json.load(open(os.path.join(CONFIGS, NAMES[0] + ".json")))
    cfg.pop("vocab_size", None)
    bad = os.path.join(WORK, "novocab.json")
    json.dump(cfg, open(bad, "w"))
    r = sh([TILEFW, "gen", "--config", bad, "--out", os.path.join(WORK, "x"), "--model"], expect=2)
    if "vocab_size" not in r.stderr:
        raise RuntimeError("a config without vocab_size: the message does not name it: " + r.stderr)
    llama8b = os.path.join(CONFIGS, "..", "..", "data", "models", "llama-3-8b.json")
    r = sh([TILEFW, "gen", "--config", llama8b, "--out", os.path.join(WORK, "big"), "--model", "--timing-only",
            "--seq", "16", "--ddr-capacity-gib", "8"], expect=1)
    if "chip 0" not in r.stderr or "short by" not in r.stderr or "2 chips" not in r.stderr:
        raise RuntimeError("a model beyond the DDR capacity: the message lacks the chip, shortfall or chip count: " + r.stderr)
    if os.path.exists(os.path.join(WORK, "big")):
        raise RuntimeError("a refused gen left its output")
    d = gen(os.path.join(CONFIGS, NAMES[0] + ".json"), "cli", "--seq", "2")
    r = sh([TILEFW, "run", "--manifest", os.path.join(d, "manifest.json"), "--trace", os.path.join(WORK, "t.json")], expect=2)
    if os.path.exists(os.path.join(WORK, "t.json")):
        raise RuntimeError("a refused --trace left a file")
    base = os.path.join(CONFIGS, NAMES[0] + ".json")
    for opts, word in ((["--chips", "4"], "--tp 4"), (["--chips", "3", "--pp", "2"], "--chips 3"),
                       (["--chips", "2", "--dp", "2", "--batch", "3"], "--batch 3"), (["--chips", "2", "--ep", "2", "--pp", "2"], "--ep 2"),
                       (["--chips", "64", "--pp", "64"], "--pp 64")):
        r = sh([TILEFW, "gen", "--config", base, "--out", os.path.join(WORK, "y"), "--model", *opts], expect=2)
        if word not in r.stderr:
            raise RuntimeError(f"{' '.join(opts)}: the message does not name {word}: {r.stderr}")
    return "exit codes as documented"


def main():
    if EP_ONLY:
        return run_cases([("ep " + n, (lambda n=n: ep_case(n))) for n in NAMES] +
                         [("ep passes " + n, (lambda n=n: ep_passes_case(n))) for n in NAMES] +
                         [("ep refused", ep_refused_case), ("ep tp refused", tp_refused_case)] +
                         [("ep weights " + n, (lambda n=n: tp_weights_case(n, ("--chips", "2", "--ep", "2"))))
                          for n in ("qwen3_moe_ep_tiny3", "deepseek_v3_tiny3") if n in NAMES] +
                         [("ep tp weights " + n, (lambda n=n: tp_weights_case(n, ("--chips", "2", "--tp", "2"))))
                          for n in ("qwen3_moe_ep_tiny3", "deepseek_v3_tiny3") if n in NAMES])
    if TP_ONLY:
        cases = [("tp " + n, (lambda n=n: tp_case(n))) for n in NAMES] + [("tp refused", tp_refused_case)] + \
            [("tp weights " + n, (lambda n=n: tp_weights_case(n))) for n in ("llama_tiny3", "qwen2_tiny3") if n in NAMES] + \
            [("tp mesh " + n, (lambda n=n: tp_mesh_case(n))) for n in ("qwen2_tiny3",) if n in NAMES] + \
            [("tp gather " + n, (lambda n=n: tp_gather_case(n))) for n in ("llama_tiny3",) if n in NAMES] + \
            [("tp gather on 4 chips " + n, (lambda n=n: tp_gather_case(n, (("--chips", "4", "--tp", "4"),))))
             for n in ("qwen2_tiny3",) if n in NAMES]
        return run_cases(cases)
    cases = [(n, (lambda n=n: config_case(n))) for n in NAMES] + [("cli", cli_case), ("chip what-if", whatif_case)] + \
        [("weights " + n, (lambda n=n: weights_case(n))) for n in ("llama_tiny3", "qwen3_moe_tiny3") if n in NAMES]
    return run_cases(cases)


def run_cases(cases):
    for name, body in cases:
        try:
            print(f"ok   {name}: {body()}", flush=True)
        except Exception as e:  # noqa: BLE001 - report every case
            failures.append(name)
            print(f"FAIL {name}: {e}", flush=True)
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"{len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
