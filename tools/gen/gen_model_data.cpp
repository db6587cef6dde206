// `tilefw gen --model`: the stages' plans, the system of chips, the DDR capacity check, the
// tensor data and the manifest (model_writer.hpp).
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "commands.hpp"
#include "formats/c2c_system.hpp"
#include "gen/gen_data.hpp"
#include "gen/gen_output.hpp"
#include "gen/model_writer.hpp"
#include "run/moe_phases.hpp"
#include "tilefw/cmd/topology.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

uint64_t capacity_bytes(const Writer& w) {
  return (w.cli.ddr_capacity_gib != 0 ? w.cli.ddr_capacity_gib : w.chip.ddr_capacity_gib) << 30;
}

// Each step's data is drawn from its own seed (layers differ, so a layer-order mistake shows),
// the same whatever the chips: every layout of one request holds the same numbers.
uint64_t step_seed(uint64_t seed, const ModelStep& s) {
  const uint64_t k = s.kind == gen::Program::embed ? 0 : s.kind == gen::Program::head ? 1 : 2 + uint64_t{s.layer};
  return seed ^ (0x9E3779B97F4A7C15ull * (k + 1));
}

ManifestTensor entry(const TensorInfo& t, const std::string& name, const std::string& file, uint64_t offset,
                     uint32_t chip) {
  ManifestTensor m = manifest_tensor(t, name);
  m.file = file;
  m.file_offset = offset;
  m.chip = chip;
  return m;
}

// A per-request tensor of step `s` (its plan holds one micro-batch) as the whole request's:
// shape[0] (the batch rows) and bytes scaled to every replica's and micro-batch's rows; with
// more than one replica, one part per replica on its chip.
ManifestTensor whole(const Writer& w, const ModelStep& s, const TensorInfo& t, uint32_t stage, const std::string& file) {
  const uint32_t share = w.layout.replicas * w.layout.microbatches;
  ManifestTensor m = entry(t, model_tensor_name(s, t), file, 0, w.layout.chip(0, stage));
  m.shape[0] *= share;
  m.bytes = t.bytes * share;
  if (w.layout.replicas > 1) {
    const uint64_t part = t.bytes * w.layout.microbatches;
    for (uint32_t d = 0; d < w.layout.replicas; ++d) m.parts.push_back({w.layout.chip(d, stage), t.device_addr, d * part, part});
  }
  return m;
}

// The full-request copy of a plan (its per-request tensors scaled), for drawing inputs.
gen::SizedLayer full_request(const Writer& w, const gen::SizedLayer& p) {
  gen::SizedLayer f = p;
  const uint32_t share = w.layout.replicas * w.layout.microbatches;
  f.inference.batch *= share;
  for (TensorInfo& t : f.memory.tensors) {
    if (!t.present || !per_request_rows(t.id)) continue;
    t.shape[0] *= share;
    t.bytes *= share;
  }
  return f;
}

std::vector<uint8_t> draw_ids(const Writer& w, uint64_t seed) {
  const ModelPlan& mp = w.stages.front();
  const uint64_t T = uint64_t{w.layout.batch} * mp.inference.seq;
  std::vector<uint8_t> b(T * 4);
  uint64_t x = seed ^ 0x5851F42D4C957F2Dull;
  for (uint64_t i = 0; i < T; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t id = static_cast<uint32_t>((x >> 33) % mp.cfg.model.vocab);
    std::memcpy(b.data() + i * 4, &id, 4);
  }
  return b;
}

std::string stage_file(const Writer& w, const char* base, uint32_t stage, uint32_t rank = 0) {
  std::string f = base;
  if (w.layout.stages > 1) f += ".s" + std::to_string(stage);
  if (w.layout.tp > 1) f += ".r" + std::to_string(rank);
  return f + ".bin";
}

