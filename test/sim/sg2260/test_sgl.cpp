// SG2260 simulator, TIU SGL / sSGL (gather_line 17, scatter_line 18), bit for bit against a
// reference written here from the operation's statement (docs/sg2260-commands.md section 15,
// "SGL"): per channel, gather R(n, c, h, :) = A(c, B(n, c, h), :), scatter R(n, c, B(n, c, h),
// :) = A(c, h, :) in h order; an all-ones index under limit_enable names no row (gather writes
// the fill constant when asked, else keeps R); A and R rows padded to the EU count, A's channel
// stride 0 in mode 4; B align-EU, INT8 or INT16. Every result precision, both index widths,
// both forms, the limit and fill options, an index past the table (a named fault), and what
// stays refused. The reference's addresses are computed here from the stated layout.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fixture.hpp"
#include "plain_reference.hpp"
#include "sg2260/hazard.hpp"

namespace {

using namespace simtest;
using simref::Placed;

constexpr uint32_t kLane0 = 62, kN = 2, kC = 5, kW = 37, kRh = 4, kAh = 6;
constexpr uint32_t kOffR = 0x0000, kOffA = 0x8000, kOffB = 0x10000;

struct Rng {
  uint64_t s;
  uint32_t next(uint32_t m) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>((s >> 33) % m);
  }
};

// The row layout: w contiguous, rows padded to 64 bytes' worth of elements, h rows per channel
// (c stride 0 for a shared table), channels on lanes from lane0.
struct Rows {
  host::Machine& m;
  uint32_t off, es;
  uint64_t c, h, w;
  bool c_zero = false;
  uint64_t hs() const { const uint64_t eu = 64 / es; return (w + eu - 1) / eu * eu; }
  uint64_t cs() const { return c_zero ? 0 : h * hs(); }
  uint64_t ns() const { return (kLane0 + c + 63) / 64 * cs(); }
  uint8_t* at(uint64_t n, uint64_t ch, uint64_t y, uint64_t x) const {
    const uint64_t lane = kLane0 + ch;
    const uint64_t e = n * ns() + (lane / 64) * cs() + y * hs() + x;
    return m.translate(sg::lmem_region(0).device_base + (lane % 64) * sg::kLaneBytes + off + e * es, 1).value();
  }
};

struct SglCase {
  uint32_t eu;
  uint32_t r_prec;
  uint32_t b_prec;  // 0 INT8, 3 INT16
  uint32_t a_mode;  // 3, 4
  bool limit, fill, shortf;
};

std::string name(const SglCase& k) {
  return "eu " + std::to_string(k.eu) + " R " + std::to_string(k.r_prec) + " B " + std::to_string(k.b_prec) + " mode " +
         std::to_string(k.a_mode) + (k.limit ? " limit" : "") + (k.fill ? " fill" : "") + (k.shortf ? " short" : " long");
}

// True when every byte of [begin, end) lies in one of the logged ranges.
bool covered(const std::vector<sim::AccessLog::Range>& v, uint64_t begin, uint64_t end) {
  for (uint64_t a = begin; a < end; ++a) {
    bool in = false;
    for (const auto& r : v) in = in || (a >= r.begin && a < r.end);
    if (!in) return false;
  }
  return true;
}
uint64_t lane_addr(uint32_t lane, uint32_t off) { return sg::lmem_region(0).device_base + uint64_t{lane} * sg::kLaneBytes + off; }

constexpr uint32_t kFill = 0x89ABCDEFu;

void build(uint8_t* b, const SglCase& k) {
  const uint32_t base = kLane0 << 18;
  if (k.shortf) {
    cmd::SSglRef v(b);
    v.set_res0_n(kN); v.set_res0_c(kC); v.set_res0_h(kRh); v.set_res0_w(kW); v.set_opd0_h(kAh);
    v.set_opt_res0_prec(k.r_prec); v.set_opt_opd1_prec(k.b_prec); v.set_short_opd0_str(k.a_mode);
    v.set_opt_opd2_const(k.fill); v.set_opd2_addr(kFill); v.set_opt_opd3_const(k.limit);
    v.set_res0_addr(base | kOffR); v.set_opd0_addr(base | kOffA); v.set_opd1_addr(base | kOffB);
  } else {
    cmd::TiuLongRef v(b);
    v.set_res0_n(kN); v.set_res0_c(kC); v.set_res0_h(kRh); v.set_res0_w(kW); v.set_opd0_h(kAh);
    v.set_opt_res0_prec(k.r_prec); v.set_opt_opd1_prec(k.b_prec); v.set_short_opd0_str(k.a_mode);
    v.set_opt_opd2_const(k.fill); v.set_opd2_addr(kFill); v.set_opt_opd3_const(k.limit);
    v.set_res0_addr(base | kOffR); v.set_opd0_addr(base | kOffA); v.set_opd1_addr(base | kOffB);
  }
}

