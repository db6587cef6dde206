"""`tilefw run --bmodel` on the two real 8-core BM1690 models (docs/bmodel-runs.md section 3): both run to
completion on the simulator's 8 cores x (TIU, GDMA, SDMA, HAU), timing-only and functionally,
with no class costed by a fallback, no deadlock and no hazard; the functional and timing-only
runs of a model agree on every core's cycles (data does not change the schedule).

usage: check_bmodel_run.py TILEFW DATA_DIR [timing|full]
  timing: the timing-only runs, trace and summary (also under the sanitizers)
  full:   the functional runs too (the optimised host build: YOLOv5s takes ~20 s there)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

tool, data = sys.argv[1], sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else 'full'
failures = []

# Commands per model: the TIU/GDMA/SDMA commands NAME.ops.csv lists, plus the HAU's syncs
# (8 cores x 40 for ResNet-50, x 120 for YOLOv5s: one per TIU send/wait, tilefw/cmd/hau.hpp).
MODELS = {
    'resnet50_v2_bm1690_f16_core8': {'outputs': {'resnetv24_dense0_fwd_Gemm_f32.dat': 4000}},
    'yolov5s_bm1690_f16_core8': {'outputs': {'350_Transpose_f32.dat': 6528000, '498_Transpose_f32.dat': 1632000,
                                             '646_Transpose_f32.dat': 408000}},
}
# The functional outputs' SHA-256 for the default inputs (drawn from the default seed), pinned
# when the element loops were rewritten for speed: a regression guard that every rewrite keeps
# the simulator's results bit for bit (not an oracle: the real reference is the mm0 vector's).
OUTPUT_SHA256 = {
    'resnetv24_dense0_fwd_Gemm_f32.dat': '1e6e71c9662214d7f90bead09facb5261209e8559e9552e5dd2fde065a10971b',
    '350_Transpose_f32.dat': '0d15ceeeb54837cde37a63addce412ee478c3bab3d4f123fc4b2504140d782b2',
    '498_Transpose_f32.dat': 'caa521bd06634c87cdbd6e507aa27aedb1e6de1c0b211de4b4a0562c58a04aa2',
    '646_Transpose_f32.dat': '3804705854ae1ec3df2577249a819a998f5f35b7eb79e9abf1b66166e64bdbe6',
}


def check(ok, what):
    if not ok:
        failures.append(what)
        print('FAIL', what)


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def csv_commands(name):
    with open(os.path.join(data, name + '.ops.csv')) as f:
        return sum(1 for line in f) - 1


def sync_commands(name):
    # TIU send_msg / wait_msg in the oracle: the HAU stream repeats them one for one
    with open(os.path.join(data, name + '.ops.csv')) as f:
        return sum(1 for line in f if ',tiu,' in line and ('system.send_msg' in line or 'system.wait_msg' in line))


with tempfile.TemporaryDirectory() as tmp:
    timing = {}
    for name, facts in MODELS.items():
        model = os.path.join(data, name + '.bmodel')
        rep = os.path.join(tmp, name + '.timing.json')
        trace = os.path.join(tmp, name + '.trace.json')
        rc, out, err = run('run', '--bmodel', model, '--timing-only', '--report', rep, '--trace', trace, '--summary')
        check(rc == 0, f'{name} timing-only: exit 0 ({rc}: {out[-300:]} {err[-300:]})')
        if rc != 0:
            continue
        r = json.load(open(rep))
        timing[name] = r
        expected = csv_commands(name) + sync_commands(name)
        check(r['commands'] == expected, f'{name} timing-only: {r["commands"]} commands executed, {expected} expected')
        check(r['uncosted'] == [], f'{name}: no class costed by a fallback ({r["uncosted"]})')
        check(len(r['cycles_per_core']) == 8 and min(r['cycles_per_core']) > 0, f'{name}: 8 cores ran ({r["cycles_per_core"]})')
        check(r['cycles_total'] == max(r['cycles_per_core']), f'{name}: cycles_total is the last core\'s')
        for core in range(8):
            check(r['busy_per_engine'].get(f'{core}.hau', 0) > 0, f'{name}: core {core}\'s HAU ran')
        events = json.load(open(trace))['traceEvents']
        threads = {e['args']['name'] for e in events if e.get('name') == 'thread_name'}
        check(threads == {'tiu', 'gdma', 'sdma', 'hau'}, f'{name}: trace threads tiu, gdma, sdma, hau ({threads})')
        check(sum(1 for e in events if e.get('ph') == 'X') == expected, f'{name}: one trace event per command')
        check('hau' in out, f'{name}: the --summary lists the HAU engines')
        # the summary's time per op names every command by its tpu-mlir op: the counts per op
        # equal the oracle's (NAME.ops.csv), the HAU syncs as hau.sync
        table = out.split('time per op', 1)[-1].splitlines()[2:]
        got = {line.split()[0]: int(line.split()[1]) for line in table if len(line.split()) == 5}
        want = {}
        with open(os.path.join(data, name + '.ops.csv')) as f:
            for line in list(f)[1:]:
                op = line.split(',')[5]
                want[op] = want.get(op, 0) + 1
        want['hau.sync'] = sync_commands(name)
        check(got == want, f'{name}: --summary commands per op equal NAME.ops.csv ({sorted(set(got.items()) ^ set(want.items()))[:6]})')

    if mode == 'full':
        for name, facts in MODELS.items():
            if name not in timing:
                continue
            model = os.path.join(data, name + '.bmodel')
            out_dir = os.path.join(tmp, name)
            rep = os.path.join(tmp, name + '.json')
            rc, out, err = run('run', '--bmodel', model, '--out', out_dir, '--report', rep)
            check(rc == 0, f'{name} functional, default options: exit 0 ({rc}: {out[-400:]} {err[-300:]})')
            if rc != 0:
                continue
            r = json.load(open(rep))
            check(r['hazard_check'] and r['hazards'] == 0, f'{name} functional: no hazard ({r["hazards"]})')
            check(r['cycles_per_core'] == timing[name]['cycles_per_core'],
                  f'{name}: functional and timing-only cycles agree ({r["cycles_per_core"]} vs '
                  f'{timing[name]["cycles_per_core"]})')
            for f, size in facts['outputs'].items():
                path = os.path.join(out_dir, f)
                check(os.path.exists(path) and os.path.getsize(path) == size, f'{name}: output {f} of {size} bytes')
                if os.path.exists(path):
                    digest = hashlib.sha256(open(path, 'rb').read()).hexdigest()
                    check(digest == OUTPUT_SHA256[f], f'{name}: output {f} bit for bit as pinned ({digest})')

print(f'{len(failures)} failures' if failures else 'all bmodel run checks passed')
sys.exit(1 if failures else 0)
