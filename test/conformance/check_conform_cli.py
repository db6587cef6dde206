#!/usr/bin/env python3
"""The `tilefw conform` output contract (docs/cli.md section 4.1) on malformed and edge-case files:
FAIL <file path> for bad JSON and wrongly typed or valued keys (set_mask_norm false, a "0x..."
wider than 64 bits, a tile without its required keys), leading zeros in "0x..." accepted, unknown
keys ignored, a tile op the runner does not implement FAILs the case, exit codes 0/1/2, and `N passed, M failed` as the very last line with
nothing after it on stdout or stderr.  usage: check_conform_cli.py TILEFW CASE_DIR"""
import os, re, subprocess, sys, tempfile, json

tilefw, case_dir = sys.argv[1], sys.argv[2]
failures = []

def run(*paths):
    p = subprocess.run([tilefw, 'conform', *paths], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr

def check(cond, what):
    if not cond:
        failures.append(what)

def last_line_ok(out, err, n, m):
    check(out.endswith('%d passed, %d failed\n' % (n, m)), 'last line %r' % out[-60:])
    check(err == '', 'stderr not empty: %r' % err[:200])

good = {'name': 'good', 'profile': 'a2a3', 'comment': 'unknown keys are ignored', 'extra': {'x': 1},
        'memory': [{'space': 'UB', 'offset': 0, 'dtype': 'f32', 'values': [1, 2], 'note': 'ignored'}],
        'program': [{'set_mask': {'hi': '0x0', 'lo': 3}, 'why': 'ignored'},
                    {'issue': {'op': 'vadd', 'dtype': 'f32', 'repeat': 1, 'dst': {'offset': 512, 'blk': 1, 'rep': 8, 'zz': 0},
                               'src0': {'offset': 0}, 'src1': {'offset': 0}, 'unknown': True}}],
        'expect': {'status': 'ok', 'memory': [{'space': 'UB', 'offset': 512, 'dtype': 'f32', 'values': [2, 4, 'keep']}], 'x': 1}}
with tempfile.TemporaryDirectory() as d:
    def put(name, text):
        path = os.path.join(d, name)
        with open(path, 'w') as f:
            f.write(text)
        return path
    g = put('a_good.json', json.dumps(good))
    rc, out, err = run(g)
    check(rc == 0 and out == 'PASS good\n1 passed, 0 failed\n', 'good case: rc %d out %r' % (rc, out))
    check(err == '', 'stderr on good case')

    bad_json = put('b_bad.json', '{"name": "x", ')
    rc, out, err = run(bad_json)
    check(rc == 1, 'bad JSON exit %d' % rc)
    check(out.startswith('FAIL %s: ' % bad_json), 'bad JSON line %r' % out)
    last_line_ok(out, err, 0, 1)

    wrong = dict(good, name='wrong')
    wrong['program'] = [{'issue': dict(good['program'][1]['issue'], repeat='x')}]
    wt = put('c_wrongtype.json', json.dumps(wrong))
    rc, out, err = run(wt)
    check(rc == 1 and out.startswith('FAIL %s: ' % wt), 'wrong type: %r' % out)
    last_line_ok(out, err, 0, 1)

    mism = dict(good, name='mismatch')
    mism['expect'] = {'status': 'ok', 'memory': [{'space': 'UB', 'offset': 512, 'dtype': 'f32', 'values': [3]}]}
    mm = put('d_mismatch.json', json.dumps(mism))
    rc, out, err = run(mm)
    check(rc == 1 and out.startswith('FAIL mismatch: '), 'mismatch: %r' % out)
    last_line_ok(out, err, 0, 1)

    tile = {'name': 'tile', 'program': [{'tile': {'op': 'TNOTANOP', 'dtype': 'f32'}}], 'expect': {'status': 'ok'}}
    tp = put('e_tile.json', json.dumps(tile))
    rc, out, err = run(tp)
    check(rc == 1 and re.match(r'FAIL tile: .*not implemented', out), 'tile: %r' % out)

    def file_fails(name, case, what):
        path = put(name, json.dumps(case))
        rc, out, err = run(path)
        check(rc == 1 and out.startswith('FAIL %s: ' % path), '%s: %r' % (what, out))
        last_line_ok(out, err, 0, 1)
    # A case needs a program and an expectation: `{}` and its near relatives are file FAILs
    # naming the missing key, never a pass that checked nothing.
    def fails_naming(name, case, want):
        path = put(name, json.dumps(case))
        rc, out, err = run(path)
        check(rc == 1 and out.startswith('FAIL %s: ' % path) and want in out, '%s: %r, want %r' % (name, out, want))
        last_line_ok(out, err, 0, 1)
    fails_naming('e_empty.json', {}, 'case: missing "program"')
    fails_naming('e_no_expect.json', {k: v for k, v in good.items() if k != 'expect'}, 'case: missing "expect"')
    fails_naming('e_empty_prog.json', dict(good, program=[]), 'program: expected a non-empty array')
    fails_naming('e_empty_expect.json', dict(good, expect={}), 'expect: needs "status" or "memory"')
    t64 = {'offset': 0, 'rows': 1, 'cols': 64, 'valid': [1, 64], 'layout': 'row_major'}
    no_valid = {k: v for k, v in t64.items() if k != 'valid'}
    file_fails('e_tile_keys.json', {'name': 'tk', 'program': [{'tile': {'op': 'TADD', 'dtype': 'f32', 'dst': dict(t64, offset=512),
                                                                        'src0': t64, 'src1': no_valid}}]}, 'tile without valid')
    file_fails('e_tile_layout.json', {'name': 'tl', 'program': [{'tile': {'op': 'TABS', 'dtype': 'f32', 'dst': dict(t64, layout='nz'),
                                                                          'src': t64}}]}, 'tile with a wrong layout')
    file_fails('e_norm_false.json', dict(good, program=[{'set_mask_norm': False}]), 'set_mask_norm false')
    wide = dict(good, program=[{'set_mask': {'hi': '0x10000000000000000', 'lo': 0}}])
    file_fails('e_wide_hex.json', wide, '0x... wider than 64 bits')

    zeros = dict(good, name='zeros')
    zeros['program'] = [{'set_mask': {'hi': '0x0000000000000000000', 'lo': '0x000000000000000000003'}},
                        good['program'][1]]
    zeros['memory'] = [dict(good['memory'][0], values=['0x000000003f800000', 2])]
    zp = put('f_zeros.json', json.dumps(zeros))
    rc, out, err = run(zp)
    check(rc == 0 and out == 'PASS zeros\n1 passed, 0 failed\n', 'leading zeros: rc %d out %r' % (rc, out))

    # A directory: sorted order, recursion, only *.json.
    os.makedirs(os.path.join(d, 'sub'))
    put('sub/z.json', json.dumps(dict(good, name='z')))
    put('sub/readme.txt', 'not a case')
    rc, out, err = run(d)
    lines = out.splitlines()
    check(rc == 1 and len(lines) == 16, 'dir run: %r' % out)
    check(lines[0] == 'PASS good' and lines[-2] == 'PASS z', 'dir order: %r' % lines)
    last_line_ok(out, err, 3, 12)

    rc, out, err = run(g, os.path.join(d, 'missing.json'))
    check(rc == 2, 'missing path exit %d' % rc)
    check(out.splitlines()[-1] == '1 passed, 1 failed', 'missing path last line %r' % out)
    check(err == '', 'stderr on missing path')

# Memory items follow the case's profile: an A5 case with UB items above 192 KB passes on A5 and,
# forced onto a2a3 (--chip), is a file error naming the item.
a5_case = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'a5', 'memory-above-a2a3-sizes-a5.json')
p = subprocess.run([tilefw, 'conform', a5_case], capture_output=True, text=True)
check(p.returncode == 0 and p.stdout == 'PASS memory-and-issues-above-a2a3-sizes-a5\n1 passed, 0 failed\n',
      'a5 case above 192 KB: rc %d out %r' % (p.returncode, p.stdout))
p = subprocess.run([tilefw, 'conform', '--chip', 'a2a3', a5_case], capture_output=True, text=True)
check(p.returncode == 1 and p.stdout == 'FAIL %s: memory[0]: runs past the end of UB\n0 passed, 1 failed\n' % a5_case,
      'a5 case forced onto a2a3: rc %d out %r' % (p.returncode, p.stdout))

rc, out, err = run(case_dir)
check(rc == 0, 'project cases exit %d:\n%s' % (rc, out))
check(re.fullmatch(r'(PASS [^\n]+\n)+\d+ passed, 0 failed\n', out) is not None, 'project cases output')
for f in failures:
    print('FAILED:', f)
print('%d checks failed' % len(failures))
sys.exit(1 if failures else 0)
