"""deepseek_v3 part of make_fixture.py: one DeepseekV3DecoderLayer (MLA attention, the dense
DeepseekV3MLP or the DeepseekV3MoE with its sigmoid group-limited router and shared experts),
written per token in plain float64 following the transformers modeling code, with the same
rounding hooks (Num) as the other model types. Independent of gen_ref_check's C++ on purpose:
RoPE is applied the way transformers writes it (de-interleave q_pe/k_pe, then rotate_half),
routing by sorting (value, index) tuples.

Bugs (--bug) the checker must reject: rotate_half (RoPE without the de-interleave),
no_mscale (softmax scale without yarn's mscale^2), no_kv_norm (kv_a_layernorm skipped),
k_rope_order (present_k_rope written in the interleaved pair order), softmax_router,
no_group_limit, bias_in_weights, no_scaling (routed_scaling_factor missing), no_shared; the
generic rope_pos, no_causal, wrong_expert and no_capacity apply too."""
import math

import make_fixture as mf

ROUTED = {}  # expert -> tokens that chose it (filled by mlp_half)

BUGS = ['rotate_half', 'no_mscale', 'no_kv_norm', 'k_rope_order', 'softmax_router', 'no_group_limit',
        'bias_in_weights', 'no_scaling', 'no_shared']


class DsLayer:
    def __init__(self, cfg, dtype, rng, layer, tie):
        self.cfg, self.dtype, self.layer = cfg, dtype, layer
        self.H, self.nh = cfg['hidden_size'], cfg['num_attention_heads']
        self.ql = cfg.get('q_lora_rank')
        self.R, self.dn, self.dr, self.dv = (cfg['kv_lora_rank'], cfg['qk_nope_head_dim'], cfg['qk_rope_head_dim'],
                                             cfg['v_head_dim'])
        self.moe = layer >= cfg.get('first_k_dense_replace', 3)
        H, nh, dq = self.H, self.nh, self.dn + self.dr
        lin = lambda o, i: [mf.round_list(dtype, [rng.uniform(-1, 1) * math.sqrt(3.0 / i) for _ in range(i)])
                            for _ in range(o)]
        vec = lambda n, c, s: [mf.to_dtype(dtype, c + rng.uniform(-s, s)) for _ in range(n)]
        W = {'input_layernorm.weight': vec(H, 1.0, 0.2)}
        if self.ql:
            W['self_attn.q_a_proj.weight'] = lin(self.ql, H)
            W['self_attn.q_a_layernorm.weight'] = vec(self.ql, 1.0, 0.2)
            W['self_attn.q_b_proj.weight'] = lin(nh * dq, self.ql)
        else:
            W['self_attn.q_proj.weight'] = lin(nh * dq, H)
        W['self_attn.kv_a_proj_with_mqa.weight'] = lin(self.R + self.dr, H)
        W['self_attn.kv_a_layernorm.weight'] = vec(self.R, 1.0, 0.2)
        W['self_attn.kv_b_proj.weight'] = lin(nh * (self.dn + self.dv), self.R)
        W['self_attn.o_proj.weight'] = lin(H, nh * self.dv)
        W['post_attention_layernorm.weight'] = vec(H, 1.0, 0.2)
        if self.moe:
            ne, mi = cfg['n_routed_experts'], cfg['moe_intermediate_size']
            W['mlp.gate.weight'] = lin(ne, H)
            W['mlp.gate.e_score_correction_bias'] = [mf.f32(rng.uniform(-0.3, 0.3)) for _ in range(ne)]
            if tie:  # group 1 a copy of group 0: equal group scores and pairwise equal experts
                per = ne // cfg['n_group']
                for j in range(per):
                    W['mlp.gate.weight'][per + j] = list(W['mlp.gate.weight'][j])
                    W['mlp.gate.e_score_correction_bias'][per + j] = W['mlp.gate.e_score_correction_bias'][j]
            for e in range(ne):
                W['mlp.experts.%d.gate_proj.weight' % e] = lin(mi, H)
                W['mlp.experts.%d.up_proj.weight' % e] = lin(mi, H)
                W['mlp.experts.%d.down_proj.weight' % e] = lin(H, mi)
            si = mi * cfg.get('n_shared_experts', 1)
            W['mlp.shared_experts.gate_proj.weight'] = lin(si, H)
            W['mlp.shared_experts.up_proj.weight'] = lin(si, H)
            W['mlp.shared_experts.down_proj.weight'] = lin(H, si)
        else:
            I = cfg['intermediate_size']
            W['mlp.gate_proj.weight'] = lin(I, H)
            W['mlp.up_proj.weight'] = lin(I, H)
            W['mlp.down_proj.weight'] = lin(H, I)
        self.w = W.get
        self.tables = {}
        self.W = {'model.layers.%d.%s' % (layer, k): v for k, v in W.items()}

    def scale(self, bug):
        s = (self.dn + self.dr) ** -0.5
        rs = self.cfg.get('rope_scaling')
        if rs and rs.get('mscale_all_dim') and bug != 'no_mscale':
            f = rs['factor']
            m = 0.1 * rs['mscale_all_dim'] * math.log(f) + 1.0 if f > 1 else 1.0
            s *= m * m
        return s


