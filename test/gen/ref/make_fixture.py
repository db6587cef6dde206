#!/usr/bin/env python3
"""Fabricates what `tilefw gen` (DIR: manifest.json, weights, inputs) and `tilefw run` (DIR2:
<output>.dat) would write for one decoder layer of a config.json, so gen_ref_check can be tested
before the generator exists. Python 3 standard library only.

The outputs are computed by a second, deliberately plain path (per-token loops in float64,
following the transformers modeling code), independent of gen_ref_check's C++:
  --mode exact  float64 throughout (outputs rounded only to their storage dtype);
  --mode lowp   emulates a generator at the edge of the contract: every matmul operand and
                projection output rounded to the model dtype, cos/sin tables in the model
                dtype, f32 rounding after every other op, theta computed in f32; MoE: router
                logits, softmax and top-k in f32 (routing from these f32 values), routing
                weights cast to the model dtype as transformers does.
  --bug NAME    a semantic mistake (rope_pos, no_causal, gqa_map, attn_factor, eps; MoE:
                wrong_expert = the top-1 expert replaced by the least likely one, norm_flip =
                top-k weights renormalised when the config says not and vice versa,
                no_capacity = report.capacity written but nothing dropped) that the checker
                must reject.
MoE layers (mixtral, qwen3_moe): tokens are the flattened [B, S] rows; --capacity C writes
report.capacity and drops, per expert, the tokens routed to it beyond the first C (they add 0);
--tie makes router rows 1 and 3 identical (equal probabilities for every token) and breaks ties
toward the higher expert index (the checker's rule is the lower one: it must accept both).
deepseek_v3 (MLA attention, sigmoid group-limited MoE with shared experts, its own bugs and
--tie copying router group 0 onto group 1) lives in fixture_deepseek.py.
"""
import argparse, json, math, os, random, struct, sys

ROUTED = {}  # expert -> tokens that chose it (filled by the MoE forward)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


DS_BUGS = ['rotate_half', 'no_mscale', 'no_kv_norm', 'k_rope_order', 'softmax_router', 'no_group_limit',
           'bias_in_weights', 'no_scaling', 'no_shared']  # fixture_deepseek.py


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def enc(dtype, x):
    if dtype == 'f32':
        return struct.pack('<f', x)
    if dtype == 'f16':
        return struct.pack('<e', x)
    b = struct.unpack('<I', struct.pack('<f', x))[0]  # bf16: round to nearest even from f32
    b = (b + 0x7fff + ((b >> 16) & 1)) >> 16
    return struct.pack('<H', b & 0xffff)


def dec(dtype, raw):
    if dtype == 'f32':
        return struct.unpack('<f', raw)[0]
    if dtype == 'f16':
        return struct.unpack('<e', raw)[0]
    return struct.unpack('<f', struct.pack('<I', struct.unpack('<H', raw)[0] << 16))[0]


def to_dtype(dtype, x):
    return dec(dtype, enc(dtype, x))


def round_list(dtype, xs):
    """[to_dtype(dtype, x) for x in xs], in bulk (the self-tests generate ~10^5 weights)."""
    n = len(xs)
    if dtype == 'f32':
        return list(struct.unpack('<%df' % n, struct.pack('<%df' % n, *xs)))
    if dtype == 'f16':
        return list(struct.unpack('<%de' % n, struct.pack('<%de' % n, *xs)))
    return list(struct.unpack('<%df' % n, struct.pack('<%dI' % n, *[h << 16 for h in bf16_bits(xs)])))


def bf16_bits(xs):
    bits = struct.unpack('<%dI' % len(xs), struct.pack('<%df' % len(xs), *xs))
    return [((b + 0x7fff + ((b >> 16) & 1)) >> 16) & 0xffff for b in bits]


