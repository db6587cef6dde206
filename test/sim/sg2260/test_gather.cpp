// SG2260 simulator, the tilefw decisions for MoE routing (sg2260/sim.hpp, execute_command):
// DMA gather (fill of out-of-range rows, start_pos, index_csize = 1 broadcast, the LMEM lane
// rule and mask) and scatter inplace / add (duplicates in h order, skipped indices), bit-exact
// in f32, bf16 and integers; the index read seen by the hazard checker; timing v1 bytes;
// validation footprints of gather/scatter; AR compares (sel_gt/sel_eq/sel_lt incl. NaN and
// constants) and AR casts float <-> integer with both round modes and saturation.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "fixture.hpp"
#include "tilefw/base/float16.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/views.hpp"

namespace {

using namespace simtest;

uint16_t bf(float f) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16); }  // exact values only
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// The fields of one gather/scatter. Sizes: c, src rows, dst rows, w; index_hsize is the walked
// side's rows (gather dst, scatter src).
struct GsSpec {
  uint32_t fmt = 2;
  uint64_t src = 0, dst = 0, idx = 0;
  uint32_t c = 1, src_h = 1, dst_h = 1, w = 1;
  uint32_t scs = 0, shs = 0, dcs = 0, dhs = 0;
  uint32_t idx_c = 1, idx_cs = 0;
  uint32_t start_pos = 0;
  uint32_t constant = 0;
  uint64_t mask = ~uint64_t{0};
};
void set_gs(uint8_t* p, const GsSpec& s) {
  const cmd::DmaGatherScatterRef v(p);
  const bool scatter = v.cmd_type() == 8;
  v.set_src_data_format(s.fmt);
  v.set_src_csize(s.c); v.set_src_hsize(s.src_h); v.set_src_wsize(s.w);
  v.set_dst_csize(s.c); v.set_dst_hsize(s.dst_h); v.set_dst_wsize(s.w);
  v.set_src_cstride(s.scs); v.set_src_hstride(s.shs); v.set_dst_cstride(s.dcs); v.set_dst_hstride(s.dhs);
  v.set_index_csize(s.idx_c); v.set_index_hsize(scatter ? s.src_h : s.dst_h); v.set_index_cstride(s.idx_cs);
  v.set_start_pos(s.start_pos);
  v.set_constant_value(s.constant);
  v.set_src_start_addr_l32(static_cast<uint32_t>(s.src)); v.set_src_start_addr_h13(s.src >> 32);
  v.set_dst_start_addr_l32(static_cast<uint32_t>(s.dst)); v.set_dst_start_addr_h13(s.dst >> 32);
  v.set_index_start_addr_l32(static_cast<uint32_t>(s.idx)); v.set_index_start_addr_h13(s.idx >> 32);
  v.set_localmem_mask_l32(static_cast<uint32_t>(s.mask)); v.set_localmem_mask_h32(s.mask >> 32);
}

// ---- gather ------------------------------------------------------------------------------

TEST(SimGather, DdrToLmemF32WithStartPosAndFilledRows) {
  Bench b;
  // src: c 2 x 5 rows x w 3 f32 in DDR, value c*100 + r*10 + w; row stride 4 (padding).
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t r = 0; r < 5; ++r)
      for (uint32_t w = 0; w < 4; ++w) b.put(b.ddr(4 * (c * 20 + r * 4 + w)), static_cast<float>(c * 100 + r * 10 + w));
  // index: 2 rows of 4 uint32, c-stride 8; start_pos 10 (valid 10..14).
  const uint32_t idx[2][4] = {{12, 10, 99, 14}, {15, 9, 11, 11}};
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t h = 0; h < 4; ++h) b.put(b.ddr(0x400 + 4 * (c * 8 + h)), idx[c][h]);
  Cmd g(CmdClass::dma_gather, 0);
  set_gs(g.b, {.fmt = 2, .src = ddr1(0), .dst = lmem(3, 0x100), .idx = ddr1(0x400), .c = 2, .src_h = 5, .dst_h = 4,
               .w = 3, .scs = 20, .shs = 4, .dcs = 0, .dhs = 3, .idx_c = 2, .idx_cs = 8, .start_pos = 10,
               .constant = std::bit_cast<uint32_t>(-1.5f)});
  std::string msg;
  ASSERT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::ok) << msg;
  for (uint32_t c = 0; c < 2; ++c) {
    for (uint32_t h = 0; h < 4; ++h) {
      for (uint32_t w = 0; w < 3; ++w) {
        const uint32_t i = idx[c][h];
        const float want = (i >= 10 && i < 15) ? static_cast<float>(c * 100 + (i - 10) * 10 + w) : -1.5f;
        EXPECT_EQ(b.get<float>(b.lm(3 + c, 0x100 + 4 * (h * 3 + w))), want) << c << "," << h << "," << w;
      }
    }
  }
  EXPECT_EQ(b.get<uint32_t>(b.lm(3, 0x100 + 48)), 0u);  // nothing past the 4 rows
}

