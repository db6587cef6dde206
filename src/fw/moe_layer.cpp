// A MoE layer's two phases on the control core (moe_layer.hpp).
#include "tilefw/fw/moe_layer.hpp"

#include "tilefw/port/port.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::fw {

Status read_expert_counts(uint64_t device_addr, uint32_t experts, uint32_t tokens, uint32_t* counts,
                          uint32_t& bad_index) noexcept {
  const Result<uint8_t*> p = port::map_memory(device_addr, uint64_t{experts} * 4);
  if (!p.ok()) return p.status();
  port::invalidate_dcache(p.value(), size_t{experts} * 4);  // the engines wrote them: not the cache's old lines
  for (uint32_t e = 0; e < experts; ++e) {
    uint32_t bits = 0;
    for (uint32_t b = 0; b < 4; ++b) bits |= uint32_t{p.value()[4 * e + b]} << (8 * b);
    float f = 0;
    __builtin_memcpy(&f, &bits, 4);
    // The TPU counts in f32: exact integers up to 2^24, far above any request's tokens.
    if (!(f >= 0.0f) || f > static_cast<float>(tokens) || static_cast<float>(static_cast<uint32_t>(f)) != f) {
      bad_index = e;
      return Status::fw_bad_counts;
    }
    counts[e] = static_cast<uint32_t>(f);
  }
  return Status::ok;
}

Status generate_experts_phase(const gen::SizedLayer& plan, const uint32_t* counts, const PhaseBuffers& buffers,
                              rt::CoreSubmission* subs, uint32_t* commands, gen::GenError& error,
                              const gen::OpSink& ops, bool owner_placement, gen::PhaseStats* stats,
                              const cmd::ValidateOptions* memory) noexcept {
  gen::PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = counts;
  req.owner_placement = owner_placement;
  req.copy_plans = buffers.copy_plans;
  req.memory = memory;
  for (uint32_t c = 0; c < plan.parallel.cores; ++c) {
    for (uint32_t e = 0; e < 2; ++e) req.checked[e] = buffers.checked[c][e];
    if (stats != nullptr) {
      stats[c] = gen::PhaseStats{};
      req.stats = &stats[c];
    }
    gen::StreamBuffers b;
    for (uint32_t e = 0; e < gen::kEngines; ++e) b.stream[c][e] = buffers.stream[c][e];
    uint64_t used[gen::kEngines] = {};
    TILEFW_TRY(gen::emit_phase(plan, c, req, b, used, error, ops));
    rt::CoreSubmission& s = subs[c];
    s = rt::CoreSubmission{};
    s.core = c;
    rt::EngineStream* es[gen::kEngines] = {&s.tiu, &s.gdma, &s.sdma};
    for (uint32_t e = 0; e < gen::kEngines; ++e) {
      es[e]->device_addr = buffers.device_addr[c][e];
      es[e]->bytes = ConstByteSpan(buffers.stream[c][e].data(), static_cast<size_t>(used[e]));
      if (memory != nullptr && e < 2) es[e]->checked_copies = buffers.checked[c][e];
    }
    if (commands != nullptr) {
      uint32_t n = 0;
      for (uint32_t e = 0; e < gen::kEngines; ++e) {
        cmd::Walker w(e == 0 ? cmd::Engine::tiu : e == 1 ? cmd::Engine::gdma : cmd::Engine::sdma, es[e]->bytes);
        cmd::Command cm;
        while (w.next(cm)) ++n;
      }
      commands[c] = n;
    }
  }
  return Status::ok;
}

namespace {
// How a DMA command's destination meets [lo, lo + bytes): not at all, writes bytes [first,
// end) of it, or meets it in a way the footprint cannot bound (its extent unknown, or a class
// whose operands are not decoded): then nothing can be concluded from ids.
enum class Meets { no, known, unknown };

Meets meets(const cmd::Command& c, uint64_t lo, uint64_t bytes, uint64_t& first, uint64_t& end) noexcept {
  if (c.cls == cmd::CmdClass::dma_sys) return Meets::no;
  const cmd::DmaOperand dst = cmd::dma_operands(c).dst;
  if (!dst.used) return Meets::unknown;
  if (dst.bytes == 0) return dst.addr < lo + bytes ? Meets::unknown : Meets::no;
  if (dst.addr >= lo + bytes || lo >= dst.addr + dst.bytes) return Meets::no;
  first = dst.addr > lo ? dst.addr - lo : 0;
  end = dst.addr + dst.bytes - lo < bytes ? dst.addr + dst.bytes - lo : bytes;
  return Meets::known;
}
}  // namespace

