#!/usr/bin/env python3
"""Writes the project's a2a3 conformance cases (test/conformance/a2a3/*.json).

Expected values come from vector-semantics.md section 5 (the worked examples) and from the
rules it states; where the section elides data, the case completes it and says so in `note`.
Half values are rounded with struct's 'e' format (IEEE binary16, nearest even)."""
import json, math, os, struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'a2a3')
ALL = '0xffffffffffffffff'

def h(x):  # nearest-even half of a double, as a JSON number (or "inf")
    try:
        return struct.unpack('<e', struct.pack('<e', x))[0]
    except OverflowError:
        return 'inf' if x > 0 else '-inf'

def w(name, case):
    case = dict(name=name, profile='a2a3', **case)
    with open(os.path.join(OUT, name + '.json'), 'w') as f:
        json.dump(case, f, indent=1)
        f.write('\n')

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
    note='tilefw decision 3: repeat 0 in normal mode is invalid_descriptor',
    program=[binop('vadd', 'f16', 0, opnd(512), opnd(0), opnd(0))], expect={'status': 'invalid_descriptor'}))
w('ex24-count0-invalid', dict(
    note='tilefw decision 3: count 0 in counter mode is invalid_descriptor',
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
        note='CTRL[48]: half overflow and NaN (vector-semantics 3.2)', ctrl={'overflow': mode},
        memory=[m(0, 'f16', values=[60000, 'inf', -60000]), m(256, 'f16', values=[60000, '-inf', -60000])],
        program=[{'set_mask': {'hi': 0, 'lo': 7}}, binop('vadd', 'f16', 1, opnd(512), opnd(0), opnd(256))],
        expect={'status': 'ok', 'memory': [m(512, 'f16', values=[val, nan, val if val == 'inf' else -65504] if False else
                                                ([val, nan, '-inf'] if mode == 'infnan' else [65504, 0, -65504]))]}))
w('rule-overflow-saturate-tree', dict(
    note='vector-semantics 3.2: [60000, 60000, -30000, 100] tree sum in saturation mode is 35584',
    ctrl={'overflow': 'saturate'}, memory=[m(0, 'f16', values=[60000, 60000, -30000, 100])],
    program=[{'set_mask': {'hi': 0, 'lo': 15}}, red('vcadd', 'f16', 1, 512, 1, opnd(0))],
    expect={'status': 'ok', 'memory': [m(512, 'f16', values=[35584])]}))
w('rule-overflow-f32-ignores-saturate', dict(
    note='float supports only Inf/NaN', ctrl={'overflow': 'saturate'},
    memory=[m(0, 'f32', values=[3e38]), m(256, 'f32', values=[3e38])],
    program=[{'set_mask': {'hi': 0, 'lo': 1}}, binop('vadd', 'f32', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'f32', values=['inf'])]}))
w('rule-vdiv-by-zero', dict(
    note='tilefw decision 8: vdiv by zero gives the IEEE result, status ok',
    memory=[m(0, 'f32', values=[1, -1, 0, 6]), m(256, 'f32', values=[0, 0, 0, 3])],
    program=[{'set_mask': {'hi': 0, 'lo': 15}}, binop('vdiv', 'f32', 1, opnd(512), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'f32', values=['inf', '-inf', 'nan', 2])]}))
w('rule-int-wrap', dict(
    note='tilefw decision 9: two\'s-complement wrap',
    memory=[m(0, 'i16', values=[32767, -32768, 300]), m(256, 'i16', values=[1, -1, 300])],
    program=[{'set_mask': {'hi': 0, 'lo': 7}}, binop('vadd', 'i16', 1, opnd(512), opnd(0), opnd(256)),
             binop('vmul', 'i16', 1, opnd(1024), opnd(0), opnd(256))],
    expect={'status': 'ok', 'memory': [m(512, 'i16', values=[-32768, 32767, 600]), m(1024, 'i16', values=[32767, -32768, 24464])]}))
w('rule-vcgadd-masked-block-not-written', dict(
    note='tilefw decision 5: an all-masked vcgadd block is not written; masked lanes count as 0',
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
print('wrote cases to', OUT)
