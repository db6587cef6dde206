// The whole model's steps and memory map (model_plan.hpp).
#include "gen/model_plan.hpp"

#include <algorithm>
#include <map>

#include "commands.hpp"

namespace tilefw::tools {

namespace {
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

uint64_t align64(uint64_t v) { return (v + 63) / 64 * 64; }

bool is_cache(TensorId id) {
  switch (id) {
    case TensorId::past_key: case TensorId::past_value: case TensorId::present_key: case TensorId::present_value:
    case TensorId::past_kv_latent: case TensorId::past_k_rope: case TensorId::present_kv_latent:
    case TensorId::present_k_rope: case TensorId::expert_tokens:
      return true;
    default:
      return false;
  }
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

// Places the model's tensors: cursors per DDR tag, shared addresses by role.
struct Placement {
  uint64_t coeff = 0, neuron = 0;
  uint64_t hidden[2] = {};
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
void place_layer(ModelStep& s, Placement& pl, uint64_t& cache_bytes) {
  gen::SizedLayer& p = s.plan;
  const uint64_t coeff0 = pl.coeff;
  uint64_t scratch_lo = UINT64_MAX, scratch_hi = 0;
  for (TensorInfo& t : p.memory.tensors) {
    if (!t.present || sg::dma_tag(t.device_addr) != 2 || is_cache(t.id) || is_shared_input(t.id)) continue;
    if (t.id == TensorId::hidden_states || t.id == TensorId::hidden_states_out) continue;
    scratch_lo = std::min(scratch_lo, sg::dma_offset(t.device_addr));
    scratch_hi = std::max(scratch_hi, sg::dma_offset(t.device_addr) + t.bytes);
  }
  for (TensorInfo& t : p.memory.tensors) {
    if (!t.present) continue;
    const uint64_t off = sg::dma_offset(t.device_addr);
    if (sg::dma_tag(t.device_addr) == 1) {
      move(p, t.id, sg::make_dma_address(1, coeff0 + off));
    } else if (t.id == TensorId::hidden_states) {
      move(p, t.id, pl.hidden[s.layer % 2]);
    } else if (t.id == TensorId::hidden_states_out) {
      move(p, t.id, pl.hidden[(s.layer + 1) % 2]);
    } else if (is_shared_input(t.id)) {
      auto it = pl.shared.find(t.id);
      if (it == pl.shared.end()) it = pl.shared.emplace(t.id, pl.take(2, t.bytes)).first;
      move(p, t.id, it->second);
    } else if (is_cache(t.id)) {
      move(p, t.id, pl.take(2, t.bytes));
      if (t.id != TensorId::expert_tokens) cache_bytes += t.bytes;
    } else {
      move(p, t.id, sg::make_dma_address(2, pl.scratch_base + (off - scratch_lo)));
    }
  }
  pl.coeff = align64(coeff0 + p.memory.coeff_bytes);
  if (scratch_hi > scratch_lo) pl.scratch_bytes = std::max(pl.scratch_bytes, scratch_hi - scratch_lo);
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

std::optional<Failure> plan_model(const GenCli& cli, ModelPlan& out) {
  out = ModelPlan{};
  HfConfig& cfg = out.cfg;
  if (auto f = read_request(cli, cfg, out.inference)) return f;
  if (auto f = check_model_request(cli, cfg)) return f;
  const gen::ParallelConfig par{cli.cores, cli.tp, cli.ep};
  const uint32_t N = cfg.model.num_layers;
  out.steps.reserve(N + 2);
  ModelStep embed;
  embed.name = "embed";
  embed.kind = gen::Program::embed;
  gen::GenError ge;
  if (auto f = gen_failure(gen::size_embed(cfg.model, out.inference, par, embed.plan, ge), ge, "embedding")) return f;
  out.steps.push_back(std::move(embed));
  std::map<bool, size_t> sized;  // layer kind (MoE or not) -> the step planned first
  for (uint32_t L = 0; L < N; ++L) {
    ModelStep s;
    s.name = "layer." + std::to_string(L);
    s.layer = L;
    const bool moe = is_moe_layer(cfg, L);
    auto it = sized.find(moe);
    if (it != sized.end()) {
      s.plan = out.steps[it->second].plan;  // same kind: the same plan but for its addresses
    } else {
      HfConfig c = cfg;
      if (auto f = size_request_layer(cli, L, c, out.inference, s.plan)) {
        return Failure{f->code, s.name + ": " + f->message};
      }
      sized.emplace(moe, out.steps.size());
    }
    s.two_phase = s.plan.model.moe_layer && !cli.static_experts;
    out.steps.push_back(std::move(s));
  }
  ModelStep head;
  head.name = "head";
  head.kind = gen::Program::head;
  if (auto f = gen_failure(gen::size_head(cfg.model, out.inference, par, head.plan, ge), ge, "head")) return f;
  out.steps.push_back(std::move(head));
  // The memory map. Sized plans keep their own relative layout; only bases move.
  Placement pl;
  const uint64_t T = uint64_t{out.inference.batch} * out.inference.seq;
  ModelStep& e = out.steps.front();
  move(e.plan, TensorId::embed_tokens, pl.take(1, e.plan.memory[TensorId::embed_tokens].bytes));
  move(e.plan, TensorId::input_ids, pl.take(2, T * 4));
  pl.hidden[0] = pl.take(2, T * cfg.model.hidden * 4);
  pl.hidden[1] = pl.take(2, T * cfg.model.hidden * 4);
  move(e.plan, TensorId::hidden_states_out, pl.hidden[0]);
  for (size_t i = 1; i + 1 < out.steps.size(); ++i) place_layer(out.steps[i], pl, out.cache_bytes);
  ModelStep& h = out.steps.back();
  move(h.plan, TensorId::hidden_states, pl.hidden[N % 2]);
  for (TensorId id : {TensorId::final_norm, TensorId::lm_head_w, TensorId::head_iota}) {
    if (h.plan.memory[id].present) move(h.plan, id, pl.take(1, h.plan.memory[id].bytes));
  }
  if (cfg.model.tie_embeddings) move(h.plan, TensorId::embed_tokens, e.plan.memory[TensorId::embed_tokens].device_addr);
  for (TensorId id : {TensorId::logits, TensorId::next_token, TensorId::head_cand}) {
    move(h.plan, id, pl.take(2, h.plan.memory[id].bytes));
  }
  // The layers' shared scratch area goes last in tag 2: its size is known only now.
  pl.scratch_base = pl.neuron;
  for (size_t i = 1; i + 1 < out.steps.size(); ++i) {
    for (TensorInfo& t : out.steps[i].plan.memory.tensors) {
      const bool scratch = t.present && sg::dma_tag(t.device_addr) == 2 && !is_cache(t.id) && !is_shared_input(t.id) &&
                           t.id != TensorId::hidden_states && t.id != TensorId::hidden_states_out;
      if (scratch) move(out.steps[i].plan, t.id, t.device_addr + sg::make_dma_address(0, pl.scratch_base));
    }
  }
  pl.neuron = align64(pl.scratch_base + pl.scratch_bytes);
  out.coeff_bytes = std::max<uint64_t>(pl.coeff, 64);
  out.neuron_bytes = std::max<uint64_t>(pl.neuron, 64);
  for (const ModelStep& s : out.steps) {
    out.weight_bytes += weight_bytes_of(s.plan);
    out.flops += static_cast<double>(s.plan.flops);
    out.bytes_ddr += static_cast<double>(s.plan.bytes_ddr);
  }
  if (cfg.model.tie_embeddings) out.weight_bytes -= h.plan.memory[TensorId::embed_tokens].bytes;  // counted once
  return std::nullopt;
}

}  // namespace tilefw::tools