TEST(SimGather, LmemToLmemBf16IndexBroadcastLaneWrapAndMask) {
  Bench b;
  // src: c 3 x 4 rows x w 2 bf16 from lane 62: channels on lanes 62, 63, then lane 0 at the
  // c-stride (64 elements); row stride 2. value (c + 1) + r * 0.25 + w * 0.125 (exact in bf16).
  auto val = [](uint32_t c, uint32_t r, uint32_t w) { return static_cast<float>(c + 1) + r * 0.25f + w * 0.125f; };
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t r = 0; r < 4; ++r)
      for (uint32_t w = 0; w < 2; ++w) {
        const uint32_t lane = (62 + c) % 64, off = 0x200 + (c == 2 ? 128 : 0) + 2 * (r * 2 + w);
        b.put(b.lm(lane, off), bf(val(c, r, w)));
      }
  // One index row for every c (index_csize 1) in L2; start_pos 0; 7 is out of range.
  const uint32_t idx[3] = {3, 7, 0};
  for (uint32_t h = 0; h < 3; ++h) b.put(b.l2p(0x40 + 4 * h), idx[h]);
  for (uint32_t h = 0; h < 3 * 2; ++h) b.put(b.lm(9, 0x800 + 2 * h), uint16_t{0xBEEF});  // lane 9 masked off
  Cmd g(CmdClass::dma_gather, 0);
  set_gs(g.b, {.fmt = 5, .src = lmem(62, 0x200), .dst = lmem(8, 0x800), .idx = l2(0x40), .c = 3, .src_h = 4,
               .dst_h = 3, .w = 2, .scs = 64, .shs = 2, .dcs = 0, .dhs = 2, .idx_c = 1, .idx_cs = 0,
               .constant = 0x7FC0, .mask = ~(uint64_t{1} << 9)});
  std::string msg;
  ASSERT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::ok) << msg;
  for (uint32_t c = 0; c < 3; ++c) {
    for (uint32_t h = 0; h < 3; ++h) {
      for (uint32_t w = 0; w < 2; ++w) {
        const uint16_t got = b.get<uint16_t>(b.lm(8 + c, 0x800 + 2 * (h * 2 + w)));
        const uint16_t want = c == 1 ? 0xBEEF : idx[h] < 4 ? bf(val(c, idx[h], w)) : 0x7FC0;
        EXPECT_EQ(got, want) << c << "," << h << "," << w;
      }
    }
  }
}

TEST(SimGather, ShapeMismatchesAndFormatsAreRefused) {
  Bench b;
  Cmd g(CmdClass::dma_gather, 0);
  GsSpec s{.fmt = 2, .src = ddr1(0), .dst = ddr1(0x100), .idx = ddr1(0x200), .c = 1, .src_h = 2, .dst_h = 2, .w = 2,
           .scs = 4, .shs = 2, .dcs = 4, .dhs = 2};
  set_gs(g.b, s);
  std::string msg;
  EXPECT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::ok) << msg;
  cmd::DmaGatherScatterRef(g.b).set_dst_wsize(3);
  EXPECT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::cmd_bad_field);
  EXPECT_NE(msg.find("wsize"), std::string::npos) << msg;
  set_gs(g.b, s);
  cmd::DmaGatherScatterRef(g.b).set_index_hsize(1);
  EXPECT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::cmd_bad_field);
  EXPECT_NE(msg.find("index_hsize"), std::string::npos) << msg;
  Cmd a(CmdClass::dma_scatter, 1);
  s.fmt = 7;  // fp8: no add
  set_gs(a.b, s);
  EXPECT_EQ(b.exec(Engine::gdma, a.b, &msg), Status::sim_unsupported_op);
  EXPECT_NE(msg.find("DMA scatter add with data format 7"), std::string::npos) << msg;
  // An index pointing into DDR beyond the region: the index read faults.
  set_gs(g.b, {.fmt = 2, .src = ddr1(0), .dst = ddr1(0x100), .idx = ddr1(65536 - 4), .c = 1, .src_h = 2, .dst_h = 2,
               .w = 2, .scs = 4, .shs = 2, .dcs = 4, .dhs = 2});
  EXPECT_EQ(b.exec(Engine::gdma, g.b, &msg), Status::cmd_footprint_out_of_range);
  EXPECT_NE(msg.find("index element"), std::string::npos) << msg;
}

