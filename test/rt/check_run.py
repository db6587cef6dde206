#!/usr/bin/env python3
"""`tilefw run` contract (docs/cli.md section 5) on test/data/sg2260-mm0: the output is
byte-identical to output_ref_data.dat whatever order the scheduler picks among ready engines,
the trace parses as Chrome JSON with one X event per command, and the exit codes are
0 / 1 (deadlock, fault: names core, engine and command id) / 2 (unreadable manifest); and
the options for generated layers: --strict passes on mm0 (no hazard), --report's keys and
figures, --timing-only runs a manifest without data and writes no output file."""
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

    # Exit 1, a sure deadlock: core 5 has no SDMA stream, so no barrier reaches its count of 24.
    # The message check refuses it before anything runs (3 barriers of msg 24, 69 waits of
    # count 24 need 72 sends, the 23 engines make 69), naming the last wait on the id.
    m3 = json.loads(json.dumps(m)); del m3['cores'][5]['sdma']
    json.dump(m3, open(os.path.join(copy, 'm_deadlock.json'), 'w'))
    r = run('--manifest', os.path.join(copy, 'm_deadlock.json'), '--out', os.path.join(tmp, 'dl'))
    check(r.returncode == 1, f'deadlock: exit 1 ({r.returncode})')
    check(re.search(r'core 7 sdma command \d+: cmd_unsatisfiable_message at byte offset \d+ of .*mm0\.SDMA\.7: ', r.stdout)
          is not None and '(waits for msg 24 count 24: needs 72 sends of it, chip 0 makes 69 that can count)' in r.stdout,
          f'the deadlock is refused naming core, engine and command id: {r.stdout.strip()}')

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

    # The options for generated layers (docs/cli.md section 5): --report, --strict, --timing-only.
    rep = os.path.join(tmp, 'report.json')
    r = run('--manifest', manifest, '--out', os.path.join(tmp, 'rep'), '--report', rep, '--strict')
    check(r.returncode == 0 and r.stderr == '', f'--strict on mm0: exit 0, no hazard ({r.returncode}) {r.stderr.strip()}')
    j = json.load(open(rep))
    keys = ('cycles_total', 'cycles_per_core', 'busy_per_engine', 'commands', 'hazards', 'wall_seconds',
            'sim_commands_per_second', 'seconds', 'uncosted')
    check(all(k in j for k in keys), f'report keys {keys}: {sorted(j)}')
    check(j['hazards'] == 0 and j['commands'] == 8 * (17 + 20 + 13) and len(j['cycles_per_core']) == 8,
          'report: 0 hazards, every command, 8 cores')
    check(j['cycles_total'] == max(j['cycles_per_core']) and abs(j['seconds'] - j['cycles_total'] / 1e9) < 1e-15,
          'report: cycles_total = max per core, seconds = cycles / 1 GHz')
    check(sorted(j['busy_per_engine']) == sorted(f'{c}.{e}' for c in range(8) for e in ('tiu', 'gdma', 'sdma')),
          'report: busy_per_engine keyed "<core>.<engine>"')
    check(j['uncosted'] == [], f'report: every mm0 class is costed ({j["uncosted"]})')
    check(j.get('timing_model') == 'v2', f'report: timing model v2 by default ({j.get("timing_model")})')
    r1 = run('--manifest', manifest, '--out', os.path.join(tmp, 'v1'), '--report', rep, '--timing-model', 'v1')
    check(r1.returncode == 0 and json.load(open(rep)).get('timing_model') == 'v1' and 'timing model v1' in r1.stdout
          and open(os.path.join(tmp, 'v1', '4_f32.dat'), 'rb').read() == ref,
          '--timing-model v1: named in the report and the total line, output unchanged')
    r1 = run('--manifest', manifest, '--out', os.path.join(tmp, 'v3'), '--timing-model', 'v3')
    check(r1.returncode != 0, f'--timing-model v3: refused ({r1.returncode})')
    check(open(os.path.join(tmp, 'rep', '4_f32.dat'), 'rb').read() == ref, '--strict --report: output unchanged')
    # Model figures from manifest.report: MatMul 32x34x16 (2*M*N*K flops), decode, f16.
    mr = json.loads(json.dumps(m))
    mr['report'] = {'flops': 2 * 32 * 34 * 16, 'bytes_ddr': 4352 + 1024 + 2176, 'dtype': 'f16',
                    'phase': 'decode', 'batch': 2, 'seq': 1}
    json.dump(mr, open(os.path.join(copy, 'm_report.json'), 'w'))
    r = run('--manifest', os.path.join(copy, 'm_report.json'), '--out', os.path.join(tmp, 'mr'), '--report', rep)
    j = json.load(open(rep))
    check(r.returncode == 0 and all(k in j for k in ('tflops', 'mfu', 'bound_seconds', 'tokens_per_second')),
          f'report with manifest figures: tflops, mfu, bound_seconds, tokens_per_second ({sorted(j)})')
    if 'mfu' in j:
        check(0 <= j['mfu'] <= 1 and j['seconds'] >= j['bound_seconds'] > 0 and
              abs(j['tokens_per_second'] - 2 / j['seconds']) < 1e-6 * j['tokens_per_second'],
              f'mfu in [0, 1], seconds >= bound_seconds, tokens/s = batch*seq/seconds: {j}')
    # Timing only: no data needed (no init files, no input files), no output files written.
    mt = json.loads(json.dumps(m))
    for g in mt['memory']['ddr_regions']:
        g.pop('init_file', None)
    for t in mt.get('inputs', []):
        t.pop('file', None)
    json.dump(mt, open(os.path.join(copy, 'm_timing.json'), 'w'))
    tout = os.path.join(tmp, 'timing')
    r = run('--manifest', os.path.join(copy, 'm_timing.json'), '--out', tout, '--timing-only', '--report', rep)
    tot = [l for l in r.stdout.splitlines() if l.startswith('total: ')]
    check(r.returncode == 0 and not os.path.exists(os.path.join(tout, '4_f32.dat')),
          f'--timing-only on a manifest without data: exit 0, no output file ({r.returncode}) {r.stderr.strip()}')
    check(tot and tot[0] in cycles and json.load(open(rep))['hazards'] == 0,
          f'--timing-only: the same cycles as the functional run ({tot} vs {cycles})')
    r = run('--manifest', os.path.join(copy, 'm_timing.json'), '--out', tout)
    check(r.returncode == 2, f'the same manifest without --timing-only needs its data: exit 2 ({r.returncode})')
finally:
    shutil.rmtree(tmp)
print(f'{failures} failures')
sys.exit(1 if failures else 0)
