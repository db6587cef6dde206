// The whole model's steps and memory map (model_plan.hpp).
#include "gen/model_plan.hpp"

#include <algorithm>
#include <map>

#include "commands.hpp"
#include "gen/model_plan_groups.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;
}  // namespace

namespace plan_detail {
uint64_t align64(uint64_t v) { return (v + 63) / 64 * 64; }

bool is_cache(TensorId id) {
  switch (id) {
    case TensorId::past_key: case TensorId::past_value: case TensorId::present_key: case TensorId::present_value:
    case TensorId::past_kv_latent: case TensorId::past_k_rope: case TensorId::present_kv_latent:
    case TensorId::present_k_rope: case TensorId::expert_tokens: case TensorId::moe_choice:
      return true;
    default:
      return false;
  }
}

bool is_per_request(TensorId id) {
  return is_cache(id) || id == TensorId::input_ids || id == TensorId::logits || id == TensorId::next_token;
}

bool is_shared_input(TensorId id) {
  return id == TensorId::rope_cos || id == TensorId::rope_sin || id == TensorId::attn_mask;
}

std::optional<Failure> gen_failure(Status s, const gen::GenError& ge, const std::string& step) {
  if (s == Status::ok) return std::nullopt;
  return Failure{s == Status::gen_bad_config ? 2 : 1,
                 step + ": " + status_name(s) + ": " + ge.what + " (" + std::to_string(ge.value) + ")"};
}

// Moves `id` of `plan` to `addr`: the plan's own address is relative to its region, so this
// cannot fail for a present tensor and a DDR address.
void move(gen::SizedLayer& plan, TensorId id, uint64_t addr) {
  if (gen::set_tensor_address(plan, id, addr) != Status::ok) {
    throw std::logic_error("relocating a tensor that is not present");
  }
}
}  // namespace plan_detail
using namespace plan_detail;

