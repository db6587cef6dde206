#!/usr/bin/env python3
"""`tilefw dump|validate|run` on .bmodel files (docs/bmodel-runs.md) and the input hardening of dump
and validate (hostile input, docs/cli.md section 8): the real BM1690 models of test/data/sg2260-tdb decode per core and engine
exactly as tpu-mlir's NAME.ops.csv lists them (count, order, offsets, op, dep), validate with
no rejection, and corrupt models, directories, devices, FIFOs, non-UTF-8 names and files whose
engine cannot be told are refused with exit 2 and a message, never a crash.
Usage: check_bmodel_cli.py TILEFW DATA_DIR"""
import csv
import json
import os
import subprocess
import sys
import tempfile

tool, data = sys.argv[1], sys.argv[2]
failures = []
MODELS = ['yolov5s_bm1690_f16_core8', 'resnet50_v2_bm1690_f16_core8']


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def run(*args, text=True):
    p = subprocess.run([tool, *args], capture_output=True, text=text, timeout=120)
    return p.returncode, p.stdout, p.stderr


def no_crash(err, what):
    check('terminate' not in err and 'Traceback' not in err and 'Assertion' not in err, f'{what}: no crash ({err[-200:]})')


for name in MODELS:
    path = os.path.join(data, name + '.bmodel')
    rc, out, err = run('dump', '--json', path)
    check(rc == 0, f'{name}: dump --json exit 0 ({rc}: {err[-300:]})')
    doc = json.loads(out)
    oracle = {}
    for r in csv.DictReader(open(os.path.join(data, name + '.ops.csv'))):
        oracle.setdefault((int(r['core']), r['engine']), []).append(
            (int(r['index']), int(r['byte_offset']), int(r['bytes']), r['op'], int(r['cmd_id_dep'])))
    got = {}
    for o in doc:
        check(list(o.keys()) == ['file', 'core', 'engine', 'bytes', 'commands'], f'{name}: object keys {list(o.keys())}')
        cmds = o['commands']
        want = ['id', 'offset', 'length', 'class', 'eu'] + (['type'] if o['engine'] in ('gdma', 'sdma') else []) + \
            ['op', 'dep', 'dep_enabled', 'fields']
        check(all(list(c.keys()) == want for c in cmds), f'{name}: core {o["core"]} {o["engine"]}: command keys')
        if o['engine'] == 'hau':
            check(all(c['op'] in ('hau.send_msg', 'hau.wait_msg') and c['fields']['msg_cnt'] == '0x20' for c in cmds),
                  f'{name}: core {o["core"]} hau ops')
            continue
        got[(o['core'], o['engine'])] = [(c['id'], c['offset'], c['length'], c['op'], c['dep']) for c in cmds]
    check(sorted(got) == sorted(oracle), f'{name}: the same (core, engine) streams as the oracle')
    for k in oracle:
        check(got.get(k) == oracle[k], f'{name}: core {k[0]} {k[1]}: commands equal the oracle')
    engines = [(o['core'], o['engine']) for o in doc]
    check(engines == [(c, e) for c in range(8) for e in ('tiu', 'gdma', 'sdma', 'hau')], f'{name}: per core tiu, gdma, sdma, hau')
    rc, out, err = run('validate', path)
    lines = out.splitlines()
    check(rc == 0 and len(lines) == 32 and all(l.startswith('OK ') for l in lines), f'{name}: validate: {rc} {out[:400]}')
    rc, out, err = run('dump', path)
    check(rc == 0 and ' op=pord.maxpooling ' in out if 'yolo' in name else rc == 0, f'{name}: text dump')

