// The control core's cost of generating a token-selective all-to-all's combine (gen::size_a2a,
// gen::emit_a2a; docs/sg2260-commands.md section 13.8), measured on Cortex-M.
//
// Timing as ctl_gen_cost.cpp: QEMU with `-icount shift=0` makes SysTick count one tick per 40
// instructions (25 MHz AN386) or 31.25 (32 MHz AN547), and a calibration loop of a known
// instruction count gives the exact ratio. The request: DeepSeek-V3 decode batch 32 on an
// expert-parallel group of 32 chips with data-parallel attention (tokens 32, one row owned a
// chip, experts 256, top_k 8, hidden 7168, f32 partials), `balanced` routing (token t chooses
// experts (8 t + j) mod 256, j < 8). For every chip of the group, as its control core would:
// a2a_plan once, then for each round with traffic size_a2a and emit_a2a into static buffers,
// then each port stream validated as rt::Runtime validates a CDMA submission (validate_stream
// for Engine::cdma with the chip, the peer and both memory maps). Printed: chip 0's and the
// busiest chip's instructions per generated command, per chip-round and for the whole combine
// (docs/moe-phases.md converts them at the control core's 1 GHz, one instruction a cycle).
//
// Exit 0 when the run is sane: a calibration of 20..50 instructions per tick, every stream
// valid and as size_a2a sized it, every chip's planned rounds the same, and the group's command counts
// those of the plan (kGroupSends, kGroupCommands: derived by hand from the routing, not from
// the generator); the figures themselves are printed.
//
// Output through board_print.h, never stdio (ctl_gen_cost.cpp says why).
#include <cstdint>
#include <cstring>

#include "board_print.h"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/gen/alltoall.hpp"
#include "tilefw/port/port.hpp"

using namespace tilefw;
using namespace tilefw::gen;

