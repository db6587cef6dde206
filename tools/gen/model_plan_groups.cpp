// The steps of a layer on a chip of a group of chips (model_plan_groups.hpp): tensor-parallel
// parts of a dense layer, a MoE layer's share of experts, the data-parallel and the
// tensor-parallel attention of an expert-parallel group (docs/whole-model.md section 3).
#include "gen/model_plan_groups.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "commands.hpp"

namespace tilefw::tools::plan_detail {

namespace {
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;
}  // namespace

namespace {
// The MLP part touches no attention tensor, so its FFN columns may split over every core even
// when the chip's few heads split over fewer (Llama-3-8B on 8 chips: 4 heads, 1 kv head per
// chip): the part is sized as if the chip had one head per core. Kept only when that plan holds
// the same tensors at the same offsets for everything the MLP reads and writes.
void mlp_on_every_core(const GenCli& cli, const ModelPlan& mp, const gen::ModelConfig& m, gen::SizedLayer (&parts)[2]) {
  if (parts[1].parallel.tp >= cli.cores) return;
  gen::ModelConfig wide = m;
  wide.heads = wide.kv_heads = cli.cores;
  gen::SizedLayer p;
  gen::GenError ge;
  const gen::ParallelConfig par{cli.cores, 0, 0, gen::LayerPart::mlp, mp.rank == 0};
  if (gen::size_layer(wide, mp.inference, par, p, ge) != Status::ok || p.parallel.tp != cli.cores) return;
  for (TensorId id : {TensorId::post_attention_layernorm, TensorId::gate_proj_w, TensorId::gate_proj_b, TensorId::up_proj_w,
                      TensorId::up_proj_b, TensorId::down_proj_w, TensorId::down_proj_b, TensorId::hidden_states,
                      TensorId::hidden_states_out}) {
    const TensorInfo &a = p.memory[id], &b = parts[1].memory[id];
    if (a.present != b.present || a.bytes != b.bytes) return;
  }
  for (uint32_t i = 0; i < gen::kTensorCount; ++i) {  // every other tensor: an attention one the part never touches
    const TensorInfo &a = p.memory.tensors[i], &b = parts[0].memory.tensors[i];
    if (a.present && !b.present) return;
  }
  parts[1] = p;
}

}  // namespace

void push_layer_parts(ModelPlan& mp, uint32_t L, uint32_t first, const gen::SizedLayer (&parts)[2]) {
  for (uint32_t i = 0; i < 2; ++i) {
    ModelStep s;
    s.name = "layer." + std::to_string(L) + (i == 0 ? ".attn" : ".mlp");
    s.layer = L;
    s.position = L - first;
    s.part = i == 0 ? gen::LayerPart::attention : gen::LayerPart::mlp;
    s.plan = parts[i];
    s.collective = Collective::all_reduce;
    mp.steps.push_back(std::move(s));
  }
}

// The two parts of dense layer L on a chip of a tensor-parallel group (its slice of the heads
// and FFN columns), sized as the one-layer gen sizes a layer on the chip's cores.
std::optional<Failure> size_parts(const GenCli& cli, const ModelPlan& mp, uint32_t L, gen::SizedLayer (&parts)[2]) {
  gen::ModelConfig m = tp_slice(mp.cfg.model, mp.layout.tp);
  m.moe_layer = false;
  for (uint32_t i = 0; i < 2; ++i) {
    gen::ParallelConfig par{cli.cores, 0, 0, i == 0 ? gen::LayerPart::attention : gen::LayerPart::mlp, mp.rank == 0};
    gen::GenError ge;
    const Status s = gen::size_layer(m, mp.inference, par, parts[i], ge);
    if (s != Status::ok) {
      return Failure{s == Status::gen_bad_config ? 2 : 1, "layer." + std::to_string(L) + ": " + status_name(s) + ": " +
                                                              ge.what + " (" + std::to_string(ge.value) + ")"};
    }
  }
  mlp_on_every_core(cli, mp, m, parts);
  return std::nullopt;
}

namespace {
// A MoE layer in passes on a chip holding n of its experts (moe_passes.cpp): the routing phase
// reads which experts from the per-chip mask gen::TensorId::moe_local (placed by place_layer
// with the coeff tensors), and the per-core scratch of the experts' slots and ranks holds the
// chip's share, ceil(n / ep cores) experts a core, not the whole layer's (DeepSeek-V3 prefill
// 4096: 2 GB a chip on 16 chips instead of 45 GB); the scratch tensors are packed anew, in
// their order, from the lowest one's offset.
void passes_share(gen::SizedLayer& p, uint32_t n) {
  TensorInfo& t = p.memory.tensors[static_cast<uint32_t>(TensorId::moe_local)];
  t.id = TensorId::moe_local;
  t.role = TensorRole::constant;
  t.name = "gen.moe_local";
  t.present = true;
  t.dtype = DType::f32;
  t.rank = 1;
  t.shape[0] = 2 * p.model.moe.experts;
  t.bytes = uint64_t{t.shape[0]} * 4;
  t.device_addr = sg::make_dma_address(1, p.memory.coeff_bytes);
  const uint32_t L = (n + p.parallel.ep - 1) / p.parallel.ep, K = std::min(p.model.moe.top_k, L);
  const std::pair<TensorId, uint32_t> cut[] = {{TensorId::moe_xe, L}, {TensorId::moe_ye, L}, {TensorId::moe_idx, K},
                                               {TensorId::moe_rw, K}};
  for (auto [id, v] : cut) {
    TensorInfo& s = p.memory.tensors[static_cast<uint32_t>(id)];
    s.bytes = s.bytes / s.shape[1] * v;  // [cores, experts or ranks, ...]
    s.shape[1] = v;
  }
  std::vector<TensorInfo*> scratch;
  for (TensorInfo& s : p.memory.tensors) {
    if (!s.present || sg::dma_tag(s.device_addr) != 2 || is_cache(s.id) || is_shared_input(s.id)) continue;
    if (s.id == TensorId::hidden_states || s.id == TensorId::hidden_states_out) continue;
    scratch.push_back(&s);
  }
  std::sort(scratch.begin(), scratch.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->device_addr < b->device_addr; });
  uint64_t at = scratch.empty() ? 0 : sg::dma_offset(scratch.front()->device_addr);
  for (TensorInfo* s : scratch) {
    move(p, s->id, sg::make_dma_address(2, at));
    at = align64(at + s->bytes);
  }
}

// Chip `rank` of an expert-parallel group of `ep` chips: the experts e with e mod ep = rank only,
// their weight tensors cut to those rows (place_layer packs the layer's coeff tensors
// anew); the residual and the shared experts on the group's first chip only.
void expert_share(gen::SizedLayer& p, uint32_t rank, uint32_t ep) {
  const uint32_t n = p.model.moe.experts / ep;
  p.parallel.expert_first = rank;
  p.parallel.expert_count = n;
  p.parallel.residual = rank == 0;
  for (TensorId id : {TensorId::experts_gate, TensorId::experts_up, TensorId::experts_down}) {
    TensorInfo& t = p.memory.tensors[static_cast<uint32_t>(id)];
    if (!t.present) continue;
    t.bytes = t.bytes / t.shape[0] * n;
    t.shape[0] = n;
  }
  if (p.chunks > 1) passes_share(p, n);
}

// Data-parallel attention's MoE part with owner rows (GenCli::owner_rows): the chip's token
// rows [first, first + count) take the residual and the shared experts (the moe_own mask, a
// coeff constant the layer's packing places), and every token's top-k ids go to moe_choice
// (per request, placed as the layer's expert counts are).
void owner_rows_share(gen::SizedLayer& p, uint32_t first, uint32_t count) {
  const uint32_t T = p.inference.batch * p.inference.seq, k = p.model.moe.top_k;
  p.parallel.own_first = first;
  p.parallel.own_count = count;
  p.parallel.residual = false;  // the mask says where: the commands do not depend on the owned rows
  const auto add = [&p](TensorId id, TensorRole role, const char* name, uint32_t tag, uint32_t rows, uint32_t cols) {
    TensorInfo& t = p.memory.tensors[static_cast<uint32_t>(id)];
    t.id = id;
    t.role = role;
    t.name = name;
    t.present = true;
    t.dtype = DType::f32;
    t.rank = cols == 1 ? 1 : 2;
    t.shape[0] = rows;
    t.shape[1] = cols == 1 ? 0 : cols;
    t.bytes = uint64_t{rows} * cols * 4;
    t.device_addr = sg::make_dma_address(tag, 0);
  };
  add(TensorId::moe_own, TensorRole::constant, "gen.moe_own", 1, T, 1);
  add(TensorId::moe_choice, TensorRole::output, "moe_choice", 2, T, k);
}

}  // namespace

