#!/usr/bin/env python3
"""CLI contract of `tilefw dump` and `tilefw validate` (docs/cli.md sections 2 and 3) on the sg2260-mm0
buffers and on malformed copies. Usage: check_cli.py TILEFW DATA_DIR"""
import json
import os
import subprocess
import sys
import tempfile

tool, data = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def f(name):
    return os.path.join(data, name)


bufs = [f(f'mm0.{e}.{c}') for c in range(8) for e in ('BD', 'GDMA', 'SDMA')]

# dump --json: one array, one object per file, exact keys and raw dep.
rc, out, _ = run('dump', '--json', f('mm0.BD.0'))
check(rc == 0, 'dump --json exit 0')
doc = json.loads(out)
check(isinstance(doc, list) and len(doc) == 1, 'one array with one object')
o = doc[0]
check(list(o.keys()) == ['file', 'engine', 'bytes', 'commands'], 'object keys')
check(o['engine'] == 'tiu' and o['bytes'] == 384 and len(o['commands']) == 17, 'tiu object')
c1 = o['commands'][0]
check(list(c1.keys()) == ['id', 'offset', 'length', 'class', 'eu', 'dep', 'dep_enabled', 'fields'],
      'tiu command keys (no type)')
check(c1 == {'id': 1, 'offset': 0, 'length': 16, 'class': 'SYS', 'eu': 8, 'dep': 1,
             'dep_enabled': False, 'fields': {'imm': '0x180018'}}, 'first command as in the spec')
c3 = o['commands'][2]
check(c3['class'] == 'sAR' and c3['dep'] == 1048579 and c3['dep_enabled'] is True, 'TIU #3 dep')
check([c['class'] for c in o['commands']][7:9] == ['SYS_TR_ACC', 'sMM2'], 'classes 8, 9')
check(o['commands'][7]['dep'] == 0, 'SYS_TR_ACC dep 0')

rc, out, _ = run('dump', '--json', *bufs)
check(rc == 0, 'dump all 24 buffers exit 0')
doc = json.loads(out)
check(len(doc) == 24 and [d['file'] for d in doc] == bufs, 'argument order')
check([len(d['commands']) for d in doc] == [17, 20, 13] * 8, 'command counts')
g = doc[1]['commands']
check(all('type' in c for c in g) and g[2]['class'] == 'matrix' and g[2]['type'] == 1, 'gdma type')
check(g[2]['dep'] == 0x100002 and g[19]['class'] == 'sys' and g[19]['eu'] == 0, 'gdma #3, #20')

# Text: exactly one line per command, each naming its file, nothing else on stdout.
rc, out, err = run('dump', f('mm0.GDMA.0'))
lines = out.splitlines()
check(rc == 0 and len(lines) == 20 and err == '', 'text dump: one line per command')
check(all(l.startswith(f('mm0.GDMA.0') + f': #{i + 1} @') for i, l in enumerate(lines)), 'text lines: file, id')
check(lines[2].split()[1:6] == ['#3', '@32', '96B', 'matrix', 'eu=0'] and 'type=1' in lines[2] and
      'dep=0x100002(wait)' in lines[2], 'text line of GDMA #3')
rc, out, _ = run('dump', f('mm0.BD.0'), f('mm0.SDMA.0'))
check(rc == 0 and len(out.splitlines()) == 17 + 13, 'text dump of two files: 30 lines')

# validate: every buffer OK, with and without the manifest.
for extra in ([], ['--manifest', f('manifest.json')]):
    rc, out, _ = run('validate', *extra, *bufs)
    check(rc == 0, f'validate exit 0 {extra}')
    want = [f'OK {b}: {17 if ".BD." in b else 20 if ".GDMA." in b else 13} commands' for b in bufs]
    check(out.splitlines() == want, f'validate lines {extra}')