bool counts_ready(Span<const rt::CoreSubmission> phase1, uint64_t dma_addr, uint64_t bytes, uint32_t* ready) noexcept {
  constexpr uint64_t kWords = 1024;  // the most experts a layer has (gen's sizing)
  uint32_t covered[kWords / 32] = {};
  const uint64_t words = (bytes + 3) / 4;
  bool known = words <= kWords;
  for (size_t i = 0; i < phase1.size(); ++i) {
    ready[i] = 0;
    cmd::Walker w(cmd::Engine::gdma, phase1[i].gdma.bytes);
    cmd::Command cm;
    for (uint32_t id = 1; w.next(cm); ++id) {
      uint64_t first = 0, end = 0;
      const Meets m = meets(cm, dma_addr, bytes, first, end);
      if (m == Meets::no) continue;
      ready[i] = id;
      if (m == Meets::unknown || !known) {
        known = false;
        continue;
      }
      for (uint64_t k = first / 4; k < (end + 3) / 4; ++k) covered[k / 32] |= 1u << (k % 32);
    }
    // The counts must be GDMA's: ids of another engine of the core are not waited for.
    cmd::Walker sw(cmd::Engine::sdma, phase1[i].sdma.bytes);
    while (sw.next(cm)) {
      uint64_t first = 0, end = 0;
      if (meets(cm, dma_addr, bytes, first, end) != Meets::no) known = false;
    }
  }
  for (uint64_t k = 0; known && k < words; ++k) known = (covered[k / 32] >> (k % 32)) & 1u;
  return known;
}

namespace {
struct CountsWait {
  Span<const rt::CoreSubmission> phase1;
  const uint32_t* ready;
};

bool counts_landed(const rt::Runtime& runtime, void* context) {
  const CountsWait& w = *static_cast<const CountsWait*>(context);
  for (size_t i = 0; i < w.phase1.size(); ++i) {
    if (runtime.completed(w.phase1[i].core, cmd::Engine::gdma) < w.ready[i]) return false;
  }
  return true;
}
}  // namespace

Status wait_for_counts(rt::Runtime& runtime, Span<const rt::CoreSubmission> phase1, const uint32_t* ready) noexcept {
  CountsWait w{phase1, ready};
  return runtime.wait_until(counts_landed, &w);
}

namespace {
// The control core's part once the counts are in DDR: read them (or take the given ones), pick
// the buffers, generate every core's experts' phase into `subs`. The routing phase may still
// be running on the engines.
Status control_core_part(const gen::SizedLayer& plan, const rt::Runtime& runtime, uint64_t counts_addr,
                         uint32_t* counts, const PhaseBuffers* buffers, rt::CoreSubmission* subs, uint32_t* commands,
                         gen::GenError& error, const Hooks& hooks) noexcept {
  const uint32_t experts = plan.model.moe.experts;
  if (hooks.given_counts != nullptr) {
    for (uint32_t e = 0; e < experts; ++e) counts[e] = hooks.given_counts[e];
  } else {
    uint32_t bad = 0;
    const Status read = read_expert_counts(counts_addr, experts, plan.inference.batch * plan.inference.seq, counts, bad);
    if (read != Status::ok) {
      error = gen::GenError{read, "expert_tokens", bad};
      return read;
    }
  }
  if (hooks.buffers_for != nullptr) TILEFW_TRY(hooks.buffers_for(hooks.user, counts, buffers));
  if (buffers == nullptr) {
    error = gen::GenError{Status::invalid_argument, "experts' phase buffers", 0};
    return error.status;
  }
  return generate_experts_phase(plan, counts, *buffers, subs, commands, error, hooks.ops, hooks.owner_placement,
                                hooks.stats, &runtime.config().validate);
}
}  // namespace

Status run_moe_layer(rt::Runtime& runtime, const gen::SizedLayer& plan, Span<const rt::CoreSubmission> phase1,
                     uint64_t counts_addr, uint32_t* counts, const PhaseBuffers* buffers, gen::GenError& error,
                     uint32_t& phase, const Hooks& hooks) noexcept {
  phase = 1;
  TILEFW_TRY(runtime.submit(phase1));
  // While the engines run the routing phase: which GDMA command stores each core's last count.
  // Counts that phase 1's GDMA streams do not visibly store whole: wait for its end instead.
  uint32_t ready[gen::kMaxCores] = {};
  const uint64_t bytes = uint64_t{plan.model.moe.experts} * 4;
  const bool early = counts_addr >= chip::sg2260::kDdrWindowBase && phase1.size() <= gen::kMaxCores &&
                     counts_ready(phase1, counts_addr - chip::sg2260::kDdrWindowBase, bytes, ready);
  TILEFW_TRY(early ? wait_for_counts(runtime, phase1, ready) : runtime.wait());
  if (hooks.counts_landed != nullptr) hooks.counts_landed(hooks.user);
  phase = 0;
  rt::CoreSubmission subs[gen::kMaxCores];
  uint32_t commands[gen::kMaxCores] = {};
  const Status s = control_core_part(plan, runtime, counts_addr, counts, buffers, subs, commands, error, hooks);
  if (s != Status::ok) {
    (void)runtime.wait();  // the routing phase may still run: leave the engines idle
    return s;
  }
  phase = 1;
  TILEFW_TRY(runtime.wait());  // phase 1's tail (the shared experts) ran while generating
  if (hooks.after_generate != nullptr) hooks.after_generate(hooks.user, counts, commands);
  phase = 2;
  TILEFW_TRY(runtime.submit(Span<const rt::CoreSubmission>(subs, plan.parallel.cores)));
  return runtime.wait();
}

}  // namespace tilefw::fw
