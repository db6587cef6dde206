#!/usr/bin/env python3
"""Self-test of model_ref_check on fabricated whole-model generator/run folders
(make_model_fixture.py) for one multi-layer config: correct outputs (float64 and an emulated
low-precision generator, prefill and decode) must PASS; exact logit ties broken toward the
lower index must PASS through the tie rule and toward the higher one must FAIL; one logit or
cache element moved by 100x its bound, a next token outside the reference's candidates and
the semantic mistakes of make_model_fixture.py (wrong embedding row, wrong LM head for the
tie_word_embeddings setting, missing final norm, next token of the first position, last layer
skipped, RoPE positions, MoE routing and qwen3_moe layer kinds off by one) must FAIL with exit
1; MoE router ties routed the other way in every MoE layer must PASS (widened rows reported);
missing tensors, a capacity, a one-layer manifest and bad usage exit 2.
usage: run_model_selftest.py MODEL_REF_CHECK CONFIG.json [GEN_REF_CHECK]"""
import json, os, re, shutil, struct, subprocess, sys, tempfile

checker, config = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
layer_checker = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'make_model_fixture.py')
cfg = json.load(open(config))
name = os.path.basename(config)
failures = 0
tmp = tempfile.mkdtemp(prefix='model_ref_selftest_')


def check(cond, what):
    global failures
    print(('ok   ' if cond else 'FAIL ') + what)
    failures += 0 if cond else 1


def make(tag, *args, conf=None):
    g, r = os.path.join(tmp, tag, 'gen'), os.path.join(tmp, tag, 'run')
    subprocess.run([sys.executable, fixture, '--config', conf or config, '--gen', g, '--run', r, *args], check=True)
    return g, r


