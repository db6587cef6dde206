// `tilefw gen --model` (docs/whole-model.md): a Hugging Face config.json -> the whole model's
// steps on one chip (embedding, every decoder layer, head), their streams, the tensor files and
// a manifest whose "model" object lists the steps in run order. Output written like the
// one-layer gen: a temporary sibling of --out renamed at the end.
#include "gen/gen_model.hpp"
#include "gen/model_writer.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "commands.hpp"
#include "common/signal_cleanup.hpp"
#include "formats/sg2260_manifest.hpp"
#include "gen/gen_data.hpp"
#include "gen/gen_output.hpp"
#include "gen/model_plan.hpp"
#include "run/moe_phases.hpp"
#include "tilefw/cmd/cdma.hpp"

namespace tilefw::tools {

namespace {
namespace fs = std::filesystem;
namespace sg = chip::sg2260;
using gen::TensorId;
using gen::TensorInfo;
using gen::TensorRole;

const char* const kStreamExt[3] = {"BD", "GDMA", "SDMA"};


}  // namespace

std::optional<Failure> size_step(const ModelStep& s, StepSizes& out) {
  for (uint32_t c = 0; c < s.plan.parallel.cores; ++c) {
    if (!s.two_phase) {
      for (uint32_t e = 0; e < 3; ++e) {
        out.bytes[c][e] = s.plan.stream_bytes[c][e];
        out.commands[c][e] = s.plan.stream_commands[c][e];
      }
      continue;
    }
    gen::PhaseRequest req;
    req.phase = 1;
    gen::GenError ge;
    if (gen::size_phase(s.plan, c, req, out.bytes[c], out.commands[c], ge) != Status::ok) {
      return Failure{1, s.name + ": " + status_name(ge.status) + ": " + ge.what};
    }
  }
  return std::nullopt;
}

namespace {

}  // namespace

// Everything a step's streams follow: the step, its plan's config, passes, parallel config and
// every tensor's address and size. Two steps with the same key emit the same bytes (the
// emission is a function of the plan and the core), so the second reuses the first's files.
std::string plan_key(const ModelStep& s, const gen::SizedLayer& p) {
  std::string k = s.name + "|" + std::to_string(static_cast<int>(s.kind)) + "|" + std::to_string(s.layer) + "|" +
                  std::to_string(static_cast<int>(s.part)) + (s.two_phase ? "|2" : "|1");
  const gen::ModelConfig& m = p.model;
  const gen::ParallelConfig& q = p.parallel;
  for (uint64_t v : {uint64_t{m.heads}, uint64_t{m.kv_heads}, uint64_t{m.intermediate}, uint64_t{m.moe_layer},
                     uint64_t{p.inference.batch}, uint64_t{p.inference.seq}, uint64_t{p.inference.kv_len},
                     uint64_t{p.chunk_tokens}, uint64_t{p.chunk_batch}, uint64_t{p.chunks}, uint64_t{p.capacity},
                     uint64_t{q.cores}, uint64_t{q.tp}, uint64_t{q.ep}, uint64_t{static_cast<uint8_t>(q.part)},
                     uint64_t{q.residual}, uint64_t{q.vocab_rank}, uint64_t{q.vocab_ranks}, uint64_t{q.expert_first},
                     uint64_t{q.expert_count}}) {
    k += "," + std::to_string(v);
  }
  for (const TensorInfo& t : p.memory.tensors) {
    if (t.present) k += ";" + std::to_string(t.device_addr) + ":" + std::to_string(t.bytes);
  }
  return k;
}

std::string step_key(const ModelStep& s, const gen::SizedLayer& plan) {
  if (!s.two_phase) return plan_key(s, plan);
  gen::SizedLayer any = plan;  // the routing phase runs no expert: which experts the chip holds does not show
  any.parallel.expert_first = 0;
  return plan_key(s, any);
}

namespace {

// One step's streams for one chip and micro-batch, core by core, into the output directory.
std::optional<Failure> write_step(Writer& w, const ModelStep& s, uint32_t chip, uint32_t mb, uint32_t slot) {
  const StepSizes& z = w.sizes.at(&s);
  const gen::SizedLayer plan = microbatch_plan(s, mb);
  const std::string key = step_key(s, plan);
  ManifestStep out;
  const std::string prefix = w.many() ? "c" + std::to_string(chip) + ".m" + std::to_string(mb) + "." : "";
  out.name = prefix + s.name;
  const bool head = s.kind == gen::Program::head || s.kind == gen::Program::head_merge;
  out.kind = s.kind == gen::Program::embed ? "embed" : head ? "head" : "layer";
  out.layer = s.layer;
  out.two_phase = s.two_phase;
  out.slot = slot;
  out.microbatch = mb;
  if (auto seen = w.written.find(key); seen != w.written.end()) {
    for (ManifestCore core : seen->second) {
      core.chip = chip;
      for (uint32_t e = 0; e < 3; ++e) {
        w.commands += core.commands[e];
        w.stream_bytes += core.bytes[e];
      }
      out.cores.push_back(core);
    }
    w.m.steps.push_back(std::move(out));
    return std::nullopt;
  }
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    std::vector<uint8_t> streams[3];
    gen::StreamBuffers buffers;
    for (uint32_t e = 0; e < 3; ++e) {
      streams[e].resize(z.bytes[c][e]);
      buffers.stream[c][e] = ByteSpan(streams[e].data(), streams[e].size());
    }
    gen::GenError ge;
    gen::PhaseRequest req;
    req.phase = s.two_phase ? 1 : 0;
    uint64_t used[3] = {};
    const Status st = req.phase == 0 ? gen::emit_core(plan, c, buffers, ge) : gen::emit_phase(plan, c, req, buffers, used, ge);
    if (st != Status::ok) return Failure{1, out.name + ": " + status_name(ge.status) + ": " + ge.what};
    ManifestCore core;
    core.core = c;
    core.chip = chip;
    core.sized = true;
    for (uint32_t e = 0; e < 3; ++e) {
      const std::string f = out.name + "." + kStreamExt[e] + "." + std::to_string(c);
      if (!write_bytes(w.dir / f, streams[e].data(), streams[e].size())) return Failure{2, "cannot write " + f};
      core.file[e] = f;
      core.bytes[e] = z.bytes[c][e];
      core.commands[e] = z.commands[c][e];
      w.commands += z.commands[c][e];
      w.stream_bytes += z.bytes[c][e];
    }
    out.cores.push_back(core);
  }
  w.written.emplace(key, out.cores);
  w.m.steps.push_back(std::move(out));
  return std::nullopt;
}

// One CDMA stream (a send or a recv of micro-batch hidden states, then the end) into a file.
std::optional<Failure> write_cdma(Writer& w, const std::string& name, uint32_t chip, uint32_t peer, bool send,
                                  uint64_t addr, uint32_t rows, uint32_t hidden, ManifestStep& step) {
  std::vector<uint8_t> buf(1024);
  cmd::CommandBuilder b(cmd::Engine::cdma, ByteSpan(buf.data(), buf.size()));
  cmd::CdmaTensor t;
  t.addr = addr;
  t.format = cmd::kCdmaFormatFp32;
  t.c = rows;
  t.w = hidden;
  t.cstride = hidden;
  t.hstride = hidden;
  t.nstride = rows * hidden;
  const Status s = send ? cmd::cdma_send(b, t, false) : cmd::cdma_recv(b, t, cmd::kCdmaReduceNone);
  if (s != Status::ok || b.end() != Status::ok) return Failure{1, name + ": " + status_name(s) + ": the hidden states' transfer"};
  if (!write_bytes(w.dir / name, buf.data(), b.size())) return Failure{2, "cannot write " + name};
  ManifestCdma c;
  c.chip = chip;
  c.peer = peer;
  c.file = name;
  c.sized = true;
  c.bytes = b.size();
  c.commands = 2;
  step.cdma.push_back(c);
  w.chip_streams[chip] += b.size();
  return std::nullopt;
}

// One tensor-parallel group's all-reduce: its first chip (the others follow it) and where each
// chip's partial sums are (f32 [rows x seq, hidden]; the sum replaces them).
struct AllReduce {
  uint32_t first = 0;
  std::vector<uint64_t> addr;
  Collective kind = Collective::all_reduce;  // or its halves (data-parallel attention)
};

// The CDMA streams of one transfer slot, one per (chip, port to peer), written at the end.
struct SlotStreams {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>> bufs;
  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<cmd::CommandBuilder>> on;
  Status st = Status::ok;
  cmd::CommandBuilder& stream(uint32_t me, uint32_t peer) {
    auto& b = on[{me, peer}];
    if (!b) {
      auto& v = bufs[{me, peer}];
      v.resize(size_t{64} << 10);
      b = std::make_unique<cmd::CommandBuilder>(cmd::Engine::cdma, ByteSpan(v.data(), v.size()));
    }
    return *b;
  }
  void keep(Status s) {
    if (st == Status::ok) st = s;
  }
};

// Ends every CDMA stream of a transfer step, writes each as `<step>.c<chip>-c<peer>.CDMA` and
// adds the step to the manifest; `what` names the streams in a failure.
std::optional<Failure> finish_transfer_step(Writer& w, SlotStreams& ss, ManifestStep& step, const char* what) {
  for (auto& [key, b] : ss.on) {
    ss.keep(b->end());
    if (ss.st != Status::ok) return Failure{1, step.name + ": " + status_name(ss.st) + ": " + what};
    const std::string name = step.name + ".c" + std::to_string(key.first) + "-c" + std::to_string(key.second) + ".CDMA";
    if (!write_bytes(w.dir / name, ss.bufs[key].data(), b->size())) return Failure{2, "cannot write " + name};
    ManifestCdma c;
    c.chip = key.first;
    c.peer = key.second;
    c.file = name;
    c.sized = true;
    c.bytes = b->size();
    c.commands = b->count();
    step.cdma.push_back(c);
    w.chip_streams[key.first] += b->size();
  }
  w.m.steps.push_back(std::move(step));
  return std::nullopt;
}

cmd::CdmaTensor f32_rows(uint64_t addr, uint32_t rows, uint32_t cols) {
  cmd::CdmaTensor t;
  t.addr = addr;
  t.format = cmd::kCdmaFormatFp32;
  t.c = rows;
  t.w = cols;
  t.cstride = t.hstride = cols;
  t.nstride = rows * cols;
  return t;
}

// Ring collectives of a group (docs/whole-model.md): the buffer in n chunks of R rows x H / n
// columns' worth of contiguous elements. A pass is n - 1 steps; in step s chip i sends chunk
// i + shift - s to the next chip of the ring and receives chunk i + shift - s - 1 from the
// previous one, added into its own (`add`) or copied. A send after the first waits for the
// previous step's recv (rx_send_msg on the port to the previous chip -> tx_wait_msg on the port
// to the next).
// - all-reduce: an adding pass with shift 0 (chip i ends owning chunk i + 1, summed once along
//   the ring), then a copying pass with shift 1: every chip ends with the same bits;
// - reduce-scatter (the combine of data-parallel attention): one adding pass with shift n - 1:
//   chip i ends with chunk i, its rows, summed;
// - all-gather (its dispatch): chip i holds chunk i; one copying pass with shift 0.
void ring_collective(SlotStreams& ss, const AllReduce& g, uint32_t n, uint32_t R, uint32_t H) {
  const uint64_t L = uint64_t{R} * (H / n);  // elements per chunk: R rows of H / n
  struct Pass {
    uint32_t shift;
    bool add;
  };
  std::vector<Pass> passes;
  if (g.kind != Collective::all_gather) passes.push_back({g.kind == Collective::reduce_scatter ? n - 1 : 0, true});
  if (g.kind != Collective::reduce_scatter) passes.push_back({g.kind == Collective::all_reduce ? 1u : 0u, false});
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t me = g.first + i, next = g.first + (i + 1) % n, prev = g.first + (i + n - 1) % n;
    uint32_t step_id = 0;
    for (const Pass& pass : passes) {
      for (uint32_t s = 0; s + 1 < n; ++s, ++step_id) {
        const uint32_t out_chunk = (i + pass.shift + n - s) % n, in_chunk = (i + pass.shift + 2 * n - s - 1) % n;
        if (step_id > 0) ss.keep(cmd::cdma_msg(ss.stream(me, next), cmd::CdmaSysOp::tx_wait, 100 + step_id - 1, 1));
        ss.keep(cmd::cdma_send(ss.stream(me, next), f32_rows(g.addr[i] + out_chunk * L * 4, R, H / n), pass.add));
        ss.keep(cmd::cdma_recv(ss.stream(me, prev), f32_rows(g.addr[i] + in_chunk * L * 4, R, H / n),
                               pass.add ? cmd::kCdmaReduceAdd : cmd::kCdmaReduceNone));
        ss.keep(cmd::cdma_msg(ss.stream(me, prev), cmd::CdmaSysOp::rx_send, 100 + step_id, 1));
      }
    }
  }
}