ref = open(os.path.join(data, MODELS[1] + '.bmodel'), 'rb').read()
with tempfile.TemporaryDirectory() as tmp:
    # A corrupt bmodel: exit 2 naming the field, for dump, validate and run.
    bad = os.path.join(tmp, 'cut.bmodel')
    open(bad, 'wb').write(ref[:-100])
    for args in (['dump', '--json', bad], ['validate', bad], ['run', '--bmodel', bad, '--timing-only']):
        rc, out, err = run(*args)
        check(rc == 2 and ('header.binary_size' in out + err), f'{args[0]} corrupt bmodel: exit 2 naming the field ({rc} {out[-200:]} {err[-200:]})')
        no_crash(err, f'{args[0]} corrupt bmodel')
    rc, out, _ = run('dump', '--json', bad)
    d = json.loads(out)
    check(len(d) == 1 and d[0]['error']['status'] == 'unreadable', 'dump --json corrupt bmodel: one object with its error')
    # A model under another name is still read as a model (the magic decides).
    renamed = os.path.join(tmp, 'model.bin')
    open(renamed, 'wb').write(ref)
    rc, out, _ = run('validate', renamed)
    check(rc == 0 and len(out.splitlines()) == 32, f'validate of a renamed bmodel ({rc})')
    # A directory, a device, a FIFO: exit 2, no read.
    fifo = os.path.join(tmp, 'x.BD.0')
    os.mkfifo(fifo)
    for p in (tmp, '/dev/zero', fifo):
        for args in (['dump', '--engine', 'tiu', p], ['dump', '--json', '--engine', 'tiu', p], ['validate', '--engine', 'tiu', p]):
            rc, out, err = run(*args)
            check(rc == 2, f'{" ".join(args)}: exit 2 ({rc})')
            no_crash(err, ' '.join(args))
    # The engine cannot be told from the name: exit 2 with a message (was an uncaught logic_error).
    plain = os.path.join(tmp, 'plain.bin')
    open(plain, 'wb').write(b'\0' * 16)
    for args in (['dump', plain], ['dump', '--json', plain]):
        rc, out, err = run(*args)
        check(rc == 2 and 'engine' in err, f'{" ".join(args)}: exit 2 naming the engine ({rc} {err[-200:]})')
        no_crash(err, ' '.join(args))
    # A non-UTF-8 file name: still valid JSON.
    mm0 = os.path.join(os.path.dirname(data), 'sg2260-mm0', 'mm0.BD.0')
    weird = os.path.join(tmp.encode(), b'\xff\xfe.BD.0')
    open(weird, 'wb').write(open(mm0, 'rb').read())
    p = subprocess.run([tool, 'dump', '--json', weird], capture_output=True)
    try:
        doc = json.loads(p.stdout.decode('utf-8'))
        check(p.returncode == 0 and len(doc) == 1 and len(doc[0]['commands']) == 17, 'non-UTF-8 name: dump --json')
    except (UnicodeDecodeError, ValueError) as e:
        check(False, f'non-UTF-8 name: output is not valid UTF-8 JSON ({e})')
    # A HAU stream as a file: named *.HAU or given --engine hau, for validate and dump.
    def hau(op, msg, cnt, eod):
        b = bytearray(80)
        b[0:8] = (1 | (eod << 24)).to_bytes(8, 'little')
        b[40:48] = (op | (cnt << 8) | (msg << 15)).to_bytes(8, 'little')
        return bytes(b)
    h = os.path.join(tmp, 'core0.HAU')
    open(h, 'wb').write(hau(1, 48, 32, 0) + hau(2, 48, 32, 1))
    rc, out, _ = run('validate', h)
    check(rc == 0 and out.startswith('OK ') and '2 commands' in out, f'validate core0.HAU: OK, 2 commands ({rc} {out})')
    plain = os.path.join(tmp, 'sync.bin')
    open(plain, 'wb').write(hau(1, 48, 32, 0) + hau(2, 48, 33, 0))  # no eod
    rc, out, _ = run('validate', '--engine', 'hau', plain)
    check(rc == 1 and 'cmd_missing_end at command 3, byte offset 160' in out, f'validate --engine hau: a missing eod ({rc} {out})')
    rc, out, _ = run('dump', '--json', h)
    doc = json.loads(out) if rc == 0 else []
    check(rc == 0 and doc[0]['engine'] == 'hau' and [c['op'] for c in doc[0]['commands']] == ['hau.send_msg', 'hau.wait_msg'],
          f'dump --json core0.HAU: engine hau, ops send/wait ({rc} {out[:200]})')

    # run: --manifest and --bmodel together, inputs of the wrong size or name.
    model = os.path.join(data, MODELS[1] + '.bmodel')
    rc, _, err = run('run', '--bmodel', model, '--manifest', os.path.join(os.path.dirname(data), 'sg2260-mm0', 'manifest.json'))
    check(rc == 2 and 'not both' in err, f'run --manifest --bmodel: exit 2 ({rc} {err})')
    rc, _, err = run('run')
    check(rc == 2, f'run with neither: exit 2 ({rc})')
    small = os.path.join(tmp, 'data.bin')
    open(small, 'wb').write(b'\0' * 100)
    rc, _, err = run('run', '--bmodel', model, '--input', f'data={small}', '--out', tmp)
    check(rc == 2 and 'data' in err and '100 bytes' in err, f'run --input of the wrong size: exit 2 ({rc} {err[-300:]})')
    rc, _, err = run('run', '--bmodel', model, '--input', f'nosuch={small}', '--out', tmp)
    check(rc == 2 and 'nosuch' in err, f'run --input of an unknown name: exit 2 ({rc} {err[-300:]})')

    # run --bmodel places the model: the weights from --fill-seed (said on stderr); a run
    # stopped early (here by a tiny work budget) is exit 1 naming core, engine and command, never
    # exit 2 or a crash. The complete runs of both models: check_bmodel_run.py.
    rep = os.path.join(tmp, 'r.json')
    rc, out, err = run('run', '--bmodel', model, '--out', os.path.join(tmp, 'out'), '--fill-seed', '7', '--report', rep,
                       '--max-work', '1000')
    check(rc == 1 and '--fill-seed 7' in err, f'run --bmodel: placed, stopped by the budget: exit 1 ({rc} {err[-300:]})')
    no_crash(err, 'run --bmodel')
    check(out.startswith('error: core ') and 'capacity_exceeded' in out, f'run --bmodel: the failure names core, engine, command ({out[:200]})')
    check(not os.path.exists(os.path.join(tmp, 'out', 'resnetv24_dense0_fwd_Gemm_f32.dat')), 'run --bmodel: no output after a failure')
    rc, out, err = run('run', '--bmodel', model, '--timing-only')
    check(rc == 0 and 'fill-seed' not in err, f'run --bmodel --timing-only: no data placed ({rc})')
    no_crash(err, 'run --bmodel --timing-only')

print(f'{len(failures)} failures' if failures else 'all bmodel CLI checks passed')
sys.exit(1 if failures else 0)