// Tensor-parallel slices (docs/whole-model.md): a chip's tensor `t` is the whole tensor `whole`
// cut along its first dimension that differs (q/k/v, gate/up rows; o_proj, down_proj columns;
// a cache's kv heads): `outer` blocks of t.shape[dim] x `inner` elements each.
struct Cut {
  uint32_t dim = 0;
  uint64_t outer = 1, inner = 1, whole_n = 1, part_n = 1;  // part_n: t.shape[dim]
};
Cut cut_of(const TensorInfo& whole, const TensorInfo& t) {
  Cut c;
  while (c.dim < t.rank && whole.shape[c.dim] == t.shape[c.dim]) ++c.dim;
  if (c.dim == t.rank) {  // not cut: one block of everything
    c.dim = 0;
    c.whole_n = c.part_n = 1;
    c.inner = t.bytes / dtype_size(t.dtype);
    return c;
  }
  for (uint32_t i = 0; i < c.dim; ++i) c.outer *= t.shape[i];
  for (uint32_t i = c.dim + 1; i < t.rank; ++i) c.inner *= t.shape[i];
  c.whole_n = whole.shape[c.dim];
  c.part_n = t.shape[c.dim];
  return c;
}
// Rank r's bytes of tensor `t` from the whole tensor's.
std::vector<uint8_t> slice_bytes(const TensorInfo& whole, const TensorInfo& t, const std::vector<uint8_t>& src, uint32_t r) {
  const Cut c = cut_of(whole, t);
  const uint64_t es = dtype_size(t.dtype), blk = c.part_n * c.inner * es;
  std::vector<uint8_t> out(t.bytes, 0);
  for (uint64_t o = 0; o < c.outer; ++o) {
    const uint64_t from = (o * c.whole_n + (c.whole_n == c.part_n ? 0 : r * c.part_n)) * c.inner * es;
    if (from + blk <= src.size() && (o + 1) * blk <= out.size()) std::copy_n(src.begin() + static_cast<long>(from), blk, out.begin() + static_cast<long>(o * blk));
  }
  return out;
}

// A per-request tensor of a layer split over a tensor-parallel group, whole, with one part per
// (replica, block, chip): `at[r]` is where rank r's plan holds it.
ManifestTensor tp_whole(const Writer& w, const ModelStep& s, const TensorInfo& whole, const TensorInfo& t,
                        const std::vector<uint64_t>& at, uint32_t stage, const std::string& file) {
  const ModelLayout& l = w.layout;
  if (t.bytes == whole.bytes) return tilefw::tools::whole(w, s, t, stage, file);  // not cut (an MLA latent cache): on the first chip
  const uint32_t share = l.replicas * l.microbatches;
  ManifestTensor m = entry(whole, model_tensor_name(s, whole), file, 0, l.chip(0, stage));
  m.shape[0] *= share;
  m.bytes = whole.bytes * share;
  TensorInfo chip_t = t;  // every micro-batch's rows of one chip
  chip_t.shape[0] *= l.microbatches;
  TensorInfo replica = whole;  // one replica's rows of the whole tensor
  replica.shape[0] *= l.microbatches;
  const Cut c = cut_of(replica, chip_t);
  const uint64_t es = dtype_size(t.dtype), blk = c.part_n * c.inner * es;
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint64_t o = 0; o < c.outer; ++o) {
      for (uint32_t r = 0; r < l.tp; ++r) {
        const uint64_t off = ((d * c.outer + o) * c.whole_n + r * c.part_n) * c.inner * es;
        m.parts.push_back({l.chip(d, stage, r), at[r] + o * blk, off, blk});
      }
    }
  }
  return m;
}

// A per-request tensor of a step on its chip's rows (data-parallel attention: chip r of the
// group holds rows [r B / n, (r + 1) B / n) of each micro-batch's B), whole, with one part per
// (replica, micro-batch, chip): `at[r]` is where rank r's plan holds it.
ManifestTensor rows_whole(const Writer& w, const ModelStep& s, const TensorInfo& whole, const TensorInfo& t,
                          const std::vector<uint64_t>& at, uint32_t stage, const std::string& file) {
  const ModelLayout& l = w.layout;
  const uint32_t share = l.replicas * l.microbatches;
  ManifestTensor m = entry(whole, model_tensor_name(s, whole), file, 0, l.chip(0, stage));
  m.shape[0] *= share;
  m.bytes = whole.bytes * share;
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t mb = 0; mb < l.microbatches; ++mb) {
      for (uint32_t r = 0; r < l.tp; ++r) {
        m.parts.push_back({l.chip(d, stage, r), at[r] + mb * t.bytes, ((uint64_t{d} * l.microbatches + mb) * l.tp + r) * t.bytes, t.bytes});
      }
    }
  }
  return m;
}

