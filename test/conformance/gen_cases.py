#!/usr/bin/env python3
"""Writes the project's a2a3 conformance cases (test/conformance/a2a3/*.json).

Expected values come from the documentation's worked examples (the `vector-semantics 5 #N`
notes number the examples of the project's earlier research notes; the facts are in
docs/a2a3-vector-semantics.md) and from the rules it states; where the section elides data, the case completes it and says so in `note`.
Half values are rounded with struct's 'e' format (IEEE binary16, nearest even), float values
with struct's 'f' format; exp/ln come from `decimal` at 60 digits, rounded exactly
(fractions), so no expected value is taken from the simulator. Tile cases (the `tile_cases`
section) compute their expectations the same way, following docs/a2a3-vector-semantics.md sections 7 and 8 and the
instruction streams documented in inc/tilefw/plan/plan.hpp."""
import json, math, os, random, re, struct
from decimal import Decimal, getcontext
from fractions import Fraction

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'a2a3')
ALL = '0xffffffffffffffff'

def h(x):  # nearest-even half of a double, as a JSON number (or "inf")
    try:
        return struct.unpack('<e', struct.pack('<e', x))[0]
    except OverflowError:
        return 'inf' if x > 0 else '-inf'

def w(name, case, compact=False):
    case = dict(name=name, profile='a2a3', **case)
    text = json.dumps(case, indent=1)
    # compact: long lists of scalars on one line (tile cases hold thousands of values).
    if compact:
        text = re.sub(r'\[\n\s*((?:(?:-?[0-9.e+-]+|"[^"\n]*"),\n\s*){16,}(?:-?[0-9.e+-]+|"[^"\n]*"))\n\s*\]',
                      lambda mt: '[' + ', '.join(x.strip() for x in mt.group(1).split(',\n')) + ']', text)
    with open(os.path.join(OUT, name + '.json'), 'w') as f:
        f.write(text + '\n')

def m(space_off, dtype, **kw):
    d = {'space': 'UB', 'offset': space_off, 'dtype': dtype}
    d.update(kw)
    return d

def iota(start, count, step=1):
    return {'start': start, 'step': step, 'count': count}

def opnd(off, blk=1, rep=8):
    return {'offset': off, 'blk': blk, 'rep': rep}

def binop(op, dt, repeat, dst, s0, s1):
    return {'issue': {'op': op, 'dtype': dt, 'repeat': repeat, 'dst': dst, 'src0': s0, 'src1': s1}}

# ---- section 5 worked examples -------------------------------------------------------------
w('ex01-vadd-f16-mask128-repeat4', dict(
    note='vector-semantics 5 #1',
    memory=[m(0, 'f16', iota=iota(1, 512)), m(1024, 'f16', iota=iota(513, 512))],
    program=[binop('vadd', 'f16', 4, opnd(4096), opnd(0), opnd(1024))],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', iota=iota(514, 512, 2))]}))

row = []
for r in range(4):
    row += [514 + 2 * (128 * r + k) for k in range(64)] + ['keep'] * 64
for variant, prog in [('cont', [{'set_mask': {'hi': '0x0', 'lo': ALL}}]),
                      ('array', [{'set_mask': {'hi': 0, 'lo': 18446744073709551615}}])]:
    w('ex02-vadd-f16-mask64-' + variant, dict(
        note='vector-semantics 5 #2 (mask 64 continuous = Ascend C mask array {lo=UINT64_MAX, hi=0}); dst pre-filled with -1',
        memory=[m(0, 'f16', iota=iota(1, 512)), m(1024, 'f16', iota=iota(513, 512)),
                m(4096, 'f16', fill={'value': -1, 'count': 512})],
        program=prog + [binop('vadd', 'f16', 4, opnd(4096), opnd(0), opnd(1024))],
        expect={'status': 'ok', 'memory': [m(4096, 'f16', values=row)]}))

w('ex05-vadd-i16-mask-5555', dict(
    note='vector-semantics 5 #5; odd lanes keep their old value (dst pre-filled with 7)',
    memory=[m(0, 'i16', iota=iota(1, 128)), m(256, 'i16', iota=iota(1, 128)), m(512, 'i16', fill={'value': 7, 'count': 128})],
    program=[{'set_mask': {'hi': '0x5555555555555555', 'lo': '0x5555555555555555'}},
             binop('vadd', 'i16', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'i16', values=[2 * (k + 1) if k % 2 == 0 else 'keep' for k in range(128)])]}))

w('ex06-vadd-i32-mask-5555', dict(
    note='vector-semantics 5 #6; the hi word is set too and must be ignored for b32',
    memory=[m(0, 'i32', iota=iota(1, 64)), m(256, 'i32', iota=iota(1, 64)), m(512, 'i32', fill={'value': -5, 'count': 128})],
    program=[{'set_mask': {'hi': ALL, 'lo': '0x5555555555555555'}},
             binop('vadd', 'i32', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'i32', values=[2 * (k + 1) if k % 2 == 0 else 'keep' for k in range(64)] + ['keep'] * 64)]}))

w('ex07-vadd-i16-mask64', dict(
    note='vector-semantics 5 #7 (int16)',
    memory=[m(0, 'i16', iota=iota(1, 128)), m(256, 'i16', iota=iota(1, 128))],
    program=[{'set_mask': {'hi': 0, 'lo': ALL}}, binop('vadd', 'i16', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'i16', values=[2 * (k + 1) for k in range(64)] + ['keep'] * 64)]}))
w('ex07-vadd-i32-mask64', dict(
    note='vector-semantics 5 #7 (int32)',
    memory=[m(0, 'i32', iota=iota(1, 64)), m(256, 'i32', iota=iota(1, 64))],
    program=[{'set_mask': {'hi': 0, 'lo': ALL}}, binop('vadd', 'i32', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'i32', iota=iota(2, 64, 2))]}))

for op, b, exp in [
        ('vsub', {'iota': iota(513, 512)}, {'fill': {'value': -512, 'count': 512}}),
        ('vmul', {'fill': {'value': 2, 'count': 512}}, {'iota': iota(2, 512, 2)}),
        ('vmax', {'iota': iota(513, 512, -1)}, {'values': [max(i + 1, 513 - i) for i in range(512)]}),
        ('vmin', {'iota': iota(513, 512, -1)}, {'values': [min(i + 1, 513 - i) for i in range(512)]})]:
    w('ex08-%s-f16-count512' % op, dict(
        note='vector-semantics 5 #8, count API: counter mode with 512 elements, repeat 0; Mul uses b = all 2',
        memory=[m(0, 'f16', iota=iota(1, 512)), m(1024, 'f16', **b)],
        program=[{'set_mask_count': 512}, binop(op, 'f16', 0, opnd(4096), opnd(0), opnd(1024))],
        expect={'status': 'ok', 'memory': [m(4096, 'f16', **exp)]}))

def unop(op, dt, repeat, dst, src):
    return {'issue': {'op': op, 'dtype': dt, 'repeat': repeat, 'dst': dst, 'src': src}}

