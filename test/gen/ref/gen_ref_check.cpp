// gen_ref_check: an independent float64 reference of one decoder layer, with a derived error
// bound, checked against what `tilefw gen` + `tilefw run` produced.
//
//   gen_ref_check --config CONFIG.json --gen DIR --run DIR2 [--verbose] [--lenient]
//
// DIR/manifest.json (report, weights[], inputs[], outputs[]) is what `tilefw gen` writes;
// DIR2/<name>.dat is what `tilefw run` writes for each outputs[] entry. The layer semantics
// come from CONFIG.json (ref_config.hpp: llama, mistral, qwen2, qwen3, mixtral, qwen3_moe and
// deepseek_v3), the bound from ref_bound.hpp. Outputs checked: hidden_states_out, and the
// cache rows present_key / present_value (GQA) or present_kv_latent / present_k_rope
// (deepseek_v3 MLA, ref_mla.hpp; decode reads past_kv_latent / past_k_rope from inputs[]).
// Inputs the reference does not know (rotary tables, masks, MoE constants and routing
// scratch, ...) are ignored: RoPE and the MoE routing are computed from the config and the
// weights (ref_moe.hpp, ref_route.hpp: top-k ties go to the lower expert index; ambiguous
// routing, deepseek_v3's group choice included, accepts any consistent choice; report.capacity,
// when present, drops tokens beyond an expert's capacity in token order).
// Exit: 0 every output within its bound, 1 a bound violated, 2 bad usage / unreadable file /
// missing tensor or key.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ref_compare.hpp"

namespace {

using namespace gref;

struct Args {
    std::string config, gen, run;
    bool verbose = false, lenient = false;
};

const char* kUsage =
    "usage: gen_ref_check --config CONFIG.json --gen DIR --run DIR2 [--verbose] [--lenient]\n"
    "  Checks DIR2/<output>.dat (tilefw run) against a float64 evaluation of the decoder layer\n"
    "  described by CONFIG.json and DIR/manifest.json (tilefw gen), within a derived error bound.\n"
    "  --verbose  print the worst elements of each output\n"
    "  --lenient  also allow model-dtype rounding of the attention scores, the MoE router\n"
    "             logits and the o_proj/down_proj/MoE outputs (outside the contract's f32\n"
    "             softmax/router/residual)\n"
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
        else if (s == "--lenient") a.lenient = true;
        else if (s == "--help" || s == "-h") { std::fputs(kUsage, stdout); std::exit(0); }
        else throw UsageError("unknown option '" + s + "'");
    }
    if (a.config.empty() || a.gen.empty() || a.run.empty())
        throw UsageError("--config, --gen and --run are required");
    return a;
}

int run(const Args& a) {
    nlohmann::json cfg = read_json(a.config);
    Manifest m = load_manifest(a.gen);
    if (m.report.kind == "model")
        throw UsageError("report.kind is 'model': a whole-model manifest is checked by model_ref_check");
    LayerConfig c = parse_layer_config(cfg, m.report.layer);
    if (m.report.model_type != c.model_type)
        throw UsageError("report.model_type '" + m.report.model_type + "' != config model_type '" + c.model_type + "'");
    RoundPolicy pol;
    pol.scores = pol.branch_outputs = a.lenient;
    auto ref = eval_layer(c, m, pol);
    if (a.verbose)
        std::printf("layer %d %s %s B=%d S=%d K=%d dtype=%s rope=%s attention_factor=%.9g\n", m.report.layer,
                    c.model_type.c_str(), m.report.phase.c_str(), m.report.batch, m.report.seq, m.report.kv_len,
                    dtype_name(m.report.dtype), c.rope.type.c_str(), c.rope.attention_factor);
    bool ok = true;
    for (const auto& [name, r] : ref) {
        const std::string& wanted = name;  // clang 14 cannot capture a structured binding
        auto it = std::find_if(m.outputs.begin(), m.outputs.end(), [&wanted](const TensorDesc& t) { return t.name == wanted; });
        if (it == m.outputs.end()) throw UsageError("manifest outputs[]: missing tensor '" + name + "'");
        if (it->shape != r.shape || it->dtype != r.dtype)
            throw UsageError(std::string("output '") + name + "': manifest says " + shape_str(it->shape) + " " +
                             dtype_name(it->dtype) + ", expected " + shape_str(r.shape) + " " + dtype_name(r.dtype));
        ok = compare(name, r, read_output(a.run, *it), m.report.dtype, a.verbose) && ok;
    }
    // MoE: the layer's expert_tokens output holds the tokens that chose each expert over the
    // request (the counts the control core generates the experts' phase from).
    const RefOutput& h = ref.at("hidden_states_out");
    auto et = std::find_if(m.outputs.begin(), m.outputs.end(), [](const TensorDesc& t) { return t.name == "expert_tokens"; });
    if (!h.count_min.empty() && et != m.outputs.end()) {
        const std::vector<double> got = read_output(a.run, *et);
        bool same = got.size() == h.count_min.size();
        for (std::size_t e = 0; same && e < got.size(); ++e)
            same = got[e] >= static_cast<double>(h.count_min[e]) && got[e] <= static_cast<double>(h.count_max[e]);
        std::printf("expert_tokens: %zu experts %s\n", got.size(), same ? "match the reference's counts" : "DIFFER from the reference's counts");
        if (!same) {
            for (std::size_t e = 0; e < got.size() && e < h.count_min.size(); ++e)
                std::printf("  expert %zu: run %g, reference %lld..%lld\n", e, got[e], h.count_min[e], h.count_max[e]);
        }
        ok = same && ok;
    }
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse_args(argc, argv));
    } catch (const UsageError& e) {
        std::fprintf(stderr, "gen_ref_check: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gen_ref_check: %s\n", e.what());
        return 2;
    }
}