def enc_list(dtype, xs):
    """b''.join(enc(dtype, x) for x in xs), in bulk."""
    n = len(xs)
    if dtype in ('f32', 'f16'):
        return struct.pack('<%d%s' % (n, 'f' if dtype == 'f32' else 'e'), *xs)
    return struct.pack('<%dH' % n, *bf16_bits(xs))


class Num:
    """Rounding hooks: R = model dtype (matmul operands, storage), F = f32 (other op outputs)."""

    def __init__(self, mode, dtype):
        self.low = mode == 'lowp'
        self.dtype = dtype

    def R(self, v):
        return [to_dtype(self.dtype, x) for x in v] if self.low else list(v)

    def F(self, v):
        return [f32(x) for x in v] if self.low else list(v)


def matvec(W, x, b=None):
    out = [sum(wi * xi for wi, xi in zip(row, x)) for row in W]
    return [o + bb for o, bb in zip(out, b)] if b else out


def rmsnorm(x, w, eps):
    r = 1.0 / math.sqrt(sum(t * t for t in x) / len(x) + eps)
    return [t * r * wi for t, wi in zip(x, w)]


def act(name, x):
    if name == 'silu':
        return x / (1.0 + math.exp(-x))
    if name == 'gelu':
        return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))
    c = math.sqrt(2.0 / math.pi)
    return 0.5 * x * (1.0 + math.tanh(c * (x + 0.044715 * x ** 3)))