// The chip's share of a MoE step's experts (expert_share), with --static-experts its single
// static program over them sized.
std::optional<Failure> chip_experts(const GenCli& cli, ModelStep& s, uint32_t rank, uint32_t ep, bool every_row,
                                    uint32_t own) {
  // A whole MoE layer in passes runs on the chip's experts (passes_share), and so does the MoE
  // part on every row after tensor-parallel attention (`every_row`); the MoE part of
  // data-parallel attention in passes is not implemented.
  if (s.plan.chunks > 1 && s.part != gen::LayerPart::whole && !every_row) {
    return Failure{1, s.name + ": --ep " + std::to_string(ep) + ": the MoE part runs in " + std::to_string(s.plan.chunks) +
                          " passes (decode row passes), which data-parallel attention (a batch that splits over the "
                          "group's chips) does not implement; fewer rows per step map in one pass"};
  }
  expert_share(s.plan, rank, ep);
  if (own > 0) owner_rows_share(s.plan, rank * own, own);  // after expert_share: no residual on any chip
  if (!cli.static_experts) return std::nullopt;
  gen::GenError ge;
  for (uint32_t c = 0; c < s.plan.parallel.cores; ++c) {
    gen::PhaseRequest req;
    req.phase = 0;
    if (gen::size_phase(s.plan, c, req, s.plan.stream_bytes[c], s.plan.stream_commands[c], ge) != Status::ok) {
      return Failure{1, s.name + ": " + status_name(ge.status) + ": " + ge.what};
    }
  }
  return std::nullopt;
}

