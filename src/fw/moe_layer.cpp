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

void counts_ready(Span<const rt::CoreSubmission> phase1, uint64_t dma_addr, uint64_t bytes, uint32_t* ready) noexcept {
  for (size_t i = 0; i < phase1.size(); ++i) {
    ready[i] = 0;
    cmd::Walker w(cmd::Engine::gdma, phase1[i].gdma.bytes);
    cmd::Command cm;
    for (uint32_t id = 1; w.next(cm); ++id) {
      const cmd::DmaOperand dst = cmd::dma_operands(cm).dst;
      if (dst.used && dst.addr < dma_addr + bytes && dma_addr < dst.addr + dst.bytes) ready[i] = id;
    }
  }
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

Status run_moe_layer(rt::Runtime& runtime, const gen::SizedLayer& plan, Span<const rt::CoreSubmission> phase1,
                     uint64_t counts_addr, uint32_t* counts, const PhaseBuffers* buffers, gen::GenError& error,
                     uint32_t& phase, const Hooks& hooks) noexcept {
  phase = 1;
  const uint32_t experts = plan.model.moe.experts;
  uint32_t ready[gen::kMaxCores] = {};
  if (counts_addr >= chip::sg2260::kDdrWindowBase && phase1.size() <= gen::kMaxCores) {
    counts_ready(phase1, counts_addr - chip::sg2260::kDdrWindowBase, uint64_t{experts} * 4, ready);
    TILEFW_TRY(runtime.submit(phase1));
    TILEFW_TRY(wait_for_counts(runtime, phase1, ready));
  } else {
    TILEFW_TRY(runtime.submit(phase1));
    TILEFW_TRY(runtime.wait());
  }
  if (hooks.counts_landed != nullptr) hooks.counts_landed(hooks.user);
  phase = 0;
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
  rt::CoreSubmission subs[gen::kMaxCores];
  uint32_t commands[gen::kMaxCores] = {};
  TILEFW_TRY(generate_experts_phase(plan, counts, *buffers, subs, commands, error, hooks.ops, hooks.owner_placement,
                                    hooks.stats, &runtime.config().validate));
  phase = 1;
  TILEFW_TRY(runtime.wait());  // phase 1's tail (the shared experts) ran while generating
  if (hooks.after_generate != nullptr) hooks.after_generate(hooks.user, counts, commands);
  phase = 2;
  TILEFW_TRY(runtime.submit(Span<const rt::CoreSubmission>(subs, plan.parallel.cores)));
  return runtime.wait();
}

}  // namespace tilefw::fw