namespace {

// Places the model's tensors: cursors per DDR tag, shared addresses by role.
struct Placement {
  uint64_t coeff = 0, neuron = 0;
  uint64_t hidden[3] = {};  // the stage's input, then the two its layers alternate between
  uint64_t partial = 0;     // tp > 1: the attention parts' output, all-reduced in place
  uint32_t microbatches = 1;
  std::map<TensorId, uint64_t> shared;  // rope tables and mask
  uint64_t scratch_base = 0, scratch_bytes = 0;
  uint64_t take(uint32_t tag, uint64_t bytes) {
    uint64_t& at = tag == 1 ? coeff : neuron;
    const uint64_t a = sg::make_dma_address(tag, at);
    at = align64(at + bytes);
    return a;
  }
};

// The layer's weights and constants at the coeff cursor (their offsets within the layer kept),
// its cache at the neuron cursor, the hidden states in the ping-pong buffers, the shared
// inputs once, its scratch inside the shared scratch area (offsets kept, from the area's base).
void place_layer(ModelStep& s, Placement& pl, uint64_t& cache_bytes, uint64_t in, uint64_t out) {
  gen::SizedLayer& p = s.plan;
  const uint64_t coeff0 = pl.coeff;
  uint64_t scratch_lo = UINT64_MAX, scratch_hi = 0;
  for (TensorInfo& t : p.memory.tensors) {
    if (!t.present || sg::dma_tag(t.device_addr) != 2 || is_cache(t.id) || is_shared_input(t.id)) continue;
    if (t.id == TensorId::hidden_states || t.id == TensorId::hidden_states_out) continue;
    scratch_lo = std::min(scratch_lo, sg::dma_offset(t.device_addr));
    scratch_hi = std::max(scratch_hi, sg::dma_offset(t.device_addr) + t.bytes);
  }
  // Cut expert tensors, or a part without the tensors it does not touch: each coeff tensor at the cursor.
  const bool packed = p.parallel.expert_count != 0 || s.own_tensors;
  for (TensorInfo& t : p.memory.tensors) {
    if (!t.present) continue;
    const uint64_t off = sg::dma_offset(t.device_addr);
    if (sg::dma_tag(t.device_addr) == 1) {
      move(p, t.id, packed ? pl.take(1, t.bytes) : sg::make_dma_address(1, coeff0 + off));
    } else if (t.id == TensorId::hidden_states) {
      move(p, t.id, in);
    } else if (t.id == TensorId::hidden_states_out) {
      move(p, t.id, out);
    } else if (is_shared_input(t.id)) {
      auto it = pl.shared.find(t.id);
      if (it == pl.shared.end()) it = pl.shared.emplace(t.id, pl.take(2, t.bytes)).first;
      move(p, t.id, it->second);
    } else if (is_cache(t.id)) {
      move(p, t.id, pl.take(2, t.bytes * pl.microbatches));
      if (t.id != TensorId::expert_tokens && t.id != TensorId::moe_choice) cache_bytes += t.bytes;
    } else {
      move(p, t.id, sg::make_dma_address(2, pl.scratch_base + (off - scratch_lo)));
    }
  }
  if (packed) p.memory.coeff_bytes = pl.coeff - coeff0;
  pl.coeff = align64(coeff0 + p.memory.coeff_bytes);
  if (scratch_hi > scratch_lo) pl.scratch_bytes = std::max(pl.scratch_bytes, scratch_hi - scratch_lo);
}

// A layer's MLP part: the same tensors as its attention part (one config, one layout: the
// weights, caches and scratch are shared), reading the all-reduced attention output.
void place_mlp_part(ModelStep& s, const ModelStep& attn, const Placement& pl) {
  for (const TensorInfo& t : attn.plan.memory.tensors) {
    if (t.present) move(s.plan, t.id, t.device_addr);
  }
  move(s.plan, TensorId::hidden_states, pl.partial);
  move(s.plan, TensorId::hidden_states_out, pl.hidden[1 + s.position % 2]);
}

uint64_t weight_bytes_of(const gen::SizedLayer& p) {
  uint64_t n = 0;
  for (const TensorInfo& t : p.memory.tensors) {
    if (t.present && t.role == TensorRole::weight) n += t.bytes;
  }
  return n;
}

std::optional<Failure> check_model_request(const GenCli& cli, const HfConfig& cfg) {
  if (cfg.model.vocab == 0) return Failure{2, cli.config + ": config key 'vocab_size': required for --model"};
  return std::nullopt;
}

// The memory map of one chip (model_plan.hpp, ModelPlan). Sized plans keep their own relative
// layout; only bases move.
void place_model(ModelPlan& out, uint32_t layers) {
  Placement pl;
  pl.microbatches = out.layout.microbatches;
  const uint32_t M = pl.microbatches;
  const HfConfig& cfg = out.cfg;
  const uint64_t T = uint64_t{out.inference.batch} * out.inference.seq;
  for (uint64_t& h : pl.hidden) h = pl.take(2, T * cfg.model.hidden * 4);
  out.hidden_in = pl.hidden[0];
  out.hidden_out = layers == 0 ? pl.hidden[0] : pl.hidden[1 + (layers - 1) % 2];
  const bool has_embed = out.steps.front().kind == gen::Program::embed;
  ModelStep* head_step = nullptr;  // the head (a merge step may follow it)
  for (ModelStep& s : out.steps) {
    if (s.kind == gen::Program::head) head_step = &s;
  }
  const bool has_head = head_step != nullptr;
  uint64_t embed_addr = 0;
  if (has_embed) {
    ModelStep& e = out.steps.front();
    embed_addr = pl.take(1, e.plan.memory[TensorId::embed_tokens].bytes);
    move(e.plan, TensorId::embed_tokens, embed_addr);
    move(e.plan, TensorId::input_ids, pl.take(2, T * 4 * M));
    move(e.plan, TensorId::hidden_states_out, pl.hidden[0]);
  }
  if (out.layout.tp > 1) pl.partial = pl.take(2, T * cfg.model.hidden * 4);
  out.partial = pl.partial;
  // Data-parallel attention: chip r's rows of an f32 [rows, hidden] buffer are its chunk r.
  const uint64_t chunk = out.layout.dp_attention ? T * cfg.model.hidden * 4 / out.layout.tp * out.rank : 0;
  for (size_t i = 0; i < out.steps.size(); ++i) {
    ModelStep& s = out.steps[i];
    if (s.kind != gen::Program::layer) continue;
    const uint64_t in = pl.hidden[s.position == 0 ? 0 : 1 + (s.position - 1) % 2], next = pl.hidden[1 + s.position % 2];
    if (s.part == gen::LayerPart::mlp && !s.own_tensors) {
      place_mlp_part(s, out.steps[i - 1], pl);
    } else if (s.part == gen::LayerPart::mlp) {  // the MoE part: every row of the gathered attention output
      place_layer(s, pl, out.cache_bytes, pl.partial, next);
    } else if (out.layout.dp_attention) {  // the chip's rows only
      place_layer(s, pl, out.cache_bytes, in + chunk, (s.part == gen::LayerPart::attention ? pl.partial : next) + chunk);
    } else {
      place_layer(s, pl, out.cache_bytes, in, s.part == gen::LayerPart::attention ? pl.partial : next);
    }
    s.group_buffer = s.plan.memory[TensorId::hidden_states_out].device_addr - (s.part == gen::LayerPart::mlp ? 0 : chunk);
  }
  if (has_head) {
    ModelStep& h = *head_step;
    move(h.plan, TensorId::hidden_states, out.hidden_out);
    for (TensorId id : {TensorId::final_norm, TensorId::lm_head_w, TensorId::head_iota}) {
      if (h.plan.memory[id].present) move(h.plan, id, pl.take(1, h.plan.memory[id].bytes));
    }
    if (cfg.model.tie_embeddings) {  // the table lives with the embedding, or here on a later stage
      if (embed_addr == 0) embed_addr = pl.take(1, h.plan.memory[TensorId::embed_tokens].bytes);
      move(h.plan, TensorId::embed_tokens, embed_addr);
    }
    for (TensorId id : {TensorId::logits, TensorId::next_token}) move(h.plan, id, pl.take(2, h.plan.memory[id].bytes * M));
    move(h.plan, TensorId::head_cand, pl.take(2, h.plan.memory[TensorId::head_cand].bytes));
    ModelStep& m = out.steps.back();
    if (m.kind == gen::Program::head_merge) {  // every chip's candidates gather where the head left its own
      move(m.plan, TensorId::head_cand, h.plan.memory[TensorId::head_cand].device_addr);
      move(m.plan, TensorId::next_token, h.plan.memory[TensorId::next_token].device_addr);
    }
  }
  // The layers' shared scratch area goes last in tag 2: its size is known only now.
  pl.scratch_base = pl.neuron;
  for (ModelStep& s : out.steps) {
    if (s.kind != gen::Program::layer) continue;
    for (TensorInfo& t : s.plan.memory.tensors) {
      const bool scratch = t.present && sg::dma_tag(t.device_addr) == 2 && !is_cache(t.id) && !is_shared_input(t.id) &&
                           t.id != TensorId::hidden_states && t.id != TensorId::hidden_states_out;
      if (scratch) move(s.plan, t.id, t.device_addr + sg::make_dma_address(0, pl.scratch_base));
    }
  }
  pl.neuron = align64(pl.scratch_base + pl.scratch_bytes);
  out.coeff_bytes = std::max<uint64_t>(pl.coeff, 64);
  out.neuron_bytes = std::max<uint64_t>(pl.neuron, 64);
  for (const ModelStep& s : out.steps) {
    if (s.part == gen::LayerPart::mlp && !s.own_tensors) continue;  // its attention part's tensors and figures (the whole layer's)
    out.weight_bytes += weight_bytes_of(s.plan);
    out.flops += static_cast<double>(s.plan.flops) * M;
    out.bytes_ddr += static_cast<double>(s.plan.bytes_ddr) * M;
  }
  // The cache counted per micro-batch by place_layer: all of them are held.
  out.cache_bytes *= M;
  if (cfg.model.tie_embeddings && has_embed && has_head) out.weight_bytes -= head_step->plan.memory[TensorId::embed_tokens].bytes;
}

}  // namespace