namespace {
// A part of a MoE layer with data-parallel or tensor-parallel attention: the tensors it does not touch left out of
// its plan (the attention part's dense MLP, which the layer does not have; the MoE part's
// attention weights and caches), and its analytic figures its own (count_work counts a whole
// layer).
void keep_part_tensors(gen::SizedLayer& p) {
  static constexpr TensorId kMlp[] = {TensorId::post_attention_layernorm, TensorId::gate_proj_w, TensorId::gate_proj_b,
                                      TensorId::up_proj_w, TensorId::up_proj_b, TensorId::down_proj_w, TensorId::down_proj_b};
  static constexpr TensorId kAttention[] = {
      TensorId::input_layernorm, TensorId::q_proj_w, TensorId::q_proj_b, TensorId::k_proj_w, TensorId::k_proj_b,
      TensorId::v_proj_w, TensorId::v_proj_b, TensorId::o_proj_w, TensorId::o_proj_b, TensorId::q_norm, TensorId::k_norm,
      TensorId::q_a_proj_w, TensorId::q_a_layernorm, TensorId::q_b_proj_w, TensorId::kv_a_proj_w, TensorId::kv_a_layernorm,
      TensorId::kv_b_proj_w, TensorId::past_key, TensorId::past_value, TensorId::present_key, TensorId::present_value,
      TensorId::past_kv_latent, TensorId::past_k_rope, TensorId::present_kv_latent, TensorId::present_k_rope};
  const bool attention = p.parallel.part == gen::LayerPart::attention;
  for (TensorId id : attention ? std::vector<TensorId>(std::begin(kMlp), std::end(kMlp))
                               : std::vector<TensorId>(std::begin(kAttention), std::end(kAttention))) {
    p.memory.tensors[static_cast<uint32_t>(id)].present = false;
  }
  const gen::ModelConfig& m = p.model;
  const uint64_t T = uint64_t{p.inference.batch} * p.inference.seq, H = m.hidden;
  if (attention) {
    p.flops -= 2 * T * 3 * H * m.intermediate;  // count_work's dense MLP term
  } else if (!m.moe_layer) {  // a dense layer's FFN (tensor-parallel attention: an MLA layer's)
    p.flops = 2 * T * 3 * H * m.intermediate;
  } else {
    p.flops = 2 * T * (uint64_t{m.moe.experts} * H + 3ull * m.moe.top_k * H * m.moe.expert_intermediate +
                       3ull * H * m.moe.shared_intermediate);
  }
  p.bytes_ddr = 0;
  for (const TensorInfo& t : p.memory.tensors) {
    if (t.present && t.role != TensorRole::scratch) p.bytes_ddr += t.bytes;
  }
}

}  // namespace

