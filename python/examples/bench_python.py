#!/usr/bin/env python3
"""bench_python.py TILEFW_EXE SOURCE_ROOT: the Python module's cost against the CLI's.
  parse: BinaryCommandParser.parse_bmodel on each real model (every command's op read) vs
         `tilefw dump FILE > /dev/null` (best of 5 each);
  layer: generate + timing-only run of one Llama-3-8B decoder layer from Python vs `tilefw gen`
         then `tilefw run` as processes (best of 3 each).
Prints one line per figure (bench/RESULTS.md records them)."""
import os
import subprocess
import sys
import tempfile
import time

import tilefw


def best(fn, n):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    exe, root = sys.argv[1], sys.argv[2]
    tdb = os.path.join(root, "test", "data", "sg2260-tdb")
    for name in ("resnet50_v2_bm1690_f16_core8", "yolov5s_bm1690_f16_core8"):
        path = os.path.join(tdb, name + ".bmodel")

        def dump():
            with open(os.devnull, "w") as null:
                subprocess.run([exe, "dump", path], stdout=null, stderr=null, check=True)

        def parse():
            cores = tilefw.BinaryCommandParser.parse_bmodel(path)
            return sum(len([c.op for c in cmds]) for core in cores for k, cmds in core.items() if k != "cdma")

        n = parse()
        t_dump, t_parse = best(dump, 5), best(parse, 5)
        print(f"parse {name}: {n} commands, python {t_parse * 1e3:.1f} ms, cli dump {t_dump * 1e3:.1f} ms, "
              f"ratio {t_parse / t_dump:.2f}")
    config = os.path.join(root, "test", "data", "models", "llama-3-8b.json")
    for phase, kw, args in (("prefill 128", dict(seq_len=128), ["--seq", "128"]),
                            ("decode b8 k4096", dict(batch_size=8, phase="decode", kv_len=4096),
                             ["--batch", "8", "--phase", "decode", "--kv-len", "4096"])):
        def py_layer():
            program = tilefw.InstructionGenerator(config).generate(timing_only=True, **kw)
            tilefw.run(program, timing_only=True)

        def cli_layer():
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "g")
                subprocess.run([exe, "gen", "--config", config, "--out", out, "--timing-only"] + args,
                               capture_output=True, check=True)
                subprocess.run([exe, "run", "--manifest", os.path.join(out, "manifest.json"), "--timing-only",
                                "--out", tmp, "--report", os.path.join(tmp, "r.json")], capture_output=True, check=True)

        t_py, t_cli = best(py_layer, 3), best(cli_layer, 3)
        print(f"layer llama-3-8b {phase}: python {t_py:.3f} s, cli {t_cli:.3f} s, ratio {t_py / t_cli:.2f}")


if __name__ == "__main__":
    main()