def ref_check(g, r, *extra, conf=None, exe=None):
    p = subprocess.run([exe or checker, '--config', conf or config, '--gen', g, '--run', r, *extra],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def ratios(out):
    return ' '.join('%s=%s' % m for m in re.findall(r'^(\S+): max_abs_err=\S+ max_err/bound=(\S+)', out, re.M)[:4])


def passes(tag, *args, conf=None):
    g, r = make(tag, *args, conf=conf)
    rc, out, err = ref_check(g, r, '--verbose', conf=conf)
    check(rc == 0 and out.strip().endswith('PASS'), '%s %s: PASS (%s ...) %s' % (name, ' '.join(args), ratios(out),
                                                                             err.strip()))
    return g, r, out


def fails(tag, *args, want=None):
    g, r = make(tag, *args)
    rc, out, err = ref_check(g, r)
    hit = want is None or re.search(r'^%s: .* FAIL$' % re.escape(want), out, re.M) is not None
    check(rc == 1 and out.strip().endswith('FAIL') and hit,
          '%s %s: FAIL, exit 1 (%s) %s' % (name, ' '.join(args), ratios(out), err.strip()))


def perturb(g, r, out_name, scale=100):
    """Moves the worst element of output `out_name` by scale x its bound; returns the result."""
    rc, out, _ = ref_check(g, r, '--verbose')
    m = re.search(r'worst %s flat=(\d+) .* bound=(\S+) ratio' % re.escape(out_name), out)
    if not m:
        return None
    i, bound = int(m.group(1)), float(m.group(2))
    desc = [o for o in json.load(open(os.path.join(g, 'manifest.json')))['outputs'] if o['name'] == out_name][0]
    path = os.path.join(r, out_name + '.dat')
    data = bytearray(open(path, 'rb').read())
    if desc['dtype'] == 'f32':
        v = struct.unpack_from('<f', data, 4 * i)[0] + scale * bound
        struct.pack_into('<f', data, 4 * i, v)
    else:
        import make_fixture as mf
        size = 2
        v = mf.dec(desc['dtype'], bytes(data[i * size:(i + 1) * size])) + scale * bound
        data[i * size:(i + 1) * size] = mf.enc(desc['dtype'], v)
    open(path, 'wb').write(bytes(data))
    return ref_check(g, r)


def edit_manifest(g, fn):
    path = os.path.join(g, 'manifest.json')
    man = json.load(open(path))
    fn(man)
    json.dump(man, open(path, 'w'))


def exit2(g, r, what, fn, needle):
    edit_manifest(g, fn)
    rc, _, err = ref_check(g, r)
    check(rc == 2 and needle in err, '%s: %s -> exit 2 (%s)' % (name, what, err.strip()))


sys.path.insert(0, os.path.dirname(fixture))
try:
    for mode in ('exact', 'lowp'):
        passes('ok-%s-prefill' % mode, '--mode', mode, '--phase', 'prefill')
        passes('ok-%s-decode' % mode, '--mode', mode, '--phase', 'decode')
    passes('ok-decode-b3', '--phase', 'decode', '--batch', '3', '--kv-len', '9')
    # exact ties of the two best logits: the lower index is right, and the checker says so
    g, r, out = passes('tie', '--tie', '--phase', 'prefill')
    check('candidates within the bound' in out, '%s: tied logits reported as candidates' % name)
    fails('tie-high', '--tie', '--bug', 'argmax_high', want='next_token')
    bugs = ['wrong_embed', 'wrong_head', 'no_final_norm', 'skip_last', 'rope_pos']
    if cfg['model_type'] in ('mixtral', 'qwen3_moe'):
        bugs += ['wrong_expert']
    if cfg['model_type'] == 'qwen3_moe':
        bugs += ['kind_shift']
    for bug in bugs:
        fails('bug-' + bug, '--bug', bug, '--phase', 'prefill')
    fails('bug-argmax_first', '--bug', 'argmax_first', '--phase', 'prefill', '--mode', 'exact', want='next_token')
    for bug in ('wrong_embed', 'rope_pos'):
        fails('bug-%s-decode' % bug, '--bug', bug, '--phase', 'decode')
    if cfg['model_type'] in ('mixtral', 'qwen3_moe'):
        # exact router ties routed to the higher expert index in every MoE layer: the reference
        # finds the routing the run took from the next layer's cache rows (the last layer's from
        # the logits) and passes
        for mode in ('exact', 'lowp'):
            _, _, out = passes('moe-tie-' + mode, '--moe-tie', '--mode', mode, '--phase', 'prefill', '--seq', '6')
            other = re.findall(r'row\(s\), resolved by (.+?): (\d+) took another', out)
            check(any(int(n) > 0 for _, n in other), '%s %s: ambiguous routing resolved from the run (by, rows '
                  'routed otherwise): %s' % (name, mode, other))
        fails('moe-tie-wrong', '--moe-tie', '--bug', 'wrong_expert', '--phase', 'prefill')
    if cfg['model_type'] == 'qwen3_moe':  # other mixes of dense and MoE layers
        for i, change in enumerate(({'decoder_sparse_step': 2, 'mlp_only_layers': []},
                                    {'mlp_only_layers': [0, 3], 'norm_topk_prob': True})):
            conf = os.path.join(tmp, 'variant%d.json' % i)
            json.dump(dict(cfg, **change), open(conf, 'w'))
            _, _, out = passes('variant%d' % i, '--phase', 'prefill', conf=conf)
            kinds = re.findall(r'^layer (\d+): ((?:dense|moe)\S*)', out, re.M)
            check(len(kinds) == cfg['num_hidden_layers'], '%s %s: layer kinds %s' % (name, json.dumps(change), kinds))
    # one element moved by 100x its bound, per output kind
    for out_name in ('logits', 'present_key.1', 'present_value.%d' % (cfg['num_hidden_layers'] - 1)):
        g, r = make('perturb-' + out_name, '--phase', 'decode')
        res = perturb(g, r, out_name)
        check(res is not None and res[0] == 1 and re.search(r'^%s: .* FAIL$' % re.escape(out_name), res[1], re.M)
              and 'violated %s' % out_name in res[1], '%s: %s moved by 100x its bound -> FAIL, exit 1' % (name, out_name))
    g, r = make('next-token', '--phase', 'prefill')
    path = os.path.join(r, 'next_token.dat')
    toks = list(struct.unpack('<2i', open(path, 'rb').read()))
    toks[1] = (toks[1] + 7) % cfg['vocab_size']
    open(path, 'wb').write(struct.pack('<2i', *toks))
    rc, out, _ = ref_check(g, r)
    check(rc == 1 and 'violated next_token [1]' in out, '%s: next_token moved -> FAIL, exit 1' % name)
    # exit 2
    g, r = make('missing', '--phase', 'decode')
    exit2(g, r, 'missing model.norm.weight',
          lambda m: m.update(weights=[w for w in m['weights'] if w['name'] != 'model.norm.weight']), 'model.norm.weight')
    g, r = make('missing-past', '--phase', 'decode')
    exit2(g, r, 'missing past_value.2', lambda m: m.update(inputs=[w for w in m['inputs'] if w['name'] != 'past_value.2']),
          'past_value.2')
    head = 'model.embed_tokens.weight' if cfg.get('tie_word_embeddings') else 'lm_head.weight'
    g, r = make('missing-head', '--phase', 'prefill')
    exit2(g, r, 'missing ' + head, lambda m: m.update(weights=[w for w in m['weights'] if w['name'] != head]), head)
    g, r = make('capacity', '--phase', 'prefill')
    exit2(g, r, 'report.capacity', lambda m: m['report'].update(capacity=3), 'capacity')
    g, r = make('one-layer', '--phase', 'prefill')
    os.remove(os.path.join(r, 'next_token.dat'))
    rc, _, err = ref_check(g, r)
    check(rc == 2 and 'next_token' in err, '%s: missing run output -> exit 2 (%s)' % (name, err.strip()))
    exit2(g, r, 'a one-layer manifest', lambda m: m['report'].update(kind='layer', layer=0), 'gen_ref_check')
    if layer_checker:
        g, r = make('layer-checker', '--phase', 'prefill')
        rc, _, err = ref_check(g, r, exe=layer_checker)
        check(rc == 2 and 'model_ref_check' in err, 'gen_ref_check on a whole-model manifest -> exit 2 (%s)' % err.strip())
    p = subprocess.run([checker, '--config', config], capture_output=True, text=True)
    check(p.returncode == 2 and '--gen' in p.stderr, 'bad usage -> exit 2 (%s)' % p.stderr.strip())
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print('%d failure(s)' % failures)
sys.exit(1 if failures else 0)