// Broadcast of a group's first chip's hidden states (stage `stage`'s input) to the others,
// along the group's chain of neighbours 0 -> 1 -> ... -> tp - 1: each chip forwards what it
// received once the recv is done (rx_send_msg -> tx_wait_msg).
void chain_cast(SlotStreams& ss, const Writer& w, uint32_t first, uint32_t stage, uint32_t R, uint32_t H) {
  const uint32_t n = w.layout.tp;
  for (uint32_t r = 0; r + 1 < n; ++r) {
    const uint32_t a = first + r, b = a + 1;
    if (r > 0) ss.keep(cmd::cdma_msg(ss.stream(a, b), cmd::CdmaSysOp::tx_wait, 200 + r, 1));
    ss.keep(cmd::cdma_send(ss.stream(a, b), f32_rows(w.stages[stage * n + r].hidden_in, R, H), false));
    ss.keep(cmd::cdma_recv(ss.stream(b, a), f32_rows(w.stages[stage * n + r + 1].hidden_in, R, H), cmd::kCdmaReduceNone));
    if (r + 2 < n) ss.keep(cmd::cdma_msg(ss.stream(b, a), cmd::CdmaSysOp::rx_send, 200 + r + 1, 1));
  }
}

// The head's results of a group (micro-batch `mb`) gathered on its first chip, down the chain
// tp - 1 -> tp - 2 -> ... -> 0: chip r passes on the logits columns and head candidates of
// chips r .. tp - 1 (contiguous in both: each chip wrote its share into the whole layouts), after
// receiving those of r + 1 .. tp - 1.
void chain_gather(SlotStreams& ss, const Writer& w, uint32_t first, uint32_t mb) {
  const ModelLayout& l = w.layout;
  const uint32_t n = l.tp, last = l.stages - 1;
  for (uint32_t r = n - 1; r > 0; --r) {
    const uint32_t a = first + r, b = a - 1;
    const ModelStep* hs[2] = {nullptr, nullptr};  // the head steps of chips r and r - 1
    for (uint32_t k = 0; k < 2; ++k) {
      for (const ModelStep& s : w.stages[last * n + r - k].steps) {
        if (s.kind == gen::Program::head) hs[k] = &s;
      }
    }
    const gen::SizedLayer pa = microbatch_plan(*hs[0], mb), pb = microbatch_plan(*hs[1], mb);
    const gen::TensorInfo &la = pa.memory[TensorId::logits], &lb = pb.memory[TensorId::logits];
    const uint32_t V = la.shape[2], rows = la.shape[0] * la.shape[1];
    const uint32_t c0 = static_cast<uint32_t>(uint64_t{V} * r / n);
    const gen::TensorInfo &ca = pa.memory[TensorId::head_cand], &cb = pb.memory[TensorId::head_cand];
    const uint64_t per_chip = ca.bytes / n;  // one chip's cores' candidates
    const uint32_t cores = ca.shape[0] / n;  // head_cand: [chips x cores, rows, 2]
    cmd::CdmaTensor lt = f32_rows(0, rows, V - c0), ct = f32_rows(0, (n - r) * cores, rows * 2);
    lt.cstride = lt.hstride = V;
    lt.nstride = rows * V;
    const bool logits = !logits_in_parts(l, w.stages[0].inference.seq);  // else they stay in parts
    if (r + 1 < n) ss.keep(cmd::cdma_msg(ss.stream(a, b), cmd::CdmaSysOp::tx_wait, 300 + r, 1));
    lt.addr = la.device_addr + uint64_t{c0} * 4;
    if (logits) ss.keep(cmd::cdma_send(ss.stream(a, b), lt, false));
    ct.addr = ca.device_addr + r * per_chip;
    ss.keep(cmd::cdma_send(ss.stream(a, b), ct, false));
    lt.addr = lb.device_addr + uint64_t{c0} * 4;
    if (logits) ss.keep(cmd::cdma_recv(ss.stream(b, a), lt, cmd::kCdmaReduceNone));
    ct.addr = cb.device_addr + r * per_chip;
    ss.keep(cmd::cdma_recv(ss.stream(b, a), ct, cmd::kCdmaReduceNone));
    if (r > 1) ss.keep(cmd::cdma_msg(ss.stream(b, a), cmd::CdmaSysOp::rx_send, 300 + r - 1, 1));
  }
}

