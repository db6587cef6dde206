#!/usr/bin/env python3
"""`tilefw run` contract (spec/conformance.md) on test/data/sg2260-mm0: the output is
byte-identical to output_ref_data.dat whatever order the scheduler picks among ready engines,
the trace parses as Chrome JSON with one X event per command, and the exit codes are
0 / 1 (deadlock, fault: names core, engine and command id) / 2 (unreadable manifest)."""
import json, os, re, shutil, subprocess, sys, tempfile

tilefw, data = os.path.abspath(sys.argv[1]), sys.argv[2]
manifest = os.path.join(data, 'manifest.json')
ref = open(os.path.join(data, 'output_ref_data.dat'), 'rb').read()
failures = 0

def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print('FAIL', what)
    else:
        print('ok  ', what)

def run(*args):
    return subprocess.run([tilefw, 'run', *args], capture_output=True, text=True)

tmp = tempfile.mkdtemp()
try:
    orders = [['--order', 'core-major'], ['--order', 'reverse']] + \
             [['--order', 'random', '--seed', str(s)] for s in (1, 2, 3, 99, 123456789)]
    cycles = set()
    for o in orders:
        out = os.path.join(tmp, 'out-' + '-'.join(o[1:]))
        trace = os.path.join(tmp, 'trace.json')
        r = run('--manifest', manifest, '--out', out, '--trace', trace, *o)
        check(r.returncode == 0, f'{o}: exit 0 ({r.returncode}) {r.stderr.strip()}')
        got = open(os.path.join(out, '4_f32.dat'), 'rb').read() if os.path.exists(os.path.join(out, '4_f32.dat')) else b''
        check(got == ref, f'{o}: 4_f32.dat byte-identical to output_ref_data.dat')
        check(not os.path.exists(os.path.join(out, 'output_ref_data.dat')), f'{o}: outputs[].file not written')
        lines = r.stdout.splitlines()
        check(all(any(l.startswith(f'core {c}: ') and l.endswith(' cycles') for l in lines) for c in range(8)),
              f'{o}: per-core cycles printed')
        tot = [l for l in lines if l.startswith('total: ')]
        check(len(tot) == 1, f'{o}: total cycles printed')
        if tot:
            cycles.add(tot[0])
        t = json.load(open(trace))
        xs = [e for e in t['traceEvents'] if e.get('ph') == 'X']
        check(len(xs) == 8 * (17 + 20 + 13), f'{o}: trace has one X event per command ({len(xs)})')
        check(all(e['pid'] in range(8) and e['tid'] in (0, 1, 2) and e['dur'] > 0 for e in xs),
              f'{o}: pid = core, tid = engine, positive durations')
        mm2 = [e for e in xs if e['args']['class'] == 'sMM2']
        check(len(mm2) == 8 and all(e['tid'] == 0 for e in mm2), f'{o}: 8 sMM2 events on TIU')
    check(len(cycles) == 1, f'simulated cycles identical across orders: {cycles}')

    # Default --out is the current directory.
    cwd = os.path.join(tmp, 'cwd'); os.makedirs(cwd)
    r = subprocess.run([tilefw, 'run', '--manifest', os.path.abspath(manifest)], cwd=cwd, capture_output=True, text=True)
    check(r.returncode == 0 and open(os.path.join(cwd, '4_f32.dat'), 'rb').read() == ref, 'default --out is .')

    # Exit 2: unreadable or unparsable manifest, missing stream file.
    check(run('--manifest', os.path.join(tmp, 'nope.json')).returncode == 2, 'missing manifest: exit 2')
    bad = os.path.join(tmp, 'bad.json'); open(bad, 'w').write('{"cores": [')
    check(run('--manifest', bad).returncode == 2, 'unparsable manifest: exit 2')
    m = json.load(open(manifest))
    copy = os.path.join(tmp, 'copy'); shutil.copytree(data, copy)
    m2 = json.loads(json.dumps(m)); m2['cores'][3]['gdma']['file'] = 'missing.GDMA.3'
    json.dump(m2, open(os.path.join(copy, 'm_missing.json'), 'w'))
    check(run('--manifest', os.path.join(copy, 'm_missing.json')).returncode == 2, 'missing stream file: exit 2')

    # Manifest numbers are JSON integers or "0x..." strings: "010" (octal to stoull) and
    # decimal strings are parse errors, exit 2; the same value as an integer runs.
    for bad in ('010', '4352', '0x10zz'):
        mb = json.loads(json.dumps(m)); mb['outputs'][0]['bytes'] = bad
        json.dump(mb, open(os.path.join(copy, 'm_num.json'), 'w'))
        r = run('--manifest', os.path.join(copy, 'm_num.json'), '--out', os.path.join(tmp, 'num'))
        check(r.returncode == 2, f'manifest number {bad!r}: exit 2 ({r.returncode})')
    mg = json.loads(json.dumps(m)); mg['outputs'][0]['bytes'] = 4352
    json.dump(mg, open(os.path.join(copy, 'm_num.json'), 'w'))
    r = run('--manifest', os.path.join(copy, 'm_num.json'), '--out', os.path.join(tmp, 'num'))
    check(r.returncode == 0 and open(os.path.join(tmp, 'num', '4_f32.dat'), 'rb').read() == ref,
          'manifest number as a JSON integer runs')

    # Exit 1, deadlock: core 5 has no SDMA stream, so no barrier reaches its count of 24.
    m3 = json.loads(json.dumps(m)); del m3['cores'][5]['sdma']
    json.dump(m3, open(os.path.join(copy, 'm_deadlock.json'), 'w'))
    r = run('--manifest', os.path.join(copy, 'm_deadlock.json'), '--out', os.path.join(tmp, 'dl'))
    check(r.returncode == 1, f'deadlock: exit 1 ({r.returncode})')
    check(re.search(r'core \d+ (tiu|gdma|sdma) command \d+: rt_deadlock', r.stdout) is not None,
          f'deadlock names core, engine and command id: {r.stdout.strip()}')

    # Exit 1, fault: core 2's TIU stream is truncated (no end command).
    tiu = open(os.path.join(copy, 'mm0.BD.2'), 'rb').read()
    open(os.path.join(copy, 'cut.BD.2'), 'wb').write(tiu[:200])
    m4 = json.loads(json.dumps(m)); m4['cores'][2]['tiu']['file'] = 'cut.BD.2'
    json.dump(m4, open(os.path.join(copy, 'm_fault.json'), 'w'))
    r = run('--manifest', os.path.join(copy, 'm_fault.json'), '--out', os.path.join(tmp, 'f'))
    check(r.returncode == 1 and 'core 2 tiu command' in r.stdout, f'invalid stream: exit 1 naming core 2 tiu: {r.stdout.strip()}')

    # Exit 1, engine fault at run time: the output region is too small for the last GDMA store.
    m5 = json.loads(json.dumps(m)); m5['memory']['ddr_regions'][1]['bytes'] = 4097
    m5['outputs'] = []
    json.dump(m5, open(os.path.join(copy, 'm_small.json'), 'w'))
    r = run('--manifest', os.path.join(copy, 'm_small.json'), '--out', os.path.join(tmp, 's'))
    check(r.returncode == 1 and re.search(r'core \d+ gdma command \d+', r.stdout) is not None,
          f'out-of-region store: exit 1 naming a gdma command: {r.stdout.strip()}')
finally:
    shutil.rmtree(tmp)
print(f'{failures} failures')
sys.exit(1 if failures else 0)
