#!/usr/bin/env python3
"""Fabricates what `tilefw gen --model` (DIR: manifest.json, weights, inputs) and `tilefw run`
(DIR2: <output>.dat) would write for a WHOLE model of a config.json (token ids in, logits and
next token out), so model_ref_check can be tested before the generator does it. Python 3
standard library only; the layers are make_fixture.py's plain per-token float64 path (dense
GQA models, mixtral, qwen3_moe; not deepseek_v3).

  hidden = embed_tokens[input_ids]; every layer L (its kind from the config); final RMSNorm
  (model.norm.weight), cast to the model dtype; logits = x @ W^T with W = lm_head.weight or
  embed_tokens (tie_word_embeddings); next_token = argmax of the stored f32 logits of each
  batch row's last position, lowest index on ties.
--mode exact|lowp as make_fixture.py (lowp: a generator at the edge of the contract).
--tie   copies, for each batch row, the LM head row of its argmax token t onto a token j that
        is not an input (the embedding of the inputs is unchanged): logits t and j tie
        exactly; the correct next token is min(t, j).
--moe-tie  make_fixture.py's --tie in every MoE layer: router rows 1 and 3 equal, ties routed
        to the higher expert index (the reference prefers the lower one: ambiguous rows).
--bug NAME  a mistake model_ref_check must reject:
  wrong_embed   the embedding row of id + 1 instead of id
  wrong_head    tied config: a separate lm_head.weight (also written) used instead of the
                embedding; untied config: the embedding used instead of lm_head.weight
  no_final_norm the LM head on the last hidden state without model.norm
  argmax_high   ties broken toward the highest index (use with --tie)
  argmax_first  next_token from each row's first position instead of its last (prefill)
  skip_last     the last layer's output not passed on (its cache rows still written)
  kind_shift    qwen3_moe: each layer's kind decided for layer L + 1 (1-based numbering);
                the manifest holds the true kinds' tensors plus the ones actually used
  rope_pos, wrong_expert, norm_flip  make_fixture.py's, in every layer
"""
import argparse, json, math, os, random, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixture as mf  # noqa: E402

LAYER_BUGS = ('rope_pos', 'wrong_expert', 'norm_flip')


def is_moe(cfg, layer):
    """The MLP kind of `layer` (ref_config.hpp's rules for mixtral / qwen3_moe)."""
    t = cfg['model_type']
    if t == 'mixtral':
        return True
    if t == 'qwen3_moe':
        ne = cfg.get('num_experts', 128)
        return not (layer in (cfg.get('mlp_only_layers') or []) or ne == 0
                    or (layer + 1) % cfg.get('decoder_sparse_step', 1))
    return False


def forced_kind(cfg, moe):
    """A copy of cfg whose kind rule makes every layer `moe` (for Layer's own decision)."""
    if cfg['model_type'] != 'qwen3_moe':
        return cfg
    return dict(cfg, decoder_sparse_step=1, mlp_only_layers=[] if moe else list(range(cfg['num_hidden_layers'] + 2)))


def make_layer(cfg, dtype, rng, layer, bug, moe_tie):
    """(layer used for the forward, weights dict for the manifest)."""
    mf.Layer.layer_index = layer
    mf.Layer.tie = moe_tie
    true = mf.Layer(cfg, dtype, rng)
    if bug != 'kind_shift' or is_moe(cfg, layer) == is_moe(cfg, layer + 1):
        return true, dict(true.W)
    used = mf.Layer(forced_kind(cfg, is_moe(cfg, layer + 1)), dtype, rng)
    pre = 'model.layers.%d.' % layer
    w = {k[len(pre):]: v for k, v in true.W.items()}
    for k, v in used.W.items():
        if k[len(pre):].startswith('mlp.'):
            w[k[len(pre):]] = v
    used.w = lambda k: w.get(k)
    return used, {pre + k: v for k, v in w.items()}