// Whether step `s`'s past cache `id` is one a decode on an expert-parallel group copies from the
// group's first chip: every chip's copy of a whole cache (replicated attention, an MLA latent
// cache); not a tensor-parallel part's kv heads (each chip's own part of the input).
bool cast_cache(const ModelStep& s, TensorId id) {
  if (!s.plan.memory[id].present) return false;
  const bool heads = id == TensorId::past_key || id == TensorId::past_value;
  return !(heads && s.part != gen::LayerPart::whole);  // both parts of a split layer hold the cut caches
}

bool any_cast_cache(const Writer& w) {
  for (const ModelPlan& mp : w.stages) {
    for (const ModelStep& s : mp.steps) {
      for (TensorId id : {TensorId::past_key, TensorId::past_value, TensorId::past_kv_latent, TensorId::past_k_rope}) {
        if (s.kind == gen::Program::layer && cast_cache(s, id)) return true;
      }
    }
  }
  return false;
}

// The past caches of a functional decode on an expert-parallel group: the manifest puts each on
// the group's first chip (an input lives on one chip), and every chip attends over the whole
// batch, so a transfer slot before the first step copies them down the group's chain 0 -> 1 ->
// ... (each chip forwards all of them once it received all: rx_send_msg -> tx_wait_msg). Raw
// bytes, moved as f32 words (every cache is a whole number of them).
std::optional<Failure> write_cache_cast(Writer& w, uint32_t slot) {
  const ModelLayout& l = w.layout;
  const uint32_t n = l.tp;
  ManifestStep step;
  step.name = "cachecast." + std::to_string(slot);
  step.kind = "xfer";
  step.slot = slot;
  SlotStreams ss;
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t p = 0; p < l.stages; ++p) {
      for (uint32_t r = 0; r + 1 < n; ++r) {
        const uint32_t a = l.chip(d, p, r), b = a + 1;
        const ModelPlan &pa = w.stages[p * n + r], &pb = w.stages[p * n + r + 1];
        if (r > 0) ss.keep(cmd::cdma_msg(ss.stream(a, b), cmd::CdmaSysOp::tx_wait, 400 + r, 1));
        for (const ModelStep& sa : pa.steps) {
          const ModelStep* sb = nullptr;  // the same layer on the next chip (the first chip also has the embedding)
          for (const ModelStep& s : pb.steps) {
            if (s.name == sa.name) sb = &s;
          }
          if (sa.kind != gen::Program::layer || sb == nullptr) continue;
          for (TensorId id : {TensorId::past_key, TensorId::past_value, TensorId::past_kv_latent, TensorId::past_k_rope}) {
            const TensorInfo &ta = sa.plan.memory[id], &tb = sb->plan.memory[id];
            if (!cast_cache(sa, id)) continue;
            const uint32_t words = static_cast<uint32_t>(ta.bytes * l.microbatches / 4);
            cmd::CdmaTensor t = f32_rows(ta.device_addr, 1, words);
            ss.keep(cmd::cdma_send(ss.stream(a, b), t, false));
            t.addr = tb.device_addr;
            ss.keep(cmd::cdma_recv(ss.stream(b, a), t, cmd::kCdmaReduceNone));
          }
        }
        if (r + 2 < n) ss.keep(cmd::cdma_msg(ss.stream(b, a), cmd::CdmaSysOp::rx_send, 400 + r + 1, 1));
      }
    }
  }
  return finish_transfer_step(w, ss, step, "the CDMA streams of the caches' copies");
}