std::string step_weight_name(const ModelStep& s, const TensorInfo& t, uint32_t part) {
  if (s.kind != gen::Program::layer) return t.name;
  std::string n = t.name;
  const size_t at = n.find("{e}");
  if (at != std::string::npos) n.replace(at, 3, std::to_string(part));
  return "model.layers." + std::to_string(s.layer) + "." + n;
}

std::string model_tensor_name(const ModelStep& s, const TensorInfo& t) {
  if (s.kind == gen::Program::layer && is_cache(t.id)) return std::string(t.name) + "." + std::to_string(s.layer);
  return t.name;
}

bool per_request_rows(TensorId id) { return is_per_request(id); }

gen::SizedLayer microbatch_plan(const ModelStep& s, uint32_t m) {
  gen::SizedLayer p = s.plan;
  for (TensorInfo& t : p.memory.tensors) {
    if (t.present && is_per_request(t.id)) move(p, t.id, t.device_addr + uint64_t{m} * t.bytes);
  }
  return p;
}

// An expert-parallel group of `ep` chips (ModelLayout::expert_group): --ep, when given, is the
// group; the experts and the hidden size (the all-reduce's chunks) split evenly over it.
std::optional<Failure> expert_group_layout(const GenCli& cli, const HfConfig& cfg, uint32_t ep) {
  const std::string e = "--ep " + std::to_string(cli.ep != 0 ? cli.ep : ep) + ": ";
  if (cli.ep != 0 && cli.ep != ep) {
    return Failure{2, e + "the experts spread over the chips of one stage of one replica (--chips / (--pp x --dp) = " +
                          std::to_string(ep) + "); experts across replicas or stages are not implemented"};
  }
  const gen::ModelConfig& m = cfg.model;
  if (m.moe.experts == 0 || m.moe.experts % ep != 0) {
    return Failure{2, e + "the routed experts (" + std::to_string(m.moe.experts) + ") must split evenly over the ep chips"};
  }
  if (m.hidden % ep != 0) {
    return Failure{2, e + "hidden_size (" + std::to_string(m.hidden) + ") must split evenly over the ep chips (the all-reduce's chunks)"};
  }
  return std::nullopt;
}