// The logits of a head split over a tensor-parallel group, left where each chip computed its
// columns: a part per (replica, micro-batch, token row, chip), in the whole [tokens, V] order.
void logits_parts(const Writer& w, const TensorInfo& t, const std::vector<uint64_t>& at, uint32_t stage, ManifestTensor& o) {
  const ModelLayout& l = w.layout;
  const uint64_t V = t.shape[2], rows = uint64_t{t.shape[0]} * t.shape[1];  // one micro-batch's token rows
  o.parts.clear();
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t m = 0; m < l.microbatches; ++m) {
      for (uint64_t row = 0; row < rows; ++row) {
        for (uint32_t r = 0; r < l.tp; ++r) {
          const uint64_t c0 = V * r / l.tp, cn = V * (r + 1) / l.tp - c0;
          const uint64_t global = (uint64_t{d} * l.microbatches + m) * rows + row;
          o.parts.push_back({l.chip(d, stage, r), at[r] + m * t.bytes + (row * V + c0) * 4, (global * V + c0) * 4, cn * 4});
        }
      }
    }
  }
}

// The whole dense layer of a request split over tensor-parallel chips, as one chip would plan it
// (the numbers are drawn and the checkpoint read for it, then cut per chip).
std::optional<Failure> whole_layer(const Writer& w, const ModelPlan& mp, uint32_t layer, gen::SizedLayer& out) {
  GenCli one = w.cli;
  one.batch = mp.inference.batch;
  one.tp = one.ep = 0;
  HfConfig c = mp.cfg;
  if (auto f = size_request_layer(one, layer, c, mp.inference, out)) return Failure{f->code, "layer." + std::to_string(layer) + ": " + f->message};
  return std::nullopt;
}

// Where each rank's plan of stage `stage` holds tensor `id` of the step named `name`.
std::vector<uint64_t> rank_addresses(const Writer& w, uint32_t stage, const std::string& name, TensorId id) {
  std::vector<uint64_t> at(w.layout.tp, 0);
  for (uint32_t r = 0; r < w.layout.tp; ++r) {
    for (const ModelStep& s : w.stages[stage * w.layout.tp + r].steps) {
      if (s.name == name) at[r] = s.plan.memory[id].device_addr;
    }
  }
  return at;
}

