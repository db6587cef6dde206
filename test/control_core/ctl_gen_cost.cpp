// The control core's cost of generating a MoE layer's experts' phase, measured on Cortex-M.
//
// Run under QEMU with `-icount shift=0` (every instruction advances the virtual clock by 1 ns),
// SysTick, clocked by the board's 25 MHz processor clock, then counts one tick per 40
// instructions. A calibration loop of a known instruction count gives the exact ratio. The
// program generates, as firmware does after the routing phase, the experts' phase of DeepSeek-V3
// layer 3 (decode batch 1, kv 4096, 8 cores, tp 8, ep 8, bf16) for the `balanced` routing
// (experts 0..7 one token each), one core at a time into static buffers, and prints the
// instructions per generated command, and per command validated. The sizes (size_phase) are taken before timing: firmware
// sizes its buffers once, at load time. tools/run/moe_phases.cpp charges this figure per command.
//
// It then measures copied expert blocks (gen::PhaseRequest::reuse_blocks): the same plan with
// four and with six experts of one token on core 0, generated whole and with copies; the two
// more experts' commands cost the difference, built and copied, and validated (copies marked
// checked under validate_core's default rules skip their operand checks).
//
// Exit 0 when the run is sane (a calibration of 20..50 instructions per tick, every
// stream valid, the command count the host generates: 1174, copies made and as many commands
// either way); the figures themselves are printed.
//
// Output goes through board_print.h, never stdio: newlib-nano's printf sets up its FILEs with
// malloc, the boards' _sbrk refuses, and newlib then writes the FILEs at address 0, over the
// vector table and the first functions of .text (this program's own code).
#include <cstdint>

#include "board_print.h"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/gen/generator.hpp"
#include "tilefw/port/port.hpp"

using namespace tilefw;
using namespace tilefw::gen;