std::optional<Failure> model_layout(const GenCli& cli, const HfConfig& cfg, ModelLayout& out) {
  ModelLayout& l = out;
  l.chips = cli.chips == 0 ? 1 : cli.chips;
  l.stages = cli.pp == 0 ? 1 : cli.pp;
  l.replicas = cli.dp == 0 ? 1 : cli.dp;
  l.microbatches = cli.microbatches == 0 ? 1 : cli.microbatches;
  l.batch = cli.batch;
  if (l.chips > sg::kMaxChips) return Failure{2, "--chips " + std::to_string(l.chips) + ": at most " + std::to_string(sg::kMaxChips)};
  if (uint64_t{l.stages} * l.replicas > l.chips || l.chips % (l.stages * l.replicas) != 0) {
    return Failure{2, "--chips " + std::to_string(l.chips) + " is not --pp x --dp x --tp (pp " + std::to_string(l.stages) +
                          ", dp " + std::to_string(l.replicas) + ")"};
  }
  const uint32_t tp = cli.tp != 0 ? cli.tp : l.chips / (l.stages * l.replicas);
  if (uint64_t{tp} * l.stages * l.replicas != l.chips) {
    return Failure{2, "--chips " + std::to_string(l.chips) + " is not --tp x --pp x --dp (" + std::to_string(tp) + " x " +
                          std::to_string(l.stages) + " x " + std::to_string(l.replicas) + ")"};
  }
  l.tp = tp;
  const gen::ModelConfig& m = cfg.model;
  const bool moe_model = m.type == gen::ModelType::deepseek_v3 || m.moe.experts > 0;
  if (tp > 1 && moe_model) {
    if (auto f = expert_group_layout(cli, cfg, tp)) return f;
    l.expert_group = true;
  } else if (tp > 1) {
    const std::string t = "--tp " + std::to_string(tp) + ": ";
    if (m.heads % tp != 0 || m.kv_heads % tp != 0) {
      return Failure{2, t + "the attention heads (" + std::to_string(m.heads) + ") and kv heads (" + std::to_string(m.kv_heads) +
                            ") must split evenly over the tp chips"};
    }
    if (m.intermediate % tp != 0 || m.hidden % tp != 0) {
      return Failure{2, t + "intermediate_size (" + std::to_string(m.intermediate) + ") and hidden_size (" +
                            std::to_string(m.hidden) + ") must split evenly over the tp chips"};
    }
  }
  if (cli.ep > 1 && !l.expert_group) {
    return Failure{2, "--ep " + std::to_string(cli.ep) + ": " +
                          (moe_model ? "the experts spread over the chips of one stage of one replica (--chips / (--pp x --dp) = " +
                                           std::to_string(tp) + " here)"
                                     : std::string("the model has no MoE layer"))};
  }
  if (l.stages > cfg.model.num_layers) {
    return Failure{2, "--pp " + std::to_string(l.stages) + ": more stages than the model's " +
                          std::to_string(cfg.model.num_layers) + " layers"};
  }
  if (l.batch % (l.replicas * l.microbatches) != 0) {
    return Failure{2, "--batch " + std::to_string(l.batch) + " is not divisible by --dp x --microbatches (" +
                          std::to_string(l.replicas) + " x " + std::to_string(l.microbatches) + ")"};
  }
  // An expert group's attention: data-parallel when the step's rows split over its chips (and
  // --tp was not asked for), else split by heads when they split, else replicated.
  const bool mla = m.type == gen::ModelType::deepseek_v3;
  const bool heads_split = m.heads % tp == 0 && (mla || m.kv_heads % tp == 0);
  if (l.expert_group && cli.tp > 1 && !heads_split) {
    return Failure{2, "--tp " + std::to_string(tp) + ": the attention heads (" + std::to_string(m.heads) + ")" +
                          (mla ? std::string() : " and kv heads (" + std::to_string(m.kv_heads) + ")") +
                          " must split evenly over the tp chips (tensor-parallel attention of an expert group)"};
  }
  l.dp_attention = l.expert_group && cli.tp == 0 && l.rows() % l.tp == 0;
  l.tp_attention = l.expert_group && !l.dp_attention && heads_split && !(cli.replicated_attention && cli.tp == 0);
  return std::nullopt;
}