// ---- scatter -----------------------------------------------------------------------------

TEST(SimScatter, InplaceLaterRowWinsAndOutOfRangeIsSkipped) {
  Bench b;
  // src 5 rows x w 2 int32 (value 10*h + w + 1); dst table 4 rows preset to -1; start_pos 100.
  for (uint32_t h = 0; h < 5; ++h)
    for (uint32_t w = 0; w < 2; ++w) b.put(b.ddr(4 * (h * 2 + w)), static_cast<int32_t>(10 * h + w + 1));
  for (uint32_t i = 0; i < 8; ++i) b.put(b.ddr(0x100 + 4 * i), int32_t{-1});
  const uint32_t idx[5] = {102, 100, 107, 102, 99};
  for (uint32_t h = 0; h < 5; ++h) b.put(b.ddr(0x200 + 4 * h), idx[h]);
  Cmd s(CmdClass::dma_scatter, 0);
  set_gs(s.b, {.fmt = 4, .src = ddr1(0), .dst = ddr1(0x100), .idx = ddr1(0x200), .c = 1, .src_h = 5, .dst_h = 4,
               .w = 2, .scs = 10, .shs = 2, .dcs = 8, .dhs = 2, .start_pos = 100});
  std::string msg;
  ASSERT_EQ(b.exec(Engine::gdma, s.b, &msg), Status::ok) << msg;
  const int32_t want[4][2] = {{11, 12}, {-1, -1}, {31, 32}, {-1, -1}};  // row 2: h 3 after h 0
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t w = 0; w < 2; ++w) EXPECT_EQ(b.get<int32_t>(b.ddr(0x100 + 4 * (r * 2 + w))), want[r][w]) << r << "," << w;
  EXPECT_EQ(b.get<int32_t>(b.ddr(0x120)), 0);  // nothing past the table
}

TEST(SimScatter, AddAccumulatesDuplicatesInOrderRoundingEachStep) {
  Bench b;
  // f32, one dst row: 0 + 1e8 + 1 + -1e8 in h order is 0 (1e8 + 1 rounds to 1e8 in f32).
  {
    const float src[3] = {1e8f, 1.0f, -1e8f};
    for (uint32_t h = 0; h < 3; ++h) {
      b.put(b.ddr(4 * h), src[h]);
      b.put(b.ddr(0x200 + 4 * h), uint32_t{0});
    }
    b.put(b.ddr(0x100), 0.0f);
    b.put(b.ddr(0x104), 5.0f);  // row 1: untouched
    Cmd s(CmdClass::dma_scatter, 1);
    set_gs(s.b, {.fmt = 2, .src = ddr1(0), .dst = ddr1(0x100), .idx = ddr1(0x200), .c = 1, .src_h = 3, .dst_h = 2,
                 .w = 1, .scs = 3, .shs = 1, .dcs = 2, .dhs = 1});
    std::string msg;
    ASSERT_EQ(b.exec(Engine::gdma, s.b, &msg), Status::ok) << msg;
    EXPECT_EQ(b.get<float>(b.ddr(0x100)), 0.0f);
    EXPECT_EQ(b.get<float>(b.ddr(0x104)), 5.0f);
  }
  // bf16 into LMEM, 2 lanes: lane 0 row 0 gets 1 + 2^-8 + 2^-8 rounded per step (ties to even:
  // stays 1.0; one rounding of the exact sum would give 1 + 2^-7); lane 1 row 1 gets 1.5 + 0.25.
  {
    for (uint32_t c = 0; c < 2; ++c) {
      for (uint32_t h = 0; h < 2; ++h) b.put(b.ddr(0x300 + 2 * (c * 2 + h)), bf(c == 0 ? 0x1p-8f : h == 0 ? 0.25f : 0.5f));
      b.put(b.lm(c, 0x40), bf(1.0f));
      b.put(b.lm(c, 0x42), bf(1.5f));
    }
    const uint32_t idx[2][2] = {{0, 0}, {1, 5}};  // lane 1, h 1: skipped
    for (uint32_t c = 0; c < 2; ++c)
      for (uint32_t h = 0; h < 2; ++h) b.put(b.ddr(0x400 + 4 * (c * 2 + h)), idx[c][h]);
    Cmd s(CmdClass::dma_scatter, 1);
    set_gs(s.b, {.fmt = 5, .src = ddr1(0x300), .dst = lmem(0, 0x40), .idx = ddr1(0x400), .c = 2, .src_h = 2,
                 .dst_h = 2, .w = 1, .scs = 2, .shs = 1, .dcs = 0, .dhs = 1, .idx_c = 2, .idx_cs = 2});
    std::string msg;
    ASSERT_EQ(b.exec(Engine::gdma, s.b, &msg), Status::ok) << msg;
    EXPECT_EQ(b.get<uint16_t>(b.lm(0, 0x40)), bf(1.0f));
    EXPECT_EQ(b.get<uint16_t>(b.lm(0, 0x42)), bf(1.5f));
    EXPECT_EQ(b.get<uint16_t>(b.lm(1, 0x40)), bf(1.0f));
    EXPECT_EQ(b.get<uint16_t>(b.lm(1, 0x42)), bf(1.75f));
  }
  // int8 wraps: 100 + 100 = -56; int16 too: 30000 + 30000 = -5536.
  {
    b.put(b.ddr(0x500), int8_t{100}); b.put(b.ddr(0x501), int8_t{100});
    b.put(b.ddr(0x510), int8_t{0});
    b.put(b.ddr(0x520), uint32_t{0}); b.put(b.ddr(0x524), uint32_t{0});
    Cmd s(CmdClass::dma_scatter, 1);
    set_gs(s.b, {.fmt = 0, .src = ddr1(0x500), .dst = ddr1(0x510), .idx = ddr1(0x520), .c = 1, .src_h = 2, .dst_h = 1,
                 .w = 1, .scs = 2, .shs = 1, .dcs = 1, .dhs = 1});
    ASSERT_EQ(b.exec(Engine::gdma, s.b), Status::ok);
    EXPECT_EQ(b.get<int8_t>(b.ddr(0x510)), -56);
    b.put(b.ddr(0x500), int16_t{30000}); b.put(b.ddr(0x502), int16_t{30000});
    b.put(b.ddr(0x510), int16_t{0});
    cmd::DmaGatherScatterRef(s.b).set_src_data_format(3);
    ASSERT_EQ(b.exec(Engine::gdma, s.b), Status::ok);
    EXPECT_EQ(b.get<int16_t>(b.ddr(0x510)), -5536);
  }
}