// One transfer slot of the tensor-parallel groups: the all-reduces of `groups` and the
// broadcasts `casts` (first chip, stage).
std::optional<Failure> write_collectives(Writer& w, const std::vector<AllReduce>& groups,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& casts,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& gathers, uint32_t slot) {
  const ModelLayout& l = w.layout;
  const uint32_t H = w.stages[0].cfg.model.hidden, R = l.rows() * w.stages[0].inference.seq;
  ManifestStep step;
  const Collective kind = groups.empty() ? Collective::none : groups.front().kind;
  step.name = (kind == Collective::all_gather       ? "allgather."
               : kind == Collective::reduce_scatter ? "reducescatter."
               : !groups.empty()                    ? "allreduce."
               : !gathers.empty()                   ? "gather."
                                                    : "bcast.") +
              std::to_string(slot);
  step.kind = "xfer";
  step.slot = slot;
  SlotStreams ss;
  for (const auto& [first, stage] : casts) chain_cast(ss, w, first, stage, R, H);
  for (const auto& [first, mb] : gathers) chain_gather(ss, w, first, mb);
  for (const AllReduce& g : groups) ring_collective(ss, g, l.tp, R, H);
  return finish_transfer_step(w, ss, step, "the CDMA streams of the tp groups");
}

// The pipeline's stage boundaries of slot t: stage p sends micro-batch t - p to stage p + 1
// (each chip of a tensor-parallel group to its counterpart: they hold the same hidden states).
std::optional<Failure> write_transfers(Writer& w, uint32_t t, uint32_t slot) {
  const ModelLayout& l = w.layout;
  ManifestStep step;
  step.name = "xfer." + std::to_string(t);
  step.kind = "xfer";
  step.slot = slot;
  const uint32_t rows = l.rows() * w.stages[0].inference.seq, H = w.stages[0].cfg.model.hidden;
  for (uint32_t d = 0; d < l.replicas; ++d) {
    for (uint32_t p = 0; p + 1 < l.stages; ++p) {
      if (t < p || t - p >= l.microbatches) continue;
      // With tp the stage's last chip sends to the next stage's first (neighbours); that one
      // broadcasts to its group in the next slot.
      const uint32_t a = l.chip(d, p, l.tp - 1), b = l.chip(d, p + 1, 0);
      const std::string base = step.name + ".c" + std::to_string(a) + "-c" + std::to_string(b);
      if (auto f = write_cdma(w, base + ".send.CDMA", a, b, true, w.stages[p * l.tp + l.tp - 1].hidden_out, rows, H, step)) return f;
      if (auto f = write_cdma(w, base + ".recv.CDMA", b, a, false, w.stages[(p + 1) * l.tp].hidden_in, rows, H, step)) return f;
    }
  }
  if (!step.cdma.empty()) w.m.steps.push_back(std::move(step));
  return std::nullopt;
}

}  // namespace

