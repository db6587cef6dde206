#!/usr/bin/env python3
"""Model changes tried against the a2a3 timing fit and not kept, each re-run through the same
fit, leave-one-instruction-out and nested cross-validation as scripts/fit_a2a3_cycles.py, so
that the figures in docs/a2a3-timing.md (section 5) can be reproduced.

Each try is one hypothesis about the hardware (a start-up or f32-latency grouping, a repeat
cost per dtype width, a floor on the per-issue cost) or about the statistics (how the
start-up structure is chosen, partial pooling of the start-ups). A try changes the linear form
of the model only: the coefficients still come from the simulator (`tilefw cycles
--zero-params --param K=1`), split or regrouped where the try asks, which for one instruction
run alone is exactly what a new table parameter would give.

Usage: fit_a2a3_tries.py TILEFW CASES.json [--cache FILE] [--only NAME] [--jackknife]
  --cache FILE: keep the simulator's coefficients in FILE (read it when it exists).
  --jackknife: instead, the kept model's nested median with each case left out in turn.
Prints one row per try: in-sample, cross-validated (structure chosen on all cases) and nested
medians, the nested minimum, cases >= 0.9 and below 0.5.
"""
import importlib.util
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY_OPS = ("TADD", "TSUB", "TMUL", "TMAX", "TMIN", "TCOLSUM", "TCOLMAX")