TEST(SimScatter, CostCountsTheWalkedSideWhateverTheIndices) {
  Cmd s(CmdClass::dma_scatter, 0);
  set_gs(s.b, {.fmt = 4, .src = ddr1(0), .dst = lmem(0, 0), .idx = ddr1(0x200), .c = 1, .src_h = 5, .dst_h = 400,
               .w = 2});
  uint64_t cycles = 0, bytes = 0, ops = 0;
  EXPECT_TRUE(sim::command_cost(1, s.b, cycles, bytes, ops));
  EXPECT_EQ(bytes, 40u);  // src 5 x 2 int32, not the 400-row table
  EXPECT_EQ(cycles, sg::timing_v1::dma_cycles(40, true));
  Cmd g(CmdClass::dma_gather, 0);
  set_gs(g.b, {.fmt = 5, .src = lmem(0, 0), .dst = lmem(0, 0x1000), .idx = lmem(0, 0x2000), .c = 3, .src_h = 400,
               .dst_h = 7, .w = 16});
  EXPECT_TRUE(sim::command_cost(1, g.b, cycles, bytes, ops));
  EXPECT_EQ(bytes, 3u * 7 * 16 * 2);
  EXPECT_EQ(cycles, sg::timing_v1::dma_cycles(3 * 7 * 16 * 2, false));
}

// ---- hazard checker: the index read -------------------------------------------------------

