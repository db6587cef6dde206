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
    for tp in sorted({r["tp"] for r in rows}):
        sel = [r for r in rows if r["tp"] == tp]
        line, = ax.plot([r["batch"] for r in sel], [r["seconds"] * 1e6 for r in sel], marker="o", label=f"tp {tp}")
        ax.plot([r["batch"] for r in sel], [r["bound_seconds"] * 1e6 for r in sel], linestyle="--",
                color=line.get_color(), label=f"tp {tp} bound")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch (decode, one layer)")
    ax.set_ylabel("simulated time (us)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    result = sweep(sys.argv[1])
    for row in result:
        print(row)
    plot(result, sys.argv[2])