namespace {

constexpr size_t kStreamBytes = 64 * 1024;
alignas(16) uint8_t g_streams[kEngines][kStreamBytes];
SizedLayer g_plan;

// `n` iterations of two instructions (subs, bne).
__attribute__((noinline)) void spin(uint32_t n) {
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

void print_line(const char* what, const char* detail) {
  board_print(what);
  board_print(detail);
  board_print("\n");
}

// test/data/models/deepseek-v3.json as `tilefw gen --dtype bf16` reads it.
ModelConfig deepseek_v3() {
  ModelConfig m;
  m.type = ModelType::deepseek_v3;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 64;  // qk_rope_head_dim
  m.intermediate = 18432;
  m.num_layers = 61;
  m.rms_eps = 1e-6f;
  m.act = Activation::silu;
  m.dtype = DType::bf16;
  m.moe_layer = true;
  m.moe.experts = 256;
  m.moe.top_k = 8;
  m.moe.expert_intermediate = 2048;
  m.moe.norm_topk_prob = true;
  m.moe.routing = Routing::sigmoid_grouped;
  m.moe.n_group = 8;
  m.moe.topk_group = 4;
  m.moe.routed_scaling_factor = 2.5f;
  m.moe.shared_intermediate = 2048;
  m.mla.q_lora_rank = 1536;
  m.mla.kv_lora_rank = 512;
  m.mla.qk_nope_head_dim = 128;
  m.mla.v_head_dim = 128;
  m.attn_scale = 0.1352337f;  // (128 + 64)^-0.5 x mscale(40, 1)^2: not used by the experts' phase
  return m;
}

// Counts the core's commands and validates them, the validation timed (`ticks`): firmware
// validates what it generated before submitting it.
uint32_t commands_in(const StreamBuffers& b, uint32_t core, const uint64_t (&used)[kEngines], bool& valid,
                     uint64_t& ticks, const PhaseRequest* marks = nullptr) {
  uint32_t n = 0;
  const cmd::Engine engines[kEngines] = {cmd::Engine::tiu, cmd::Engine::gdma, cmd::Engine::sdma};
  ConstByteSpan s[kEngines];
  for (uint32_t e = 0; e < kEngines; ++e) {
    s[e] = ConstByteSpan(b.stream[core][e].data(), static_cast<size_t>(used[e]));
    cmd::Walker w(engines[e], s[e]);
    cmd::Command c;
    while (w.next(c)) ++n;
  }
  const uint64_t t0 = port::now_ticks();
  cmd::CoreStreams streams{s[0], s[1], s[2]};
  if (marks != nullptr) {  // copies marked checked by the generator skip their operand checks
    streams.tiu_checked = marks->checked[0];
    streams.gdma_checked = marks->checked[1];
  }
  const bool ok = cmd::validate_core(streams).status == Status::ok;
  ticks += port::now_ticks() - t0;
  valid = valid && ok;
  return n;
}

// The same plan with experts 0, 8, 16, ... (n of them) one token each, each on its owner (core
// 0): core 0 runs n experts of one row, so with copies on its first two blocks are built and the
// others copied. Emits core 0's phase with copies on or off; adds its ticks and commands (all,
// copied).
uint64_t g_copy_plans[4096];
uint8_t g_checked[2][1024];
const cmd::ValidateOptions kTagSpace;  // validate_core's default rules

bool emit_experts(uint32_t n, bool reuse, uint64_t& ticks, uint32_t& commands, uint32_t& copied, bool& valid,
                  uint64_t& validate_ticks) {
  static uint32_t counts[256] = {};
  for (uint32_t e = 0; e < 256; ++e) counts[e] = e % 8 == 0 && e < 8 * n ? 1 : 0;
  PhaseStats stats;
  PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = counts;
  req.owner_placement = true;
  req.reuse_blocks = reuse;
  req.stats = &stats;
  req.copy_plans = Span<uint64_t>(g_copy_plans, sizeof g_copy_plans / sizeof g_copy_plans[0]);
  req.memory = &kTagSpace;
  for (uint32_t e = 0; e < 2; ++e) req.checked[e] = Span<uint8_t>(g_checked[e], sizeof g_checked[e]);
  StreamBuffers b;
  GenError err;
  uint64_t used[kEngines] = {};
  for (uint32_t e = 0; e < kEngines; ++e) b.stream[0][e] = ByteSpan(g_streams[e], kStreamBytes);
  const uint64_t t0 = port::now_ticks();
  const Status s = emit_phase(g_plan, 0, req, b, used, err);
  ticks += port::now_ticks() - t0;
  if (s != Status::ok) {
    print_line("emit_phase of experts on core 0 failed: ", err.what);
    return false;
  }
  commands += commands_in(b, 0, used, valid, validate_ticks, &req);
  copied = stats.commands_copied;
  return true;
}

// The stack's deepest use (the control core's stack is 16 KB, linker/common.ld): the free part
// below the caller's frame is painted before the runs and the lowest overwritten word found
// after. Boards only: the symbols come from the target linker script.
extern "C" uint32_t __stack_limit__[], __stack_top__[];
constexpr uint32_t kPaint = 0x5AC3A55Cu;
void paint_stack() {
  uint32_t* sp = static_cast<uint32_t*>(__builtin_frame_address(0));
  for (uint32_t* p = __stack_limit__; p + 64 < sp; ++p) *p = kPaint;  // 256 B below this frame kept
}
uint32_t stack_used() {
  const uint32_t* p = __stack_limit__;
  while (p < __stack_top__ && *p == kPaint) ++p;
  return static_cast<uint32_t>((__stack_top__ - p) * sizeof(uint32_t));
}

}  // namespace

int main() {
  paint_stack();
  constexpr uint32_t kSpin = 4'000'000;
  const uint64_t c0 = port::now_ticks();
  spin(kSpin);
  const uint64_t c1 = port::now_ticks();
  const double per_tick = 2.0 * kSpin / static_cast<double>(c1 - c0);  // instructions per tick

  InferenceConfig in;
  in.phase = Phase::decode;
  in.batch = 1;
  in.seq = 1;
  in.kv_len = 4096;
  ParallelConfig par;
  par.cores = 8;
  GenError err;
  if (size_layer(deepseek_v3(), in, par, g_plan, err) != Status::ok) {
    print_line("size_layer failed: ", err.what);
    return 1;
  }
  static uint32_t counts[256] = {};
  for (uint32_t e = 0; e < 8; ++e) counts[e] = 1;  // balanced: 8 choices, the first 8 experts
  PhaseRequest req;
  req.phase = 2;
  req.expert_tokens = counts;
  StreamBuffers b;
  uint64_t ticks = 0, validate_ticks = 0;
  uint32_t commands = 0;
  bool valid = true;
  for (uint32_t core = 0; core < par.cores; ++core) {
    for (uint32_t e = 0; e < kEngines; ++e) b.stream[core][e] = ByteSpan(g_streams[e], kStreamBytes);
    uint64_t used[kEngines] = {};
    const uint64_t t0 = port::now_ticks();
    const Status s = emit_phase(g_plan, core, req, b, used, err);
    ticks += port::now_ticks() - t0;
    if (s != Status::ok) {
      board_print("emit_phase core ");
      board_print_u64(core);
      print_line(" failed: ", err.what);
      return 1;
    }
    commands += commands_in(b, core, used, valid, validate_ticks);
  }
  // Integers only, as the figures are recorded.
  const unsigned long instructions = static_cast<unsigned long>(static_cast<double>(ticks) * per_tick);
  board_print("calibration: ");
  board_print_u64(static_cast<unsigned long>(per_tick * 1000));
  board_print("/1000 instructions per SysTick tick (1e9 / the board clock under -icount shift=0)\n");
  board_print("experts' phase of DeepSeek-V3 L3 decode b1 (balanced): ");
  board_print_u64(commands);
  board_print(" commands, ");
  board_print_u64(instructions);
  board_print(" instructions, ");
  board_print_u64(instructions / commands);
  board_print(" instructions per command\n");
  const unsigned long checked = static_cast<unsigned long>(static_cast<double>(validate_ticks) * per_tick);
  board_print("validating them: ");
  board_print_u64(checked);
  board_print(" instructions, ");
  board_print_u64(checked / commands);
  board_print(" per command\n");
  // Copies: core 0 with four and with six experts of one row, built whole and with copies. The
  // two more experts' commands cost the difference: built whole, and copied (the first two
  // blocks are built either way).
  uint64_t t[2][2] = {}, v[2][2] = {};
  uint32_t n[2][2] = {}, c[2][2] = {};
  for (uint32_t r = 0; r < 2; ++r) {
    for (uint32_t k = 0; k < 2; ++k) {
      if (!emit_experts(k == 0 ? 4 : 6, r == 1, t[r][k], n[r][k], c[r][k], valid, v[r][k])) return 1;
    }
  }
  const uint32_t more = n[0][1] - n[0][0], copied = c[1][1] - c[1][0];
  const unsigned long per_built = static_cast<unsigned long>(static_cast<double>(t[0][1] - t[0][0]) * per_tick / more);
  const unsigned long per_copied =
      copied == 0 ? 0 : static_cast<unsigned long>(static_cast<double>(t[1][1] - t[1][0]) * per_tick / copied);
  const unsigned long per_copy_validated =
      copied == 0 ? 0 : static_cast<unsigned long>(static_cast<double>(v[1][1] - v[1][0]) * per_tick / copied);
  board_print("two more experts on core 0 (four -> six, one row each): ");
  board_print_u64(more);
  board_print(" commands, ");
  board_print_u64(per_built);
  board_print(" instructions per command built, ");
  board_print_u64(per_copied);
  board_print(" per command copied (");
  board_print_u64(copied);
  board_print(" copied), ");
  board_print_u64(per_copy_validated);
  board_print(" per copied command validated (copies marked checked skip their operand checks)\n");
  // The SysTick clock is the board's (25 MHz on the AN386, 32 MHz on the AN547): 40 or 31.25.
  const uint32_t stack = stack_used(), stack_size = static_cast<uint32_t>((__stack_top__ - __stack_limit__) * 4);
  board_print("stack high-water: ");
  board_print_u64(stack);
  board_print(" of ");
  board_print_u64(stack_size);
  board_print(" bytes\n");
  // Sane also means a quarter of the stack still free: generation must leave room for the
  // firmware around it.
  const bool sane = per_tick > 20 && per_tick < 50 && valid && commands == 1174 && n[1][1] == n[0][1] &&
                    copied == more && stack <= stack_size / 4 * 3;
  if (!sane) board_print("not sane: calibration, validation, command count (1174 expected) or stack\n");
  return sane ? 0 : 1;
}