// Core 0 TIU and GDMA streams, started on the simulator.
struct Rig {
  host::Machine machine{host::kProfileSg2260};
  sim::Simulator sim{machine};
  std::vector<std::vector<uint8_t>> buf = std::vector<std::vector<uint8_t>>(2, std::vector<uint8_t>(4096));
  cmd::CommandBuilder tiu{Engine::tiu, ByteSpan(buf[0].data(), buf[0].size())};
  cmd::CommandBuilder gdma{Engine::gdma, ByteSpan(buf[1].data(), buf[1].size())};
  Rig() {
    EXPECT_EQ(machine.add_region(sg::ddr_region(1, 0, 65536)), Status::ok);
    EXPECT_EQ(machine.add_region(sg::ddr_region(29, 0, 65536)), Status::ok);
  }
  uint8_t* lm(uint32_t lane, uint32_t off) {
    return machine.translate(sg::lmem_region(0).device_base + uint64_t{lane} * sg::kLaneBytes + off, 1).value();
  }
  uint8_t* ddr(uint64_t off) { return machine.translate(sg::kDdrWindowBase + ddr1(off), 1).value(); }
  uint64_t run() {
    cmd::CommandBuilder* b[2] = {&tiu, &gdma};
    for (uint32_t i = 0; i < 2; ++i) {
      EXPECT_EQ(b[i]->end(), Status::ok);
      const uint64_t dev = sg::kDdrWindowBase + sg::make_dma_address(29, i * 8192);
      std::memcpy(machine.translate(dev, b[i]->size()).value(), buf[i].data(), b[i]->size());
      sim.start(0, i, dev, b[i]->size());
    }
    EXPECT_EQ(sim.run(), Status::ok);
    return sim.hazard_count();
  }
};

TEST(SimGather, HazardCheckerSeesTheIndexRead) {
  for (int with_dep = 0; with_dep < 2; ++with_dep) {
    Rig r;
    // TIU 1: a long copy elsewhere (slow); TIU 2: copies 4 index words (uint32 3, 2, 1, 0 as
    // f32 bit patterns: denormals, copied exactly) from 0x9000 to the index buffer 0x1000.
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t word = 3 - i;
      std::memcpy(r.lm(0, 0x9000 + 4 * i), &word, 4);
    }
    for (uint32_t i = 0; i < 4; ++i) {
      const float v = static_cast<float>(i * 10);
      std::memcpy(r.ddr(4 * i), &v, 4);
    }
    auto copy = [&](uint32_t res, uint32_t opd, uint32_t w) {
      cmd::SArRef a(r.tiu.append(CmdClass::sAR, 19).value());
      a.set_res0_n(1); a.set_res0_c(1); a.set_res0_h(1); a.set_res0_w(w);
      a.set_opt_res0_prec(2); a.set_opt_opd0_prec(2);
      a.set_res0_addr(res); a.set_opd0_addr(opd);
    };
    copy(0x10000, 0x14000, 2048);
    copy(0x1000, 0x9000, 4);
    // GDMA 1: gather 4 rows of one f32 from DDR by the LMEM index tensor.
    uint8_t* p = r.gdma.append(CmdClass::dma_gather, 0).value();
    set_gs(p, {.fmt = 2, .src = ddr1(0), .dst = ddr1(0x100), .idx = lmem(0, 0x1000), .c = 1, .src_h = 4, .dst_h = 4,
               .w = 1, .scs = 4, .shs = 1, .dcs = 4, .dhs = 1});
    if (with_dep) cmd::DmaGatherScatterRef(p).set_cmd_id_dep(cmd::CommandBuilder::dep_on(2));
    const uint64_t n = r.run();
    if (with_dep) {
      EXPECT_EQ(n, 0u);
      for (uint32_t h = 0; h < 4; ++h) {
        float v;
        std::memcpy(&v, r.ddr(0x100 + 4 * h), 4);
        EXPECT_EQ(v, static_cast<float>((3 - h) * 10)) << h;
      }
    } else {
      // The gather reads the index words before TIU 2 writes them: a WAR on exactly those bytes.
      EXPECT_EQ(n, 1u);
      ASSERT_EQ(r.sim.hazard_messages().size(), 1u);
      EXPECT_EQ(r.sim.hazard_messages()[0],
                "hazard: core 0 tiu command 2 (sAR) writes LMEM lane 0 offset 0x1000..0x1010 read by core 0 "
                "gdma command 1 (gather) with no dependency or barrier ordering them");
    }
  }
}

// ---- validation --------------------------------------------------------------------------

cmd::ValidationReport validate_one(CmdClass cls, uint32_t eu, const GsSpec& s) {
  static uint8_t buf[256];
  std::memset(buf, 0, sizeof buf);
  cmd::CommandBuilder b(Engine::gdma, ByteSpan(buf, sizeof buf));
  set_gs(b.append(cls, eu).value(), s);
  EXPECT_EQ(b.end(), Status::ok);
  return cmd::validate_stream(Engine::gdma, b.bytes());
}