void run_case(Bench& b, const SglCase& k, Rng& r) {
  Cmd c(k.shortf ? CmdClass::sSGL : CmdClass::SGL, k.eu);
  build(c.b, k);
  const uint32_t es = simref::esize(k.r_prec);
  const bool gather = k.eu == 17;
  const uint32_t idx_h = gather ? kRh : kAh, limit_rows = gather ? kAh : kRh;
  const Rows R{b.machine, kOffR, es, kC, kRh, kW};
  const Rows A{b.machine, kOffA, es, kC, kAh, kW, k.a_mode == 4};
  const Placed B{b.machine, kLane0, kOffB, k.b_prec, false, kC, idx_h, 1};
  const uint32_t sentinel = k.b_prec == 0 ? 0xFF : 0xFFFF;
  // tables (a shared table: channel c's lane still holds its own copy), indices, old results
  std::vector<uint8_t> a(uint64_t{kC} * kAh * kW * es), old(uint64_t{kN} * kC * kRh * kW * es);
  for (auto& x : a) x = static_cast<uint8_t>(r.next(256));
  for (auto& x : old) x = static_cast<uint8_t>(r.next(256));
  auto a_at = [&](uint64_t ch, uint64_t y, uint64_t x) { return &a[((ch * kAh + y) * kW + x) * es]; };
  auto old_at = [&](uint64_t n, uint64_t ch, uint64_t y, uint64_t x) { return &old[(((n * kC + ch) * kRh + y) * kW + x) * es]; };
  for (uint32_t ch = 0; ch < kC; ++ch)
    for (uint32_t y = 0; y < kAh; ++y)
      for (uint32_t x = 0; x < kW; ++x) {
        // mode 4 shares one table position per lane: channels wrapping onto a lane see the
        // same bytes, so the reference reads the table through the lane's last writer
        std::memcpy(A.at(0, ch, y, x), a_at(ch, y, x), es);
      }
  if (k.a_mode == 4) {  // re-read what each channel sees (the last channel written to its lane)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kAh; ++y)
        for (uint32_t x = 0; x < kW; ++x) std::memcpy(a_at(ch, y, x), A.at(0, ch, y, x), es);
  }
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kRh; ++y)
        for (uint32_t x = 0; x < kW; ++x) std::memcpy(R.at(n, ch, y, x), old_at(n, ch, y, x), es);
  std::vector<uint32_t> idx(uint64_t{kN} * kC * idx_h);
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < idx_h; ++y) {
        uint32_t v = r.next(limit_rows);
        if (k.limit && r.next(4) == 0) v = sentinel;
        idx[(n * kC + ch) * idx_h + y] = v;
        simref::put(B.at(n, ch, y, 0), k.b_prec, false, v);
      }
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << name(k) << ": " << msg;
  // the reference result
  std::vector<uint8_t> want = old;
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < idx_h; ++y) {
        const uint32_t v = idx[(n * kC + ch) * idx_h + y];
        for (uint32_t x = 0; x < kW; ++x) {
          if (k.limit && v == sentinel) {
            if (gather && k.fill) std::memcpy(&want[(((n * kC + ch) * kRh + y) * kW + x) * es], &kFill, es);
            continue;
          }
          if (gather) std::memcpy(&want[(((n * kC + ch) * kRh + y) * kW + x) * es], a_at(ch, v, x), es);
          else std::memcpy(&want[(((n * kC + ch) * kRh + v) * kW + x) * es], a_at(ch, y, x), es);
        }
      }
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kRh; ++y)
        for (uint32_t x = 0; x < kW; ++x)
          ASSERT_EQ(std::memcmp(R.at(n, ch, y, x), &want[(((n * kC + ch) * kRh + y) * kW + x) * es], es), 0)
              << name(k) << " at " << n << "," << ch << "," << y << "," << x;
}

TEST(SimSgl, GatherAndScatterLineEveryPrecisionAndOptionBitExact) {
  Bench b;
  Rng r{7};
  for (uint32_t eu : {17u, 18u})
    for (uint32_t rp : {simref::kI8, simref::kF16, simref::kF32, simref::kI32, simref::kBf16, simref::kFp8})
      for (uint32_t bp : {0u, 3u})
        for (uint32_t mode : {3u, 4u})
          for (bool limit : {false, true})
            for (bool fill : {false, true}) {
              if (eu == 18 && fill) continue;  // scatter has no fill
              run_case(b, SglCase{eu, rp, bp, mode, limit, fill, (rp + bp + mode) % 2 == 1}, r);
            }
}

// Colliding scatters: rows later in h win (all indices 1 here).
TEST(SimSgl, ScatterCollisionsLaterRowWins) {
  Bench b;
  Cmd c(CmdClass::SGL, 18);
  build(c.b, SglCase{18, simref::kI16, 0, 3, false, false, false});
  const Rows A{b.machine, kOffA, 2, kC, kAh, kW};
  const Rows R{b.machine, kOffR, 2, kC, kRh, kW};
  const Placed B{b.machine, kLane0, kOffB, 0, false, kC, kAh, 1};
  for (uint32_t ch = 0; ch < kC; ++ch)
    for (uint32_t y = 0; y < kAh; ++y) {
      for (uint32_t x = 0; x < kW; ++x) b.put(A.at(0, ch, y, x), static_cast<int16_t>(100 * y + x));
      for (uint32_t n = 0; n < kN; ++n) simref::put(B.at(n, ch, y, 0), 0, false, 1);
    }
  std::string msg;
  ASSERT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::ok) << msg;
  EXPECT_EQ(b.get<int16_t>(R.at(1, 4, 1, 36)), 100 * (kAh - 1) + 36);
}