def rope_params(cfg, dim):
    base = cfg.get('rope_theta', 10000.0)
    inv = [base ** (-(2 * i) / dim) for i in range(dim // 2)]
    rs = cfg.get('rope_scaling') or {}
    kind = rs.get('rope_type', rs.get('type', 'default'))
    af = 1.0
    if kind == 'linear':
        inv = [f / rs['factor'] for f in inv]
    elif kind == 'llama3':
        fac, lo, hi, old = rs['factor'], rs['low_freq_factor'], rs['high_freq_factor'], rs['original_max_position_embeddings']
        out = []
        for f in inv:
            wl = 2 * math.pi / f
            if wl < old / hi:
                out.append(f)
            elif wl > old / lo:
                out.append(f / fac)
            else:
                sm = (old / wl - lo) / (hi - lo)
                out.append((1 - sm) * f / fac + sm * f)
        inv = out
    elif kind == 'yarn':
        fac = rs['factor']
        orig = rs.get('original_max_position_embeddings', cfg['max_position_embeddings'])
        ms = lambda m: 0.1 * m * math.log(fac) + 1.0 if fac > 1 else 1.0
        af = rs.get('attention_factor') or (ms(rs['mscale']) / ms(rs['mscale_all_dim'])
                                            if rs.get('mscale') and rs.get('mscale_all_dim') else ms(1.0))
        cd = lambda rot: dim * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(base))
        lo = max(math.floor(cd(rs.get('beta_fast') or 32)), 0)
        hi = min(math.ceil(cd(rs.get('beta_slow') or 1)), dim - 1)
        hi = hi + 0.001 if lo == hi else hi
        ramp = [min(max((i - lo) / (hi - lo), 0.0), 1.0) for i in range(dim // 2)]
        inv = [f / fac * r + f * (1 - r) for f, r in zip(inv, ramp)]
    elif kind != 'default':
        raise SystemExit('unsupported rope type ' + kind)
    return inv, af, base


class Layer:
    def __init__(self, cfg, dtype, rng):
        self.cfg, self.dtype = cfg, dtype
        H = cfg['hidden_size']
        self.nh = cfg['num_attention_heads']
        self.nkv = cfg.get('num_key_value_heads', self.nh)
        self.D = cfg.get('head_dim') or H // self.nh
        self.I = cfg['intermediate_size']
        t = cfg['model_type']
        ab = cfg.get('attention_bias', False)
        self.qkv_bias = t == 'qwen2' or (t in ('llama', 'qwen3', 'qwen3_moe') and ab)
        self.o_bias = t in ('llama', 'qwen3', 'qwen3_moe') and ab
        self.mlp_bias = t == 'llama' and cfg.get('mlp_bias', False)
        self.qk_norm = t in ('qwen3', 'qwen3_moe')
        # MoE: (num experts, top-k, expert intermediate, renormalise, router name, expert names)
        self.moe = None
        if t == 'mixtral':
            self.moe = (cfg.get('num_local_experts', 8), cfg.get('num_experts_per_tok', 2), self.I, True,
                        'block_sparse_moe.gate.weight', 'block_sparse_moe.experts.%d.', ('w1', 'w3', 'w2'))
        elif t == 'qwen3_moe':
            li, ne = self.layer_index, cfg.get('num_experts', 128)
            if li not in (cfg.get('mlp_only_layers') or []) and ne > 0 and (li + 1) % cfg.get('decoder_sparse_step', 1) == 0:
                self.moe = (ne, cfg.get('num_experts_per_tok', 8), cfg.get('moe_intermediate_size', 768),
                            bool(cfg.get('norm_topk_prob', False)), 'mlp.gate.weight', 'mlp.experts.%d.',
                            ('gate_proj', 'up_proj', 'down_proj'))
        self.weights = []  # (name, shape, flat values in model dtype)
        pre = 'model.layers.%d.' % self.layer_index
        lin = lambda o, i: [round_list(dtype, [rng.uniform(-1, 1) * math.sqrt(3.0 / i) for _ in range(i)]) for _ in range(o)]
        vec = lambda n, c, s: [to_dtype(dtype, c + rng.uniform(-s, s)) for _ in range(n)]
        QD, KD = self.nh * self.D, self.nkv * self.D
        W = {}
        W['input_layernorm.weight'] = vec(H, 1.0, 0.2)
        W['self_attn.q_proj.weight'] = lin(QD, H)
        W['self_attn.k_proj.weight'] = lin(KD, H)
        W['self_attn.v_proj.weight'] = lin(KD, H)
        W['self_attn.o_proj.weight'] = lin(H, QD)
        if self.qkv_bias:
            for n, k in (('q', QD), ('k', KD), ('v', KD)):
                W['self_attn.%s_proj.bias' % n] = vec(k, 0.0, 0.3)
        if self.o_bias:
            W['self_attn.o_proj.bias'] = vec(H, 0.0, 0.1)
        if self.qk_norm:
            W['self_attn.q_norm.weight'] = vec(self.D, 1.0, 0.2)
            W['self_attn.k_norm.weight'] = vec(self.D, 1.0, 0.2)
        W['post_attention_layernorm.weight'] = vec(H, 1.0, 0.2)
        if self.moe:
            ne, _, mi, _, router, ep, names = self.moe
            W[router] = lin(ne, H)
            if Layer.tie:
                W[router][3] = list(W[router][1])
            for e in range(ne):
                W[ep % e + names[0] + '.weight'] = lin(mi, H)
                W[ep % e + names[1] + '.weight'] = lin(mi, H)
                W[ep % e + names[2] + '.weight'] = lin(H, mi)
            self.W = {pre + k: v for k, v in W.items()}
            self.w = lambda k: W.get(k)
            return
        W['mlp.gate_proj.weight'] = lin(self.I, H)
        W['mlp.up_proj.weight'] = lin(self.I, H)
        W['mlp.down_proj.weight'] = lin(H, self.I)
        if self.mlp_bias:
            W['mlp.gate_proj.bias'] = vec(self.I, 0.0, 0.1)
            W['mlp.up_proj.bias'] = vec(self.I, 0.0, 0.1)
            W['mlp.down_proj.bias'] = vec(H, 0.0, 0.1)
        self.W = {pre + k: v for k, v in W.items()}
        self.w = lambda k: W.get(k)

    layer_index = 0
    tie = False


def forward(L, num, xs, past_k, past_v, K, bug):
    """One batch element: xs [S, H]; past_k/v [nkv, K, D]. Returns out [S, H], k/v [nkv, S, D]."""
    cfg, D, nh, nkv = L.cfg, L.D, L.nh, L.nkv
    eps = cfg.get('rms_norm_eps', 1e-6) * (1e4 if bug == 'eps' else 1.0)
    w = L.w
    S = len(xs)
    inv, af, _ = rope_params(cfg, D)
    if bug == 'attn_factor':
        af = 1.0
    half = D // 2

    def table(p):
        if num.low:
            th = [f32(f32(float(p)) * f32(f)) for f in inv]
            return num.R([f32(f32(math.cos(t)) * af) for t in th]), num.R([f32(f32(math.sin(t)) * af) for t in th])
        return [math.cos(p * f) * af for f in inv], [math.sin(p * f) * af for f in inv]

    def rope(v, p):
        c, s = table(p)
        return num.F([v[i] * c[i % half] + (-v[i + half] if i < half else v[i - half]) * s[i % half] for i in range(D)])

    def heads(v, n):
        return [v[h * D:(h + 1) * D] for h in range(n)]

    q_all, k_new, v_new = [], [[] for _ in range(nkv)], [[] for _ in range(nkv)]
    for s in range(S):
        a = num.R(num.F(rmsnorm(xs[s], w('input_layernorm.weight'), eps)))
        q = num.R(num.F(matvec(w('self_attn.q_proj.weight'), a, w('self_attn.q_proj.bias'))))
        k = num.R(num.F(matvec(w('self_attn.k_proj.weight'), a, w('self_attn.k_proj.bias'))))
        v = num.R(num.F(matvec(w('self_attn.v_proj.weight'), a, w('self_attn.v_proj.bias'))))
        qh, kh, vh = heads(q, nh), heads(k, nkv), heads(v, nkv)
        if L.qk_norm:
            qh = [num.F(rmsnorm(t, w('self_attn.q_norm.weight'), eps)) for t in qh]
            kh = [num.F(rmsnorm(t, w('self_attn.k_norm.weight'), eps)) for t in kh]
        pos = K + s + (1 if bug == 'rope_pos' else 0)
        q_all.append([num.R(rope(t, pos)) for t in qh])
        for g in range(nkv):
            k_new[g].append(rope(kh[g], pos))
            v_new[g].append(vh[g])
    # the cache holds the model dtype; the exact mode keeps float64 for its own attention
    keys = [past_k[g] + [num.R(t) for t in k_new[g]] for g in range(nkv)]
    vals = [past_v[g] + [num.R(t) for t in v_new[g]] for g in range(nkv)]
    out = []
    for s in range(S):
        o = []
        for h in range(nh):
            g = h % nkv if bug == 'gqa_map' else h // (nh // nkv)
            last = K + S - 1 if bug == 'no_causal' else K + s
            z = num.F([sum(a * b for a, b in zip(q_all[s][h], keys[g][j])) / math.sqrt(D) for j in range(last + 1)])
            m = max(z)
            e = num.F([math.exp(t - m) for t in z])
            tot = sum(e)
            p = num.R(num.F([t / tot for t in e]))
            o += num.F([sum(p[j] * vals[g][j][i] for j in range(len(p))) for i in range(D)])
        o = num.R(o)
        attn = num.F(matvec(w('self_attn.o_proj.weight'), o, w('self_attn.o_proj.bias')))
        out.append(num.F([a + b for a, b in zip(xs[s], attn)]))
    return out, k_new, v_new


def mlp(L, num, w, x, names, bias):
    """One token's MLP branch: down(act(gate x) * up x)."""
    g = num.R(num.F(matvec(w(names[0]), x, w(bias[0]) if bias else None)))
    up = num.R(num.F(matvec(w(names[1]), x, w(bias[1]) if bias else None)))
    mm = num.R(num.F([act(L.cfg.get('hidden_act', 'silu'), a) * b for a, b in zip(g, up)]))
    return num.F(matvec(w(names[2]), mm, w(bias[2]) if bias else None))


def mlp_half(L, num, h1s, bug, capacity):
    """All tokens (flattened [B, S] order): h1 + MLP(post_attention_layernorm(h1))."""
    cfg, w = L.cfg, L.w
    eps = cfg.get('rms_norm_eps', 1e-6) * (1e4 if bug == 'eps' else 1.0)
    outs = []
    if not L.moe:
        names = ['mlp.%s_proj.weight' % n for n in ('gate', 'up', 'down')]
        bias = ['mlp.%s_proj.bias' % n for n in ('gate', 'up', 'down')]
        for h1 in h1s:
            a2 = num.R(num.F(rmsnorm(h1, w('post_attention_layernorm.weight'), eps)))
            outs.append(num.F([a + b for a, b in zip(h1, mlp(L, num, w, a2, names, bias))]))
        return outs
    ne, k, _, renorm, router, ep, pn = L.moe
    if bug == 'norm_flip':
        renorm = not renorm
    count = [0] * ne
    for h1 in h1s:
        a2 = num.R(num.F(rmsnorm(h1, w('post_attention_layernorm.weight'), eps)))
        z = num.F(matvec(w(router), a2))
        m = max(z)
        ex = num.F([math.exp(t - m) for t in z])
        tot = sum(ex)
        p = num.F([t / tot for t in ex])
        # top-k; ties: lower index first (the checker's rule), or higher with --tie
        order = sorted(range(ne), key=lambda e: (-p[e], -e if L.tie else e))
        chosen = order[:k]
        if bug == 'wrong_expert':
            chosen = [order[-1]] + order[1:k]
        for e in chosen:  # the tokens each expert received (the expert_tokens output)
            ROUTED[e] = ROUTED.get(e, 0) + 1
        wts = [p[e] for e in chosen]
        if renorm:
            s_ = sum(wts)
            wts = num.F([t / s_ for t in wts])
        wts = num.R(wts)
        acc = [0.0] * len(h1)
        for e, we in zip(chosen, wts):
            slot = count[e]
            count[e] += 1
            if capacity is not None and slot >= capacity and bug != 'no_capacity':
                continue  # dropped: contributes nothing for this expert
            y = mlp(L, num, w, a2, [ep % e + n + '.weight' for n in pn], None)
            acc = num.F([a + we * b for a, b in zip(acc, y)])
        outs.append(num.F([a + b for a, b in zip(h1, acc)]))
    return outs


def flat(x):
    if isinstance(x, list):
        r = []
        for t in x:
            r += flat(t)
        return r
    return [x]


# The layout `tilefw gen` writes (seen in its output, not its source): weights in one
# weights.bin (tag 1, device_addr = 0x10000000000 + file_offset), each input in its own
# <name>.bin at offset 0 and the outputs (no file) in the tag-2 region, 128-byte aligned.
WEIGHT_BASE, NEURON_BASE, ALIGN = 0x10000000000, 0x20000000000, 128


def write_weights(path, entries, dtype_of):
    """entries: (name, shape, values), all in one file; returns the weights[] descriptors."""
    descs, off = [], 0
    with open(path, 'wb') as f:
        for name, shape, vals in entries:
            dt = dtype_of(name)
            raw = enc_list(dt, vals)
            pad = -len(raw) % ALIGN
            f.write(raw + bytes(pad))
            descs.append({'bytes': len(raw), 'device_addr': hex(WEIGHT_BASE + off), 'dtype': dt,
                          'file': os.path.basename(path), 'file_offset': off, 'name': name, 'shape': shape, 'tag': 1})
            off += len(raw) + pad
    return descs


class Neuron:
    """Device addresses of the tag-2 region (inputs, then outputs)."""

    def __init__(self):
        self.next = NEURON_BASE

    def place(self, nbytes):
        addr = self.next
        self.next += nbytes + (-nbytes % ALIGN)
        return hex(addr)


def write_inputs(gen_dir, entries, region):
    """entries: (name, shape, values, dtype), one <name>.bin each; returns the inputs[] descriptors."""
    descs = []
    for name, shape, vals, dt in entries:
        raw = enc_list(dt, vals)
        open(os.path.join(gen_dir, name + '.bin'), 'wb').write(raw)
        descs.append({'bytes': len(raw), 'device_addr': region.place(len(raw)), 'dtype': dt, 'file': name + '.bin',
                      'file_offset': 0, 'name': name, 'shape': shape, 'tag': 2})
    return descs


def gqa_layer(cfg, dtype, rng, a, B, S, K, num):
    """llama/mistral/qwen2/qwen3/mixtral/qwen3_moe: (weights, inputs, outputs) as fixture_deepseek.make."""
    Layer.layer_index = a.layer
    Layer.tie = a.tie
    L = Layer(cfg, dtype, rng)
    H = cfg['hidden_size']
    xs = [[[f32(rng.gauss(0, 1)) for _ in range(H)] for _ in range(S)] for _ in range(B)]
    pk = [[[[to_dtype(dtype, rng.uniform(-2, 2)) for _ in range(L.D)] for _ in range(K)] for _ in range(L.nkv)] for _ in range(B)]
    pv = [[[[to_dtype(dtype, rng.uniform(-1, 1)) for _ in range(L.D)] for _ in range(K)] for _ in range(L.nkv)] for _ in range(B)]
    res = [forward(L, num, xs[b], pk[b], pv[b], K, a.bug) for b in range(B)]
    hout = mlp_half(L, num, [t for r in res for t in r[0]], a.bug, a.capacity)
    res = [(hout[b * S:(b + 1) * S], r[1], r[2]) for b, r in enumerate(res)]
    ins = [('hidden_states', [B, S, H], flat(xs), 'f32'), ('rope_cos_unknown_to_the_checker', [4], [9.0] * 4, 'f32')]
    if K:
        ins += [('past_key', [B, L.nkv, K, L.D], flat(pk), dtype), ('past_value', [B, L.nkv, K, L.D], flat(pv), dtype)]
    outs = [('hidden_states_out', [B, S, H], flat([r[0] for r in res]), 'f32'),
            ('present_key', [B, L.nkv, S, L.D], flat([r[1] for r in res]), dtype),
            ('present_value', [B, L.nkv, S, L.D], flat([r[2] for r in res]), dtype)]
    return L.W, ins, outs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--config', required=True)
    ap.add_argument('--gen', required=True, help='DIR to write (manifest.json, weights, inputs)')
    ap.add_argument('--run', required=True, help='DIR2 to write (<output>.dat)')
    ap.add_argument('--phase', choices=['prefill', 'decode'], default='prefill')
    ap.add_argument('--batch', type=int, default=2)
    ap.add_argument('--seq', type=int, default=None)
    ap.add_argument('--kv-len', type=int, default=None)
    ap.add_argument('--layer', type=int, default=1)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--mode', choices=['exact', 'lowp'], default='lowp')
    ap.add_argument('--bug', choices=['rope_pos', 'no_causal', 'gqa_map', 'attn_factor', 'eps', 'wrong_expert',
                                      'norm_flip', 'no_capacity'] + DS_BUGS, default=None)
    ap.add_argument('--capacity', type=int, default=None, help='MoE: report.capacity, tokens beyond it dropped')
    ap.add_argument('--tie', action='store_true', help='MoE: router rows 1 and 3 equal (deepseek_v3: group 1 = group 0), ties to the higher index')
    ap.add_argument('--dtype', choices=['bf16', 'f16'], default=None)
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    dtype = a.dtype or {'bfloat16': 'bf16', 'float16': 'f16'}[cfg.get('torch_dtype', 'bfloat16')]
    S = a.seq or (5 if a.phase == 'prefill' else 1)
    K = a.kv_len if a.kv_len is not None else (0 if a.phase == 'prefill' else 6)
    rng = random.Random(a.seed)
    B = a.batch
    num = Num(a.mode, dtype)
    if cfg['model_type'] == 'deepseek_v3':
        import fixture_deepseek
        weights, ins, outs = fixture_deepseek.make(cfg, dtype, rng, a, B, S, K, num)
    else:
        weights, ins, outs = gqa_layer(cfg, dtype, rng, a, B, S, K, num)
    os.makedirs(a.gen, exist_ok=True)
    os.makedirs(a.run, exist_ok=True)
    # e_score_correction_bias is an f32 buffer in the checkpoint (and in weights[])
    wdescs = write_weights(os.path.join(a.gen, 'weights.bin'),
                           [(n, [len(v), len(v[0])] if isinstance(v[0], list) else [len(v)], flat(v))
                            for n, v in weights.items()],
                           lambda n: 'f32' if n.endswith('e_score_correction_bias') else dtype)
    region = Neuron()
    idescs = write_inputs(a.gen, ins, region)
    moe = moe_shape(cfg, a.layer)
    if moe:  # the generator's per-expert token counts over the request, from this routing
        routed = (fixture_deepseek.ROUTED if cfg['model_type'] == 'deepseek_v3' else ROUTED)
        outs.append(('expert_tokens', [moe[0]], [float(routed.get(e, 0)) for e in range(moe[0])], 'f32'))
    odescs = []
    for name, shape, vals, dt in outs:
        raw = enc_list(dt, vals)
        open(os.path.join(a.run, name + '.dat'), 'wb').write(raw)
        odescs.append({'bytes': len(raw), 'device_addr': region.place(len(raw)), 'dtype': dt, 'name': name,
                       'shape': shape, 'tag': 2})
    report = {'batch': B, 'bytes_ddr': 0, 'commands': [{'gdma': 0, 'sdma': 0, 'tiu': 0}] * 8, 'cores': 8,
              'dtype': dtype, 'ep': 8 if moe else 1, 'flops': 0, 'kv_len': K, 'layer': a.layer,
              'model_type': cfg['model_type'], 'phase': a.phase, 'seq': S, 'tp': 1,
              'note': 'fabricated by test/gen/ref/make_fixture.py (mode %s, bug %s)' % (a.mode, a.bug)}
    if moe:  # gen writes the capacity of every MoE layer (Rule: capacity's default: C = tokens)
        report.update(experts=moe[0], top_k=moe[1], capacity=a.capacity if a.capacity is not None else B * S)
    manifest = {'chip': 'BM1690', 'chip_aliases': ['SG2260'], 'core_num': 8,
                'name': 'make_fixture %s layer %d (no streams)' % (cfg['model_type'], a.layer),
                'report': report, 'weights': wdescs, 'inputs': idescs, 'outputs': odescs}
    json.dump(manifest, open(os.path.join(a.gen, 'manifest.json'), 'w'), indent=1)


def moe_shape(cfg, layer):
    """(experts, top_k) when `layer` of cfg is a MoE layer, else None (the rules of ref_config)."""
    t = cfg['model_type']
    if t == 'mixtral':
        return cfg.get('num_local_experts', 8), cfg.get('num_experts_per_tok', 2)
    if t == 'qwen3_moe':
        ne = cfg.get('num_experts', 128)
        if layer in (cfg.get('mlp_only_layers') or []) or ne == 0 or (layer + 1) % cfg.get('decoder_sparse_step', 1):
            return None
        return ne, cfg.get('num_experts_per_tok', 8)
    if t == 'deepseek_v3' and layer >= cfg.get('first_k_dense_replace', 3):
        return cfg['n_routed_experts'], cfg['num_experts_per_tok']
    return None

if __name__ == '__main__':
    main()
