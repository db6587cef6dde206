#!/usr/bin/env python3
"""scripts/fit_a2a3_cycles.py on synthetic cases made from known parameters (no simulator):
the fit recovers exact parameters, a fallback of the form "a+b" sums, the start-up structure
chosen by leave-one-instruction-out is the one the data was made with, and the nested
cross-validation predicts every left-out case exactly when the structure holds.

Usage: check_fit_script.py FIT_SCRIPT
"""
import importlib.util
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def load(path):
    spec = importlib.util.spec_from_file_location("fit_a2a3_cycles", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Made with class_start: each unit its own start-up. Two instructions per class, so leaving
# one out still leaves the class its data.
TRUE = {"v_start_binary": 10.0, "v_start_unary": 30.0, "v_start_math": 50.0, "v_binary": 2.0, "v_unary": 1.0,
        "v_math": 3.0, "v_issue": 1.0}
CASES = [("TADD", "binary", 16), ("TADD", "binary", 64), ("TSUB", "binary", 32), ("TSUB", "binary", 128),
         ("TABS", "unary", 8), ("TABS", "unary", 32), ("TRELU", "unary", 16), ("TRELU", "unary", 64),
         ("TEXP", "math", 8), ("TEXP", "math", 32), ("TLN", "math", 16), ("TLN", "math", 64)]


def synthetic(f):
    ids, instr, profiled = [], {}, {}
    single = {m: {} for m in f.MEMBERS}
    base = {}
    for k, (name, cls, reps) in enumerate(CASES):
        i = f"{name.lower()}_{k}"
        ids.append(i)
        instr[i] = name
        base[i] = 0
        # Some instructions take two issues (the start-up is paid once, at the chain's end).
        pays = {"v_start_" + cls: 1, "v_" + cls: reps, "v_issue": 2 if name in ("TSUB", "TRELU", "TLN") else 1}
        for m in f.MEMBERS:
            single[m][i] = pays.get(m, 0)
        profiled[i] = sum(TRUE[m] * n for m, n in pays.items())
    return ids, instr, profiled, single, base


def main():
    f = load(sys.argv[1])
    ids, instr, profiled, single, base = synthetic(f)
    models = [f.Model(v, base, single, profiled, ids) for v in f.VARIANTS]
    cls = next(m for m in models if m.variant == "class_start")
    x = cls.train(ids)
    for k, want in (("v_start", 10.0), ("v_start_unary", 30.0), ("v_start_math", 50.0), ("v_binary", 2.0),
                    ("v_unary", 1.0), ("v_math", 3.0), ("v_issue", 1.0)):
        check(abs(x[k] - want) < 1e-6, f"class_start fit recovers {k} = {want} (got {x[k]:.6f})")
    check(all(cls.predict(x, i) == round(profiled[i]) for i in ids), "in-sample predictions exact")
    # A parameter no case pays takes its fallback; vdiv: a reciprocal and a multiply.
    check(abs(x["v_div"] - (x["v_math"] + x["v_binary"])) < 1e-9, f"v_div falls back to v_math + v_binary ({x['v_div']})")
    check(x["v_f32"] == 0.0 and x["mte2_startup"] == 200.0, "numeric fallbacks are the decision values")
    groups, fitted, _ = f.spec("scalar_start")
    check("v_start_scalar" in fitted and "v_start_scalar" not in groups["v_start"], "scalar_start: the scalar start is its own")
    groups, fitted, _ = f.spec("shared_start")
    check(len(groups["v_start"]) == len(f.CLASSES), "shared_start: one start for every class")
    best, med = f.select(models, ids, instr, profiled)
    check(best.variant == "class_start" and med == 1.0, f"select picks the structure the data was made with ({best.variant}, {med})")
    shared = next(m for m in models if m.variant == "shared_start")
    check(f.cv_median(shared, ids, instr, profiled) < 1.0, "one shared start-up cannot fit three units' starts")
    # Leave-one-instruction-out with the true structure predicts every left-out case exactly.
    pred = cls.loio(ids, instr)
    check(all(pred[i] == round(profiled[i]) for i in ids), "leave-one-instruction-out predictions exact")
    # Training floor: a case profiled under 0.75 cycles a repeat of its stream is not fitted on
    # (it would pull the repeat cost down) but is still predicted.
    fast = "tadd_fast"
    ids2, instr2, prof2, single2 = ids + [fast], dict(instr, **{fast: "TADD"}), dict(profiled, **{fast: 10.0}), \
        {m: dict(v, **{fast: {"v_binary": 64, "v_start_binary": 1, "v_issue": 1}.get(m, 0)}) for m, v in single.items()}
    floored = f.Model("class_start", dict(base, **{fast: 0}), single2, prof2, ids2)
    check(floored.below_floor == {fast}, f"the case under the floor is found ({floored.below_floor})")
    x2 = floored.train(ids2)
    check(abs(x2["v_binary"] - 2.0) < 1e-6, f"a case under the floor does not move the fit (v_binary {x2['v_binary']:.6f})")
    check(floored.predict(x2, fast) == round(10.0 + 64 * 2.0 + 1.0), "a case under the floor is still predicted")
    check(abs(f.precision(100, 93) - 0.93) < 1e-12 and f.precision(10, 30) == 0.0, "precision = max(0, 1 - |p - q| / p)")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("fit script: all checks passed")


if __name__ == "__main__":
    main()