TEST(SimSgl, IndexPastTheTableIsANamedFault) {
  Bench b;
  Cmd c(CmdClass::sSGL, 17);
  build(c.b, SglCase{17, simref::kF32, 3, 3, true, false, true});
  const Placed B{b.machine, kLane0, kOffB, 3, false, kC, kRh, 1};
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kRh; ++y) simref::put(B.at(n, ch, y, 0), 3, false, 0);
  simref::put(B.at(1, 2, 3, 0), 3, false, kAh);  // one past the table (not the sentinel)
  std::string msg;
  EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("sSGL (gather_line): index 6 at (1, 2, 3) is past the 6 rows"), std::string::npos) << msg;
}

TEST(SimSgl, WhatStaysRefusedIsNamed) {
  Bench b;
  std::string msg;
  {
    Cmd c(CmdClass::sSG, 0);
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op);
    EXPECT_EQ(msg.rfind("sSG eu 0 (no public source", 0), 0u) << msg;
  }
  const struct { SglCase k; const char* needle; } bad[] = {
      {{17, simref::kF32, 1, 3, false, false, false}, "opd1 (indices) precision"},
      {{17, simref::kF32, 0, 0, false, false, false}, "opd0 stride mode 0"},
      {{18, simref::kF32, 0, 3, false, true, true}, "(scatter_line) with a fill constant"},
      {{17, 6, 0, 3, false, false, false}, "res0 precision"},
  };
  for (const auto& x : bad) {
    Cmd c(x.k.shortf ? CmdClass::sSGL : CmdClass::SGL, x.k.eu);
    build(c.b, x.k);
    EXPECT_EQ(b.exec(Engine::tiu, c.b, &msg), Status::sim_unsupported_op) << x.needle;
    EXPECT_NE(msg.find(x.needle), std::string::npos) << msg;
  }
}

// Timing (an assumption, section 12): the AR body over the rows the indices walk, + 10.
// Gather f16 (32 per lane): n * ceil(c/64) * ceil(R_h * w / 32) = 2 * 1 * 5 -> 10 + 10; scatter
// walks A_h rows: 2 * 1 * ceil(6 * 37 / 32) = 14 -> 14 + 10. res0 and the operands in
// different banks (0, 2, 4): no conflict.
TEST(SimSgl, CostIsTheArBodyOverTheWalkedRowsPlusTen) {
  for (uint32_t eu : {17u, 18u}) {
    for (bool sf : {false, true}) {
      Cmd c(sf ? CmdClass::sSGL : CmdClass::SGL, eu);
      build(c.b, SglCase{eu, simref::kF16, 0, 3, false, false, sf});
      uint64_t cycles = 0, bytes = 0, ops = 0;
      EXPECT_TRUE(sim::command_cost(0, c.b, cycles, bytes, ops, sim::TimingModel::v1));
      EXPECT_EQ(cycles, eu == 17 ? 20u : 24u) << eu << sf;
    }
  }
}

// The hazard checker sees the indices and the picked table row: a gather with every index 2
// logs B's first channel (lane 62, 4 int8 indices), A's row 2 and R's rows.
TEST(SimSgl, AccessLogHasIndicesAndPickedRows) {
  Bench b;
  Cmd c(CmdClass::SGL, 17);
  build(c.b, SglCase{17, simref::kI8, 0, 3, false, false, false});
  const Placed B{b.machine, kLane0, kOffB, 0, false, kC, kRh, 1};
  for (uint32_t n = 0; n < kN; ++n)
    for (uint32_t ch = 0; ch < kC; ++ch)
      for (uint32_t y = 0; y < kRh; ++y) simref::put(B.at(n, ch, y, 0), 0, false, 2);
  sim::AccessLog log;
  std::string msg;
  ASSERT_EQ(sim::execute_command(b.machine, 0, sim::kTiu, c.b, msg, &log), Status::ok) << msg;
  EXPECT_TRUE(covered(log.reads(), lane_addr(kLane0, kOffB), lane_addr(kLane0, kOffB) + kRh));
  EXPECT_TRUE(covered(log.reads(), lane_addr(kLane0, kOffA + 2 * 64), lane_addr(kLane0, kOffA + 2 * 64) + kW));
  EXPECT_FALSE(covered(log.reads(), lane_addr(kLane0, kOffA), lane_addr(kLane0, kOffA) + 1));  // row 0: not picked
  for (uint32_t y = 0; y < kRh; ++y) EXPECT_TRUE(covered(log.writes(), lane_addr(kLane0, kOffR + 64 * y), lane_addr(kLane0, kOffR + 64 * y) + kW)) << y;
}

}  // namespace
