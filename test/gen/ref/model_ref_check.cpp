// model_ref_check: the independent float64 reference of a WHOLE model (token ids in, logits
// and next token out), with a derived error bound, checked against what
// `tilefw gen --model` + `tilefw run` produced.
//
//   model_ref_check --config CONFIG.json --gen DIR --run DIR2 [--verbose]
//
// DIR/manifest.json: report.kind "model", report.num_layers N; weights[] every checkpoint
// tensor under its published name; inputs[] input_ids i32 [B, S] and, in decode, the past
// cache of every layer L (past_key.{L} / past_value.{L}, or past_kv_latent.{L} /
// past_k_rope.{L}); outputs[] logits f32 [B, S | 1, vocab], next_token i32 [batch] and the new
// cache rows present_*.{L}. The reference is ref_model.hpp (which also says how the bound runs
// through the layers, the final norm and the LM head, and how ambiguous MoE routing is
// resolved from the run's own outputs: any consistent routing is accepted). Checks:
//  - logits and every present_*.{L}: |got - ref| <= kSafety kLambda e (+ half an ulp of the
//    model dtype for the cache rows, stored in it), as gen_ref_check;
//  - next_token[b]: (1) within the reference's candidates for row b's last position: j is a
//    candidate when v_top - v_j <= bound_top + bound_j (the run's logits, each within its
//    bound, could then rank j first), so a margin above twice the bound forces the
//    reference's argmax; several candidates: any is accepted and the one taken is printed;
//    (2) the argmax of the run's OWN logits row (lowest index on exact ties), since
//    next_token is defined from the logits the run stores;
//  - expert_tokens.{L}, when the run writes it for a MoE layer: within the reference's counts.
// report.capacity is refused (exit 2): whole-model runs keep every routed token.
// Exit: 0 pass, 1 a bound or the next token violated, 2 bad usage / unreadable file /
// missing tensor or key.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ref_compare.hpp"
#include "ref_model.hpp"

namespace {

using namespace gref;

struct Args {
    std::string config, gen, run;
    bool verbose = false;
};

const char* kUsage =
    "usage: model_ref_check --config CONFIG.json --gen DIR --run DIR2 [--verbose]\n"
    "  Checks DIR2/<output>.dat (tilefw run) of a whole-model manifest DIR/manifest.json\n"
    "  (tilefw gen --model) against a float64 evaluation of the model CONFIG.json describes:\n"
    "  logits and the per-layer cache rows within a derived bound, next_token against the\n"
    "  reference's argmax (ties within the bound accept either candidate).\n"
    "  --verbose  per-layer kinds and routing statistics, the worst elements of each output\n"
    "  exit 0 pass, 1 bound violated, 2 bad usage / unreadable input / missing tensor\n";

Args parse_args(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError("option " + s + " needs a value");
            return argv[++i];
        };
        if (s == "--config") a.config = value();
        else if (s == "--gen") a.gen = value();
        else if (s == "--run") a.run = value();
        else if (s == "--verbose") a.verbose = true;
        else if (s == "--help" || s == "-h") { std::fputs(kUsage, stdout); std::exit(0); }
        else throw UsageError("unknown option '" + s + "'");
    }
    if (a.config.empty() || a.gen.empty() || a.run.empty())
        throw UsageError("--config, --gen and --run are required");
    return a;
}

const TensorDesc& output_desc(const Manifest& m, const std::string& name, const std::vector<std::int64_t>& shape,
                              DType dtype) {
    auto it = std::find_if(m.outputs.begin(), m.outputs.end(), [&name](const TensorDesc& t) { return t.name == name; });
    if (it == m.outputs.end()) throw UsageError("manifest outputs[]: missing tensor '" + name + "'");
    if (it->shape != shape || it->dtype != dtype)
        throw UsageError("output '" + name + "': manifest says " + shape_str(it->shape) + " " + dtype_name(it->dtype) +
                         ", expected " + shape_str(shape) + " " + dtype_name(dtype));
    return *it;
}

// Lowest index of the largest value of v[first, first + n) (NaN never wins).
std::size_t argmax(const std::vector<double>& v, std::size_t first, std::size_t n) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < n; ++j)
        if (v[first + j] > v[first + best]) best = j;
    return best;
}

// next_token against the reference's candidates and the run's own logits (see the header).
bool check_next_token(const ModelRef& ref, const std::vector<double>& got_logits, const std::vector<double>& got,
                      bool verbose) {
    const RefOutput& lg = ref.outputs.at("logits");
    const std::size_t V = ref.vocab, B = got.size();
    bool ok = true;
    for (std::size_t b = 0; b < B; ++b) {
        const std::size_t row = (b * ref.logit_rows + ref.logit_rows - 1) * V;
        const std::size_t top = argmax(lg.value.v, row, V);
        const double btop = elem_bound(lg.value, row + top, false, DType::f32);
        std::vector<std::size_t> cand;
        for (std::size_t j = 0; j < V; ++j)
            if (lg.value.v[row + top] - lg.value.v[row + j] <= btop + elem_bound(lg.value, row + j, false, DType::f32))
                cand.push_back(j);
        const double tok = got[b];
        const std::size_t own = argmax(got_logits, row, V);
        const bool in_cand = std::any_of(cand.begin(), cand.end(), [tok](std::size_t j) { return tok == static_cast<double>(j); });
        const bool is_own = tok == static_cast<double>(own);
        std::string cs;
        for (std::size_t j = 0; j < cand.size() && j < 8; ++j) cs += (j ? "," : "") + std::to_string(cand[j]);
        if (cand.size() > 8) cs += ",...";
        if (!in_cand)
            std::printf("  violated next_token [%zu] got=%.0f want=%zu (reference candidates within the bound: %s)\n", b,
                        tok, top, cs.c_str());
        if (!is_own)
            std::printf("  violated next_token [%zu] got=%.0f but the run's own logits row has its maximum at %zu "
                        "(lowest index on ties)\n", b, tok, own);
        if (in_cand && cand.size() > 1)
            std::printf("  next_token [%zu]: %zu candidates within the bound {%s}: accepted %.0f (reference argmax %zu)\n",
                        b, cand.size(), cs.c_str(), tok, top);
        else if (verbose && in_cand)
            std::printf("  next_token [%zu]: %.0f, the reference's argmax (margin outside the bound)\n", b, tok);
        ok = ok && in_cand && is_own;
    }
    std::printf("next_token: %zu rows %s\n", B, ok ? "ok" : "FAIL");
    return ok;
}