namespace {

namespace sg = chip::sg2260;

constexpr uint32_t kChips = 32, kTokens = 32, kExperts = 256, kTopK = 8, kHidden = 7168;

// The plan, derived by hand from the routing (not from the generator). Token t (owned by chip
// t) chooses experts 8t .. 8t + 7, held by chips 8 (t mod 4) .. 8 (t mod 4) + 7; t is one of
// its own holders when t / 8 == t mod 4 (t = 0, 4, 9, 13, 18, 22, 27, 31). So 8 tokens have 7
// other holders and 24 have 8: 8 x 7 + 24 x 8 = 248 partial rows cross, one send and one recv
// each, every row a command of its own (own = 1), and L = 248 ports with recvs (one row each).
// The chips linked are the 220 pairs {t, h} with h one of t's other holders: a port on both
// chips, 440 chain_ends, whatever the rounds. A chip's chain messages are 2 (L_r - 1) in a round
// with L_r ports with recvs: 2 (L - R) for the group, R the chip-rounds with recvs. a2a_plan
// gives 2 rounds and no owner more than 5 of its 7 or 8 partials in one, so R = 64 and the
// group's streams hold 496 + 440 + 368 = 1304 commands (by ring distance, 4 rounds: R = 68,
// 1296).
constexpr uint32_t kGroupSends = 248, kGroupCommands = 1304, kGroupRounds = 2;

alignas(16) uint8_t g_buf[kA2aPeersPerRound][4096];
uint32_t g_choices[kTokens * kTopK];
// The chip's plan and chip 0's, to compare (about 34 KB each: static, not on the stack).
A2aPlan g_plan;
A2aPlan g_plan0;

// Each chip's memory map, three regions of a tag each (weights, activations with the rows
// buffer, streams; an assumption, gen's manifests give each chip its own), the same on every
// chip. rt validates a CDMA stream against the chip's map and the peer's.
constexpr uint64_t kRowsAddr = sg::make_dma_address(2, 0x1000'0000);
const cmd::DdrRegion kDdr[3] = {
    {1, sg::make_dma_address(1, 0), uint64_t{60} << 30},
    {2, sg::make_dma_address(2, 0), uint64_t{4} << 30},
    {3, sg::make_dma_address(3, 0), uint64_t{1} << 30},
};

// `n` iterations of two instructions (subs, bne).
__attribute__((noinline)) void spin(uint32_t n) {
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

// One chip's combine: ticks per part, commands and ports generated.
struct ChipCost {
  uint64_t rounds_ticks = 0;  // a2a_plan
  uint64_t size_ticks = 0;    // size_a2a, every round
  uint64_t emit_ticks = 0;    // emit_a2a, every round
  uint64_t validate_ticks = 0;
  uint64_t max_round_ticks = 0;  // the costliest round, size + emit + validation
  // chip_rounds: the rounds of the mask (each costs its calls even without ports); busy_rounds:
  // those with ports.
  uint32_t commands = 0, ports = 0, chip_rounds = 0, busy_rounds = 0, sends = 0, recvs = 0, max_round_commands = 0;
  uint64_t bytes = 0;
  uint32_t mask = 0;
};

A2aGroup group_of(uint32_t rank) {
  A2aGroup g;
  g.chips = kChips;
  g.rank = rank;
  g.tokens = kTokens;
  g.own = 1;
  g.experts = kExperts;
  g.top_k = kTopK;
  g.hidden = kHidden;
  g.format = cmd::kCdmaFormatFp32;
  g.rows = kRowsAddr;
  return g;
}

bool fail(const char* what, uint32_t rank, const A2aError& e) {
  board_print(what);
  board_print(" chip ");
  board_print_u64(rank);
  board_print(": ");
  board_print(e.what);
  board_print("\n");
  return false;
}

// Validates port i's stream as rt::Runtime::check_cdma does (the chip's and the peer's map).
bool validate_port(uint32_t rank, uint32_t peer, ConstByteSpan s, ChipCost& c) {
  cmd::ValidateOptions o;
  o.use_memory_map = true;
  o.ddr_regions = Span<const cmd::DdrRegion>(kDdr, 3);
  o.cdma.chip = rank;
  o.cdma.peer = peer;
  o.cdma.peer_use_memory_map = true;
  o.cdma.peer_ddr_regions = Span<const cmd::DdrRegion>(kDdr, 3);
  const uint64_t t0 = port::now_ticks();
  const cmd::ValidationReport r = cmd::validate_stream(cmd::Engine::cdma, s, o);
  c.validate_ticks += port::now_ticks() - t0;
  if (!r.ok()) {
    board_print("validate_stream refused chip ");
    board_print_u64(rank);
    board_print("'s port to ");
    board_print_u64(peer);
    board_print(": command ");
    board_print_u64(r.command_id);
    board_print(" ");
    board_print(r.field);
    board_print(": ");
    board_print(r.message);
    board_print("\n");
    return false;
  }
  c.sends += r.cdma_sends;
  c.recvs += r.cdma_recvs;
  return true;
}

// One round of chip `rank`: sized, emitted into g_buf, compared with its size, validated.
bool chip_round(const A2aGroup& g, Span<const uint32_t> ids, uint32_t round, ChipCost& c) {
  A2aPorts p, w;
  A2aError e;
  uint64_t t0 = port::now_ticks();
  if (size_a2a(g, A2aDirection::combine, ids, g_plan, round, p, e) != Status::ok) return fail("size_a2a", g.rank, e);
  uint64_t t1 = port::now_ticks();
  const uint64_t sized = t1 - t0;
  c.size_ticks += sized;
  ByteSpan bufs[kA2aPeersPerRound];
  uint32_t round_commands = 0;
  for (uint32_t i = 0; i < p.count; ++i) {
    if (p.bytes[i] > sizeof g_buf[i]) return fail("a port's stream outgrows the buffer:", g.rank, e);
    bufs[i] = ByteSpan(g_buf[i], p.bytes[i]);
    round_commands += p.commands[i];
  }
  t0 = port::now_ticks();
  if (emit_a2a(g, A2aDirection::combine, ids, g_plan, round, Span<const ByteSpan>(bufs, p.count), w, e) !=
      Status::ok) {
    return fail("emit_a2a", g.rank, e);
  }
  t1 = port::now_ticks();
  c.emit_ticks += t1 - t0;
  if (w.count != p.count) return fail("emit_a2a wrote other ports than size_a2a's:", g.rank, e);
  const uint64_t v0 = c.validate_ticks;
  for (uint32_t i = 0; i < p.count; ++i) {
    if (w.bytes[i] != p.bytes[i] || w.commands[i] != p.commands[i] || w.peer[i] != p.peer[i]) {
      return fail("emit_a2a wrote another stream than size_a2a sized:", g.rank, e);
    }
    if (!validate_port(g.rank, p.peer[i], ConstByteSpan(g_buf[i], p.bytes[i]), c)) return false;
    c.bytes += p.bytes[i];
  }
  const uint64_t round_ticks = sized + (t1 - t0) + (c.validate_ticks - v0);
  if (round_ticks > c.max_round_ticks) c.max_round_ticks = round_ticks;
  if (round_commands > c.max_round_commands) c.max_round_commands = round_commands;
  c.commands += round_commands;
  c.ports += p.count;
  c.chip_rounds += 1;
  c.busy_rounds += p.count > 0 ? 1 : 0;
  return true;
}

bool chip_combine(uint32_t rank, ChipCost& c) {
  const A2aGroup g = group_of(rank);
  const Span<const uint32_t> ids(g_choices, kTokens * kTopK);
  A2aError e;
  const uint64_t t0 = port::now_ticks();
  if (a2a_plan(g, ids, g_plan, e) != Status::ok) return fail("a2a_plan", rank, e);
  c.rounds_ticks = port::now_ticks() - t0;
  c.mask = g_plan.round_mask;
  for (uint32_t round = 0; round < kA2aMaxRounds; ++round) {
    if ((c.mask >> round & 1) != 0 && !chip_round(g, ids, round, c)) return false;
  }
  return true;
}

unsigned long instr(uint64_t ticks, double per_tick) {
  return static_cast<unsigned long>(static_cast<double>(ticks) * per_tick);
}

void print_chip(const char* name, uint32_t rank, const ChipCost& c, double per_tick) {
  const unsigned long rounds = instr(c.rounds_ticks, per_tick), sized = instr(c.size_ticks, per_tick),
                      emitted = instr(c.emit_ticks, per_tick), checked = instr(c.validate_ticks, per_tick);
  const unsigned long gen = rounds + sized + emitted;
  board_print(name);
  board_print_u64(rank);
  board_print(": ");
  board_print_u64(c.chip_rounds);
  board_print(" rounds (");
  board_print_u64(c.busy_rounds);
  board_print(" with ports), ");
  board_print_u64(c.ports);
  board_print(" port streams, ");
  board_print_u64(c.commands);
  board_print(" commands (");
  board_print_u64(c.bytes);
  board_print(" bytes; at most ");
  board_print_u64(c.max_round_commands);
  board_print(" a round)\n  instructions: a2a_plan ");
  board_print_u64(rounds);
  board_print(", size_a2a ");
  board_print_u64(sized);
  board_print(", emit_a2a ");
  board_print_u64(emitted);
  board_print(" (generation ");
  board_print_u64(gen);
  board_print("), validation ");
  board_print_u64(checked);
  board_print(", whole combine ");
  board_print_u64(gen + checked);
  board_print("\n  per command: generation ");
  board_print_u64(gen / c.commands);
  board_print(" (size ");
  board_print_u64(sized / c.commands);
  board_print(", emit ");
  board_print_u64(emitted / c.commands);
  board_print("), validation ");
  board_print_u64(checked / c.commands);
  board_print("\n  per chip-round: generation ");
  board_print_u64(gen / c.chip_rounds);
  board_print(", validation ");
  board_print_u64(checked / c.chip_rounds);
  board_print("; costliest round (size + emit + validation) ");
  board_print_u64(instr(c.max_round_ticks, per_tick));
  board_print("\n");
}

// The group and choices check alone: a2a_plan, size_a2a and emit_a2a each run it (5 times a
// chip here), a large part of the generation at this size.
bool print_check_alone(double per_tick) {
  const A2aGroup g = group_of(0);
  A2aError e;
  const uint64_t t0 = port::now_ticks();
  const Status s = a2a_check(g, A2aDirection::combine, Span<const uint32_t>(g_choices, kTokens * kTopK), e);
  const uint64_t t1 = port::now_ticks();
  if (s != Status::ok) return fail("a2a_check", 0, e);
  board_print("a2a_check alone (run by each a2a_plan, size_a2a and emit_a2a call): ");
  board_print_u64(instr(t1 - t0, per_tick));
  board_print(" instructions\n");
  return true;
}

}  // namespace

int main() {
  constexpr uint32_t kSpin = 4'000'000;
  const uint64_t c0 = port::now_ticks();
  spin(kSpin);
  const uint64_t c1 = port::now_ticks();
  const double per_tick = 2.0 * kSpin / static_cast<double>(c1 - c0);  // instructions per tick

  for (uint32_t t = 0; t < kTokens; ++t) {
    for (uint32_t j = 0; j < kTopK; ++j) g_choices[t * kTopK + j] = (t * kTopK + j) % kExperts;  // balanced
  }
  static ChipCost cost[kChips];
  uint32_t busiest = 0, sends = 0, recvs = 0, commands = 0;
  bool same_rounds = true;
  for (uint32_t rank = 0; rank < kChips; ++rank) {
    if (!chip_combine(rank, cost[rank])) return 1;
    if (rank == 0) g_plan0 = g_plan;
    same_rounds = same_rounds && g_plan.rounds == g_plan0.rounds &&
                  std::memcmp(g_plan.round, g_plan0.round, sizeof g_plan.round) == 0;
    const ChipCost& c = cost[rank];
    const ChipCost& b = cost[busiest];
    if (c.rounds_ticks + c.size_ticks + c.emit_ticks + c.validate_ticks >
        b.rounds_ticks + b.size_ticks + b.emit_ticks + b.validate_ticks) {
      busiest = rank;
    }
    same_rounds = same_rounds && c.mask == cost[0].mask;
    sends += c.sends;
    recvs += c.recvs;
    commands += c.commands;
  }
  board_print("calibration: ");
  board_print_u64(static_cast<unsigned long>(per_tick * 1000));
  board_print("/1000 instructions per SysTick tick (1e9 / the board clock under -icount shift=0)\n");
  board_print("combine of DeepSeek-V3 decode b32, 32 chips ep 32, f32 rows, balanced: round mask ");
  board_print_hex(cost[0].mask, 1);
  board_print(", the group's sends ");
  board_print_u64(sends);
  board_print(", recvs ");
  board_print_u64(recvs);
  board_print(", commands ");
  board_print_u64(commands);
  board_print("\n");
  if (!print_check_alone(per_tick)) return 1;
  print_chip("chip ", 0, cost[0], per_tick);
  print_chip("busiest chip ", busiest, cost[busiest], per_tick);
  const bool sane = per_tick > 20 && per_tick < 50 && same_rounds && cost[0].mask == (1u << kGroupRounds) - 1 && sends == kGroupSends &&
                    recvs == kGroupSends && commands == kGroupCommands;
  if (!sane) {
    board_print("not sane: calibration, rounds (0x3, the same plan on every chip), the group's sends and recvs "
                "(248 each) or its commands (1304)\n");
  }
  return sane ? 0 : 1;
}
