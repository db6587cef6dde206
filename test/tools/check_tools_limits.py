#!/usr/bin/env python3
"""Hostile input: `tilefw run`, `validate --manifest` and `conform` on hostile and mistaken inputs.

Usage: check_tools_limits.py TILEFW MM0_DIR CONFORM_CASES_DIR

One group per defect class of the hostile-input hardening (docs/cli.md section 8): 1 overflow,
3/4 unbounded work and memory, 5 non-regular files, 6 paths escaping --out, 7 symlink loops,
8 output injection, 9 mistyped manifest values, 10 partial and stale outputs, 11 validate/run
agreement, 12 precise messages and exit codes (13, fuzzing, is in fuzz/).
Each input is one that crashed, hung, exhausted memory or was accepted before the fix. Every
run must end with exit 0, 1 or 2 (never a signal) within 20 s and 2 GiB peak RSS (measured
with wait4; the limits of docs/cli.md section 8), and with the exit code and message given
below. Python 3 standard library only; a few seconds in all.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

TILEFW, MM0, CASES = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
FAILURES = []
CHECKS = 0


def check(cond, what):
    global CHECKS
    CHECKS += 1
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


class Result:
    pass


def limited(*args, cwd=None):
    """Runs tilefw; returns its exit code (negative: a signal), stdout, stderr, wall seconds, its
    own CPU seconds and peak RSS in MiB (os.wait4 on that child). The work bound is on CPU time:
    other tests on every core stretch wall time without more work; a hang is still caught by
    the 30 s wall-clock kill."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as o, tempfile.TemporaryFile() as e:
        p = subprocess.Popen([TILEFW, *args], stdout=o, stderr=e, cwd=cwd)
        while True:  # a run past 30 s is killed (and fails the 20 s check)
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.monotonic() - t0 > 30:
                p.kill()
            time.sleep(0.005)
        p.returncode = os.waitstatus_to_exitcode(status)
        r = Result()
        r.code, r.wall, r.rss_mib = p.returncode, time.monotonic() - t0, usage.ru_maxrss / 1024
        r.cpu = usage.ru_utime + usage.ru_stime
        o.seek(0)
        e.seek(0)
        r.out = o.read().decode('utf-8', 'replace')
        r.err = e.read().decode('utf-8', 'replace')
    return r


def bounded(r, what, codes=(0, 1, 2)):
    check(r.code in codes and r.cpu < 20 and r.rss_mib < 2048,
          f'{what}: exit {r.code} after {r.cpu:.2f} s of CPU ({r.wall:.2f} s wall), {r.rss_mib:.0f} MiB '
          f'(0/1/2, < 20 s of CPU, < 2 GiB)')


tmp = tempfile.mkdtemp()
base = json.load(open(os.path.join(MM0, 'manifest.json')))
work = os.path.join(tmp, 'mm0')
shutil.copytree(MM0, work)


def manifest(edit, name='m.json'):
    m = json.loads(json.dumps(base))
    edit(m)
    path = os.path.join(work, name)
    json.dump(m, open(path, 'w'))
    return path


def run_manifest(edit, *extra, out=None):
    out = out or os.path.join(tmp, 'out')
    return limited('run', '--manifest', manifest(edit), '--out', out, *extra)


def set_field(buf, cmd_off, bit, width, value):
    """Writes a little-endian bit field of the command at cmd_off (views.hpp layouts)."""
    word = int.from_bytes(buf[cmd_off:cmd_off + 96], 'little')
    mask = ((1 << width) - 1) << bit
    word = (word & ~mask) | ((value << bit) & mask)
    buf[cmd_off:cmd_off + 96] = word.to_bytes(96, 'little')


def gdma_variant(name, edit):
    """mm0.GDMA.0 with command #4 (the matrix store at byte 128) rewritten by `edit`."""
    b = bytearray(open(os.path.join(MM0, 'mm0.GDMA.0'), 'rb').read())
    edit(b, 128)
    open(os.path.join(work, name), 'wb').write(b)
    return name