def load():
    """A fresh copy of the fit script's module (a try patches its copy only)."""
    spec = importlib.util.spec_from_file_location("fit_a2a3_cycles", os.path.join(HERE, "fit_a2a3_cycles.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:  # the same normal equations, faster where numpy is installed
        import numpy as np

        def solve(a, b):
            m = np.array(a, float)
            lhs = m.T @ m + 1e-9 * np.eye(m.shape[1])
            return list(np.linalg.lstsq(lhs, m.T @ np.array(b, float), rcond=None)[0])
        mod.solve = solve
    except ImportError:
        pass
    return mod


def coefficients(f, tilefw, cases_path, cache):
    if cache and os.path.exists(cache):
        with open(cache) as fh:
            c = json.load(fh)
        return c["base"], c["single"]
    base = f.run(tilefw, cases_path, {})
    single = {m: f.run(tilefw, cases_path, {m: 1.0}) for m in f.MEMBERS}
    if cache:
        with open(cache, "w") as fh:
            json.dump({"base": base, "single": single}, fh)
    return base, single


# ---- the tries: each takes (module, base, single, cases) and patches them ------------------

def baseline(f, base, single, cases):
    """The kept model, for reference."""


def own_start_every_unit(f, base, single, cases):
    """A fourth candidate structure: every op class its own start-up (div, reduce and copy too)."""
    orig = f.spec

    def spec(variant):
        if variant != "unit_start":
            return orig(variant)
        groups, fitted, fallback = orig("class_start")
        for c in ("div", "reduce", "copy"):
            fitted.append("v_start_" + c)
            fallback["v_start_" + c] = "v_start"
        groups["v_start"] = ["v_start_binary"]
        return groups, fitted, fallback
    f.spec = spec
    f.VARIANTS = f.VARIANTS + ["unit_start"]


def f32_per_unit(f, base, single, cases, each=False):
    """The f32 extra latency of the scalar-operand ops its own (their f32 ALU), or one per class."""
    orig = f.spec
    own = ("div", "scalar", "cvt") if each else ("scalar",)

    def spec(variant):
        groups, fitted, fallback = orig(variant)
        groups["v_f32"] = ["v_f32_" + c for c in f.FLOAT_CLASSES if c not in own]
        for c in own:
            groups["v_f32o_" + c] = ["v_f32_" + c]
            fitted.append("v_f32o_" + c)
            fallback["v_f32o_" + c] = "v_f32"
        return groups, fitted, fallback
    f.spec = spec


def binary_repeat_per_width(f, base, single, cases):
    """A 32-bit elementwise repeat costs its own (16-bit and 32-bit binary repeats differ)."""
    new = "v_binary32"
    single[new] = {}
    for c in cases:
        i = c["id"]
        if i not in base or base[i] is None:
            continue
        coef = single["v_binary"][i] - base[i]
        wide = c["operands"][0]["dtype"] in ("f32", "i32")
        single[new][i] = base[i] + (coef if wide and c["instruction"] in BINARY_OPS else 0)
        if wide and c["instruction"] in BINARY_OPS:
            single["v_binary"][i] = base[i]
    f.MEMBERS = f.MEMBERS + [new]
    orig = f.spec

    def spec(variant):
        groups, fitted, fallback = orig(variant)
        fitted.append(new)
        fallback[new] = "v_binary"
        return groups, fitted, fallback
    f.spec = spec


def issue_floor(f, base, single, cases):
    """The per-issue cost held at one cycle (the vector pipe takes at most one issue a cycle)."""
    for i in list(base):
        if base[i] is None:
            continue
        shift = single["v_issue"][i] - base[i]
        for m in f.MEMBERS:
            if m != "v_issue":
                single[m][i] += shift
        base[i] += shift
    orig = f.spec

    def spec(variant):
        groups, fitted, fallback = orig(variant)
        fitted.remove("v_issue")
        return groups, fitted, fallback
    f.spec = spec


def select_by(criterion):
    """The start-up structure chosen by another figure of its cross-validation than the median."""
    def apply(f, base, single, cases):
        def score(pred, ids, profiled):
            p = sorted(f.precision(profiled[i], pred[i]) for i in ids)
            if criterion == "mean":
                return statistics.mean(p)
            if criterion == "trimmed mean":
                return statistics.mean(p[len(p) // 4: len(p) - len(p) // 4])
            if criterion == "count >= 0.9":
                return sum(x >= 0.9 for x in p)
            return -statistics.mean(abs(math.log(max(pred[i], 1) / profiled[i])) for i in ids)

        def select(models, ids, instr, profiled):
            best, best_s = None, -1e300
            for m in models:
                s = score(m.loio(ids, instr), ids, profiled)
                if s > best_s + 1e-12:
                    best, best_s = m, s
            return best, best_s
        f.select = select
    return apply


def pooled_start(weight):
    """No choice of structure: every unit's start-up is the pipe's common start plus its own
    extra, each extra pulled toward 0 (partial pooling) by one pseudo-case of `weight`."""
    def apply(f, base, single, cases):
        orig_spec, orig_fit = f.spec, f.fit

        def spec(variant):
            groups, fitted, fallback = orig_spec("class_start")
            groups["v_start"] = ["v_start_" + c for c in f.CLASSES]
            for c in ("scalar", "unary", "math", "dup", "cvt"):
                groups["v_start_" + c] = ["v_start_" + c]
            return groups, fitted, fallback

        def fit(rows, fitted):
            extra = [k for k in fitted if k.startswith("v_start_")]
            pseudo = [({q: (weight if q == k else 0.0) for q in fitted}, 0.0, 50.0) for k in extra]
            return orig_fit(rows + pseudo, fitted)
        f.spec, f.fit = spec, fit
        f.VARIANTS = ["pooled"]
    return apply


TRIES = [
    ("kept model", "the start-up structure chosen among three by the median", baseline),
    ("own start per unit", "a fourth structure: every class its own start-up", own_start_every_unit),
    ("f32 latency of scalar ops own", "their f32 latency apart from the transcendental, div and convert units",
     lambda *a: f32_per_unit(*a)),
    ("f32 latency per class", "div, scalar-operand, convert each their own f32 latency",
     lambda *a: f32_per_unit(*a, each=True)),
    ("binary repeat per width", "32-bit elementwise repeats their own cost", binary_repeat_per_width),
    ("issue floor 1 cycle", "per-issue cost held at one cycle", issue_floor),
    ("choice by mean", "structure chosen by the mean cross-validated precision", select_by("mean")),
    ("choice by trimmed mean", "by the mean of the middle half", select_by("trimmed mean")),
    ("choice by count >= 0.9", "by the cases at 0.9 or better", select_by("count >= 0.9")),
    ("choice by log error", "by the mean absolute log ratio", select_by("log error")),
    ("pooled start, weight 0.3", "no choice: start-ups pooled toward the common one", pooled_start(0.3)),
    ("pooled start, weight 1", "the same, pulled harder", pooled_start(1.0)),
    ("pooled start, weight 3", "the same, pulled harder still", pooled_start(3.0)),
]


def evaluate(f, base, single, cases):
    profiled = {c["id"]: c["profiled_cycles"] for c in cases}
    instr = {c["id"]: c["instruction"] for c in cases}
    ids = [c["id"] for c in cases if base.get(c["id"]) is not None]
    models = [f.Model(v, base, single, profiled, ids) for v in f.VARIANTS]
    chosen, _ = f.select(models, ids, instr, profiled) if len(models) > 1 else (models[0], None)
    x = chosen.train(ids)
    inside = statistics.median(f.precision(profiled[i], chosen.predict(x, i)) for i in ids)
    cv = chosen.loio(ids, instr)
    cv_med = statistics.median(f.precision(profiled[i], cv[i]) for i in ids)
    nested = {}
    for name in sorted(set(instr.values())):
        train = [i for i in ids if instr[i] != name]
        m = f.select(models, train, instr, profiled)[0] if len(models) > 1 else models[0]
        xt = m.train(train)
        for i in ids:
            if instr[i] == name:
                nested[i] = m.predict(xt, i)
    med, lo, good, poor, n = f.summary([f.precision(profiled[i], nested[i]) for i in ids])
    return inside, cv_med, med, lo, good, poor, n


def jackknife(base, single, cases, loader=load, drops=None):
    """The kept model's nested median with each case in turn left out of everything: how far
    one case moves the figure."""
    out = []
    for drop in cases if drops is None else drops:
        f = loader()
        rest = [c for c in cases if c["id"] != drop["id"]]
        out.append((drop["id"], evaluate(f, dict(base), {k: dict(v) for k, v in single.items()}, rest)[2]))
        print(f"  without {drop['id']}: nested median {out[-1][1]:.3f}", flush=True)
    meds = [m for _, m in out]
    print(f"nested median without one case: {min(meds):.3f} to {max(meds):.3f}, median {statistics.median(meds):.3f}")
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 2:
        sys.exit("usage: fit_a2a3_tries.py TILEFW CASES.json [--cache FILE] [--only NAME]")
    tilefw, cases_path = args[0], args[1]
    cache = sys.argv[sys.argv.index("--cache") + 1] if "--cache" in sys.argv else None
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    with open(cases_path) as fh:
        cases = json.load(fh)
    print("| try | what | in-sample | cross-validated | nested | nested min | >= 0.9 | below 0.5 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    base0, single0 = coefficients(load(), tilefw, cases_path, cache)
    if "--jackknife" in sys.argv:
        jackknife(base0, single0, cases)
        return
    for name, what, apply in TRIES:
        if only and only != name:
            continue
        f = load()
        base, single = dict(base0), {k: dict(v) for k, v in single0.items()}
        apply(f, base, single, cases)
        inside, cv, med, lo, good, poor, n = evaluate(f, base, single, cases)
        print(f"| {name} | {what} | {inside:.3f} | {cv:.3f} | {med:.3f} | {lo:.3f} | {good} of {n} | {poor} |",
              flush=True)


if __name__ == "__main__":
    main()