def run_layers(cfg, layers, num, hs, past, B, S, K, bug):
    """hs: rows [B, S, H] -> the final hidden state and every layer's present rows."""
    lb = bug if bug in LAYER_BUGS else None
    presents = []
    for li, L in enumerate(layers):
        res = [mf.forward(L, num, hs[b], past[li][0][b], past[li][1][b], K, lb) for b in range(B)]
        out = mf.mlp_half(L, num, [t for r in res for t in r[0]], lb, None)
        presents.append(([r[1] for r in res], [r[2] for r in res]))
        if not (bug == 'skip_last' and li == len(layers) - 1):
            hs = [out[b * S:(b + 1) * S] for b in range(B)]
    return hs, presents


def head_logits(num, x_rows, head):
    """f32 logits (the stored values) of each normed row."""
    return [mf.round_list('f32', num.F(mf.matvec(head, x))) for x in x_rows]


def argmax(v, high):
    best = 0
    for j in range(1, len(v)):
        if v[j] > v[best] or (high and v[j] == v[best]):
            best = j
    return best


def tie_rows(head, logits_last, ids, V):
    """--tie: for each batch row, head row of its argmax t copied onto a non-input token j."""
    used = set(i for row in ids for i in row)
    for lg in logits_last:
        t = argmax(lg, False)
        used.add(t)
        j = next(j for j in range(V - 1, -1, -1) if j not in used)
        used.add(j)
        head[j] = list(head[t])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--config', required=True)
    ap.add_argument('--gen', required=True)
    ap.add_argument('--run', required=True)
    ap.add_argument('--phase', choices=['prefill', 'decode'], default='prefill')
    ap.add_argument('--batch', type=int, default=2)
    ap.add_argument('--seq', type=int, default=None)
    ap.add_argument('--kv-len', type=int, default=None)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--mode', choices=['exact', 'lowp'], default='lowp')
    ap.add_argument('--tie', action='store_true')
    ap.add_argument('--moe-tie', action='store_true')
    ap.add_argument('--bug', default=None, choices=['wrong_embed', 'wrong_head', 'no_final_norm', 'argmax_high',
                                                     'argmax_first', 'skip_last', 'kind_shift'] + list(LAYER_BUGS))
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    dtype = {'bfloat16': 'bf16', 'float16': 'f16'}[cfg.get('torch_dtype', 'bfloat16')]
    B, N, H, V = a.batch, cfg['num_hidden_layers'], cfg['hidden_size'], cfg['vocab_size']
    S = a.seq or (5 if a.phase == 'prefill' else 1)
    K = a.kv_len if a.kv_len is not None else (0 if a.phase == 'prefill' else 6)
    tied = bool(cfg.get('tie_word_embeddings', False))
    rng = random.Random(a.seed)
    num = mf.Num(a.mode, dtype)

    weights = {'model.embed_tokens.weight': [mf.round_list(dtype, [rng.gauss(0, 1) for _ in range(H)])
                                             for _ in range(V)]}
    layers = []
    for li in range(N):
        L, w = make_layer(cfg, dtype, rng, li, a.bug, a.moe_tie)
        layers.append(L)
        weights.update(w)
    weights['model.norm.weight'] = [mf.to_dtype(dtype, 1.0 + rng.uniform(-0.2, 0.2)) for _ in range(H)]
    if not tied or a.bug == 'wrong_head':
        weights['lm_head.weight'] = [mf.round_list(dtype, [rng.uniform(-1, 1) * math.sqrt(3.0 / H) for _ in range(H)])
                                     for _ in range(V)]
    head = weights['model.embed_tokens.weight' if tied != (a.bug == 'wrong_head') else 'lm_head.weight']

    ids = [[rng.randrange(V) for _ in range(S)] for _ in range(B)]
    D, nkv = layers[0].D, layers[0].nkv
    past = [([[[[mf.to_dtype(dtype, rng.uniform(-2, 2)) for _ in range(D)] for _ in range(K)] for _ in range(nkv)]
              for _ in range(B)],
             [[[[mf.to_dtype(dtype, rng.uniform(-1, 1)) for _ in range(D)] for _ in range(K)] for _ in range(nkv)]
              for _ in range(B)]) for _ in range(N)]
    table = weights['model.embed_tokens.weight']
    shift = 1 if a.bug == 'wrong_embed' else 0
    hs = [[list(table[(i + shift) % V]) for i in row] for row in ids]
    hs, presents = run_layers(cfg, layers, num, hs, past, B, S, K, a.bug)
    eps = cfg.get('rms_norm_eps', 1e-6)
    norm = (lambda h: num.R(h)) if a.bug == 'no_final_norm' else \
        (lambda h: num.R(num.F(mf.rmsnorm(h, weights['model.norm.weight'], eps))))
    rows = S if a.phase == 'prefill' else 1
    xs = [norm(hs[b][S - rows + r]) for b in range(B) for r in range(rows)]
    if a.tie:
        tie_rows(head, head_logits(num, [xs[b * rows + rows - 1] for b in range(B)], head), ids, V)
    logits = head_logits(num, xs, head)
    pos = 0 if a.bug == 'argmax_first' else rows - 1
    nxt = [argmax(logits[b * rows + pos], a.bug == 'argmax_high') for b in range(B)]
    write(a, cfg, dtype, weights, ids, past, presents, logits, nxt, (B, S, K, N, V, D, nkv, rows))