// One plan's weights, constants and generator data (rotary tables, mask), its tensor lists.
std::optional<Failure> stage_data(Writer& w, uint32_t i, std::vector<uint8_t>& coeff, std::vector<uint8_t>& neuron,
                                  std::vector<uint8_t>& whole_weights) {
  const ModelPlan& mp = w.stages[i];
  const uint32_t p = mp.stage, rank = mp.rank;
  const bool files = !w.cli.timing_only;
  const bool has_embed = p == 0 && rank == 0;  // the table lives with the embedding (on the group's first chip)
  const std::string wfile = stage_file(w, "weights", p, rank);
  gen::SizedLayer whole_head, whole_moe;
  std::map<bool, gen::SizedLayer> whole_rows;  // data-parallel attention: each layer kind whole (MoE or not)
  std::map<bool, gen::SizedLayer> whole_cut;   // a step cut by heads: its layer kind whole (MoE or not)
  bool have_moe = false;
  for (const ModelStep& s : mp.steps) {
    if ((s.part == gen::LayerPart::mlp && !s.own_tensors) || s.kind == gen::Program::head_merge) continue;  // no tensors of their own
    // The attention part of a tensor-parallel layer (tp_attention: of a MoE layer too) holds a
    // slice of the whole layer's heads; a dense MLA layer's FFN part there its FFN columns.
    const bool cut_layer = (s.part == gen::LayerPart::attention && !s.own_tensors) || s.heads_cut;
    // Data-parallel attention: a step on the chip's rows (the numbers are the whole layer's).
    const bool row_cut = s.kind == gen::Program::layer && s.plan.inference.batch < mp.inference.batch;
    const bool moe_layer = is_moe_layer(mp.cfg, s.layer);
    if (row_cut && whole_rows.count(moe_layer) == 0) {
      if (auto f = whole_layer(w, mp, s.layer, whole_rows[moe_layer])) return f;
    }
    const bool cut_head = s.kind == gen::Program::head && w.layout.tp > 1;  // its rows of the LM head
    const bool cut = cut_layer || cut_head;
    if (cut_layer && whole_cut.count(moe_layer) == 0) {
      if (auto f = whole_layer(w, mp, s.layer, whole_cut[moe_layer])) return f;
    }
    // A MoE layer on a chip of an expert-parallel group: the numbers of the whole layer, its
    // experts cut to the chip's (expert_share in model_plan.cpp).
    const uint32_t ep_first = s.plan.parallel.expert_first, ep_count = s.plan.parallel.expert_count;
    const uint32_t ep_stride = ep_count == 0 ? 1 : s.plan.model.moe.experts / ep_count;
    if (ep_count != 0 && files && !have_moe) {
      if (auto f = whole_layer(w, mp, s.layer, whole_moe)) return f;
      have_moe = true;
    }
    if (cut_head) {
      gen::GenError ge;
      if (gen::size_head(mp.cfg.model, mp.inference, gen::ParallelConfig{w.cli.cores, 0, 0}, whole_head, ge) != Status::ok) {
        return Failure{1, std::string("head: ") + ge.what};
      }
    }
    const gen::SizedLayer& drawn = cut_layer ? whole_cut[moe_layer] : cut_head ? whole_head : row_cut ? whole_rows[moe_layer] : have_moe && ep_count != 0 ? whole_moe : s.plan;  // the numbers as one chip holds them
    LayerData data, kept;  // kept: a cut step's per-request tensors whole (their files)
    std::string error;
    const uint64_t seed = step_seed(w.cli.seed, s);
    const gen::SizedLayer full = full_request(w, drawn);
    if (files) {
      if (!load_weights(drawn, s.layer, w.cli.weights, seed, data, error)) return Failure{2, "--weights: " + error};
      if (s.kind == gen::Program::head && mp.cfg.model.tie_embeddings && !has_embed) {
        // The tied table on a later stage: the embedding's own numbers (drawn with its seed).
        LayerData table;
        ModelStep e;
        e.kind = gen::Program::embed;
        if (!load_weights(drawn, s.layer, w.cli.weights, step_seed(w.cli.seed, e), table, error)) {
          return Failure{2, "--weights: " + error};
        }
        data.bytes[static_cast<uint32_t>(TensorId::embed_tokens)] = table.bytes[static_cast<uint32_t>(TensorId::embed_tokens)];
      }
      if (s.kind == gen::Program::layer) make_inputs(full, mp.cfg, seed, data);
    } else if (!w.cli.weights.empty() && !check_weights(drawn, s.layer, w.cli.weights, error)) {
      return Failure{2, "--weights: " + error};
    }
    for (const TensorInfo& t : s.plan.memory.tensors) {
      if (!t.present) continue;
      const uint32_t id = static_cast<uint32_t>(t.id);
      if (cut && files && t.role != TensorRole::constant) {
        const bool rows = per_request_rows(t.id);
        if (rows || rank == 0) kept.bytes[id] = data.bytes[id];
        data.bytes[id] = slice_bytes(rows ? full.memory[t.id] : drawn.memory[t.id], rows ? full_request(w, s.plan).memory[t.id] : t,
                                     data.bytes[id], rank);
      }
      const bool expert_w = t.id == TensorId::experts_gate || t.id == TensorId::experts_up || t.id == TensorId::experts_down;
      if (expert_w && ep_count != 0 && files) {  // the chip's experts' rows: e = first, first + stride, ...
        const std::vector<uint8_t>& all = data.bytes[id];
        const uint64_t per = drawn.memory[t.id].bytes / drawn.memory[t.id].shape[0];
        if (all.size() < uint64_t{ep_stride} * ep_count * per) return Failure{1, s.name + ": the experts' weights are short"};
        std::vector<uint8_t> mine;
        mine.reserve(ep_count * per);
        for (uint64_t k = 0; k < ep_count; ++k) {
          const auto at = all.begin() + static_cast<long>((ep_first + k * ep_stride) * per);
          mine.insert(mine.end(), at, at + static_cast<long>(per));
        }
        data.bytes[id] = std::move(mine);
      }
      std::vector<uint8_t>& b = data.bytes[id];
      if (t.role == TensorRole::constant && files) {
        b.assign(t.bytes, 0);
        (void)gen::fill_constant(s.plan, t.id, ByteSpan(b.data(), t.bytes));
      }
      const bool tied_again = s.kind == gen::Program::head && t.id == TensorId::embed_tokens && has_embed;
      const bool generator_data = t.id == TensorId::rope_cos || t.id == TensorId::rope_sin || t.id == TensorId::attn_mask;
      if ((t.role == TensorRole::weight || t.role == TensorRole::constant) && !tied_again) {
        if (files) std::copy(b.begin(), b.end(), coeff.begin() + static_cast<long>(sg::dma_offset(t.device_addr)));
        if (t.role == TensorRole::constant) continue;
        if (s.kind == gen::Program::head && t.id == TensorId::embed_tokens) continue;  // listed by stage 0's embedding
        if (cut) {  // listed once, whole, in the stage's file of whole tensors (docs/whole-model.md)
          if (rank > 0) continue;
          const TensorInfo& wt = drawn.memory[t.id];
          ManifestTensor m = entry(wt, step_weight_name(s, wt), files ? stage_file(w, "weights.whole", p) : "",
                                   whole_weights.size(), w.layout.chip(0, p));
          m.device_addr = t.device_addr;
          if (files) whole_weights.insert(whole_weights.end(), kept.bytes[id].begin(), kept.bytes[id].end());
          w.m.weights.push_back(m);
          continue;
        }
        // An expert-parallel group's other chips hold copies of the first's tensors but their
        // experts: listed once, on the chip that holds them.
        if (w.layout.expert_group && rank > 0 && !(expert_w && ep_count != 0)) continue;
        const uint32_t parts = weight_parts(t);
        for (uint32_t e = 0; e < parts; ++e) {
          TensorInfo one = t;
          const std::vector<uint64_t> shape = part_shape(t);
          one.rank = static_cast<uint8_t>(shape.size());
          for (size_t k = 0; k < shape.size(); ++k) one.shape[k] = static_cast<uint32_t>(shape[k]);
          one.bytes = t.bytes / parts;
          one.device_addr = t.device_addr + e * one.bytes;
          w.m.weights.push_back(entry(one, step_weight_name(s, t, expert_w && ep_count != 0 ? ep_first + e * ep_stride : e), files ? wfile : "",
                                      sg::dma_offset(one.device_addr),
                                      w.layout.chip(0, p, rank)));
        }
      } else if (generator_data) {
        const uint64_t at = sg::dma_offset(t.device_addr);
        if (files && neuron.size() < at + t.bytes) neuron.resize(at + t.bytes, 0);
        if (files) std::copy(b.begin(), b.end(), neuron.begin() + static_cast<long>(at));
      } else if (t.role == TensorRole::input && t.id != TensorId::hidden_states) {
        if (rank > 0) continue;  // listed once, with every chip's part
        const std::string name = model_tensor_name(s, t), f = name + ".bin";
        if (files) {
          const std::vector<uint8_t>& whole_bytes = cut_layer ? kept.bytes[id] : b;
          const std::vector<uint8_t> bytes = t.id == TensorId::input_ids ? draw_ids(w, w.cli.seed) : whole_bytes;
          if (!write_bytes(w.dir / f, bytes.data(), bytes.size())) return Failure{2, "cannot write " + f};
        }
        w.m.inputs.push_back(cut_layer ? tp_whole(w, s, drawn.memory[t.id], t, rank_addresses(w, p, s.name, t.id), p, files ? f : "")
                             : row_cut ? rows_whole(w, s, drawn.memory[t.id], t, rank_addresses(w, p, s.name, t.id), p, files ? f : "")
                                       : whole(w, s, t, p, files ? f : ""));
      } else if (t.role == TensorRole::output && t.id != TensorId::hidden_states_out && t.id != TensorId::expert_tokens) {
        if (rank > 0) continue;
        ManifestTensor o = cut_layer ? tp_whole(w, s, drawn.memory[t.id], t, rank_addresses(w, p, s.name, t.id), p, "")
                           : row_cut ? rows_whole(w, s, drawn.memory[t.id], t, rank_addresses(w, p, s.name, t.id), p, "")
                                     : whole(w, s, t, p, "");
        if (cut_head && t.id == TensorId::logits && logits_in_parts(w.layout, mp.inference.seq)) {
          logits_parts(w, t, rank_addresses(w, p, s.name, t.id), p, o);
        }
        o.file.clear();
        w.m.outputs.push_back(o);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Failure> plan_stages(Writer& w) {
  std::string error;
  if (!w.cli.chip_config.empty()) {
    if (!read_chip_config_file(w.cli.chip_config, w.chip, error)) return Failure{2, "--chip-config: " + error};
    if (w.cli.ddr_capacity_gib != 0) return Failure{2, "--ddr-capacity-gib and --chip-config: give the capacity once"};
  }
  if (auto f = plan_all(w.cli, w.stages)) return f;
  w.layout = w.stages[0].layout;
  return std::nullopt;
}

namespace {
// The token-selective combine sends between any two chips of an expert-parallel group, and an
// SG2260 does not forward through another chip: the topology must link every pair (mesh:N,
// switch:Nx1), which the default ring:N does not from 4 chips.
std::optional<Failure> alltoall_reach(const Writer& w, const cmd::Topology& topo, const std::string& text) {
  const ModelLayout& l = w.layout;
  if (w.cli.ep_comm != "alltoall") return std::nullopt;
  if (!l.dp_attention) {
    std::fprintf(stderr, "tilefw gen: --ep-comm alltoall: the attention is not data-parallel here (the rows do not split "
                         "over the expert-parallel group, or --tp): the MoE parts keep their all-reduces\n");
    return std::nullopt;
  }
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t p = 0; p < l.stages; ++p) {
      for (uint32_t a = 0; a < l.tp; ++a) {
        for (uint32_t b = 0; b < l.tp; ++b) {
          if (a == b || topo.reachable(l.chip(d, p, a), l.chip(d, p, b))) continue;
          return Failure{2, "--ep-comm alltoall: chips " + std::to_string(l.chip(d, p, a)) + " and " +
                                std::to_string(l.chip(d, p, b)) + " of an expert-parallel group share no link in " + text +
                                " (a chip does not forward another's transfers): give --system a topology linking every "
                                "pair of the group, such as mesh:N (up to 11 chips) or switch:Nx1"};
        }
      }
    }
  }
  return std::nullopt;
}
}  // namespace

std::optional<Failure> model_layout_checked(Writer& w) {
  const ModelLayout& l = w.layout;
  if (l.chips == 1) {
    if (!w.cli.system.empty()) return Failure{2, "--system: a system of chips needs --chips >= 2"};
    return std::nullopt;
  }
  SystemSpec spec = default_system(l.chips);
  std::string error;
  if (!w.cli.system.empty() && !read_system_file(w.cli.system, spec, error)) return Failure{2, error};
  if (spec.chips != l.chips) {
    return Failure{2, "--system " + w.cli.system + ": " + std::to_string(spec.chips) + " chips, the request has --chips " +
                          std::to_string(l.chips)};
  }
  cmd::Topology topo;
  const std::string text = spec.topology_or_default();
  if (topo.parse(text.data(), text.size(), spec.chips) != Status::ok) return Failure{2, "--system: topology " + text};
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t p = 0; p < l.stages; ++p) {
      for (uint32_t r = 0; r < l.tp; ++r) {
        const uint32_t a = l.chip(d, p, r);
        if (r + 1 == l.tp && p + 1 < l.stages && !topo.reachable(a, l.chip(d, p + 1, 0))) {
          return Failure{2, "--system: chip " + std::to_string(a) + " cannot reach chip " + std::to_string(l.chip(d, p + 1, 0)) +
                                " (the next pipeline stage) in " + text};
        }
        const uint32_t b = l.chip(d, p, (r + 1) % l.tp);
        if (l.tp > 1 && (!topo.reachable(a, b) || !topo.reachable(b, a))) {
          return Failure{2, "--system: chips " + std::to_string(a) + " and " + std::to_string(b) +
                                " (neighbours in a tensor-parallel group's ring) cannot reach each other in " + text};
        }
      }
    }
  }
  if (auto f = alltoall_reach(w, topo, text)) return f;
  spec.given = true;
  w.m.system = spec;
  return std::nullopt;
}