w('ex09-vabs-f16', dict(
    note='vector-semantics 5 #9 Abs, 512 elements',
    memory=[m(0, 'f16', values=[(-i if i % 2 else i) for i in range(512)])],
    program=[unop('vabs', 'f16', 4, opnd(4096), opnd(0))],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', iota=iota(0, 512))]}))
w('ex09-vexp-f16', dict(
    note='vector-semantics 5 #9 Exp: elided data completed as x = 0..511; expected = fp16 RNE of exp(x) (inf from x = 12: exp(12) > 65520)',
    memory=[m(0, 'f16', iota=iota(0, 512))],
    program=[unop('vexp', 'f16', 4, opnd(4096), opnd(0))],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', values=[h(math.exp(i)) if i < 12 else 'inf' for i in range(512)])]}))

def red(op, dt, repeat, dst_off, dst_rep, src, **kw):
    d = {'op': op, 'dtype': dt, 'repeat': repeat, 'dst': {'offset': dst_off, 'rep': dst_rep}, 'src': src}
    d.update(kw)
    return {'issue': d}

w('ex13-vcadd-f16', dict(
    note='vector-semantics 5 #13',
    memory=[m(0, 'f16', fill={'value': 1, 'count': 256})],
    program=[red('vcadd', 'f16', 2, 4096, 1, opnd(0), mode=0)],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', values=[128, 128, 'keep'])]}))
w('ex14-vcgadd-f16', dict(
    note='vector-semantics 5 #14',
    memory=[m(0, 'f16', fill={'value': 1, 'count': 256})],
    program=[red('vcgadd', 'f16', 2, 4096, 1, opnd(0))],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', values=[16] * 16 + ['keep'])]}))
blocks = [1, 2, 3, 4, 5, 6, 7, 3]
w('ex15-vcgadd-f16-blocks', dict(
    note='vector-semantics 5 #15: elided block values completed as 1,2,3,4,5,6,7,3 (first 1, second 2, last 3)',
    memory=[m(0, 'f16', values=sum([[v] * 16 for v in blocks], []))],
    program=[red('vcgadd', 'f16', 1, 4096, 1, opnd(0))],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', values=[16 * v for v in blocks])]}))
w('ex16-vcpadd-f16', dict(
    note='vector-semantics 5 #16',
    memory=[m(0, 'f16', iota=iota(1, 256))],
    program=[red('vcpadd', 'f16', 2, 4096, 1, opnd(0))],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', iota=iota(3, 128, 4))]}))
vals = [1.0] * 512
for r, (v, lane) in enumerate([(11, 52), (12, 100), (15, 0), (13, 19)]):
    vals[128 * r + lane] = v
w('ex17-vcmax-f16-value-index', dict(
    note='vector-semantics 5 #17; elided repeat 2 completed as max 15 at lane 0; other lanes 1.0',
    memory=[m(0, 'f16', values=vals)],
    program=[red('vcmax', 'f16', 4, 4096, 1, opnd(0), order='value_index')],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', values=[11, '0x0034', 12, '0x0064', 15, '0x0000', 13, '0x0013'])]}))
w('ex17-vcmax-f16-only-value', dict(
    note='vector-semantics 5 #17 ONLY_VALUE (dst unit 1 element)',
    memory=[m(0, 'f16', values=vals)],
    program=[red('vcmax', 'f16', 4, 4096, 1, opnd(0), order='only_value')],
    expect={'status': 'ok', 'memory': [m(4096, 'f16', values=[11, 12, 15, 13, 'keep'])]}))
w('ex22-reducesum-f16-two-vcadd', dict(
    note='vector-semantics 5 #22 as two vcadd issues: 65 per-repeat sums to UB 32768, then one vcadd over them with a 65-lane mask',
    memory=[m(0, 'f16', fill={'value': 1, 'count': 8320})],
    program=[red('vcadd', 'f16', 65, 32768, 1, opnd(0)),
             {'set_mask': {'hi': '0x1', 'lo': ALL}},
             red('vcadd', 'f16', 1, 40960, 1, opnd(32768))],
    expect={'status': 'ok', 'memory': [m(32768, 'f16', fill={'value': 128, 'count': 65}), m(40960, 'f16', values=[8320])]}))
w('ex24-zero-mask-nop', dict(
    note='vector-semantics 5 #24: a mask with no applicable bit is a NOP with status ok',
    memory=[m(0, 'f16', fill={'value': 1, 'count': 128}), m(512, 'f16', fill={'value': 9, 'count': 128})],
    program=[{'set_mask': {'hi': 0, 'lo': 0}}, binop('vadd', 'f16', 1, opnd(512), opnd(0), opnd(0))],
    expect={'status': 'ok', 'memory': [m(512, 'f16', fill={'value': 'keep', 'count': 128})]}))
w('ex24-f32-hi-only-mask-nop', dict(
    note='b32 ignores MASK hi: hi-only mask is a NOP',
    memory=[m(0, 'f32', fill={'value': 1, 'count': 64}), m(512, 'f32', fill={'value': 9, 'count': 64})],
    program=[{'set_mask': {'hi': ALL, 'lo': 0}}, binop('vadd', 'f32', 1, opnd(512), opnd(0), opnd(0))],
    expect={'status': 'ok', 'memory': [m(512, 'f32', fill={'value': 9, 'count': 64})]}))
w('ex24-repeat0-normal-invalid', dict(
    note='Rule: zero repeat and zero count: repeat 0 in normal mode is invalid_descriptor',
    program=[binop('vadd', 'f16', 0, opnd(512), opnd(0), opnd(0))], expect={'status': 'invalid_descriptor'}))
w('ex24-count0-invalid', dict(
    note='Rule: zero repeat and zero count: count 0 in counter mode is invalid_descriptor',
    program=[{'set_mask_count': 0}, binop('vadd', 'f16', 0, opnd(512), opnd(0), opnd(0))], expect={'status': 'invalid_descriptor'}))

# ---- rules -------------------------------------------------------------------------------------
def st(name, note, program, status, memory=None, expect_mem=None):
    e = {'status': status}
    if expect_mem: e['memory'] = expect_mem
    w(name, dict(note=note, memory=memory or [], program=program, expect=e))

keep512 = [m(512, 'f32', fill={'value': 'keep', 'count': 64})]
st('rule-misaligned', 'src0 offset 16 is not 32 B aligned', [binop('vadd', 'f32', 1, opnd(512), opnd(16), opnd(0))], 'misaligned')
st('rule-out-of-bounds', 'dst repeat 1 starts at the end of UB', [binop('vadd', 'f32', 2, opnd(196608 - 256), opnd(0), opnd(1024))], 'out_of_bounds')
st('rule-top-8k-legal', 'the top 8 KB of UB is legal',
   [binop('vadd', 'f32', 1, opnd(196608 - 256), opnd(0), opnd(1024))], 'ok', [m(0, 'f32', fill={'value': 2, 'count': 64}), m(1024, 'f32', fill={'value': 3, 'count': 64})],
   [m(196608 - 256, 'f32', fill={'value': 5, 'count': 64})])
st('rule-misaligned-before-bounds', 'alignment is checked before bounds', [binop('vadd', 'f32', 1, opnd(196608 + 16), opnd(0), opnd(0))], 'misaligned')
st('rule-descriptor-before-memory', 'descriptor rules come before alignment', [binop('vadd', 'f32', 0, opnd(16), opnd(0), opnd(0))], 'invalid_descriptor')
st('rule-space-not-ub', 'operands outside UB are invalid_descriptor',
   [{'issue': {'op': 'vadd', 'dtype': 'f32', 'repeat': 1, 'dst': {'offset': 0, 'space': 'GM'}, 'src0': opnd(0), 'src1': opnd(0)}}], 'invalid_descriptor')
st('rule-dst-blk-zero', 'dst block stride 0 is invalid_descriptor', [binop('vadd', 'f32', 1, opnd(512, 0), opnd(0), opnd(0))], 'invalid_descriptor')
st('rule-src-blk-zero-legal', 'src block stride 0 re-reads block 0',
   [binop('vadd', 'f32', 1, opnd(512), opnd(0, 0), opnd(0, 0))], 'ok', [m(0, 'f32', iota=iota(1, 64))],
   [m(512, 'f32', values=[2 * (e + 1) for b in range(8) for e in range(8)])])
st('rule-binary-stride-range', 'binary strides are 8-bit', [binop('vadd', 'f32', 1, opnd(512), opnd(0, 256), opnd(0))], 'invalid_descriptor')
st('rule-vdiv-i32-unsupported', 'vdiv has no int32 form', [binop('vdiv', 'i32', 1, opnd(512), opnd(0), opnd(0))], 'invalid_descriptor')
st('rule-vexp-i16-unsupported', 'vexp is half/float only', [unop('vexp', 'i16', 1, opnd(512), opnd(0))], 'invalid_descriptor')
st('rule-vcadd-mode1-unsupported', 'vcadd mode 1 is invalid_descriptor', [red('vcadd', 'f32', 1, 512, 1, opnd(0), mode=1)], 'invalid_descriptor')
st('rule-overlap-within-repeat', 'a vcadd result (4 B at UB 4) partly overlaps src block 0 (32-aligned elementwise blocks are always identical or disjoint)',
   [red('vcadd', 'f32', 1, 4, 1, opnd(0))], 'illegal_overlap')
st('rule-identical-block-legal', 'dst block 0 byte-identical to src0 block 1 inside one repeat is legal (read before write)',
   [binop('vadd', 'f32', 1, opnd(32), opnd(0), opnd(1024))], 'ok',
   [m(0, 'f32', iota=iota(0, 72)), m(1024, 'f32', fill={'value': 100, 'count': 64})],
   [m(0, 'f32', values=['keep'] * 8 + [100 + i for i in range(64)])])
st('rule-overlap-across-repeats', 'dst of repeat 0 is src0 of repeat 1',
   [binop('vadd', 'f32', 2, opnd(256), opnd(0), opnd(1024))], 'illegal_overlap')
st('rule-inplace-legal', 'dst == src0 with the same geometry is legal',
   [binop('vadd', 'f32', 2, opnd(0), opnd(0), opnd(1024))], 'ok',
   [m(0, 'f32', iota=iota(0, 128)), m(1024, 'f32', fill={'value': 1, 'count': 128})], [m(0, 'f32', iota=iota(1, 128))])
st('rule-accumulator-f32', 'accumulator: dst == src1 with repeat stride 0 accumulates in repeat order',
   [binop('vadd', 'f32', 3, opnd(4096, 1, 0), opnd(0), opnd(4096, 1, 0))], 'ok',
   [m(0, 'f32', values=[1] * 64 + [2] * 64 + [4] * 64), m(4096, 'f32', fill={'value': 0.5, 'count': 64})],
   [m(4096, 'f32', fill={'value': 7.5, 'count': 64})])
st('rule-accumulator-i16-illegal', 'the accumulator exception is for half/int32/float only',
   [binop('vadd', 'i16', 3, opnd(4096, 1, 0), opnd(0), opnd(4096, 1, 0))], 'illegal_overlap')
st('rule-accumulator-src0-illegal', 'the accumulator exception is for src1 only',
   [binop('vadd', 'f32', 3, opnd(4096, 1, 0), opnd(4096, 1, 0), opnd(0))], 'illegal_overlap')
st('rule-stop-at-first-failure', 'the program stops at the first non-ok item; nothing after it runs',
   [binop('vadd', 'f32', 1, opnd(16), opnd(0), opnd(0)), binop('vadd', 'f32', 1, opnd(512), opnd(0), opnd(0))], 'misaligned',
   [m(0, 'f32', fill={'value': 1, 'count': 64}), m(512, 'f32', fill={'value': 3, 'count': 64})], keep512)
st('rule-counter-strides', 'count 130 half with {dstBlk 2, srcBlk 2, dstRep 16, srcRep 16} runs 2 repeats (128 + 2)',
   [{'set_mask_count': 130}, unop('vabs', 'f16', 0, opnd(8192, 2, 16), opnd(0, 2, 16))], 'ok',
   [m(0, 'f16', values=[-(i + 1) for i in range(1024)]), m(8192, 'f16', fill={'value': 9, 'count': 1024})],
   [m(8192, 'f16', values=[(i % 32 < 16 and (i // 32) * 16 + (i % 16) < 130) and ((i // 32) * 32 + i % 16 + 1) or 'keep' for i in range(1024)])])
st('rule-counter-sticky', 'set_mask_norm keeps MASK = {0, 130}: a later normal issue reads it as lanes 1 and 7',
   [{'set_mask_count': 130}, unop('vabs', 'f16', 0, opnd(4096), opnd(0)), {'set_mask_norm': True},
    unop('vabs', 'f16', 1, opnd(8192), opnd(0))], 'ok',
   [m(0, 'f16', fill={'value': -2, 'count': 256}), m(8192, 'f16', fill={'value': 9, 'count': 128})],
   [m(4096, 'f16', values=[2] * 130 + [0]), m(8192, 'f16', values=[2 if k in (1, 7) else 'keep' for k in range(128)])])
st('rule-counter-ignores-mask-hi', 'counter mode: only MASK[31:0] counts (set_mask after set_mask_count)',
   [{'set_mask_count': 1}, {'set_mask': {'hi': ALL, 'lo': '0x100000003'}}, unop('vabs', 'f32', 0, opnd(4096), opnd(0))], 'ok',
   [m(0, 'f32', fill={'value': -3, 'count': 64})], [m(4096, 'f32', values=[3, 3, 3, 0])])
for mode, val, nan in [('infnan', 'inf', 'nan'), ('saturate', 65504, 0)]:
    w('rule-overflow-%s-f16' % mode, dict(
        note='CTRL[48]: half overflow and NaN (docs/a2a3-vector-semantics.md section 6.2)', ctrl={'overflow': mode},
        memory=[m(0, 'f16', values=[60000, 'inf', -60000]), m(256, 'f16', values=[60000, '-inf', -60000])],
        program=[{'set_mask': {'hi': 0, 'lo': 7}}, binop('vadd', 'f16', 1, opnd(512), opnd(0), opnd(256))],
        expect={'status': 'ok', 'memory': [m(512, 'f16', values=[val, nan, val if val == 'inf' else -65504] if False else
                                                ([val, nan, '-inf'] if mode == 'infnan' else [65504, 0, -65504]))]}))
w('rule-overflow-saturate-tree', dict(
    note='docs/a2a3-vector-semantics.md section 6.2: [60000, 60000, -30000, 100] tree sum in saturation mode is 35584',
    ctrl={'overflow': 'saturate'}, memory=[m(0, 'f16', values=[60000, 60000, -30000, 100])],
    program=[{'set_mask': {'hi': 0, 'lo': 15}}, red('vcadd', 'f16', 1, 512, 1, opnd(0))],
    expect={'status': 'ok', 'memory': [m(512, 'f16', values=[35584])]}))
w('rule-overflow-f32-ignores-saturate', dict(
    note='float supports only Inf/NaN', ctrl={'overflow': 'saturate'},
    memory=[m(0, 'f32', values=[3e38]), m(256, 'f32', values=[3e38])],
    program=[{'set_mask': {'hi': 0, 'lo': 1}}, binop('vadd', 'f32', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'f32', values=['inf'])]}))
w('rule-vdiv-by-zero', dict(
    note='Rule: correctly rounded transcendentals: vdiv by zero gives the IEEE result, status ok',
    memory=[m(0, 'f32', values=[1, -1, 0, 6]), m(256, 'f32', values=[0, 0, 0, 3])],
    program=[{'set_mask': {'hi': 0, 'lo': 15}}, binop('vdiv', 'f32', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'f32', values=['inf', '-inf', 'nan', 2])]}))
w('rule-int-wrap', dict(
    note='Rule: integer wrap: two\'s-complement wrap',
    memory=[m(0, 'i16', values=[32767, -32768, 300]), m(256, 'i16', values=[1, -1, 300])],
    program=[{'set_mask': {'hi': 0, 'lo': 7}}, binop('vadd', 'i16', 1, opnd(512), opnd(0), opnd(256)),
             binop('vmul', 'i16', 1, opnd(1024), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'i16', values=[-32768, 32767, 600]), m(1024, 'i16', values=[32767, -32768, 24464])]}))
w('rule-vcgadd-masked-block-not-written', dict(
    note='Rule: masked lanes in reductions: an all-masked vcgadd block is not written; masked lanes count as 0',
    memory=[m(0, 'f16', fill={'value': 1, 'count': 128}), m(512, 'f16', fill={'value': 9, 'count': 8})],
    program=[{'set_mask': {'hi': 0, 'lo': '0xff'}}, red('vcgadd', 'f16', 1, 512, 1, opnd(0))],
    expect={'status': 'ok', 'memory': [m(512, 'f16', values=[8] + ['keep'] * 7)]}))
w('rule-vcmin-only-index-f32', dict(
    note='vcmin ONLY_INDEX writes the lane index as u32; ties give the smallest index',
    memory=[m(0, 'f32', values=[5, 4, 3, -2, 7, -2] + [9] * 58)],
    program=[red('vcmin', 'f32', 1, 512, 1, opnd(0), order='only_index')],
    expect={'status': 'ok', 'memory': [m(512, 'u32', values=[3])]}))
w('rule-vadds-f16-scalar', dict(
    note='scalar ops take the scalar in the dtype',
    memory=[m(0, 'f16', iota=iota(0, 128))],
    program=[{'issue': {'op': 'vadds', 'dtype': 'f16', 'repeat': 1, 'dst': opnd(512), 'src': opnd(0), 'scalar': 0.5}}],
    expect={'status': 'ok', 'memory': [m(512, 'f16', iota=iota(0.5, 128))]}))

# ---- issue-B audit: sticky MASK under counter mode, in-place reductions ----------------------
st('rule-counter-keeps-sticky-mask',
   'counter mode reads only MASK[31:0] (count 3) and the issue must not rewrite MASK: after set_mask_norm the '
   'whole MASK {hi all ones, lo 3} is the lane mask again (lanes 0, 1 and 64..127)',
   [{'set_mask_count': 1}, {'set_mask': {'hi': ALL, 'lo': 3}}, unop('vabs', 'f16', 0, opnd(4096), opnd(0)),
    {'set_mask_norm': True}, unop('vabs', 'f16', 1, opnd(8192), opnd(0))], 'ok',
   [m(0, 'f16', fill={'value': -2, 'count': 128})],
   [m(4096, 'f16', values=[2, 2, 2] + ['keep'] * 125),
    m(8192, 'f16', values=[2 if k < 2 or k >= 64 else 'keep' for k in range(128)])])
st('rule-vcadd-f32-inplace-illegal',
   'tilefw choice: vcadd f32 with dst == src writes 4 B of src block 0, neither identical to nor disjoint from it',
   [red('vcadd', 'f32', 1, 0, 1, opnd(0))], 'illegal_overlap',
   [m(0, 'f32', iota=iota(1, 64))], [m(0, 'f32', fill={'value': 'keep', 'count': 64})])
st('rule-vcgadd-f32-inplace-legal',
   'tilefw choice: vcgadd f32 in place is legal: its 32 B output run is src block 0 itself (read before write); '
   'block b of 1..64 sums to 64b + 36',
   [red('vcgadd', 'f32', 1, 0, 1, opnd(0))], 'ok',
   [m(0, 'f32', iota=iota(1, 64))], [m(0, 'f32', values=[64 * b + 36 for b in range(8)] + ['keep'] * 56)])

# ---- tile items --------------------------------------------------------------------------------
# Rounding helpers: struct does IEEE round-to-nearest-even from double; sums, products and
# quotients of two floats are exact in double up to that one rounding (53 >= 2*24+2), so
# r32(a + b) is the binary32 result (same for binary16).
def r32(x):
    try:
        return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
def r16(x):
    try:
        return struct.unpack('<e', struct.pack('<e', x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
RND = {'f32': r32, 'f16': r16, 'i32': lambda x: int(round(x)), 'i16': lambda x: int(round(x))}
ESZ = {'f32': 4, 'f16': 2, 'i32': 4, 'i16': 2}
EPR = {'f32': 64, 'f16': 128}

def bits(x, dt):  # raw bits as a "0x..." value string (exact, NaN canonical)
    if dt == 'f32':
        return '0x%08x' % (0x7fc00000 if x != x else struct.unpack('<I', struct.pack('<f', x))[0])
    if dt == 'f16':
        return '0x%04x' % (0x7e00 if x != x else struct.unpack('<H', struct.pack('<e', x))[0])
    return int(x)

def round_frac(q, dt):  # exact nearest-even rounding of a Fraction to f32/f16
    prec, qmin, top = (24, -149, 128) if dt == 'f32' else (11, -24, 16)
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** (e - 1) > q:
        e -= 1
    while Fraction(2) ** e <= q:
        e += 1
    qe = max(e - prec, qmin)
    n = q / Fraction(2) ** qe
    i = n.numerator // n.denominator
    frac = n - i
    if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and i % 2 == 1):
        i += 1
    v = Fraction(i) * Fraction(2) ** qe
    return sign * (math.inf if v >= 2 ** top else float(v))

getcontext().prec = 60
def cr_exp(x, dt):
    return round_frac(Fraction(Decimal(x).exp()), dt)
def cr_log(x, dt):
    return round_frac(Fraction(Decimal(x).ln()), dt)

def tile(off, rows, cols, valid=None, layout='row_major'):
    return {'offset': off, 'rows': rows, 'cols': cols, 'valid': list(valid or (rows, cols)), 'layout': layout}

def tbytes(t, dt):
    return t['rows'] * t['cols'] * ESZ[dt]

def randvals(n, seed, lo, hi, dt):
    g = random.Random(seed)
    return [RND[dt](g.uniform(lo, hi)) for _ in range(n)]

def grid(t, dt, fn, pad):
    """Full-capacity contents of a row-major tile: fn(r, c) inside the valid region, pad outside."""
    vr, vc = t['valid']
    return [fn(r, c) if r < vr and c < vc else pad for r in range(t['rows']) for c in range(t['cols'])]

def at(t, vals):  # element (r, c) of a row-major tile's full contents
    return lambda r, c: vals[r * t['cols'] + c]

def mem_vals(t, dt, vals):
    return m(t['offset'], dt, values=[v if isinstance(v, str) else bits(v, dt) for v in vals])

def tcase(name, note, memory, item, status='ok', expect=None, ctrl=None):
    case = dict(note=note, memory=memory, program=[item], expect={'status': status})
    if expect:
        case['expect']['memory'] = expect
    if ctrl:
        case['ctrl'] = ctrl
    w(name, case, compact=True)

def titem(op, dt, **operands):
    d = {'op': op, 'dtype': dt}
    d.update(operands)
    return {'tile': d}

def tree(v, rnd):  # vcadd: adjacent pairs, level by level (docs/a2a3-vector-semantics.md section 7)
    v = list(v)
    while len(v) > 1:
        v = [rnd(v[2 * i] + v[2 * i + 1]) for i in range(len(v) // 2)]
    return v[0]

def trowsum_row(x, dt):  # docs/a2a3-vector-semantics.md section 8 for one row of valid values
    rnd, epr = RND[dt], EPR[dt]
    vc = len(x)
    if vc <= epr:
        return tree(x + [0.0] * (epr - vc), rnd)  # masked lanes count as +0
    P, rem = vc // epr, vc % epr
    s_ = [x[i * epr:(i + 1) * epr] for i in range(P)]
    add = lambda a, b: [rnd(p + q) for p, q in zip(a, b)]
    tmp = [None] * max(1, P // 2)
    if P == 1:
        tmp[0] = list(s_[0])
    for i in range(P // 2):
        tmp[i] = add(s_[2 * i], s_[2 * i + 1])
    if P % 2 == 1 and P != 1:
        tmp[0] = add(tmp[0], s_[P - 1])
    if rem:
        tail = x[P * epr:]
        tmp[0] = add(tmp[0][:rem], tail) + tmp[0][rem:]
    n = P // 2
    while n > 1:
        for i in range(n // 2):
            tmp[i] = add(tmp[2 * i], tmp[2 * i + 1])
        if n % 2 == 1:
            tmp[n // 2 - 1] = add(tmp[n // 2 - 1], tmp[n - 1])
        n //= 2
    return tree(tmp[0], rnd)

def seq_sum(x, rnd):
    acc = x[0]
    for v in x[1:]:
        acc = rnd(acc + v)
    return acc

# -- elementwise -------------------------------------------------------------------------------
def ew(name, note, op, dt, fn, dst, srcs, seeds, rng=(-100, 100), scalar=None, pad=None, keep_outside=True, ctrl=None):
    """dst = fn(src values...) over the valid region; srcs are tiles (binary: 2, unary: 1). A seed
    that is a (start, step) pair fills that (fully valid) source with an iota instead."""
    pad = pad if pad is not None else 'nan' if dt in ('f32', 'f16') else 0
    memory, vals = [], []
    for t, seed in zip(srcs, seeds):
        n = t['rows'] * t['cols']
        if isinstance(seed, tuple):  # iota element i = dtype(start + i*step), computed in double
            g = [RND[dt](seed[0] + i * seed[1]) for i in range(n)]
            memory.append(m(t['offset'], dt, iota=iota(seed[0], n, seed[1])))
        else:
            g = grid(t, dt, at(t, randvals(n, seed, rng[0], rng[1], dt)), pad)
            memory.append(mem_vals(t, dt, g))
        vals.append(at(t, g))
    memory.append(m(dst['offset'], dt, fill={'value': -7, 'count': dst['rows'] * dst['cols']}))
    want = grid(dst, dt, lambda r, c: fn(*[f(r, c) for f in vals]), 'keep')
    if not keep_outside:
        vr, vc = dst['valid']
        want = want[:(vr - 1) * dst['cols'] + vc]
    operands = {'dst': dst}
    if len(srcs) == 2:
        operands.update(src0=srcs[0], src1=srcs[1])
    else:
        operands['src'] = srcs[0]
    if scalar is not None:
        operands['scalar'] = scalar
    tcase(name, note, memory, titem(op, dt, **operands), expect=[mem_vals(dst, dt, want)], ctrl=ctrl)

def fmax_rule(a, b):
    return a if a > b else b
def fmin_rule(a, b):
    return a if a < b else b

T32 = lambda off, r, c, valid=None: tile(off, r, c, valid)
ew('tile-tadd-f32-64x64',
   'TADD f32 64x64 (one issue, repeat 64, block strides 1, repeat strides 8); a = f32(0.1 + 0.37i), '
   'b = f32(-3.3 + 0.0113i), expected RN32(a + b); hand check: element 0 = RN32(0x3dcccccd + 0xc0533333) = '
   'RN32(0.100000001490116 - 3.29999995231628) = -3.19999995082617 -> 0xc04ccccd',
   'TADD', 'f32', lambda a, b: r32(a + b), T32(32768, 64, 64), [T32(0, 64, 64), T32(16384, 64, 64)],
   [(0.1, 0.37), (-3.3, 0.0113)])
w('tile-tadd-f32-128x128', dict(
    note='TADD f32 128x128: 256 repeats > 255, one counter-mode issue of 16384; a = i + 0.25, b = 2i + 0.5 (exact): '
         'dst = 3i + 0.75. Entered in counter mode with count 5; after the tile item MASK is all ones in normal '
         'mode, so a vmuls by -1 of repeat 1 writes all 64 lanes',
    memory=[m(0, 'f32', iota=iota(0.25, 16384, 1)), m(65536, 'f32', iota=iota(0.5, 16384, 2))],
    program=[{'set_mask_count': 5},
             titem('TADD', 'f32', dst=tile(131072, 128, 128), src0=tile(0, 128, 128), src1=tile(65536, 128, 128)),
             {'issue': {'op': 'vmuls', 'dtype': 'f32', 'repeat': 1, 'dst': opnd(0), 'src': opnd(0), 'scalar': -1}}],
    expect={'status': 'ok', 'memory': [m(131072, 'f32', iota=iota(0.75, 16384, 3)),
                                       m(0, 'f32', values=[-(i + 0.25) for i in range(64)] + [64.25])]}), compact=True)
ew('tile-tadd-f16-16x256',
   'TADD f16 16x256 (contiguous, 32 repeats); expected = binary16 RN of a+b', 'TADD', 'f16', lambda a, b: r16(a + b),
   tile(16384, 16, 256), [tile(0, 16, 256), tile(8192, 16, 256)], [(-30.3, 0.0171), (17.7, -0.0093)])
ew('tile-tadd-f32-noncontiguous-valid',
   'TADD f32 with valid 5x70 inside 8x128 tiles (row-repeat: chunk 0 full, tail chunk of 6 under a continuous mask); '
   'padding columns/rows of dst keep their bytes, padding of the sources is NaN and never read',
   'TADD', 'f32', lambda a, b: r32(a + b), T32(8192, 8, 128, (5, 70)), [T32(0, 8, 128, (5, 70)), T32(4096, 8, 128, (5, 70))], [5, 6])
ew('tile-tadd-f32-different-cols',
   'TADD f32 where every operand has its own capacity (dst 8x72, src0 6x128, src1 8x80, valid 6x70): row-repeat '
   'with per-operand repeat strides',
   'TADD', 'f32', lambda a, b: r32(a + b), T32(8192, 8, 72, (6, 70)), [T32(0, 6, 128, (6, 70)), T32(4096, 8, 80, (6, 70))], [7, 8])
ew('tile-tsub-f16-4x128', 'TSUB f16; expected = RN16(a-b)', 'TSUB', 'f16', lambda a, b: r16(a - b),
   tile(4096, 4, 128), [tile(0, 4, 128), tile(2048, 4, 128)], [9, 10])
ew('tile-tmul-f32-8x64', 'TMUL f32; expected = RN32(a*b)', 'TMUL', 'f32', lambda a, b: r32(a * b),
   T32(8192, 8, 64), [T32(0, 8, 64), T32(4096, 8, 64)], [11, 12])
ew('tile-tdiv-f32-8x64', 'TDIV f32 (correctly rounded division); expected = RN32(a/b)', 'TDIV', 'f32',
   lambda a, b: r32(a / b), T32(8192, 8, 64), [T32(0, 8, 64), T32(4096, 8, 64)], [13, 14], rng=(1, 100))
ew('tile-tmax-f16-4x128', 'TMAX f16', 'TMAX', 'f16', fmax_rule, tile(4096, 4, 128), [tile(0, 4, 128), tile(2048, 4, 128)], [15, 16])
ew('tile-tmin-f32-8x64', 'TMIN f32', 'TMIN', 'f32', fmin_rule, T32(8192, 8, 64), [T32(0, 8, 64), T32(4096, 8, 64)], [17, 18])
ew('tile-tmax-i32-4x64', 'TMAX i32 (integer tiles take the same elementwise path)', 'TMAX', 'i32', max,
   tile(4096, 4, 64), [tile(0, 4, 64), tile(2048, 4, 64)], [19, 20], rng=(-1000, 1000))
ew('tile-tadds-f16-8x128', 'TADDS f16, scalar 0.3 converted to half (0x34cd = 0.2998046875) like a value',
   'TADDS', 'f16', lambda a: r16(a + r16(0.3)), tile(4096, 8, 128, (7, 100)), [tile(0, 8, 128, (7, 100))], [21], scalar=0.3)
ew('tile-tmuls-f32-8x64', 'TMULS f32 by 1.1 (RN32(1.1) = 0x3f8ccccd)', 'TMULS', 'f32', lambda a: r32(a * r32(1.1)),
   T32(4096, 8, 64), [T32(0, 8, 64)], [22], scalar=1.1)
ew('tile-tmaxs-f32-8x64', 'TMAXS f32 with scalar 0 (a ReLU by max)', 'TMAXS', 'f32', lambda a: fmax_rule(a, 0.0),
   T32(4096, 8, 64), [T32(0, 8, 64)], [23], scalar=0)
ew('tile-tmins-f16-4x128', 'TMINS f16 with scalar 2.5', 'TMINS', 'f16', lambda a: fmin_rule(a, 2.5),
   tile(2048, 4, 128), [tile(0, 4, 128)], [24], rng=(-5, 5), scalar=2.5)
ew('tile-tabs-f16-8x128', 'TABS f16 (exact)', 'TABS', 'f16', abs, tile(4096, 8, 128), [tile(0, 8, 128)], [25])
ew('tile-texp-f32-8x64',
   'TEXP f32, correctly rounded (Rule: correctly rounded transcendentals): expected from decimal exp at 60 digits, rounded exactly',
   'TEXP', 'f32', lambda a: cr_exp(a, 'f32'), T32(4096, 8, 64), [T32(0, 8, 64)], [26], rng=(-20, 20))
ew('tile-texp-f16-4x128', 'TEXP f16, correctly rounded', 'TEXP', 'f16', lambda a: cr_exp(a, 'f16'),
   tile(2048, 4, 128), [tile(0, 4, 128)], [27], rng=(-8, 8))
ew('tile-tlog-f32-8x64', 'TLOG f32 (vln), correctly rounded', 'TLOG', 'f32', lambda a: cr_log(a, 'f32'),
   T32(4096, 8, 64), [T32(0, 8, 64)], [28], rng=(0.001, 1000))
ew('tile-tsqrt-f32-8x64', 'TSQRT f32: RN32(sqrt) (double sqrt then one rounding is exact: 53 >= 2*24+2)',
   'TSQRT', 'f32', lambda a: r32(math.sqrt(a)), T32(4096, 8, 64), [T32(0, 8, 64)], [29], rng=(0, 1000))
ew('tile-trsqrt-f32-8x64', 'TRSQRT f32: expected = exact RN of 1/sqrt(a) (fractions, Newton on rationals)',
   'TRSQRT', 'f32', lambda a: round_frac(Fraction(Decimal(1) / Decimal(a).sqrt()), 'f32'),
   T32(4096, 8, 64), [T32(0, 8, 64)], [30], rng=(0.01, 1000))
ew('tile-trecip-f16-4x128', 'TRECIP f16: RN16(1/a)', 'TRECIP', 'f16', lambda a: r16(1 / a),
   tile(2048, 4, 128), [tile(0, 4, 128)], [31], rng=(0.5, 50))
ew('tile-trelu-f32-8x64', 'TRELU f32: a > 0 ? a : +0', 'TRELU', 'f32', lambda a: a if a > 0 else 0.0,
   T32(4096, 8, 64), [T32(0, 8, 64)], [32])
ew('tile-tadd-f16-saturate', 'TADD f16 in saturation mode (CTRL[48] = 0): overflow gives 65504', 'TADD', 'f16',
   lambda a, b: min(r16(a + b), 65504.0) if r16(a + b) > 0 else max(r16(a + b), -65504.0),
   tile(1024, 2, 128), [tile(0, 2, 128), tile(512, 2, 128)], [33, 34], rng=(-60000, 60000), ctrl={'overflow': 'saturate'})

# -- row reductions (docs/a2a3-vector-semantics.md section 8; TROWMAX/TROWMIN fold with max/min: the plain max) ---
def rowred(name, note, op, dt, src, dst, tmp, seed, rng=(-1, 1), special=None):
    """special: {row: [values of the valid columns]} overrides random rows (hand-checked rows)."""
    vr, vc = src['valid']
    v = randvals(src['rows'] * src['cols'], seed, rng[0], rng[1], dt)
    for r, row in (special or {}).items():
        for c, x in enumerate(row):
            v[r * src['cols'] + c] = x
    g = grid(src, dt, at(src, v), 'nan')  # padding is NaN: reading it would show
    rows = [[g[r * src['cols'] + c] for c in range(vc)] for r in range(vr)]
    fold = {'TROWSUM': lambda x: trowsum_row(x, dt), 'TROWMAX': max, 'TROWMIN': min}[op]
    res = [fold(x) for x in rows]
    if op == 'TROWSUM':  # the cases must tell the tree order from a sequential sum
        assert any(seq_sum(x, RND[dt]) != y for x, y in zip(rows, res)), name
    step = 1 if dst['layout'] == 'col_major' else dst['cols']
    want = ['keep'] * (dst['rows'] * dst['cols'])
    for r in range(vr):
        want[r * step] = res[r]
    memory = [mem_vals(src, dt, g), m(dst['offset'], dt, fill={'value': -7, 'count': dst['rows'] * dst['cols']}),
              m(tmp['offset'], dt, fill={'value': -7, 'count': tmp['rows'] * tmp['cols']})]
    expect = [mem_vals(dst, dt, want)]
    if vc <= EPR[dt]:  # one vcadd/vcmax straight from src: tmp untouched
        expect.append(m(tmp['offset'], dt, fill={'value': 'keep', 'count': tmp['rows'] * tmp['cols']}))
    tcase(name, note, memory, titem(op, dt, dst=dst, src=src, tmp=tmp), expect=expect)

DN = lambda off, rows, vr=None: tile(off, rows, 1, (vr or rows, 1), 'col_major')
row0 = [2.0 ** 24, 0.0, 1.0, 1.0] + [0.0] * 60
rowred('tile-trowsum-f32-64x64',
       'TROWSUM f32 64x64 into a 64x1 col-major dst: one counter-mode vcadd (count 4096), tmp untouched. Hand check, '
       'row 0 = [2^24, 0, 1, 1, 0...]: the adjacent-pair tree gives (2^24+0) + (1+1) = 2^24+2 (exact), where a '
       'sequential sum would give 2^24 (each +1 rounds back)',
       'TROWSUM', 'f32', tile(0, 64, 64), DN(16384, 64), tile(20480, 8, 64), 41, special={0: row0})
rowred('tile-trowsum-f32-multichunk-tail',
       'TROWSUM f32, valid 13x455 in 16x512 (P = 7 chunks of 64 + a tail of 7): FillTmp pairs, the odd chunk 6 '
       'into tmp_0, the masked tail into tmp_0[0:7], TmpProc len 3 (odd: tmp_2 folds into tmp_0), then the vcadd tree; '
       'dst rows 13..15 keep',
       'TROWSUM', 'f32', tile(0, 16, 512, (13, 455)), DN(32768, 16, 13), tile(40960, 16, 192), 42)
rowred('tile-trowsum-f32-vc37',
       'TROWSUM f32 with vc = 37 <= 64: one normal-mode vcadd under MASK continuous(37), masked lanes as +0 (NaN '
       'padding never counts); dst is a row-major 8x8 tile (results in column 0, repeat stride 8 elements); tmp untouched',
       'TROWSUM', 'f32', tile(0, 8, 64, (8, 37)), tile(4096, 8, 8, (8, 1)), tile(8192, 1, 64), 43)
rowred('tile-trowsum-f16-16x256',
       'TROWSUM f16 16x256 (P = 2, no tail): tmp_0 = s0 + s1 in counter mode, then the 128-lane tree',
       'TROWSUM', 'f16', tile(0, 16, 256), DN(16384, 16), tile(20480, 16, 128), 44, rng=(-2, 2))
f16_row0 = [2048.0, 1.0] + [0.0] * 126 + [1.0, 1.0]
rowred('tile-trowsum-f16-vc130',
       'TROWSUM f16, valid 2x130 (P = 1, tail 2): chunk 0 is copied into tmp, the tail adds into tmp_0[0:2], then the '
       'tree. Hand check, row 0 = [2048, 1, 0 x 126, 1, 1]: tmp_0[0] = 2048 + 1 = 2049 -> 2048 (tie to even), '
       'tmp_0[1] = 1 + 1 = 2, tree: 2048 + 2 = 2050. A sequential sum gives 2048, the exact sum 2051 rounds to 2052',
       'TROWSUM', 'f16', tile(0, 2, 256, (2, 130)), DN(4096, 16, 2), tile(8192, 2, 128), 45, rng=(-2, 2),
       special={0: f16_row0})
rowred('tile-trowsum-f16-vc300',
       'TROWSUM f16, valid 4x300 in 4x384 (P = 2, tail 44)',
       'TROWSUM', 'f16', tile(0, 4, 384, (4, 300)), DN(4096, 16, 4), tile(8192, 4, 128), 46, rng=(-2, 2))
rowred('tile-trowmax-f32-vc333',
       'TROWMAX f32, valid 8x333 in 8x512 (P = 5, tail 13): vmax folds, vcmax only_value; the row maximum',
       'TROWMAX', 'f32', tile(0, 8, 512, (8, 333)), DN(16384, 8), tile(20480, 8, 128), 47, rng=(-100, 100))
rowred('tile-trowmin-f16-vc200',
       'TROWMIN f16, valid 8x200 in 8x256 (P = 1, tail 72): the row minimum',
       'TROWMIN', 'f16', tile(0, 8, 256, (8, 200)), DN(4096, 16, 8), tile(8192, 8, 128), 48, rng=(-100, 100))
rowred('tile-trowmax-f16-vc100',
       'TROWMAX f16 with vc = 100 <= 128: one vcmax under MASK continuous(100); NaN padding excluded',
       'TROWMAX', 'f16', tile(0, 4, 128, (4, 100)), DN(2048, 16, 4), tile(4096, 1, 128), 49, rng=(-100, 100))

# -- column reductions (tilefw's stream: row 0 copied, then rows accumulated in order) ----------
def colred(name, note, op, dt, src, dst, seed, tmp=None, rng=(-1, 1), special=None):
    vr, vc = src['valid']
    v = randvals(src['rows'] * src['cols'], seed, rng[0], rng[1], dt)
    for (r, c), x in (special or {}).items():
        v[r * src['cols'] + c] = x
    g = grid(src, dt, at(src, v), 'nan')
    rnd = RND[dt]
    fold = {'TCOLSUM': lambda a, b: rnd(a + b), 'TCOLMAX': fmax_rule, 'TCOLMIN': fmin_rule}[op]
    res = []
    for c in range(vc):
        acc = g[c]
        for r in range(1, vr):
            acc = fold(acc, g[r * src['cols'] + c])
        res.append(acc)
    operands = dict(dst=dst, src=src)
    if tmp:
        operands['tmp'] = tmp
    memory = [mem_vals(src, dt, g), m(dst['offset'], dt, fill={'value': -7, 'count': dst['rows'] * dst['cols']})]
    tcase(name, note, memory, titem(op, dt, **operands), expect=[mem_vals(dst, dt, res)])

colred('tile-tcolsum-f32-17x70',
       'TCOLSUM f32, valid 17x70 in 20x72, rows summed in order ((r0 + r1) + r2) + ... (tilefw stream: copy of row 0, '
       'then vadd accumulator issues with repeat stride 0); hand check, column 0 = [2^24, 1, 1, 0...]: '
       '(2^24 + 1) -> 2^24, + 1 -> 2^24 (ties to even), where a pairwise tree would give 2^24 + 2',
       'TCOLSUM', 'f32', tile(0, 20, 72, (17, 70)), tile(8192, 1, 72, (1, 70)), 51, tmp=tile(12288, 1, 8),
       special={(0, 0): 2.0 ** 24, (1, 0): 1.0, (2, 0): 1.0, **{(r, 0): 0.0 for r in range(3, 17)}})
colred('tile-tcolsum-f16-10x128', 'TCOLSUM f16, 10 rows summed in order', 'TCOLSUM', 'f16',
       tile(0, 10, 128), tile(4096, 1, 128), 52, tmp=tile(8192, 1, 16), rng=(-4, 4))
colred('tile-tcolmax-f32-9x50', 'TCOLMAX f32, valid 9x50 in 9x64', 'TCOLMAX', 'f32', tile(0, 9, 64, (9, 50)),
       tile(4096, 1, 64, (1, 50)), 53, rng=(-100, 100))
colred('tile-tcolmin-f16-5x200', 'TCOLMIN f16, valid 5x200 in 5x256 (one full 128-lane chunk + a masked tail)',
       'TCOLMIN', 'f16', tile(0, 5, 256, (5, 200)), tile(4096, 1, 256, (1, 200)), 54, rng=(-100, 100))

# -- broadcasts, TEXPANDS, TCVT ----------------------------------------------------------------------
src = randvals(4 * 64, 61, -10, 10, 'f32')
tcase('tile-tcolexpand-f32', 'TCOLEXPAND f32: dst[i, j] = src[0, j] (copies of row 0, then doubling copies)',
      [mem_vals(tile(0, 4, 64), 'f32', src)],
      titem('TCOLEXPAND', 'f32', dst=tile(4096, 6, 64), src=tile(0, 4, 64)),
      expect=[mem_vals(tile(4096, 6, 64), 'f32', [src[j] for i in range(6) for j in range(64)])])
vec = randvals(8, 62, -10, 10, 'f32')
tcase('tile-trowexpand-f32', 'TROWEXPAND f32 from an 8x1 col-major vector: dst[i, j] = v[i] (vbrcb into dst, then '
      'doubling copies)', [mem_vals(DN(0, 8), 'f32', vec)],
      titem('TROWEXPAND', 'f32', dst=tile(4096, 8, 64), src=DN(0, 8)),
      expect=[mem_vals(tile(4096, 8, 64), 'f32', [vec[i] for i in range(8) for j in range(64)])])
for op, dt, fn, rng in [('TROWEXPANDADD', 'f32', lambda a, b: r32(a + b), (-10, 10)),
                        ('TROWEXPANDSUB', 'f32', lambda a, b: r32(a - b), (-10, 10)),
                        ('TROWEXPANDMUL', 'f16', lambda a, b: r16(a * b), (-10, 10)),
                        ('TROWEXPANDDIV', 'f16', lambda a, b: r16(a / b), (1, 10))]:
    cols = 64 if dt == 'f32' else 128
    a = randvals(8 * cols, 63, -10, 10, dt)
    v = randvals(8, 64, rng[0], rng[1], dt)
    vt = DN(8192, 8 if dt == 'f32' else 16, 8)
    tcase('tile-%s-%s' % (op.lower(), dt), '%s %s: dst[i, j] = src0[i, j] op v[i], RN per element' % (op, dt),
          [mem_vals(tile(0, 8, cols), dt, a), mem_vals(vt, dt, v + [0.0] * (vt['rows'] - 8))],
          titem(op, dt, dst=tile(16384, 8, cols), src0=tile(0, 8, cols), src1=vt),
          expect=[mem_vals(tile(16384, 8, cols), dt, [fn(a[i * cols + j], v[i]) for i in range(8) for j in range(cols)])])
tcase('tile-texpands-f32', 'TEXPANDS f32 2.5 over valid 6x40 of an 8x64 tile (vector_dup under masks): padding keeps',
      [m(0, 'f32', fill={'value': -7, 'count': 512})], titem('TEXPANDS', 'f32', dst=tile(0, 8, 64, (6, 40)), scalar=2.5),
      expect=[m(0, 'f32', values=[2.5 if r < 6 and c < 40 else 'keep' for r in range(8) for c in range(64)])])
x = randvals(4 * 128, 65, -70000, 70000, 'f32')
tcase('tile-tcvt-f32-f16-rint', 'TCVT f32 -> f16, round "rint" (nearest even, Inf/NaN mode: beyond 65520 is inf)',
      [mem_vals(tile(0, 4, 128), 'f32', x)],
      titem('TCVT', 'f16', src_dtype='f32', round='rint', dst=tile(4096, 4, 128), src=tile(0, 4, 128)),
      expect=[mem_vals(tile(4096, 4, 128), 'f16', [r16(v) for v in x])])

# -- negative tile cases: TASSIGN, Tile constraints, op checks ----------------------------------
def tneg(name, note, item, status):
    tcase(name, note, [m(0, 'f32', fill={'value': 1, 'count': 1024}), m(8192, 'f32', fill={'value': 9, 'count': 64})],
          item, status=status, expect=[m(8192, 'f32', fill={'value': 'keep', 'count': 64})])

tneg('tile-tassign-misaligned', 'a tile offset not 32 B aligned is a bad TASSIGN: misaligned; nothing written',
     titem('TADD', 'f32', dst=tile(8192 + 16, 1, 64), src0=tile(0, 1, 64), src1=tile(256, 1, 64)), 'misaligned')
tneg('tile-tassign-out-of-bounds', 'a tile running past the end of UB is a bad TASSIGN: out_of_bounds',
     titem('TADD', 'f32', dst=tile(8192, 1, 64), src0=tile(196608 - 128, 1, 64), src1=tile(256, 1, 64)), 'out_of_bounds')
tneg('tile-constraint-row-bytes', 'docs/a2a3-tile-model.md section 4 rule 5: a row-major f32 row of 12 elements (48 B) is not a '
     'multiple of 32 B: invalid_descriptor',
     titem('TADD', 'f32', dst=tile(8192, 1, 12), src0=tile(0, 1, 12), src1=tile(256, 1, 12)), 'invalid_descriptor')
tneg('tile-constraint-valid-exceeds', 'docs/a2a3-tile-model.md section 4 rule 1: valid rows 2 > rows 1: invalid_descriptor',
     titem('TADD', 'f32', dst=tile(8192, 1, 64, (2, 64)), src0=tile(0, 1, 64, (2, 64)), src1=tile(256, 1, 64, (2, 64))),
     'invalid_descriptor')
tneg('tile-constraint-empty-valid', 'a valid region with 0 columns: invalid_descriptor',
     titem('TADD', 'f32', dst=tile(8192, 1, 64, (1, 0)), src0=tile(0, 1, 64, (1, 0)), src1=tile(256, 1, 64, (1, 0))),
     'invalid_descriptor')
tneg('tile-valid-shape-mismatch', 'TADD operands with different valid regions (1x64 and 1x60): invalid_descriptor',
     titem('TADD', 'f32', dst=tile(8192, 1, 64), src0=tile(0, 1, 64), src1=tile(256, 1, 64, (1, 60))), 'invalid_descriptor')
tneg('tile-trowsum-valid-rows-mismatch', 'TROWSUM needs src.valid rows == dst.valid rows: invalid_descriptor',
     titem('TROWSUM', 'f32', dst=DN(8192, 8, 7), src=tile(0, 8, 64), tmp=tile(4096, 8, 64)), 'invalid_descriptor')
tneg('tile-trowsum-tmp-too-small', 'TROWSUM with vc = 256 (P = 4) needs tmp with 2 chunks (128 columns) per row: '
     'a 4x64 tmp is invalid_descriptor',
     titem('TROWSUM', 'f32', dst=DN(8192, 8, 4), src=tile(0, 4, 256), tmp=tile(4096, 4, 64)), 'invalid_descriptor')
tneg('tile-layout-unsupported', 'TADD needs row-major tiles: a col-major operand is invalid_descriptor',
     titem('TADD', 'f32', dst=tile(8192, 8, 8, (8, 8), 'col_major'), src0=tile(0, 8, 8, (8, 8), 'col_major'),
           src1=tile(256, 8, 8, (8, 8), 'col_major')), 'invalid_descriptor')
tneg('tile-dtype-unsupported', 'TEXP is half/float only: an i32 tile is invalid_descriptor',
     titem('TEXP', 'i32', dst=tile(8192, 1, 64), src=tile(0, 1, 64)), 'invalid_descriptor')
tneg('tile-trowsum-i16-unsupported', 'TROWSUM is half/float only (Rule: TROWSUM family types)',
     titem('TROWSUM', 'i16', dst=tile(8192, 1, 16, (1, 1)), src=tile(0, 1, 128), tmp=tile(4096, 1, 128)),
     'invalid_descriptor')
tneg('tile-partial-overlap', 'TADD whose dst starts 32 B into src0 (repeat 0 writes blocks repeat 1 reads): the '
     'planned issue fails validation before anything is emitted: illegal_overlap',
     titem('TADD', 'f32', dst=tile(8192, 2, 64), src0=tile(8192 - 224, 2, 64), src1=tile(0, 2, 64)), 'illegal_overlap')
tcase('tile-validated-before-first-issue',
      'TROWSUM f32 vc = 200 whose dst lies on tmp block 0: the first issues (FillTmp into tmp) would be legal, the '
      'final vcadd tmp -> dst is not (its 4 B dst is neither identical to nor disjoint from src block 0). The whole '
      'sequence is validated first, so nothing runs: illegal_overlap and tmp keeps its bytes',
      [m(0, 'f32', iota=iota(1, 256)), m(4096, 'f32', fill={'value': -7, 'count': 64})],
      titem('TROWSUM', 'f32', dst=DN(4096, 8, 1), src=tile(0, 1, 256, (1, 200)), tmp=tile(4096, 1, 64)),
      status='illegal_overlap', expect=[m(4096, 'f32', fill={'value': 'keep', 'count': 64})])
print('wrote cases to', OUT)