// Layer L on chip `rank` of an expert-parallel group with data-parallel attention
// (ModelLayout::dp_attention): a dense layer whole on the chip's rows; a MoE layer's attention
// part on its rows (then the all-gather: the dispatch) and its MoE part on every row with the
// chip's experts (then the reduce-scatter: the combine). The stage's last layer leaves every
// row on every chip (the head, or the next stage, reads them all): its combine is an
// all-reduce, a dense layer there is followed by an all-gather. Kinds: 2 a dense layer on its
// rows, 3 the attention part, 4 the MoE part (before the chip's experts are cut).
std::optional<Failure> dp_layer_steps(const GenCli& cli, const GenCli& one, ModelPlan& out, uint32_t L, uint32_t first,
                                      bool stage_end, std::map<int, gen::SizedLayer>& kinds) {
  const bool moe = is_moe_layer(out.cfg, L);
  const uint32_t ep = out.layout.tp;
  gen::InferenceConfig rows = out.inference;
  rows.batch /= ep;
  for (uint32_t i = 0; i < (moe ? 2u : 1u); ++i) {
    ModelStep s;
    s.part = !moe ? gen::LayerPart::whole : i == 0 ? gen::LayerPart::attention : gen::LayerPart::mlp;
    s.name = "layer." + std::to_string(L) + (!moe ? "" : i == 0 ? ".attn" : ".mlp");
    s.layer = L;
    s.position = L - first;
    s.own_tensors = moe;
    const int key = 2 + static_cast<int>(s.part);
    auto it = kinds.find(key);
    if (it == kinds.end()) {
      HfConfig c = out.cfg;
      if (auto f = size_request_layer(one, L, c, s.part == gen::LayerPart::mlp ? out.inference : rows, s.plan, s.part)) {
        return Failure{f->code, s.name + ": " + f->message};
      }
      if (moe) keep_part_tensors(s.plan);
      it = kinds.emplace(key, s.plan).first;
    }
    s.plan = it->second;
    if (s.part == gen::LayerPart::mlp) {
      const uint32_t own = rows.batch * rows.seq;  // the chip's tokens: its batch rows
      const bool owners = cli.owner_rows || cli.ep_comm == "alltoall";
      if (auto f = chip_experts(cli, s, out.rank, ep, false, owners ? own : 0)) return f;
    }
    s.two_phase = s.plan.model.moe_layer && !cli.static_experts;
    s.collective = s.part == gen::LayerPart::attention ? Collective::all_gather
                   : s.part == gen::LayerPart::mlp    ? (stage_end                  ? Collective::all_reduce
                                                         : cli.ep_comm == "alltoall" ? Collective::a2a_combine
                                                                                     : Collective::reduce_scatter)
                   : stage_end                        ? Collective::all_gather
                                                      : Collective::none;
    out.steps.push_back(std::move(s));
  }
  return std::nullopt;
}

