#!/usr/bin/env python3
"""scripts/fit_a2a3_tries.py on the synthetic cases of check_fit_script.py (made from known
parameters with one start-up per unit, no simulator): the kept model predicts every case
exactly in-sample, cross-validated and nested; every try runs; a try that pulls the units'
start-ups together (pooled, weight 3) cannot fit the three units and loses in the nested figure;
the jackknife (each case left out of everything in turn) keeps the kept model exact.

Usage: check_fit_tries.py TRIES_SCRIPT
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    tries = load("fit_a2a3_tries", sys.argv[1])
    synth = load("check_fit_script", os.path.join(HERE, "check_fit_script.py"))
    figures = {}
    for name, _, apply in tries.TRIES:
        f = tries.load()
        # Two instructions per class: an inner fold of the nested cross-validation can leave a
        # class without data, and the binary repeat (the root of the real fallbacks) then needs one.
        f.BASE_FALLBACK["v_binary"] = 0.0
        ids, instr, profiled, single, base = synth.synthetic(f)
        cases = [{"id": i, "instruction": instr[i], "profiled_cycles": profiled[i],
                  "operands": [{"dtype": "f32" if n % 2 else "f16"}]} for n, i in enumerate(ids)]
        apply(f, base, single, cases)
        figures[name] = tries.evaluate(f, base, single, cases)
    for k, v in figures.items():
        print(f"{k}: in-sample {v[0]:.3f}, cross-validated {v[1]:.3f}, nested {v[2]:.3f}")
    kept = figures["kept model"]
    check(kept[:3] == (1.0, 1.0, 1.0) and kept[5] == 0, f"kept model exact on its own structure: {kept}")
    check(len(figures) == len(tries.TRIES), "every try has a unique name and runs")
    pooled = figures["pooled start, weight 3"]
    check(pooled[2] < 1.0, f"pooled start-ups cannot fit three units' start-ups: nested {pooled[2]}")
    # Without one case (a few, in turn) the kept model stays exact on the synthetic cases.
    def loader():
        f = tries.load()
        f.BASE_FALLBACK["v_binary"] = 0.0
        return f
    f = loader()
    ids, instr, profiled, single, base = synth.synthetic(f)
    cases = [{"id": i, "instruction": instr[i], "profiled_cycles": profiled[i]} for i in ids]
    drops = cases[::4]  # one case of each unit's first instruction, to stay quick
    jack = tries.jackknife(base, single, cases, loader, drops)
    check(len(jack) == len(drops) and all(m == 1.0 for _, m in jack), f"jackknife: every nested median 1.0 ({jack})")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("fit tries script: all checks passed")


if __name__ == "__main__":
    main()