gen::ModelConfig heads_slice(const gen::ModelConfig& m, uint32_t tp) {
  gen::ModelConfig s = m;
  s.heads = m.heads / tp;
  if (m.kv_heads % tp == 0) s.kv_heads = m.kv_heads / tp;  // MLA: kv heads are the heads (unused)
  return s;
}

gen::ModelConfig tp_slice(const gen::ModelConfig& m, uint32_t tp) {
  gen::ModelConfig s = m;
  s.heads = m.heads / tp;
  s.kv_heads = m.kv_heads / tp;
  s.intermediate = m.intermediate / tp;
  return s;
}

std::optional<Failure> plan_all(const GenCli& cli, std::vector<ModelPlan>& out) {
  out.resize(1);
  std::map<int, gen::SizedLayer> kinds;
  if (auto f = plan_model(cli, out[0], 0, 0, &kinds)) return f;
  const ModelLayout l = out[0].layout;
  out.resize(size_t{l.stages} * l.tp);
  for (uint32_t p = 0; p < l.stages; ++p) {
    for (uint32_t r = 0; r < l.tp; ++r) {
      if (p + r == 0) continue;
      if (auto f = plan_model(cli, out[p * l.tp + r], p, r, &kinds)) return f;
    }
  }
  return std::nullopt;
}