// Layers [first, last) on chip `rank` of an expert-parallel group with tensor-parallel attention
// (ModelLayout::tp_attention). A MoE layer: its attention part on the chip's heads (planned as
// the layer without its MoE block, its dense-MLP tensors left out; the residual on the group's
// first chip), all-reduced, then its MoE part on every row with the chip's experts, all-reduced.
// A dense GQA layer whose heads, kv heads and FFN columns split: the tensor-parallel parts
// (size_parts); a dense MLA layer whose FFN columns split: the attention part as a MoE layer's,
// all-reduced, then its FFN columns' part (planned on its own tensors), all-reduced; any other
// dense layer whole on every chip. Kinds: 0 a dense layer whole, 4 the MoE part, 6 and 7 the
// attention part on the first chip and on the others, 8 and 9 a dense MLA layer's FFN part.
std::optional<Failure> tp_attention_steps(const GenCli& cli, const GenCli& one, ModelPlan& out, uint32_t first,
                                          uint32_t last, std::map<int, gen::SizedLayer>& kinds) {
  const gen::ModelConfig& m = out.cfg.model;
  const uint32_t tp = out.layout.tp;
  const bool mla = m.type == gen::ModelType::deepseek_v3;
  const bool dense_split = !mla && m.heads % tp == 0 && m.kv_heads % tp == 0 && m.intermediate % tp == 0;
  gen::SizedLayer parts[2];
  bool have_parts = false;
  for (uint32_t L = first; L < last; ++L) {
    const bool moe = is_moe_layer(out.cfg, L);
    if (!moe && dense_split) {
      if (!have_parts) {
        if (auto f = size_parts(cli, out, L, parts)) return f;
        have_parts = true;
      }
      push_layer_parts(out, L, first, parts);
      continue;
    }
    const bool parts = moe || (mla && m.intermediate % tp == 0);  // else whole on every chip
    for (int i = 0; i < (parts ? 2 : 1); ++i) {
      ModelStep s;
      s.part = !parts ? gen::LayerPart::whole : i == 0 ? gen::LayerPart::attention : gen::LayerPart::mlp;
      s.name = "layer." + std::to_string(L) + (!parts ? "" : i == 0 ? ".attn" : ".mlp");
      s.layer = L;
      s.position = L - first;
      s.own_tensors = parts;
      s.heads_cut = parts && (i == 0 || !moe);  // the chip's heads, or its FFN columns
      const int key = !parts ? 0 : i == 0 ? (out.rank == 0 ? 6 : 7) : moe ? 4 : out.rank == 0 ? 8 : 9;
      auto it = kinds.find(key);
      if (it == kinds.end()) {
        gen::SizedLayer p;
        HfConfig c = out.cfg;
        if (s.heads_cut) {
          gen::ModelConfig h = heads_slice(m, tp);
          h.moe_layer = false;
          if (i == 1) h.intermediate = m.intermediate / tp;
          gen::GenError ge;
          const gen::ParallelConfig par{cli.cores, 0, 0, s.part, out.rank == 0};
          if (auto f = gen_failure(gen::size_layer(h, out.inference, par, p, ge), ge, s.name)) return f;
        } else if (auto f = size_request_layer(one, L, c, out.inference, p, s.part)) {
          return Failure{f->code, s.name + ": " + f->message};
        }
        if (parts) keep_part_tensors(p);
        it = kinds.emplace(key, p).first;
      }
      s.plan = it->second;
      if (moe && s.part == gen::LayerPart::mlp) {
        if (auto f = chip_experts(cli, s, out.rank, tp, true)) return f;
      }
      s.two_phase = s.plan.model.moe_layer && !cli.static_experts;
      s.collective = parts ? Collective::all_reduce : Collective::none;
      out.steps.push_back(std::move(s));
    }
  }
  return std::nullopt;
}

}  // namespace plan_detail
