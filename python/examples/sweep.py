#!/usr/bin/env python3
"""sweep.py CONFIG PNG: one decoder layer's decode step timed over TP x batch (timing only),
printed as a list of dicts and plotted (time vs batch, with the bound) to PNG.
docs/python.md shows the sweep part; CI runs this file on a tiny config."""
import sys

import tilefw


def sweep(config, tps=(1, 2, 4), batches=(1, 2, 4, 8), kv_len=128):
    gen = tilefw.InstructionGenerator(config)
    rows = []
    for tp in tps:
        for batch in batches:
            program = gen.generate(batch_size=batch, phase="decode", kv_len=kv_len,
                                   parallelism={"tp": tp}, timing_only=True)
            report = tilefw.run(program, timing_only=True).report
            rows.append({"tp": tp, "batch": batch, "seconds": report["seconds"],
                         "bound_seconds": report["bound_seconds"], "mfu": report["mfu"]})
    return rows


def plot(rows, png):
    import matplotlib
    matplotlib.use("Agg")  # no display: write the file only
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    drawn = []  # bound series already drawn: TP degrees on one chip usually share the bound
    for tp in sorted({r["tp"] for r in rows}):
        sel = [r for r in rows if r["tp"] == tp]
        batches = [r["batch"] for r in sel]
        line, = ax.plot(batches, [r["seconds"] * 1e6 for r in sel], marker="o", label=f"tp {tp}")
        bound = [r["bound_seconds"] * 1e6 for r in sel]
        if bound not in drawn:
            drawn.append(bound)
            ax.plot(batches, bound, linestyle="--", color=line.get_color(), label=f"bound (tp {tp})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch (decode, one layer)")
    ax.set_ylabel("simulated time (us)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small", loc="center right")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    result = sweep(sys.argv[1])
    for row in result:
        print(row)
    plot(result, sys.argv[2])