TEST(SimGather, ValidationChecksFootprintsAndShapes) {
  // gather: 64 lanes x 100 rows x 64 bf16 into LMEM; index 64 x 100 uint32 in LMEM.
  const GsSpec g{.fmt = 5, .src = ddr1(0), .dst = lmem(0, 0), .idx = lmem(0, 0x20000), .c = 64, .src_h = 4096,
                 .dst_h = 100, .w = 64, .scs = 4096 * 64, .shs = 64, .dcs = 0, .dhs = 64, .idx_c = 64, .idx_cs = 0};
  EXPECT_EQ(validate_one(CmdClass::dma_gather, 0, g).status, Status::ok);
  for (uint32_t eu : {0u, 1u}) {
    GsSpec s = g;  // scatter: the same operands, LMEM rows scattered into the DDR table
    std::swap(s.src, s.dst); std::swap(s.src_h, s.dst_h); std::swap(s.scs, s.dcs); std::swap(s.shs, s.dhs);
    EXPECT_EQ(validate_one(CmdClass::dma_scatter, eu, s).status, Status::ok) << eu;
    s.dst = lmem(0, 0x3000);  // the 4096-row table does not fit a lane
    const cmd::ValidationReport r = validate_one(CmdClass::dma_scatter, eu, s);
    EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
    EXPECT_STREQ(r.field, "dst_start_addr");
  }
  GsSpec bad = g;
  bad.dst = lmem(0, sg::kLaneBytes - 100 * 64 * 2 + 2);  // last row 2 bytes past the lane
  cmd::ValidationReport r = validate_one(CmdClass::dma_gather, 0, bad);
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_STREQ(r.field, "dst_start_addr");
  bad = g;
  bad.dst = lmem(0, sg::kLaneBytes - 100 * 64 * 2);  // exactly fits
  EXPECT_EQ(validate_one(CmdClass::dma_gather, 0, bad).status, Status::ok);
  bad = g;
  bad.idx = lmem(0, sg::kLaneBytes - 100 * 4 + 4);  // index rows: 100 uint32 per lane
  r = validate_one(CmdClass::dma_gather, 0, bad);
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_STREQ(r.field, "index_start_addr");
  bad = g;
  bad.src = l2(sg::kL2Bytes - 4096 * 64 * 2);  // one channel of the table fits L2, 64 do not
  r = validate_one(CmdClass::dma_gather, 0, bad);
  EXPECT_EQ(r.status, Status::cmd_footprint_out_of_range);
  EXPECT_STREQ(r.field, "src_start_addr");
  bad = g;
  bad.idx_c = 2;
  r = validate_one(CmdClass::dma_gather, 0, bad);
  EXPECT_EQ(r.status, Status::cmd_bad_field);
  EXPECT_STREQ(r.field, "index_csize");
  bad.idx_c = 1;  // broadcast index row
  EXPECT_EQ(validate_one(CmdClass::dma_gather, 0, bad).status, Status::ok);
}

// ---- AR compares -------------------------------------------------------------------------