def table(L, num, pos):
    """cos/sin of position pos (the model-dtype tables in lowp), cached per layer."""
    key = (pos, num.low)
    if key not in L.tables:
        inv, af, _ = mf.rope_params(L.cfg, L.dr)
        if num.low:
            th = [mf.f32(mf.f32(float(pos)) * mf.f32(f)) for f in inv]
            L.tables[key] = (num.R([mf.f32(mf.f32(math.cos(t)) * af) for t in th]),
                             num.R([mf.f32(mf.f32(math.sin(t)) * af) for t in th]))
        else:
            L.tables[key] = ([math.cos(pos * f) * af for f in inv], [math.sin(pos * f) * af for f in inv])
    return L.tables[key]


def rope(L, num, x, pos, bug):
    """transformers' apply_rotary_pos_emb_interleave on one vector: de-interleave, rotate_half."""
    h = L.dr // 2
    c, s = table(L, num, pos)
    if L.cfg.get('rope_interleave', True) and bug != 'rotate_half':
        x = x[0::2] + x[1::2]
    rot = [-t for t in x[h:]] + x[:h]
    return num.F([x[i] * c[i % h] + rot[i] * s[i % h] for i in range(L.dr)])


def forward(L, num, xs, past_lat, past_rope, K, bug):
    """One batch element: xs [S, H]; past_lat [K, R], past_rope [K, dr]. Returns out [S, H],
    latent [S, R], k_rope [S, dr] (as stored: present_kv_latent, present_k_rope)."""
    eps = L.cfg.get('rms_norm_eps', 1e-6)
    w, S, nh, dn, dr, dv, R = L.w, len(xs), L.nh, L.dn, L.dr, L.dv, L.R
    dq = dn + dr
    qs, lat_new, rope_new = [], [], []
    for s in range(S):
        a = num.R(num.F(mf.rmsnorm(xs[s], w('input_layernorm.weight'), eps)))
        if L.ql:
            qa = num.R(num.F(mf.matvec(w('self_attn.q_a_proj.weight'), a)))
            qa = num.R(num.F(mf.rmsnorm(qa, w('self_attn.q_a_layernorm.weight'), 1e-6)))
            q = num.R(num.F(mf.matvec(w('self_attn.q_b_proj.weight'), qa)))
        else:
            q = num.R(num.F(mf.matvec(w('self_attn.q_proj.weight'), a)))
        kv = num.R(num.F(mf.matvec(w('self_attn.kv_a_proj_with_mqa.weight'), a)))
        comp, kpe = kv[:R], kv[R:]
        lat = comp if bug == 'no_kv_norm' else num.F(mf.rmsnorm(comp, w('self_attn.kv_a_layernorm.weight'), 1e-6))
        pos = K + s + (1 if bug == 'rope_pos' else 0)
        lat_new.append(lat)
        rope_new.append(rope(L, num, kpe, pos, bug))
        qs.append([(q[h * dq:h * dq + dn], num.R(rope(L, num, q[h * dq + dn:(h + 1) * dq], pos, bug)))
                   for h in range(nh)])
    lats = past_lat + [num.R(t) for t in lat_new]      # the cache, in the model dtype
    kropes = past_rope + [num.R(t) for t in rope_new]
    kvb = [num.R(num.F(mf.matvec(w('self_attn.kv_b_proj.weight'), t))) for t in lats]
    knope = [[row[h * (dn + dv):h * (dn + dv) + dn] for h in range(nh)] for row in kvb]
    vals = [[row[h * (dn + dv) + dn:(h + 1) * (dn + dv)] for h in range(nh)] for row in kvb]
    scale = L.scale(bug)
    out = []
    for s in range(S):
        o = []
        for h in range(nh):
            qn, qr = qs[s][h]
            last = K + S - 1 if bug == 'no_causal' else K + s
            z = num.F([scale * (sum(a * b for a, b in zip(qn, knope[j][h])) + sum(a * b for a, b in zip(qr, kropes[j])))
                       for j in range(last + 1)])
            m = max(z)
            e = num.F([math.exp(t - m) for t in z])
            tot = sum(e)
            p = num.R(num.F([t / tot for t in e]))
            o += num.F([sum(p[j] * vals[j][h][i] for j in range(len(p))) for i in range(dv)])
        attn = num.F(mf.matvec(w('self_attn.o_proj.weight'), num.R(o)))
        out.append(num.F([a + b for a, b in zip(xs[s], attn)]))
    if bug == 'k_rope_order':  # back to the pair order (x0', x1', ...) the interleave undid
        rope_new = [[t[i // 2 + (dr // 2 if i % 2 else 0)] for i in range(dr)] for t in rope_new]
    return out, lat_new, rope_new


def route(L, num, z, bug, tie):
    """DeepseekV3TopkRouter on one token's f32 logits: (experts, weights)."""
    cfg, w = L.cfg, L.w
    ne, G, tg, k = cfg['n_routed_experts'], cfg['n_group'], cfg['topk_group'], cfg['num_experts_per_tok']
    per = ne // G
    bias = w('mlp.gate.e_score_correction_bias')
    if bug == 'softmax_router':
        m = max(z)
        ex = [math.exp(t - m) for t in z]
        sc = num.F([t / sum(ex) for t in ex])
    else:
        sc = num.F([1.0 / (1.0 + math.exp(-t)) for t in z])
    choice = num.F([a + b for a, b in zip(sc, bias)])
    key = lambda v, i: (-v, -i if tie else i)  # ties: lower index first (higher with --tie)
    gscore = [num.F([sum(sorted(choice[g * per:(g + 1) * per], reverse=True)[:2])])[0] for g in range(G)]
    groups = sorted(range(G), key=lambda g: key(gscore[g], g))[:tg]
    if bug != 'no_group_limit':
        choice = [c if e // per in groups else 0.0 for e, c in enumerate(choice)]
    order = sorted(range(ne), key=lambda e: key(choice[e], e))
    chosen = order[:k]
    if bug == 'wrong_expert':
        chosen = [order[-1]] + order[1:k]
    wts = [choice[e] if bug == 'bias_in_weights' else sc[e] for e in chosen]
    if cfg.get('norm_topk_prob', True):
        tot = sum(wts) + 1e-20
        wts = num.F([t / tot for t in wts])
    if bug != 'no_scaling':
        wts = num.F([t * cfg.get('routed_scaling_factor', 2.5) for t in wts])
    return chosen, num.R(wts)


def mlp_half(L, num, h1s, bug, capacity, tie):
    """All tokens (flattened [B, S]): h1 + (dense MLP | routed experts + shared experts)."""
    eps, w = L.cfg.get('rms_norm_eps', 1e-6), L.w
    names = lambda pre: [pre + n + '_proj.weight' for n in ('gate', 'up', 'down')]
    outs, count = [], [0] * L.cfg.get('n_routed_experts', 0)
    for h1 in h1s:
        a2 = num.R(num.F(mf.rmsnorm(h1, w('post_attention_layernorm.weight'), eps)))
        if not L.moe:
            outs.append(num.F([a + b for a, b in zip(h1, mf.mlp(L, num, w, a2, names('mlp.'), None))]))
            continue
        z = num.F(mf.matvec(w('mlp.gate.weight'), a2))
        chosen, wts = route(L, num, z, bug, tie)
        for e in chosen:  # the tokens each expert received (the expert_tokens output)
            ROUTED[e] = ROUTED.get(e, 0) + 1
        acc = [0.0] * len(h1)
        for e, we in zip(chosen, wts):
            slot = count[e]
            count[e] += 1
            if capacity is not None and slot >= capacity and bug != 'no_capacity':
                continue
            y = mf.mlp(L, num, w, a2, names('mlp.experts.%d.' % e), None)
            acc = num.F([t + we * b for t, b in zip(acc, y)])
        if bug != 'no_shared':
            acc = num.F([t + b for t, b in zip(acc, mf.mlp(L, num, w, a2, names('mlp.shared_experts.'), None))])
        outs.append(num.F([t + b for t, b in zip(h1, acc)]))
    return outs


def make(cfg, dtype, rng, a, B, S, K, num):
    """Returns (weights {name: values}, inputs [(name, shape, flat, dtype)], outputs likewise)."""
    L = DsLayer(cfg, dtype, rng, a.layer, a.tie)
    H = L.H
    xs = [[[mf.f32(rng.gauss(0, 1)) for _ in range(H)] for _ in range(S)] for _ in range(B)]
    plat = [[[mf.to_dtype(dtype, rng.uniform(-2, 2)) for _ in range(L.R)] for _ in range(K)] for _ in range(B)]
    prope = [[[mf.to_dtype(dtype, rng.uniform(-2, 2)) for _ in range(L.dr)] for _ in range(K)] for _ in range(B)]
    res = [forward(L, num, xs[b], plat[b], prope[b], K, a.bug) for b in range(B)]
    hout = mlp_half(L, num, [t for r in res for t in r[0]], a.bug, a.capacity, a.tie)
    ins = [('hidden_states', [B, S, H], mf.flat(xs), 'f32'), ('rope_cos_unknown_to_the_checker', [4], [9.0] * 4, 'f32')]
    if K:
        ins += [('past_kv_latent', [B, K, L.R], mf.flat(plat), dtype),
                ('past_k_rope', [B, K, L.dr], mf.flat(prope), dtype)]
    outs = [('hidden_states_out', [B, S, H], mf.flat(hout), 'f32'),
            ('present_kv_latent', [B, S, L.R], mf.flat([r[1] for r in res]), dtype),
            ('present_k_rope', [B, S, L.dr], mf.flat([r[2] for r in res]), dtype)]
    return L.W, ins, outs