uint64_t chip_ddr_bytes(const Writer& w, uint32_t chip) {
  const ModelPlan& mp = w.stages[w.layout.plan_of(chip)];
  return mp.coeff_bytes + mp.neuron_bytes + (chip < w.chip_streams.size() ? w.chip_streams[chip] : 0);
}

std::optional<Failure> check_capacity(const Writer& w) {
  const uint64_t have = capacity_bytes(w);
  // What every chip keeps whatever the stages (activations, scratch, streams: the largest
  // chip's), the largest layer's weights and caches, and the model's ends (embedding, head).
  uint64_t fixed = 0, layer = 0, ends = 0;
  for (uint32_t p = 0; p < w.stages.size(); ++p) {
    const ModelPlan& mp = w.stages[p];
    fixed = std::max(fixed, chip_ddr_bytes(w, w.layout.chip(0, mp.stage, mp.rank)) - mp.weight_bytes - mp.cache_bytes);
    for (const ModelStep& s : mp.steps) {
      uint64_t bytes = 0;
      for (const TensorInfo& t : s.plan.memory.tensors) {
        const bool cache = t.role == TensorRole::input || t.role == TensorRole::output;
        if (t.present && (t.role == TensorRole::weight || (cache && s.kind == gen::Program::layer))) bytes += t.bytes;
      }
      (s.kind == gen::Program::layer ? layer : ends) = std::max(s.kind == gen::Program::layer ? layer : ends, bytes);
    }
  }
  const uint32_t layers = w.stages[0].cfg.model.num_layers;
  for (uint32_t c = 0; c < w.layout.chips; ++c) {
    const uint64_t need = chip_ddr_bytes(w, c);
    if (need <= have) continue;
    const ModelPlan& mp = w.stages[w.layout.plan_of(c)];
    char estimate[200];
    uint32_t stages = 0;  // the fewest stages whose largest share of layers fits beside the rest
    for (uint32_t p = 1; p <= layers && stages == 0; ++p) {
      if (fixed + ends + uint64_t{(layers + p - 1) / p} * layer * w.layout.microbatches <= have) stages = p;
    }
    if (stages == 0) {
      std::snprintf(estimate, sizeof estimate, "no chip count fits: one layer beside a chip's activations, scratch and "
                                               "streams (%.3f GB) exceeds it (fewer tokens per step would help)", fixed / 1e9);
    } else {
      std::snprintf(estimate, sizeof estimate,
                    "at --dp %u --tp %u the model needs at least %u chips (--pp %u, an estimate: the largest layer "
                    "times the layers per stage beside the rest)",
                    w.layout.replicas, w.layout.tp, stages * w.layout.replicas * w.layout.tp, stages);
    }
    char msg[640];
    std::snprintf(msg, sizeof msg,
                  "chip %u: DDR %.3f GB needed (weights %.3f GB, caches %.3f GB, activations and scratch %.3f GB, "
                  "streams %.3f GB) > %.3f GB capacity, short by %.3f GB; %s",
                  c, need / 1e9, mp.weight_bytes / 1e9, mp.cache_bytes / 1e9,
                  (mp.neuron_bytes - std::min(mp.neuron_bytes, mp.cache_bytes)) / 1e9,
                  (c < w.chip_streams.size() ? w.chip_streams[c] : 0) / 1e9, have / 1e9, (need - have) / 1e9, estimate);
    return Failure{1, msg};
  }
  return std::nullopt;
}