def zero_stride_fill(b, at):
    # tensor (cmd_type 0), fill_constant_en, int8, dst 65535^4 with every stride 0, into the
    # neuron region (tag 2): the footprint is one element; the loop would be 1.8e19 steps.
    set_field(b, at, 32, 5, 0)
    set_field(b, at, 37, 3, 0)
    set_field(b, at, 40, 1, 1)
    set_field(b, at, 41, 4, 0)
    for bit in range(128, 384, 32):
        set_field(b, at, bit, 32, 0)
    for bit in range(384, 512, 16):
        set_field(b, at, bit, 16, 65535)
    set_field(b, at, 576, 32, 0)
    set_field(b, at, 608, 13, 0x200)  # tag 2, offset 0


def huge_general_fill(b, at):
    # general (cmd_type 3), fill, int32, 2^32-1 elements into the 12 KiB neuron region
    set_field(b, at, 32, 5, 3)
    set_field(b, at, 37, 3, 0)
    set_field(b, at, 40, 1, 1)
    set_field(b, at, 41, 4, 4)
    set_field(b, at, 160, 32, 0xFFFFFFFF)
    set_field(b, at, 576, 32, 0)
    set_field(b, at, 608, 13, 0x200)


try:
    out = os.path.join(tmp, 'out')
    r = limited('run', '--manifest', os.path.join(MM0, 'manifest.json'), '--out', out)
    bounded(r, 'mm0 runs')
    check(r.code == 0, 'mm0: exit 0')

    # ---- class 1: integer overflow in bounds checks ------------------------------------------
    r = run_manifest(lambda m: m['inputs'][0].update(file_offset=2**64 - 100))
    bounded(r, 'class 1: input file_offset 2^64-100')
    check(r.code == 2 and 'run past its end' in r.err, f'class 1: file_offset + bytes past 2^64: exit 2 ({r.err.strip()})')
    r = run_manifest(lambda m: m['inputs'][0].update(device_addr=2**64 - 1))
    check(r.code == 2 and 'inputs[0].device_addr' in r.err, f'class 1: input device_addr 2^64-1: exit 2 naming the key ({r.err.strip()})')
    for key in ('memory', 'expect'):
        case = {'name': 'ovf', 'memory': [], 'program': [{'set_mask_norm': True}], 'expect': {'status': 'ok', 'memory': []}}
        item = {'space': 'GM', 'offset': 2**64 - 2, 'dtype': 'f32', 'values': [1, 2]}
        (case['memory'] if key == 'memory' else case['expect']['memory']).append(item)
        path = os.path.join(tmp, f'ovf_{key}.json')
        json.dump(case, open(path, 'w'))
        r = limited('conform', path)
        bounded(r, f'class 1: conform {key} offset 2^64-2')
        check(r.code == 1 and 'runs past the end of GM' in r.out and r.out.splitlines()[-1] == '0 passed, 1 failed',
              f'class 1: conform {key} offset near 2^64: a file-level FAIL ({r.out.strip()})')

    # ---- classes 2-4: unbounded work and memory in the simulator and the tools -----------------
    name = gdma_variant('fill.GDMA.0', zero_stride_fill)
    v = limited('validate', os.path.join(work, name))
    r = run_manifest(lambda m: m['cores'][0]['gdma'].update(file=name))
    bounded(r, 'class 3: zero-stride 65535^4 tensor fill')
    check(r.code == 1 and 'refused before running' in r.out and 'core 0 gdma command 4' in r.out.splitlines()[0],
          f'class 3: refused up front, the headline names core 0 gdma command 4 (validate said: {v.out.strip()}): '
          f'{r.out.splitlines()[:1]}')
    name = gdma_variant('general.GDMA.0', huge_general_fill)
    r = run_manifest(lambda m: m['cores'][0]['gdma'].update(file=name))
    bounded(r, 'class 4: 16 GiB general fill into a 12 KiB region')
    check(r.code == 1 and 'cmd_footprint_out_of_range' in r.out, f'class 4: general fill refused ({r.out.splitlines()[:1]})')
    r = run_manifest(lambda m: None, '--max-work', '10')
    check(r.code == 1 and 'capacity_exceeded' in r.out and 'work budget' in r.out and '--max-work' in r.out,
          f'work budget: --max-work 10 stops mm0 with capacity_exceeded naming the option ({r.out.splitlines()[:1]})')
    r = run_manifest(lambda m: None, '--max-work', '0')
    check(r.code == 0, '--max-work 0: no budget, mm0 runs')
    r = run_manifest(lambda m: m['memory']['ddr_regions'][1].update(bytes=2**40))
    bounded(r, 'class 4: a 1 TiB DDR region')
    check(r.code == 2 and '--max-ddr-mib' in r.err, f'class 4: 1 TiB of regions refused in a functional run ({r.err.strip()})')
    r = run_manifest(lambda m: m['outputs'][0].update(bytes=8 << 30))
    bounded(r, 'class 4: an 8 GiB output')
    check(r.code == 2 and 'outputs[0]' in r.err, f'class 4: an output larger than its region: exit 2 ({r.err.strip()})')
    case = {'name': 'fills', 'memory': [{'space': 'GM', 'offset': 0, 'dtype': 'i8', 'fill': {'value': 1, 'count': 1 << 24}}] * 40}
    path = os.path.join(tmp, 'fills.json')
    json.dump(case, open(path, 'w'))
    r = limited('conform', path)
    bounded(r, 'class 4: conform with 40 full-GM fills')
    check(r.code == 1 and 'elements' in r.out and r.rss_mib < 1024, f'class 4: refused by the case element budget ({r.out.strip()})')

    # ---- class 5: not a regular file -----------------------------------------------------------
    r = limited('run', '--manifest', work)
    check(r.code == 2 and 'not a regular file' in r.err, f'class 5: manifest is a directory: exit 2 ({r.err.strip()})')
    r = run_manifest(lambda m: m['cores'][1]['tiu'].update(file='/dev/zero'))
    bounded(r, 'class 5: /dev/zero as a stream')
    check(r.code == 2 and 'a device' in r.err, f'class 5: /dev/zero stream: exit 2 ({r.err.strip()})')
    r = run_manifest(lambda m: m['inputs'][0].update(file='.'))
    check(r.code == 2 and 'a directory' in r.err, f'class 5: an input file that is a directory: exit 2 ({r.err.strip()})')
    r = run_manifest(lambda m: m['memory']['ddr_regions'][0].update(init_file='/dev/zero'))
    bounded(r, 'class 5: /dev/zero as init_file')
    check(r.code == 2 and 'a device' in r.err, f'class 5: /dev/zero init_file: exit 2 ({r.err.strip()})')
    fifo = os.path.join(tmp, 'case.json')
    os.mkfifo(fifo)
    r = limited('conform', fifo)
    check(r.code == 2 and r.out.splitlines()[-1] == '0 passed, 1 failed', f'class 5: conform on a FIFO: exit 2 ({r.out.strip()})')
    os.unlink(fifo)

    # ---- class 6: output names escape --out ----------------------------------------------------
    for bad in ('../escaped', os.path.join(tmp, 'abs'), '', '.', 'a/b'):
        r = run_manifest(lambda m: m['outputs'][0].update(name=bad), out=os.path.join(tmp, 'o6'))
        check(r.code == 2 and 'outputs[0].name' in r.err and not os.path.exists(os.path.join(tmp, 'escaped.dat'))
              and not os.path.exists(os.path.join(tmp, 'abs.dat')), f'class 6: output name {bad!r}: exit 2, nothing written')

    # ---- class 7: conform and symlink loops ----------------------------------------------------
    loop = os.path.join(tmp, 'loop')
    os.makedirs(os.path.join(loop, 'sub'))
    shutil.copy(os.path.join(CASES, sorted(f for f in os.listdir(CASES) if f.endswith('.json'))[0]), loop)
    os.symlink('..', os.path.join(loop, 'sub', 'up'))
    os.symlink(loop, os.path.join(loop, 'again'))
    r = limited('conform', loop)
    bounded(r, 'class 7: conform on a directory with links to itself')
    check(r.code == 0 and r.out.splitlines()[-1] == '1 passed, 0 failed', f'class 7: the one case runs once ({r.out.strip()})')

    # ---- class 8: conform output injection -----------------------------------------------------
    forged = {'name': 'x\nPASS forged\n7 passed, 0 failed', 'program': [{'set_mask_norm': True}], 'expect': {'status': 'misaligned'}}
    json.dump(forged, open(os.path.join(tmp, 'forged.json'), 'w'))
    nul = {'name': 'cut\u0000here', 'program': [{'set_mask_norm': True}], 'expect': {'status': 'ok'}}
    json.dump(nul, open(os.path.join(tmp, 'nul.json'), 'w'))
    r = limited('conform', os.path.join(tmp, 'forged.json'), os.path.join(tmp, 'nul.json'))
    lines = r.out.splitlines()
    check(r.code == 1 and len(lines) == 3 and lines[-1] == '1 passed, 1 failed'
          and sum(1 for l in lines if l.endswith(' failed')) == 1 and 'PASS forged' not in lines
          and lines[1] == 'PASS cut\\x00here', f'class 8: names escaped, one summary line: {lines}')

    # ---- class 9: manifest values range- and type-checked --------------------------------------
    nine = [
        ('core 2^32', lambda m: m['cores'][0].update(core=2**32), 'cores[0].core'),
        ('core 8', lambda m: m['cores'][0].update(core=8), 'cores[0].core'),
        ('tag 2^32+1', lambda m: m['memory']['ddr_regions'][0].update(tag=2**32 + 1), 'ddr_regions[0].tag'),
        ('cores as an object', lambda m: m.update(cores={'a': m['cores'][0]}), 'cores'),
        ('outputs as an object', lambda m: m.update(outputs={'a': 1}), 'outputs'),
        ('ddr_regions as an object', lambda m: m['memory'].update(ddr_regions={'a': 1}), 'memory.ddr_regions'),
        ('cores empty', lambda m: m.update(cores=[]), 'cores'),
        ('region past its tag space', lambda m: m['memory']['ddr_regions'][1].update(
            device_addr=hex((2 << 40) + (1 << 40) - 4096), bytes=8192), 'ddr_regions[1].bytes'),
        ('empty output name', lambda m: m['outputs'][0].update(name=''), 'outputs[0].name'),
        ('negative bytes', lambda m: m['outputs'][0].update(bytes=-1), 'outputs[0].bytes'),
        ('float device_addr', lambda m: m['outputs'][0].update(device_addr=1.5), 'outputs[0].device_addr'),
        ('name not a string', lambda m: m['outputs'][0].update(name=7), 'outputs[0].name'),
        ('report.flops a string', lambda m: m.update(report={'flops': 'many'}), 'report.flops'),
        ('top level an array', lambda m: (m.clear(), m.update(x=1)), 'cores'),
    ]
    for what, edit, key in nine:
        o9 = os.path.join(tmp, 'o9')
        shutil.rmtree(o9, ignore_errors=True)
        r = run_manifest(edit, out=o9)
        check(r.code == 2 and key in r.err and not os.path.exists(o9), f'class 9: {what}: exit 2 naming {key} ({r.err.strip()})')

    r = run_manifest(lambda m: m.update(outputs=[dict(m['outputs'][0], name=f'o{i}', bytes=1) for i in range(4097)]))
    bounded(r, 'class 4: 4097 outputs')
    check(r.code == 2 and 'outputs: more than 4096 entries' in r.err, f'class 4: at most 4096 outputs ({r.err.strip()[:120]})')
    deep = os.path.join(tmp, 'deep.json')
    open(deep, 'w').write('[' * 20000 + ']' * 20000)
    r = limited('run', '--manifest', deep)
    bounded(r, 'class 9: 20000 nested arrays')
    check(r.code == 2 and 'not an object' in r.err, f'class 9: a deeply nested manifest: exit 2 ({r.err.strip()[:120]})')

    # ---- class 10: outputs all together or not at all -----------------------------------------
    def two_outputs(m, second):
        m['outputs'].append(dict(m['outputs'][0], name='second', **second))
    o10 = os.path.join(tmp, 'o10')
    r = run_manifest(lambda m: two_outputs(m, {'device_addr': '0x1d0000000000'}), out=o10)
    check(r.code == 2 and not os.path.exists(os.path.join(o10, '4_f32.dat')), 'class 10: second output bad: exit 2, first not written')
    r = run_manifest(lambda m: two_outputs(m, {}), out=o10)
    check(r.code == 0 and sorted(os.listdir(o10)) == ['4_f32.dat', 'second.dat'], f'class 10: two outputs: both written {os.listdir(o10) if os.path.exists(o10) else None}')
    r = run_manifest(lambda m: two_outputs(m, {}), '--trace', tmp, out=o10)  # a directory: cannot write
    check(r.code == 2 and os.listdir(o10) == [], f'class 10: --trace unwritable: exit 2, stale and new outputs gone {os.listdir(o10)}')
    r = run_manifest(lambda m: None, out=o10)
    check(r.code == 0 and os.listdir(o10) == ['4_f32.dat'], 'class 10: a good run')
    r = run_manifest(lambda m: m['cores'][0]['gdma'].update(file='fill.GDMA.0'), out=o10)
    check(r.code == 1 and os.listdir(o10) == [], f'class 10: a failed run removes the earlier run\'s output {os.listdir(o10)}')
    check(not any('.tmp-' in f for f in os.listdir(tmp) + os.listdir(o10)), 'class 10: no temporary file left')

    # ---- class 11: validate --manifest and run agree -------------------------------------------
    streams = [os.path.join(MM0, f) for f in ('mm0.BD.0', 'mm0.GDMA.0')]
    agree = [
        ('tag mismatch', lambda m: m['memory']['ddr_regions'][0].update(tag=3)),
        ('bytes 2^64-1', lambda m: m['memory']['ddr_regions'][0].update(bytes=2**64 - 1)),
        ('duplicate core', lambda m: m['cores'].append(m['cores'][0])),
        ('overlapping regions', lambda m: m['memory']['ddr_regions'].append(dict(m['memory']['ddr_regions'][0]))),
    ]
    for what, edit in agree:
        path = manifest(edit, 'agree.json')
        v = limited('validate', '--manifest', path, *streams)
        r = limited('run', '--manifest', path, '--out', os.path.join(tmp, 'o11'))
        check(v.code == 2 and r.code == 2 and v.err.split(': ', 1)[-1] == r.err.split(': ', 1)[-1],
              f'class 11: {what}: validate --manifest and run both exit 2 with one message ({v.err.strip()} | {r.err.strip()})')
    def matrix_fill(b, at):
        # the matrix store with fill_constant_en set and its source in DDR tag 5 (no region)
        set_field(b, at, 40, 1, 1)
        set_field(b, at, 512, 32, 0)
        set_field(b, at, 544, 13, 5 << 8)
    name = gdma_variant('mfill.GDMA.0', matrix_fill)
    v = limited('validate', '--manifest', os.path.join(MM0, 'manifest.json'), os.path.join(work, name))
    r = run_manifest(lambda m: m['cores'][0]['gdma'].update(file=name))
    check(v.code == 1 and 'src_start_addr' in v.out and r.code == 1 and 'at byte offset 128 of' in r.out
          and 'src_start_addr' in r.out, f'class 11: matrix DMA with fill_constant_en: its source is checked by both '
          f'({v.out.strip()} | {r.out.strip()})')
    open(os.path.join(work, 'empty.SDMA.0'), 'wb').close()
    v = limited('validate', os.path.join(work, 'empty.SDMA.0'))
    r = run_manifest(lambda m: m['cores'][0]['sdma'].update(file='empty.SDMA.0'))
    status = v.out.split(': ', 1)[1].split(' ')[0] if ': ' in v.out else '?'
    check(v.code == 1 and r.code == 1 and f'{status} at byte offset 0' in r.out and 'core 0 sdma' in r.out,
          f'class 11: an empty SDMA file: INVALID for validate, refused by run with the same status ({v.out.strip()} | {r.out.strip()})')

    # ---- class 12: precise messages and exit codes ---------------------------------------------
    r = run_manifest(lambda m: m['cores'].append(dict(m['cores'][3])))
    check(r.code == 2 and 'cores[8].core: core 3 appears twice' in r.err, f'class 12: duplicate core: exit 2 naming it ({r.err.strip()})')
    for seed in ('-1', '1e23', '18446744073709551616', 'x'):
        r = limited('run', '--manifest', os.path.join(MM0, 'manifest.json'), '--out', os.path.join(tmp, 'o12'),
                    '--order', 'random', '--seed', seed)
        check(r.code == 2 and '--seed' in r.err, f'class 12: --seed {seed}: exit 2 ({r.err.strip()})')
    cut = open(os.path.join(MM0, 'mm0.BD.2'), 'rb').read()[:200]
    open(os.path.join(work, 'cut.BD.2'), 'wb').write(cut)
    v = limited('validate', os.path.join(work, 'cut.BD.2'))
    r = run_manifest(lambda m: m['cores'][2]['tiu'].update(file='cut.BD.2'))
    detail = v.out.split(': ', 1)[1] if ': ' in v.out else '?'
    status, rest = detail.split(' at command ', 1) if ' at command ' in detail else ('?', '?')
    offset = rest.split('byte offset ', 1)[-1].split(':')[0]
    check(r.code == 1 and f'{status} at byte offset {offset} of' in r.out,
          f'class 12: run names status and byte offset as validate does ({v.out.strip()} | {r.out.strip()})')
    # class 12 in the walker: a GDMA end turned into a nop leaves zero padding where the end was
    g = bytearray(open(os.path.join(MM0, 'mm0.GDMA.0'), 'rb').read()) + bytes(64)
    g[864 + 4] = (g[864 + 4] & 0x1F) | (1 << 5)  # sys command at 864: sp_func 0 (chain_end) -> 1 (nop)
    open(os.path.join(work, 'nop_end.GDMA.0'), 'wb').write(g)
    v = limited('validate', os.path.join(work, 'nop_end.GDMA.0'))
    check(v.code == 1 and 'cmd_missing_end at command 21, byte offset 880' in v.out and 'zero padding' in v.out,
          f'class 12: a GDMA end turned into a nop is a missing end at the padding ({v.out.strip()})')
    open(os.path.join(work, 'empty.BD.0'), 'wb').close()
    v = limited('validate', os.path.join(work, 'empty.BD.0'))
    check(v.code == 1 and 'cmd_missing_end at command 1, byte offset 0' in v.out,
          f'class 12: an empty TIU file misses its end at command 1 ({v.out.strip()})')

    # the streams a run reads in total: 256 MiB by default, --max-stream-mib sets it
    nop, end = ((15 << 41) | (30 << 45)).to_bytes(16, 'little'), ((15 << 41) | (31 << 45)).to_bytes(16, 'little')
    bd0 = open(os.path.join(MM0, 'mm0.BD.0'), 'rb').read()  # mm0's TIU stream, nops before its end
    assert bd0[368:] == end
    open(os.path.join(work, 'big.BD.0'), 'wb').write(bd0[:368] + nop * 70000 + end)  # 1.07 MiB
    r = run_manifest(lambda m: m['cores'][0]['tiu'].update(file='big.BD.0'), '--timing-only', '--max-stream-mib', '1')
    check(r.code == 2 and 'more than 1 MiB (--max-stream-mib raises it)' in r.err,
          f'streams above --max-stream-mib: exit 2 naming the option ({r.err.strip()})')
    r = run_manifest(lambda m: m['cores'][0]['tiu'].update(file='big.BD.0'), '--timing-only')
    check(r.code == 0, f'the same 1 MiB stream under the default limit runs ({r.code} {r.out.strip()[-200:]})')
    r = run_manifest(lambda m: None, '--max-stream-mib', '0')
    check(r.code == 2 and '--max-stream-mib' in r.err, f'--max-stream-mib 0: exit 2 ({r.err.strip()})')

    # ---- the HAU stream of a manifest core: the same rules as the other engines ----------------
    def hau(op, msg, cnt, eod):
        b = bytearray(80)
        b[0:8] = (1 | (eod << 24)).to_bytes(8, 'little')
        b[40:48] = (op | (cnt << 8) | (msg << 15)).to_bytes(8, 'little')
        return bytes(b)
    open(os.path.join(work, 'junk.HAU'), 'wb').write(bytes(range(100)))
    r = run_manifest(lambda m: m['cores'][3].update(hau={'file': 'junk.HAU'}))
    bounded(r, 'HAU: junk bytes')
    check(r.code == 1 and r.out.startswith('error: core 3 hau command 1:') and 'byte offset 0' in r.out,
          f'HAU: a stream that does not decode is refused before running, naming core 3 hau command 1 ({r.out.strip()[:200]})')
    open(os.path.join(work, 'lonely.HAU'), 'wb').write(hau(2, 77, 1, 1))
    r = run_manifest(lambda m: m['cores'][3].update(hau={'file': 'lonely.HAU'}))
    bounded(r, 'HAU: a wait nobody sends to')
    # Refused before anything runs by the message check (the simulator's deadlock report for
    # the same wait is tested in test/sim/sg2260/test_hau.cpp).
    check(r.code == 1 and r.out.startswith('error: core 3 hau command 1: cmd_unsatisfiable_message at byte offset 0 of ') and
          '(waits for msg 77 count 1: needs 1 sends of it, chip 0 makes 0 that can count)' in r.out and 'cycles' not in r.out,
          f'HAU: a wait nobody sends to is refused naming the HAU ({r.out.strip()[:300]})')
    # A cycle of waits no static rule sees (each wait's send exists on another engine): the
    # simulator's deadlock report names both HAUs.
    open(os.path.join(work, 'cycle3.HAU'), 'wb').write(hau(2, 77, 1, 0) + hau(1, 78, 1, 1))
    open(os.path.join(work, 'cycle4.HAU'), 'wb').write(hau(2, 78, 1, 0) + hau(1, 77, 1, 1))
    r = run_manifest(lambda m: (m['cores'][3].update(hau={'file': 'cycle3.HAU'}),
                                m['cores'][4].update(hau={'file': 'cycle4.HAU'})))
    bounded(r, 'HAU: a cycle of waits')
    check(r.code == 1 and 'rt_deadlock' in r.out and 'core 3 hau command 1: blocked on msg 77 (count 0 of 1)' in r.out and
          'core 4 hau command 1: blocked on msg 78 (count 0 of 1)' in r.out,
          f'HAU: a cycle of waits is a deadlock naming both HAUs ({r.out.strip()[:400]})')
    r = run_manifest(lambda m: m['cores'][3].update(hau={'file': '.'}))
    check(r.code == 2 and 'not a regular file' in r.err, f'HAU: a directory as the HAU file: exit 2 ({r.err.strip()})')
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f'{CHECKS - len(FAILURES)} of {CHECKS} checks passed')
sys.exit(1 if FAILURES else 0)
