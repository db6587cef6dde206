// `tilefw gen --model`: the CDMA streams between chips (docs/whole-model.md): the pipeline's
// stage boundaries, the tensor-parallel and expert-parallel groups' ring collectives, the
// broadcasts and gathers down a group's chain, and a decode's past caches copied to a group.
#include "gen/model_transfers.hpp"

#include <map>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "gen/gen_output.hpp"
#include "tilefw/cmd/cdma.hpp"

namespace tilefw::tools {

using gen::TensorId;
using gen::TensorInfo;

namespace {

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
// to the next); the last step's recv signals nothing (no send waits for it).
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
        // Only a step that a later send waits for signals: a message nobody waits for stays
        // counted on the chip, and a later slot's wait on its id would pass before its own recv.
        if (step_id + 1 < passes.size() * (n - 1)) {
          ss.keep(cmd::cdma_msg(ss.stream(me, prev), cmd::CdmaSysOp::rx_send, 100 + step_id, 1));
        }
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
// tp - 1 -> tp - 2 -> ... -> 0, block by block: chip k's block is its logits columns (when the
// logits do not stay in parts) and its cores' head candidates, which it wrote into the whole
// layouts, so block k sits at the same addresses on every chip. Chip r sends its own block to
// r - 1 at once, then forwards each block k > r as soon as it has received it from r + 1 (its
// receive thread signals message 300 + k, its send thread waits for it). The link into chip 0
// carries the n - 1 blocks one after the other while the blocks further up are still on their
// way: about (n - 1) blocks' transfer time, where passing the gathered columns on only after
// receiving all of them took (n - 1) n / 2 (2.9 s for DeepSeek-V3 prefill 4096 on 32 chips).
void chain_gather(SlotStreams& ss, const Writer& w, uint32_t first, uint32_t mb) {
  const ModelLayout& l = w.layout;
  const uint32_t n = l.tp, last = l.stages - 1;
  // Each chip's logits and candidates layouts (its own plan's addresses).
  std::vector<gen::TensorInfo> lg(n), cand(n);
  for (uint32_t r = 0; r < n; ++r) {
    for (const ModelStep& s : w.stages[last * n + r].steps) {
      if (s.kind != gen::Program::head) continue;
      const gen::SizedLayer p = microbatch_plan(s, mb);
      lg[r] = p.memory[TensorId::logits];
      cand[r] = p.memory[TensorId::head_cand];
    }
  }
  const bool logits = !logits_in_parts(l, w.stages[0].inference.seq);  // else they stay in parts
  const uint32_t V = lg[0].shape[2], rows = lg[0].shape[0] * lg[0].shape[1];
  const uint64_t per_chip = cand[0].bytes / n;  // one chip's cores' candidates
  const uint32_t cores = cand[0].shape[0] / n;   // head_cand: [chips x cores, rows, 2]
  // Chip k's block on chip r: its logits columns (row pitch V) and its candidates.
  auto logits_block = [&](uint32_t r, uint32_t k) {
    const uint32_t c0 = static_cast<uint32_t>(uint64_t{V} * k / n), c1 = static_cast<uint32_t>(uint64_t{V} * (k + 1) / n);
    cmd::CdmaTensor t = f32_rows(lg[r].device_addr + uint64_t{c0} * 4, rows, c1 - c0);
    t.cstride = t.hstride = V;
    t.nstride = rows * V;
    return t;
  };
  auto cand_block = [&](uint32_t r, uint32_t k) { return f32_rows(cand[r].device_addr + k * per_chip, cores, rows * 2); };
  for (uint32_t r = n - 1; r > 0; --r) {
    const uint32_t a = first + r, b = a - 1;
    for (uint32_t k = r; k < n; ++k) {  // chip k's block over the hop a -> b
      if (k > r) ss.keep(cmd::cdma_msg(ss.stream(a, b), cmd::CdmaSysOp::tx_wait, 300 + k, 1));
      if (logits) ss.keep(cmd::cdma_send(ss.stream(a, b), logits_block(r, k), false));
      ss.keep(cmd::cdma_send(ss.stream(a, b), cand_block(r, k), false));
      if (logits) ss.keep(cmd::cdma_recv(ss.stream(b, a), logits_block(r - 1, k), cmd::kCdmaReduceNone));
      ss.keep(cmd::cdma_recv(ss.stream(b, a), cand_block(r - 1, k), cmd::kCdmaReduceNone));
      if (r > 1) ss.keep(cmd::cdma_msg(ss.stream(b, a), cmd::CdmaSysOp::rx_send, 300 + k, 1));
    }
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

}  // namespace

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

namespace {

// The token-selective combines of a slot: one transfer step a group, with no streams: `run`
// generates them from the routing the MoE part stored (the control cores' work on a device),
// each chip's own rows and choices addresses in its per_chip entry. Its steps run one after the
// other in the slot, after the ring collectives' step.
void write_combines(Writer& w, const std::vector<AllReduce>& groups, uint32_t slot) {
  for (const AllReduce& g : groups) {
    if (g.kind != Collective::a2a_combine) continue;
    ManifestStep step;
    step.name = "combine." + std::to_string(slot) + ".c" + std::to_string(g.first);
    step.kind = "xfer";
    step.slot = slot;
    ManifestAlltoall a;
    a.direction = "combine";
    a.layer = g.layer;
    a.microbatch = g.microbatch;
    a.first_chip = g.first;
    a.chips = static_cast<uint32_t>(g.addr.size());
    for (size_t i = 0; i < g.addr.size(); ++i) a.per_chip.push_back({g.addr[i], g.choices[i], cmd::kCdmaFormatFp32});
    step.alltoall = a;
    w.m.steps.push_back(std::move(step));
  }
}


// One transfer step of the ring collectives, broadcasts and gathers of a slot.
std::optional<Failure> write_ring_step(Writer& w, const std::vector<AllReduce>& groups,
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

}  // namespace

// One transfer slot of the tensor-parallel groups: the all-reduces of `groups` and the
// broadcasts `casts` (first chip, stage); the token-selective combines among `groups` as steps
// of their own (write_combines).
std::optional<Failure> write_collectives(Writer& w, const std::vector<AllReduce>& all,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& casts,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& gathers, uint32_t slot) {
  std::vector<AllReduce> groups;
  for (const AllReduce& g : all) {
    if (g.kind != Collective::a2a_combine) groups.push_back(g);
  }
  if (groups.empty() && casts.empty() && gathers.empty()) {
    write_combines(w, all, slot);
    return std::nullopt;
  }
  if (auto f = write_ring_step(w, groups, casts, gathers, slot)) return f;
  write_combines(w, all, slot);
  return std::nullopt;
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

}  // namespace tilefw::tools