// expert_tokens.{L} of a MoE layer, when the run writes it: within the reference's counts.
bool check_expert_tokens(const Manifest& m, const std::string& run_dir, const ModelRef& ref) {
    bool ok = true;
    for (std::size_t L = 0; L < ref.layers.size(); ++L) {
        const ModelLayerInfo& li = ref.layers[L];
        const std::string name = "expert_tokens." + std::to_string(L);
        auto et = std::find_if(m.outputs.begin(), m.outputs.end(), [&name](const TensorDesc& t) { return t.name == name; });
        if (li.count_min.empty() || et == m.outputs.end()) continue;
        const std::vector<double> got = read_output(run_dir, *et);
        bool same = got.size() == li.count_min.size();
        for (std::size_t e = 0; same && e < got.size(); ++e)
            same = got[e] >= static_cast<double>(li.count_min[e]) && got[e] <= static_cast<double>(li.count_max[e]);
        std::printf("%s: %zu experts %s\n", name.c_str(), got.size(),
                    same ? "match the reference's counts" : "DIFFER from the reference's counts");
        ok = ok && same;
    }
    return ok;
}

int run(const Args& a) {
    nlohmann::json cfg = read_json(a.config);
    Manifest m = load_manifest(a.gen);
    const RunReport& r = m.report;
    if (r.kind != "model") throw UsageError("report.kind is not 'model': a one-layer manifest is checked by gen_ref_check");
    if (r.capacity >= 0) throw UsageError("report.capacity: whole-model runs with a capacity are not checked");
    const std::string cfg_type = cfg.is_object() && cfg.contains("model_type") ? cfg.at("model_type").dump() : "none";
    if ("\"" + r.model_type + "\"" != cfg_type)
        throw UsageError("report.model_type '" + r.model_type + "' != config model_type " + cfg_type);
    // The run's outputs, read once: ambiguous MoE routing is resolved from them (ref_model.hpp).
    std::map<std::string, std::vector<double>> seen;
    Observed observed = [&](const std::string& name) -> const std::vector<double>* {
        auto it = seen.find(name);
        if (it != seen.end()) return &it->second;
        auto d = std::find_if(m.outputs.begin(), m.outputs.end(), [&name](const TensorDesc& t) { return t.name == name; });
        if (d == m.outputs.end()) return nullptr;
        return &(seen[name] = read_output(a.run, *d));
    };
    ModelRef ref = eval_model(cfg, m, RoundPolicy{}, observed);
    std::printf("model %s %s B=%d S=%d K=%d dtype=%s layers=%d vocab=%d head=%s\n", r.model_type.c_str(), r.phase.c_str(),
                r.batch, r.seq, r.kv_len, dtype_name(r.dtype), ref.num_layers, ref.vocab,
                ref.tied ? "embed_tokens (tied)" : "lm_head");
    for (std::size_t L = 0; L < ref.layers.size(); ++L) {
        const ModelLayerInfo& li = ref.layers[L];
        if (a.verbose) std::printf("layer %zu: %s%s%s\n", L, li.kind.c_str(), li.note.empty() ? "" : " ", li.note.c_str());
        if (li.ambiguous && li.widened)
            std::printf("layer %zu: ambiguous MoE routing in %zu row(s): not observable, bounds widened to cover "
                        "every consistent routing\n", L, li.ambiguous);
        else if (li.ambiguous)
            std::printf("layer %zu: ambiguous MoE routing in %zu row(s), resolved by %s: %zu took another consistent "
                        "routing than the reference's, %zu in no output\n", L, li.ambiguous, li.resolved_by.c_str(),
                        li.other, li.unobserved);
    }
    bool ok = true;
    std::vector<double> got_logits;
    for (const auto& [name, rv] : ref.outputs) {
        const TensorDesc& d = output_desc(m, name, rv.shape, rv.dtype);
        std::vector<double> got = read_output(a.run, d);
        ok = compare(name, rv, got, r.dtype, a.verbose) && ok;
        if (name == "logits") got_logits = std::move(got);
    }
    const TensorDesc& nt = output_desc(m, "next_token", {r.batch}, DType::i32);
    ok = check_next_token(ref, got_logits, read_output(a.run, nt), a.verbose) && ok;
    ok = check_expert_tokens(m, a.run, ref) && ok;
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse_args(argc, argv));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "model_ref_check: %s\n", e.what());
        return 2;
    }
}