std::optional<Failure> size_schedule(Writer& w) {
  const ModelLayout& l = w.layout;
  w.chip_streams.assign(l.chips, 0);
  std::map<std::string, StepSizes> sized;  // by step_key: equal plans have equal sizes
  for (uint32_t p = 0; p < l.stages; ++p) {
    for (uint32_t r = 0; r < l.tp; ++r) {
      for (const ModelStep& s : w.stages[p * l.tp + r].steps) {
        const std::string key = step_key(s, s.plan);
        auto seen = sized.find(key);
        if (seen == sized.end()) {
          StepSizes z;
          if (auto f = size_step(s, z)) return f;
          seen = sized.emplace(key, z).first;
        }
        const StepSizes& z = seen->second;
        uint64_t bytes = 0;
        for (uint32_t c = 0; c < gen::kMaxCores; ++c) bytes += z.bytes[c][0] + z.bytes[c][1] + z.bytes[c][2];
        for (uint32_t d = 0; d < l.replicas; ++d) w.chip_streams[l.chip(d, p, r)] += bytes * l.microbatches;
        w.sizes.emplace(&s, z);
      }
    }
  }
  return std::nullopt;
}

namespace {

// The steps of a plan in segments: a segment ends after each layer part (an all-reduce of the
// tensor-parallel group follows it); without tp, one segment of every step.
// With tp, the embedding (on the group's first chip) is a segment of its own, broadcast to the
// others; they have an empty segment there.
std::vector<std::vector<const ModelStep*>> segments(const ModelPlan& mp) {
  std::vector<std::vector<const ModelStep*>> out(1);
  if (mp.layout.tp > 1 && mp.stage == 0 && mp.rank > 0) out.emplace_back();
  for (const ModelStep& s : mp.steps) {
    out.back().push_back(&s);
    const bool group_end = s.kind == gen::Program::embed || s.kind == gen::Program::head;  // a broadcast or a gather follows
    if (s.collective != Collective::none || (mp.layout.tp > 1 && group_end)) out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

}  // namespace

// Every slot of the schedule (docs/whole-model.md): in time step t, stage p's chips compute
// micro-batch t - p through the stage's steps, in segments separated by the tensor-parallel
// groups' all-reduces (each a slot of its own); then one slot moves the stage boundaries.
std::optional<Failure> write_schedule(Writer& w) {
  const ModelLayout& l = w.layout;
  uint32_t slot = 0;
  const bool cast_caches = l.expert_group && !l.dp_attention && !w.cli.timing_only &&
                           w.stages[0].inference.phase == gen::Phase::decode && any_cast_cache(w);
  if (cast_caches) {
    if (auto f = write_cache_cast(w, slot++)) return f;
  }
  for (uint32_t t = 0; t + 1 < l.microbatches + l.stages; ++t) {
    std::vector<std::vector<std::vector<const ModelStep*>>> seg(w.stages.size());
    size_t most = 0;
    for (size_t i = 0; i < w.stages.size(); ++i) {
      seg[i] = segments(w.stages[i]);
      most = std::max(most, seg[i].size());
    }
    for (size_t k = 0; k < most; ++k) {
      std::vector<AllReduce> reduces;
      std::vector<std::pair<uint32_t, uint32_t>> casts;  // the embedding's output: (first chip, stage)
      std::vector<std::pair<uint32_t, uint32_t>> gathers;  // the head's results: (first chip, micro-batch)
      for (uint32_t d = 0; d < l.replicas; ++d) {
        for (uint32_t p = 0; p < l.stages; ++p) {
          if (t < p || t - p >= l.microbatches) continue;
          for (uint32_t r = 0; r < l.tp; ++r) {
            const auto& sg = seg[p * l.tp + r];
            if (k >= sg.size() || sg[k].empty()) continue;
            for (const ModelStep* s : sg[k]) {
              if (auto f = write_step(w, *s, l.chip(d, p, r), t - p, slot)) return f;
            }
            const ModelStep& last = *sg[k].back();
            if (last.kind == gen::Program::embed && l.tp > 1) casts.push_back({l.chip(d, p, 0), p});
            if (last.kind == gen::Program::head && l.tp > 1 && r == 0) gathers.push_back({l.chip(d, p, 0), t - p});
            if (last.collective == Collective::none) continue;
            if (r == 0) reduces.push_back({l.chip(d, p, 0), {}, last.collective});
            reduces.back().addr.push_back(last.group_buffer);
          }
        }
      }
      ++slot;
      if (!reduces.empty() || !casts.empty() || !gathers.empty()) {
        if (auto f = write_collectives(w, reduces, casts, gathers, slot++)) return f;
      }
    }
    if (auto f = write_transfers(w, t, slot++)) return f;
    if (l.tp > 1 && l.stages > 1) {  // the stage inputs that arrived, to the rest of each group
      std::vector<std::pair<uint32_t, uint32_t>> casts;
      for (uint32_t d = 0; d < l.replicas; ++d) {
        for (uint32_t p = 0; p + 1 < l.stages; ++p) {
          if (t >= p && t - p < l.microbatches) casts.push_back({l.chip(d, p + 1, 0), p + 1});
        }
      }
      if (!casts.empty()) {
        if (auto f = write_collectives(w, {}, casts, {}, slot++)) return f;
      }
    }
  }
  return std::nullopt;
}

namespace {
int fail(const Failure& f) {
  std::fprintf(stderr, "tilefw gen: %s\n", f.message.c_str());
  return f.code;
}

// Plans every stage, then writes the schedule's streams, the data and the manifest.
std::optional<Failure> write_model(Writer& w) {
  if (auto f = model_layout_checked(w)) return f;
  if (auto f = size_schedule(w)) return f;
  if (auto f = check_capacity(w)) return f;  // before any stream is written
  if (auto f = write_schedule(w)) return f;
  if (auto f = write_data(w)) return f;
  return write_manifest_file(w);
}

// The manifest's size when more than `run` and `validate` read (kMaxManifestBytes), else 0.
uint64_t manifest_over(const Writer& w) {
  std::error_code ec;
  const uint64_t n = fs::file_size(w.dir / "manifest.json", ec);
  return !ec && n > kMaxManifestBytes ? n : 0;
}

// The model written; tensor-parallel attention chosen by the rule whose manifest is more than
// `run` reads (it lists a step per layer part and chip: DeepSeek-V3 on 64 chips) is written
// again with the attention replicated (recorded in model.generator.attention).
std::optional<Failure> write_model_fitting(std::unique_ptr<Writer>& w, GenCli& again, const fs::path& tmp) {
  if (auto f = write_model(*w)) return f;
  if (manifest_over(*w) != 0 && w->layout.tp_attention && w->cli.tp == 0) {
    std::fprintf(stderr, "tilefw gen: manifest.json with tensor-parallel attention: %" PRIu64 " bytes, more than run reads "
                 "(%" PRIu64 "); the attention stays replicated\n", manifest_over(*w), kMaxManifestBytes);
    for (const auto& e : fs::directory_iterator(tmp)) fs::remove_all(e.path());
    again = w->cli;
    again.replicated_attention = true;
    w = std::make_unique<Writer>(again, tmp);
    if (auto f = plan_stages(*w)) return f;
    if (auto f = write_model(*w)) return f;
  }
  if (const uint64_t n = manifest_over(*w)) {
    return Failure{1, "manifest.json: " + std::to_string(n) + " bytes, more than run and validate read (" +
                          std::to_string(kMaxManifestBytes) + "): fewer chips or steps" +
                          (w->layout.tp_attention ? " (--tp splits every MoE layer into two steps a chip)" : "")};
  }
  return std::nullopt;
}
}  // namespace

int run_gen_model(const GenCli& cli) {
  fs::path out;
  if (auto f = out_path(cli.out, out)) return fail(*f);
  if (auto f = check_out(cli, out)) return fail(*f);
  fs::path tmp;
  auto w = std::make_unique<Writer>(cli, tmp);
  if (auto f = plan_stages(*w)) return fail(*f);  // before the output exists: a bad request leaves nothing
  int slot = -1;
  const auto f_prepare = prepare_out(cli, out, tmp, slot);
  const signal_cleanup::Registered registered(slot);
  if (f_prepare) return fail(*f_prepare);
  std::optional<Failure> f;
  GenCli again;  // a second attempt's request (write_model_fitting)
  try {
    f = write_model_fitting(w, again, tmp);
    if (!f) f = commit_out(cli, tmp, out);
  } catch (const std::exception& e) {
    f = Failure{2, std::string("writing ") + out.string() + ": " + e.what()};
  }
  if (f) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    return fail(*f);
  }
  const ModelPlan& mp = w->stages.front();
  uint64_t ddr = 0;
  for (uint32_t c = 0; c < w->layout.chips; ++c) ddr = std::max(ddr, chip_ddr_bytes(*w, c));
  std::printf("%s whole model %s: %u layers, batch %u seq %u kv_len %u on %u chip%s (pp %u, dp %u, tp %u, %u micro-batches), "
              "%u cores each: %zu steps, %" PRIu64 " commands, %" PRIu64 " bytes of streams, DDR %.3f GB on the fullest "
              "chip -> %s\n",
              mp.cfg.model_type.c_str(), cli.phase.c_str(), mp.cfg.model.num_layers, w->layout.batch, mp.inference.seq,
              mp.inference.kv_len, w->layout.chips, w->layout.chips > 1 ? "s" : "", w->layout.stages, w->layout.replicas,
              w->layout.tp, w->layout.microbatches, cli.cores, w->m.steps.size(), w->commands, w->stream_bytes, ddr / 1e9,
              cli.out.c_str());
  return 0;
}

}  // namespace tilefw::tools