// Long AR over w elements on lane 0: opd0 at 0, opd1 at 0x100 (or a constant), res0 at 0x200.
struct Ar {
  Bench b;
  Cmd c;
  Ar(uint32_t eu, uint32_t w, uint32_t res_prec, bool res_sign, uint32_t in_prec, bool in_sign) : c(CmdClass::AR, eu) {
    cmd::TiuLongRef v(c.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(w);
    v.set_opt_res0_prec(res_prec); v.set_opt_opd0_prec(in_prec); v.set_opt_opd1_prec(in_prec);
    v.set_opt_res0_sign(res_sign); v.set_opt_opd0_sign(in_sign); v.set_opt_opd1_sign(in_sign);
    v.set_tsk_opd_num(eu == 14 ? 1 : 2);
    v.set_res0_addr(0x200); v.set_opd0_addr(0); v.set_opd1_addr(0x100);
  }
  cmd::TiuLongRef v() { return cmd::TiuLongRef(c.b); }
};

TEST(SimCompare, SelGtEqLtAreComparesWithNaNFalse) {
  const float a[] = {2, 1, kNaN, 1, 3, -0.0f, kNaN, -1, kInf, 5};
  const float o[] = {1, 2, 1, kNaN, 3, 0.0f, kNaN, 0, kInf, 5};
  const int gt[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int eq[] = {0, 0, 0, 0, 1, 1, 0, 0, 1, 1};
  const int lt[] = {0, 1, 0, 0, 0, 0, 0, 1, 0, 0};
  const struct { uint32_t eu; const int* want; } ops[] = {{10, gt}, {11, eq}, {13, lt}};
  for (const auto& op : ops) {
    for (uint32_t res : {2u, 0u, 5u}) {  // f32 (1.0 / 0.0), int8 (1 / 0), bf16
      Ar t(op.eu, 10, res, res == 0, 2, true);
      for (uint32_t i = 0; i < 10; ++i) {
        t.b.put(t.b.lm(0, 4 * i), a[i]);
        t.b.put(t.b.lm(0, 0x100 + 4 * i), o[i]);
      }
      std::string msg;
      ASSERT_EQ(t.b.exec(Engine::tiu, t.c.b, &msg), Status::ok) << msg;
      for (uint32_t i = 0; i < 10; ++i) {
        if (res == 2) {
          EXPECT_EQ(t.b.get<float>(t.b.lm(0, 0x200 + 4 * i)), op.want[i] ? 1.0f : 0.0f) << op.eu << "," << i;
        } else if (res == 0) {
          EXPECT_EQ(t.b.get<int8_t>(t.b.lm(0, 0x200 + i)), op.want[i]) << op.eu << "," << i;
        } else {
          EXPECT_EQ(t.b.get<uint16_t>(t.b.lm(0, 0x200 + 2 * i)), op.want[i] ? 0x3F80 : 0) << op.eu << "," << i;
        }
      }
    }
  }
}

TEST(SimCompare, ConstantsIntegersAndShortForm) {
  // opd1 constant 0.5f: sel_lt over f16 opd0 {0.25, 0.5, 0.75, -inf}; res0 int32.
  {
    Ar t(13, 4, 4, true, 1, true);
    t.v().set_opt_opd1_prec(2);
    t.v().set_opt_opd1_const(1); t.v().set_opd1_addr(std::bit_cast<uint32_t>(0.5f));
    const uint16_t h[4] = {0x3400, 0x3800, 0x3A00, 0xFC00};
    for (uint32_t i = 0; i < 4; ++i) t.b.put(t.b.lm(0, 2 * i), h[i]);
    ASSERT_EQ(t.b.exec(Engine::tiu, t.c.b), Status::ok);
    const int32_t want[4] = {1, 0, 0, 1};
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(t.b.get<int32_t>(t.b.lm(0, 0x200 + 4 * i)), want[i]) << i;
  }
  // int32 signed vs unsigned: -5 > 3 is false signed, true unsigned (0xFFFFFFFB).
  for (bool sign : {true, false}) {
    Ar t(10, 1, 0, false, 4, sign);
    t.b.put(t.b.lm(0, 0), int32_t{-5});
    t.b.put(t.b.lm(0, 0x100), int32_t{3});
    ASSERT_EQ(t.b.exec(Engine::tiu, t.c.b), Status::ok);
    EXPECT_EQ(*t.b.lm(0, 0x200), sign ? 0 : 1);
  }
  // sAR sel_eq with opd0 constant 7 (int16) against int16 {7, -7}.
  {
    Bench b;
    Cmd c(CmdClass::sAR, 11);
    cmd::SArRef v(c.b);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(2);
    v.set_opt_res0_prec(3); v.set_opt_opd0_prec(3); v.set_opt_opd1_prec(3);
    v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1); v.set_tsk_opd_num(2);
    v.set_opt_opd0_const(1); v.set_opd0_addr(7);
    v.set_opd1_addr(0x100); v.set_res0_addr(0x200);
    b.put(b.lm(0, 0x100), int16_t{7});
    b.put(b.lm(0, 0x102), int16_t{-7});
    ASSERT_EQ(b.exec(Engine::tiu, c.b), Status::ok);
    EXPECT_EQ(b.get<int16_t>(b.lm(0, 0x200)), 1);
    EXPECT_EQ(b.get<int16_t>(b.lm(0, 0x202)), 0);
  }
}

// ---- AR casts ----------------------------------------------------------------------------

struct CastCase {
  uint32_t from, to;  // TIU precisions
  bool to_sign;
  uint32_t round;     // 0 RNE, 1 half away from zero
  uint64_t in;        // bits of the input (integers: two's complement low bits)
  uint64_t want;      // bits of the result
};

TEST(SimCast, FloatIntegerBothWaysRoundModesAndSaturation) {
  auto f = [](float x) { return uint64_t{std::bit_cast<uint32_t>(x)}; };
  auto i32 = [](int32_t x) { return uint64_t{static_cast<uint32_t>(x)}; };
  const CastCase cases[] = {
      {2, 4, true, 0, f(2.5f), 2}, {2, 4, true, 1, f(2.5f), 3},                  // f32 -> int32
      {2, 4, true, 0, f(-2.5f), i32(-2)}, {2, 4, true, 1, f(-2.5f), i32(-3)},
      {2, 4, true, 0, f(3.5f), 4}, {2, 4, true, 0, f(-0.5f), 0}, {2, 4, true, 1, f(-0.5f), i32(-1)},
      {2, 4, true, 0, f(2.4999998f), 2}, {2, 4, true, 1, f(-7.75f), i32(-8)},
      {2, 4, true, 0, f(3e9f), 0x7FFFFFFF}, {2, 4, true, 1, f(-3e9f), 0x80000000},  // saturation
      {2, 4, true, 0, f(kInf), 0x7FFFFFFF}, {2, 4, true, 0, f(kNaN), 0},
      {2, 4, false, 0, f(3e9f), 3000000000u}, {2, 4, false, 0, f(5e9f), 0xFFFFFFFF},  // f32 -> uint32
      {2, 4, false, 1, f(-1.0f), 0}, {2, 4, false, 1, f(-0.4f), 0}, {2, 4, false, 0, f(kNaN), 0},
      {2, 3, true, 0, f(40000.0f), 0x7FFF}, {2, 3, true, 0, f(-40000.0f), 0x8000},  // f32 -> int16
      {2, 0, true, 1, f(127.5f), 0x7F}, {2, 0, true, 0, f(-128.5f), 0x80},         // f32 -> int8
      {2, 0, true, 1, f(-128.5f), 0x80}, {2, 0, false, 0, f(255.5f), 0xFF},
      {1, 0, true, 0, 0x5CB0 /* f16 300 */, 0x7F}, {1, 4, true, 1, 0xC100 /* f16 -2.5 */, i32(-3)},
      {1, 4, true, 0, 0x7E00 /* f16 NaN */, 0},
      {5, 3, true, 0, 0x4780 /* bf16 65536 */, 0x7FFF}, {5, 4, true, 1, 0x4020 /* bf16 2.5 */, 3},
      {5, 4, true, 0, 0x4020, 2},
      {4, 2, true, 0, 16777217, f(16777216.0f)}, {4, 2, true, 1, 16777217, f(16777218.0f)},  // int32 -> f32
      {4, 2, true, 0, 16777219, f(16777220.0f)}, {4, 2, true, 1, 16777219, f(16777220.0f)},
      {4, 2, true, 1, i32(-16777217), f(-16777218.0f)},
      {4, 1, true, 0, 2049, 0x6800 /* 2048 */}, {4, 1, true, 1, 2049, 0x6801 /* 2050 */},  // int32 -> f16
      {4, 1, true, 0, 70000, 0x7C00 /* inf */},
      {4, 5, true, 0, 257, 0x4380 /* 256 */}, {4, 5, true, 1, 257, 0x4381 /* 258 */},     // int32 -> bf16
      {0, 2, true, 0, 0x80, f(-128.0f)},                                                // int8 -> f32
  };
  for (const CastCase& k : cases) {
    const uint32_t in_es = k.from == 0 ? 1 : (k.from == 2 || k.from == 4) ? 4 : 2;
    const uint32_t out_es = k.to == 0 ? 1 : (k.to == 2 || k.to == 4) ? 4 : 2;
    Ar t(14, 1, k.to, k.to_sign, k.from, true);
    t.v().set_opd2_n_str(k.round);
    std::memcpy(t.b.lm(0, 0), &k.in, in_es);
    std::string msg;
    ASSERT_EQ(t.b.exec(Engine::tiu, t.c.b, &msg), Status::ok) << msg;
    uint64_t got = 0;
    std::memcpy(&got, t.b.lm(0, 0x200), out_es);
    EXPECT_EQ(got, k.want) << "from " << k.from << " to " << k.to << (k.to_sign ? " signed" : " unsigned")
                           << " round " << k.round << " in 0x" << std::hex << k.in;
  }
}

TEST(SimCast, UnsignedInputAndIntegerToIntegerSaturate) {
  // uint32 0xFFFFFFFF -> f32 4294967296 (RNE); uint8 200 -> int8 127 (saturating, res0 signed).
  {
    Ar t(14, 1, 2, true, 4, false);
    t.b.put(t.b.lm(0, 0), uint32_t{0xFFFFFFFFu});
    ASSERT_EQ(t.b.exec(Engine::tiu, t.c.b), Status::ok);
    EXPECT_EQ(t.b.get<float>(t.b.lm(0, 0x200)), 4294967296.0f);
  }
  {
    Ar t(14, 1, 0, true, 0, false);
    *t.b.lm(0, 0) = 200;
    ASSERT_EQ(t.b.exec(Engine::tiu, t.c.b), Status::ok);
    EXPECT_EQ(*t.b.lm(0, 0x200), 127);
  }
}

}  // namespace