def write(a, cfg, dtype, weights, ids, past, presents, logits, nxt, dims):
    B, S, K, N, V, D, nkv, rows = dims
    os.makedirs(a.gen, exist_ok=True)
    os.makedirs(a.run, exist_ok=True)
    wdescs = mf.write_weights(os.path.join(a.gen, 'weights.bin'),
                              [(n, [len(v), len(v[0])] if isinstance(v[0], list) else [len(v)], mf.flat(v))
                               for n, v in weights.items()], lambda n: dtype)
    region = mf.Neuron()
    raw = struct.pack('<%di' % (B * S), *mf.flat(ids))
    open(os.path.join(a.gen, 'input_ids.bin'), 'wb').write(raw)
    idescs = [{'bytes': len(raw), 'device_addr': region.place(len(raw)), 'dtype': 'i32', 'file': 'input_ids.bin',
               'file_offset': 0, 'name': 'input_ids', 'shape': [B, S], 'tag': 2}]
    if K:
        ins = []
        for li in range(N):
            ins += [('past_key.%d' % li, [B, nkv, K, D], mf.flat(past[li][0]), dtype),
                    ('past_value.%d' % li, [B, nkv, K, D], mf.flat(past[li][1]), dtype)]
        idescs += mf.write_inputs(a.gen, ins, region)
    outs = [('logits', [B, rows, V], mf.flat(logits), 'f32'), ('next_token', [int(B)], nxt, 'i32')]
    for li in range(N):
        outs += [('present_key.%d' % li, [B, nkv, S, D], mf.flat(presents[li][0]), dtype),
                 ('present_value.%d' % li, [B, nkv, S, D], mf.flat(presents[li][1]), dtype)]
    odescs = []
    for name, shape, vals, dt in outs:
        raw = struct.pack('<%di' % len(vals), *vals) if dt == 'i32' else mf.enc_list(dt, vals)
        open(os.path.join(a.run, name + '.dat'), 'wb').write(raw)
        odescs.append({'bytes': len(raw), 'device_addr': region.place(len(raw)), 'dtype': dt, 'name': name,
                       'shape': shape, 'tag': 2})
    report = {'kind': 'model', 'num_layers': N, 'batch': B, 'seq': S, 'kv_len': K, 'dtype': dtype,
              'model_type': cfg['model_type'], 'phase': a.phase, 'cores': 8, 'tp': 1, 'ep': 1, 'flops': 0,
              'bytes_ddr': 0, 'note': 'fabricated by test/gen/ref/make_model_fixture.py (mode %s, bug %s, tie %s)'
              % (a.mode, a.bug, a.tie)}
    manifest = {'chip': 'BM1690', 'core_num': 8, 'name': 'make_model_fixture %s (no streams)' % cfg['model_type'],
                'report': report, 'weights': wdescs, 'inputs': idescs, 'outputs': odescs}
    json.dump(manifest, open(os.path.join(a.gen, 'manifest.json'), 'w'), indent=1)


if __name__ == '__main__':
    main()