std::optional<Failure> write_data(Writer& w) {
  const bool files = !w.cli.timing_only;
  for (uint32_t i = 0; i < w.stages.size(); ++i) {
    const ModelPlan& mp = w.stages[i];
    const uint32_t p = mp.stage;
    std::vector<uint8_t> coeff, neuron, whole_weights;
    if (files) coeff.assign(mp.coeff_bytes, 0);
    if (auto f = stage_data(w, i, coeff, neuron, whole_weights)) return f;
    const std::string wf = stage_file(w, "weights.whole", p);
    if (files && !whole_weights.empty() && !write_bytes(w.dir / wf, whole_weights.data(), whole_weights.size())) {
      return Failure{2, "cannot write " + wf};
    }
    const std::string cf = stage_file(w, "weights", p, mp.rank), nf = stage_file(w, "neuron", p, mp.rank);
    if (files && !write_bytes(w.dir / cf, coeff.data(), coeff.size())) return Failure{2, "cannot write " + cf};
    if (files && !neuron.empty() && !write_bytes(w.dir / nf, neuron.data(), neuron.size())) return Failure{2, "cannot write " + nf};
    for (uint32_t d = 0; d < w.layout.replicas; ++d) {
      const uint32_t chip = w.layout.chip(d, p, mp.rank);
      ManifestRegion c{1, sg::make_dma_address(1, 0), mp.coeff_bytes, files ? cf : "",
                       "coeff: the stage's weights (checkpoint layout) and constants", "", chip};
      ManifestRegion n{2, sg::make_dma_address(2, 0), mp.neuron_bytes, files && !neuron.empty() ? nf : "",
                       "neuron: inputs, outputs, caches, scratch", "the rotary tables and mask, zeros, then the inputs", chip};
      w.m.regions.push_back(c);
      w.m.regions.push_back(n);
    }
  }
  return std::nullopt;
}