with tempfile.TemporaryDirectory() as tmp:
    bd = open(f('mm0.BD.0'), 'rb').read()
    gd = open(f('mm0.GDMA.0'), 'rb').read()
    trunc = os.path.join(tmp, 'bad.BD.0')
    open(trunc, 'wb').write(bd[:72])
    rc, out, _ = run('validate', trunc)
    check(rc == 1, 'truncated: validate exit 1')
    check(out.startswith(f'INVALID {trunc}: cmd_truncated at command 3, byte offset 32: '), 'truncated line')
    rc, out, _ = run('dump', '--json', trunc)
    check(rc == 1, 'truncated: dump exit 1')
    d = json.loads(out)[0]
    check(len(d['commands']) == 2 and d['error']['offset'] == 32 and
          d['error']['status'] == 'cmd_truncated' and isinstance(d['error']['message'], str),
          'dump error object')
    check(list(d.keys())[-1] == 'error', 'error after commands')
    # Text mode: still one line per decoded command; the error goes to stderr, exit 1.
    rc, out, err = run('dump', trunc)
    check(rc == 1 and len(out.splitlines()) == 2 and all(' #' in l for l in out.splitlines()),
          'truncated: text dump has only the decoded commands')
    check('error at command 3, byte offset 32: cmd_truncated' in err, f'truncated: error on stderr ({err.strip()})')

    # --engine overrides the name.
    plain = os.path.join(tmp, 'plain.bin')
    open(plain, 'wb').write(gd)
    rc, out, _ = run('validate', '--engine', 'gdma', plain)
    check(rc == 0 and out == f'OK {plain}: 20 commands\n', '--engine gdma')

    # A set: TIU #3 waits for GDMA command 21 of a 20-command stream.
    b = bytearray(bd)
    dep = (1 << 20) | 21
    word = int.from_bytes(b[32:40], 'little') & ~(((1 << 23) - 1) << 17) | (dep << 17)
    b[32:40] = word.to_bytes(8, 'little')
    bad_bd = os.path.join(tmp, 'set.BD.0')
    set_gd = os.path.join(tmp, 'set.GDMA.0')
    open(bad_bd, 'wb').write(bytes(b))
    open(set_gd, 'wb').write(gd)
    rc, out, _ = run('validate', bad_bd, set_gd)
    check(rc == 1, 'set: exit 1')
    lines = out.splitlines()
    check(len(lines) == 2 and lines[0].startswith(
        f'INVALID {bad_bd}: cmd_unsatisfiable_dependency at command 3, byte offset 32: '), 'set line 1')
    check(lines[1] == f'OK {set_gd}: 20 commands', 'set line 2')

    # Manifest map: GDMA reading past the neuron region is rejected only with the manifest.
    g2 = bytearray(gd)
    g2[32 + 64:32 + 68] = (12288 - 100).to_bytes(4, 'little')
    over = os.path.join(tmp, 'over.GDMA.0')
    open(over, 'wb').write(bytes(g2))
    rc, out, _ = run('validate', over)
    check(rc == 0, 'footprint without manifest ok')
    rc, out, _ = run('validate', '--manifest', f('manifest.json'), over)
    check(rc == 1 and out.startswith(
        f'INVALID {over}: cmd_footprint_out_of_range at command 3, byte offset 32: '), 'footprint with manifest')

    # Unreadable file: one line for it in argument order, the other files still reported, exit 2.
    missing = os.path.join(tmp, 'missing.BD.0')
    rc, out, _ = run('validate', f('mm0.SDMA.0'), missing, f('mm0.BD.0'))
    lines = out.splitlines()
    check(rc == 2 and len(lines) == 3, f'validate unreadable: exit 2, three lines ({rc})')
    check(lines[0] == f'OK {f("mm0.SDMA.0")}: 13 commands' and lines[2] == f'OK {f("mm0.BD.0")}: 17 commands',
          'validate unreadable: the readable files reported')
    check(lines[1].startswith(f'INVALID {missing}: unreadable at command 0, byte offset 0: '), 'validate unreadable line')
    rc, out, _ = run('validate', missing, trunc)
    check(rc == 2, 'unreadable beats invalid: exit 2')
    noengine = os.path.join(tmp, 'noengine.bin')
    open(noengine, 'wb').write(gd)
    rc, out, _ = run('validate', noengine)
    check(rc == 2 and out.startswith(f'INVALID {noengine}: unreadable at command 0, byte offset 0: '),
          'validate: engine not told by the name')
    rc, out, _ = run('dump', missing)
    check(rc == 2 and out == '', 'dump unreadable: exit 2, no text line')
    # --json: one object per FILE in argument order, the unreadable one with its error.
    rc, out, _ = run('dump', '--json', f('mm0.SDMA.0'), missing, f('mm0.BD.0'))
    doc = json.loads(out)
    check(rc == 2 and [d['file'] for d in doc] == [f('mm0.SDMA.0'), missing, f('mm0.BD.0')], 'dump --json: every file')
    m = doc[1]
    check(list(m.keys()) == ['file', 'engine', 'bytes', 'commands', 'error'] and m['commands'] == [] and
          m['error']['offset'] == 0 and m['error']['status'] == 'unreadable' and m['error']['message'] != '',
          f'dump --json unreadable object: {m}')
    check(len(doc[2]['commands']) == 17 and 'error' not in doc[2], 'dump --json: later files decoded')

    # Manifest numbers: JSON integers and "0x..." strings only; decimal/octal strings exit 2.
    man = json.load(open(f('manifest.json')))
    for bad in ('12288', '010', '0x', '-1', '0x1g', 12288.0, -5):
        m2 = json.loads(json.dumps(man))
        m2['memory']['ddr_regions'][1]['bytes'] = bad
        p = os.path.join(tmp, 'm.json')
        json.dump(m2, open(p, 'w'))
        rc, out, err = run('validate', '--manifest', p, f('mm0.GDMA.0'))
        check(rc == 2 and out == '', f'manifest number {bad!r}: exit 2 ({rc}: {err.strip()})')
    for good in (12288, '0x3000', '0X3000'):
        m2 = json.loads(json.dumps(man))
        m2['memory']['ddr_regions'][1]['bytes'] = good
        p = os.path.join(tmp, 'm.json')
        json.dump(m2, open(p, 'w'))
        rc, out, _ = run('validate', '--manifest', p, f('mm0.GDMA.0'))
        check(rc == 0, f'manifest number {good!r} accepted')

print('check_cli:', 'FAILED' if failures else 'all checks passed')
sys.exit(1 if failures else 0)