std::optional<Failure> plan_model(const GenCli& cli, ModelPlan& out, uint32_t stage, uint32_t rank,
                                  std::map<int, gen::SizedLayer>* kinds) {
  out = ModelPlan{};
  HfConfig& cfg = out.cfg;
  GenCli request = cli;  // with --model, --ep counts chips, not the one-layer cores
  request.ep = 0;
  if (auto f = read_request(request, cfg, out.inference)) return f;
  if (auto f = check_model_request(cli, cfg)) return f;
  if (auto f = model_layout(cli, cfg, out.layout)) return f;
  out.stage = stage;
  out.rank = rank;
  out.inference.batch = out.layout.rows();
  GenCli one = cli;  // each layer as the one-layer gen plans it on one chip's cores
  one.batch = out.layout.rows();
  one.tp = 0;
  one.ep = 0;
  const gen::ParallelConfig par{cli.cores, 0, 0};
  uint32_t first = 0, last = 0;
  out.layout.layers_of(stage, cfg.model.num_layers, first, last);
  // A tensor-parallel group's first chip runs the embedding (the others receive its output) and
  // the head (the others hold the same hidden states: one copy of the logits is enough).
  // With tp every chip of the last stage runs the head on its share of the vocabulary; the
  // first merges the next token.
  const bool has_embed = stage == 0 && rank == 0, has_head = stage + 1 == out.layout.stages;
  out.steps.reserve(last - first + 2);
  gen::GenError ge;
  if (has_embed) {
    ModelStep embed;
    embed.name = "embed";
    embed.kind = gen::Program::embed;
    if (auto f = gen_failure(gen::size_embed(cfg.model, out.inference, par, embed.plan, ge), ge, "embedding")) return f;
    out.steps.push_back(std::move(embed));
  }
  std::map<bool, size_t> sized;  // layer kind (MoE or not) -> the step planned first
  gen::SizedLayer parts[2];
  const bool split = out.layout.tp > 1 && !out.layout.expert_group;  // dense layers in tensor-parallel parts
  if (split && last > first) {
    if (auto f = size_parts(cli, out, first, parts)) return f;
  }
  for (uint32_t L = first; L < last && split; ++L) push_layer_parts(out, L, first, parts);
  for (uint32_t L = first; L < last && !split && !out.layout.dp_attention && !out.layout.tp_attention; ++L) {
    ModelStep s;
    s.name = "layer." + std::to_string(L);
    s.layer = L;
    s.position = L - first;
    const bool moe = is_moe_layer(cfg, L);
    auto it = sized.find(moe);
    if (it != sized.end()) {
      s.plan = out.steps[it->second].plan;  // same kind: the same plan but for its addresses
    } else if (kinds != nullptr && kinds->count(moe) != 0) {
      s.plan = kinds->at(moe);
    } else {
      HfConfig c = cfg;
      if (auto f = size_request_layer(one, L, c, out.inference, s.plan)) {
        return Failure{f->code, s.name + ": " + f->message};
      }
      if (kinds != nullptr) kinds->emplace(moe, s.plan);
    }
    if (it == sized.end()) {
      if (moe && out.layout.expert_group) {
        if (auto f = chip_experts(cli, s, rank, out.layout.tp)) return f;
      }
      sized.emplace(moe, out.steps.size());
    }
    s.two_phase = s.plan.model.moe_layer && !cli.static_experts;
    if (s.plan.model.moe_layer && out.layout.expert_group) s.collective = Collective::all_reduce;
    out.steps.push_back(std::move(s));
  }
  std::map<int, gen::SizedLayer> own_kinds;  // the data-parallel attention's kinds (when `kinds` is not given)
  if (out.layout.tp_attention) {
    if (auto f = tp_attention_steps(cli, one, out, first, last, kinds != nullptr ? *kinds : own_kinds)) return f;
  }
  for (uint32_t L = first; L < last && out.layout.dp_attention; ++L) {
    if (auto f = dp_layer_steps(cli, one, out, L, first, L + 1 == last, kinds != nullptr ? *kinds : own_kinds)) return f;
  }
  if (has_head) {
    ModelStep head;
    head.name = "head";
    head.kind = gen::Program::head;
    gen::ParallelConfig hp = par;
    hp.vocab_rank = rank;
    hp.vocab_ranks = out.layout.tp;
    if (auto f = gen_failure(gen::size_head(cfg.model, out.inference, hp, head.plan, ge), ge, "head")) return f;
    out.steps.push_back(std::move(head));
    if (out.layout.tp > 1 && rank == 0) {
      ModelStep merge;
      merge.name = "head.merge";
      merge.kind = gen::Program::head_merge;
      if (auto f = gen_failure(gen::size_head_merge(cfg.model, out.inference, hp, merge.plan, ge), ge, "head")) return f;
      out.steps.push_back(std::move(merge));
    }
  }
  place_model(out, last - first);
  return std::nullopt;
}

}  // namespace tilefw::tools