std::optional<Failure> write_manifest_file(Writer& w) {
  const GenCli& cli = w.cli;
  const ModelPlan& mp = w.stages.front();
  std::vector<uint8_t> raw;
  if (!read_file(cli.config, raw) || !write_bytes(w.dir / "config.json", raw.data(), raw.size())) {
    return Failure{2, "cannot copy the config into the output"};
  }
  nlohmann::json g = moe_phases_entry(cli, "config.json").at("generator");
  g.erase("layer");
  g["batch"] = w.layout.batch;
  g["seed"] = cli.seed;
  g["static_experts"] = cli.static_experts;
  if (cli.owner_rows) g["owner_rows"] = true;
  if (cli.ep_comm != "ring") g["ep_comm"] = cli.ep_comm;
  g["chips"] = w.layout.chips;
  g["pp"] = w.layout.stages;
  g["dp"] = w.layout.replicas;
  // An expert-parallel group: ep chips; an explicit --tp on it (tensor-parallel attention
  // whatever the rows) is kept, so `run` plans the same scheme.
  g["tp"] = !w.layout.expert_group ? w.layout.tp : cli.tp > 1 ? cli.tp : 0;
  g["ep"] = w.layout.expert_group ? w.layout.tp : 0;
  if (cli.replicated_attention) g["attention"] = "replicated";
  g["microbatches"] = w.layout.microbatches;
  ChipWhatIf chip = w.chip;
  chip.ddr_capacity_gib = capacity_bytes(w) >> 30;
  g["chip_config"] = chip_config_json(chip);
  w.m.name = "tilefw-gen " + mp.cfg.model_type + " whole model";
  w.m.chip = "BM1690";
  w.m.chip_aliases = {"SG2260"};
  w.m.core_num = cli.cores;
  w.m.model = {{"generator", g}};
  nlohmann::json ddr = nlohmann::json::object();
  double flops = 0, bytes = 0;
  uint64_t weights = 0, caches = 0;
  for (uint32_t c = 0; c < w.layout.chips; ++c) ddr[std::to_string(c)] = chip_ddr_bytes(w, c);
  for (const ModelPlan& s : w.stages) {
    flops += s.flops * w.layout.replicas;
    bytes += s.bytes_ddr * w.layout.replicas;
    weights += s.weight_bytes;
    caches += s.cache_bytes * w.layout.replicas;
  }
  const gen::ModelConfig& md = mp.cfg.model;
  w.m.report = {{"kind", "model"}, {"model_type", mp.cfg.model_type}, {"num_layers", md.num_layers},
                {"phase", cli.phase}, {"batch", w.layout.batch}, {"seq", mp.inference.seq},
                {"kv_len", mp.inference.kv_len}, {"cores", cli.cores}, {"chips", w.layout.chips},
                {"tp", w.layout.tp}, {"pp", w.layout.stages}, {"dp", w.layout.replicas}, {"ep", w.layout.expert_group ? w.layout.tp : 1},
                {"microbatches", w.layout.microbatches}, {"dtype", json_dtype(md.dtype)}, {"vocab", md.vocab},
                {"tie_word_embeddings", md.tie_embeddings}, {"steps", w.m.steps.size()}, {"commands", w.commands},
                {"stream_bytes", w.stream_bytes}, {"flops", flops}, {"bytes_ddr", bytes}, {"weight_bytes", weights},
                {"cache_bytes", caches}, {"ddr_bytes", ddr}, {"ddr_capacity_bytes", capacity_bytes(w)}};
  std::string error;
  if (!write_manifest((w.dir / "manifest.json").string(), w.m, error)) return Failure{2, error};
  return std::nullopt;
}

}  // namespace tilefw::tools
