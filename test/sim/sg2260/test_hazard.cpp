// SG2260 simulator, hazard checker: unordered accesses between engines are found (RAW on one
// core, WAR, cross-core L2 without a barrier, whole-page DMAs), ordered ones are not
// (cmd_id_dep, send/wait barriers), byte-exact on partial granules, and timing-only runs
// skip the check.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/views.hpp"

namespace {

using tilefw::ByteSpan;
using tilefw::Status;
namespace cmd = tilefw::cmd;
using cmd::CmdClass;
namespace sg = tilefw::chip::sg2260;
namespace host = tilefw::port::host;
namespace sim = tilefw::port::host::sg2260;

constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;
uint64_t ddr1(uint64_t off) { return sg::make_dma_address(1, off); }
uint64_t l2(uint64_t off) { return sg::make_dma_address(sg::kTagL2, sg::kL2Base + off); }

// Cores 0 and 1, TIU and GDMA streams each, started directly on the simulator.
struct Rig {
  host::Machine machine{host::kProfileSg2260};
  sim::Simulator sim;
  std::vector<std::vector<uint8_t>> buf = std::vector<std::vector<uint8_t>>(4, std::vector<uint8_t>(4096));
  std::vector<cmd::CommandBuilder> b;
  explicit Rig(sim::SimOptions o = {}) : sim(machine, o) {
    EXPECT_EQ(machine.add_region(sg::ddr_region(1, 0, 1 << 20)), Status::ok);
    EXPECT_EQ(machine.add_region(sg::ddr_region(29, 0, 65536)), Status::ok);
    for (int i = 0; i < 4; ++i) {
      b.emplace_back(i % 2 == 0 ? cmd::Engine::tiu : cmd::Engine::gdma, ByteSpan(buf[i].data(), buf[i].size()));
    }
  }
  cmd::CommandBuilder& tiu(uint32_t core) { return b[core * 2]; }
  cmd::CommandBuilder& gdma(uint32_t core) { return b[core * 2 + 1]; }
  uint64_t run() {
    for (uint32_t i = 0; i < 4; ++i) {
      if (b[i].count() == 0) continue;
      EXPECT_EQ(b[i].end(), Status::ok);
      const uint64_t dev = sg::kDdrWindowBase + sg::make_dma_address(29, i * 8192);
      std::memcpy(machine.translate(dev, b[i].size()).value(), buf[i].data(), b[i].size());
      sim.start(i / 2, i % 2 == 0 ? 0 : 1, dev, b[i].size());
    }
    EXPECT_EQ(sim.run(), Status::ok);
    return sim.hazard_count();
  }
  std::string messages() const {
    std::string all;
    for (const std::string& m : sim.hazard_messages()) all += m + "\n";
    return all;
  }
};

// Tensor move of c x w f32 (w contiguous; LMEM c over lanes from the start lane).
void tensor(cmd::CommandBuilder& g, uint64_t src, uint64_t dst, uint32_t c, uint32_t w, uint32_t dep = 0,
            uint32_t fmt = 2, uint32_t dst_wstride = 1) {
  cmd::DmaTensorRef d(g.append(CmdClass::dma_tensor, 0).value());
  d.set_src_data_format(fmt);
  d.set_nchw_copy(1);
  d.set_cmd_id_dep(dep);
  d.set_src_nsize(1); d.set_src_csize(c); d.set_src_hsize(1); d.set_src_wsize(w);
  const bool src_l = sg::dma_tag(src) == sg::kTagLmem, dst_l = sg::dma_tag(dst) == sg::kTagLmem;
  d.set_src_cstride(src_l ? 0 : w); d.set_src_hstride(w); d.set_src_wstride(1);
  d.set_dst_cstride(dst_l ? 0 : w); d.set_dst_hstride(w); d.set_dst_wstride(dst_wstride);
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
}

// sAR copy of w f32 on lane 0: res0 = opd0.
void copy(cmd::CommandBuilder& t, uint32_t res, uint32_t opd, uint32_t w, uint32_t dep = 0) {
  cmd::SArRef a(t.append(CmdClass::sAR, 19).value());
  a.set_res0_n(1); a.set_res0_c(1); a.set_res0_h(1); a.set_res0_w(w);
  a.set_opt_res0_prec(2); a.set_opt_opd0_prec(2);
  a.set_res0_addr(res); a.set_opd0_addr(opd);
  a.set_cmd_id_dep(dep);
}

TEST(SimHazard, TiuReadingWhatGdmaWritesNeedsADependency) {
  for (int with_dep = 0; with_dep < 2; ++with_dep) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), kLmem | 0x1000, 1, 16);              // GDMA 1 writes 64 B
    copy(r.tiu(0), 0x8000, 0x9000, 1024);                           // TIU 1: elsewhere, slow
    copy(r.tiu(0), 0x2000, 0x1000, 16, with_dep ? cmd::CommandBuilder::dep_on(1) : 0);  // TIU 2
    const uint64_t n = r.run();
    if (with_dep) {
      EXPECT_EQ(n, 0u) << r.messages();
    } else {
      EXPECT_EQ(n, 1u) << r.messages();
      ASSERT_EQ(r.sim.hazard_messages().size(), 1u);
      EXPECT_EQ(r.sim.hazard_messages()[0],
                "hazard: core 0 tiu command 2 (sAR) reads LMEM lane 0 offset 0x1000..0x1040 written by core 0 "
                "gdma command 1 (tensor) with no dependency or barrier ordering them");
    }
  }
}

TEST(SimHazard, DmaOverwritingWhatTiuReadsNeedsADependency) {
  for (int with_dep = 0; with_dep < 2; ++with_dep) {
    Rig r;
    copy(r.tiu(0), 0x2000, 0x1000, 16);  // TIU 1 reads lane 0 0x1000..0x1040
    tensor(r.gdma(0), ddr1(0), kLmem | 0x1020, 1, 16, with_dep ? cmd::CommandBuilder::dep_on(1) : 0);
    const uint64_t n = r.run();
    if (with_dep) {
      EXPECT_EQ(n, 0u) << r.messages();
    } else {
      EXPECT_EQ(n, 1u) << r.messages();
      EXPECT_NE(r.messages().find("core 0 gdma command 1 (tensor) writes LMEM lane 0 offset 0x1020..0x1040 "
                                  "read by core 0 tiu command 1 (sAR)"),
                std::string::npos)
          << r.messages();
    }
  }
}

TEST(SimHazard, CrossCoreL2NeedsABarrier) {
  for (int with_barrier = 0; with_barrier < 2; ++with_barrier) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), l2(0x100), 4, 8);  // core 0 writes L2 0x100..0x180
    if (with_barrier) {
      ASSERT_EQ(r.gdma(0).send_msg(7, 2), Status::ok);
      ASSERT_EQ(r.gdma(0).wait_msg(7, 2), Status::ok);
      ASSERT_EQ(r.gdma(1).send_msg(7, 2), Status::ok);
      ASSERT_EQ(r.gdma(1).wait_msg(7, 2), Status::ok);
    }
    tensor(r.gdma(1), l2(0x140), ddr1(0x1000), 1, 16);  // core 1 reads L2 0x140..0x180
    const uint64_t n = r.run();
    if (with_barrier) {
      EXPECT_EQ(n, 0u) << r.messages();
    } else {
      EXPECT_EQ(n, 1u) << r.messages();
      EXPECT_NE(r.messages().find("L2 offset 0x140..0x180"), std::string::npos) << r.messages();
      EXPECT_NE(r.messages().find("core 0 gdma command 1 (tensor)"), std::string::npos) << r.messages();
      EXPECT_NE(r.messages().find("core 1 gdma command 1 (tensor)"), std::string::npos) << r.messages();
    }
  }
}

TEST(SimHazard, ExactToTheByteOnPartialGranules) {
  // f16 elements: core 0 writes L2 bytes 0..2 and 6..8, core 1 writes 2..6: neighbours in the
  // same 4-byte granules, no byte shared: no hazard. Then core 1 touches byte 7: one hazard.
  for (int overlap = 0; overlap < 2; ++overlap) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), l2(0), 1, 1, 0, 1);
    tensor(r.gdma(0), ddr1(0), l2(6), 1, 1, 0, 1);
    tensor(r.gdma(1), ddr1(0x100), l2(2), 1, overlap ? 3 : 2, 0, 1);
    EXPECT_EQ(r.run(), overlap ? 1u : 0u) << r.messages();
  }
}

TEST(SimHazard, WholePagesAndTheirParts) {
  // 64 KiB DDR -> L2 by core 0 (whole 4 KiB pages), then core 1 reads 8 bytes in the middle
  // and 32 KiB at the end: two hazards without the barrier (one per reading command), none
  // with it; the bytes written are all there.
  for (int with_barrier = 0; with_barrier < 2; ++with_barrier) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), l2(0), 16, 1024);
    if (with_barrier) {
      ASSERT_EQ(r.gdma(0).send_msg(3, 2), Status::ok);
      ASSERT_EQ(r.gdma(1).send_msg(3, 2), Status::ok);
      ASSERT_EQ(r.gdma(1).wait_msg(3, 2), Status::ok);
    }
    tensor(r.gdma(1), l2(0x5000), ddr1(0x20000), 1, 2);
    tensor(r.gdma(1), l2(0x8000), ddr1(0x30000), 8, 1024);
    EXPECT_EQ(r.run(), with_barrier ? 0u : 2u) << r.messages();
  }
}

TEST(SimHazard, FineStridedPatternsStayExactToTheByte) {
  // GDMA 1 writes every other f32 of lane 0 0x1000..0x3000 (1024 runs per page: more than a
  // page keeps as runs), then TIU 2 reads 0x1004..0x1044: its first bytes written by the
  // GDMA are 0x1008..0x100c (0x1004..0x1008 was skipped), the range the message names.
  for (int with_dep = 0; with_dep < 2; ++with_dep) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), kLmem | 0x1000, 1, 1024, 0, 2, 2);
    copy(r.tiu(0), 0x20000, 0x10000, 16384);  // TIU 1: elsewhere, slow
    copy(r.tiu(0), 0x30000, 0x1004, 16, with_dep ? cmd::CommandBuilder::dep_on(1) : 0);
    const uint64_t n = r.run();
    if (with_dep) {
      EXPECT_EQ(n, 0u) << r.messages();
    } else {
      ASSERT_EQ(n, 1u) << r.messages();
      EXPECT_EQ(r.sim.hazard_messages()[0],
                "hazard: core 0 tiu command 2 (sAR) reads LMEM lane 0 offset 0x1008..0x100c written by core 0 "
                "gdma command 1 (tensor) with no dependency or barrier ordering them");
    }
  }
}

TEST(SimHazard, AStridedDmaRowHoldsItsElementsNotTheGapsBetween) {
  // Core 0 writes every other f32 of L2 0..0x2000 in rows of 1024 (one strided row a command),
  // core 1 then writes one f32 at 0x404 (a gap: no hazard) or 0x408 (an element: one hazard
  // naming those 4 bytes), with nothing ordering the two cores.
  for (int on_element = 0; on_element < 2; ++on_element) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), l2(0), 1, 1024, 0, 2, 2);
    tensor(r.gdma(1), ddr1(0x1000), l2(on_element ? 0x408 : 0x404), 1, 1);
    ASSERT_EQ(r.run(), on_element ? 1u : 0u) << r.messages();
    if (on_element) {
      EXPECT_NE(r.messages().find("L2 offset 0x408..0x40c"), std::string::npos) << r.messages();
    }
  }
}

TEST(SimHazard, ReadsOfTwoCoresOnAFinePatternKeepBothReads) {
  // Core 0 writes every other f32 of L2 0..0x2000 (512 runs a page: one state per byte); after a
  // barrier both cores read 0..0x2000, unordered with each other (every byte then holds both
  // reads: a shared read clock, repeated byte after byte); then each core writes bytes the other
  // read, with nothing ordering the write after that read: one hazard per write, naming the
  // other core's read and every byte written (a byte that lost a read would cut the range).
  Rig r;
  tensor(r.gdma(0), ddr1(0), l2(0), 1, 1024, 0, 2, 2);
  ASSERT_EQ(r.gdma(0).send_msg(7, 2), Status::ok);
  ASSERT_EQ(r.gdma(0).wait_msg(7, 2), Status::ok);
  ASSERT_EQ(r.gdma(1).send_msg(7, 2), Status::ok);
  ASSERT_EQ(r.gdma(1).wait_msg(7, 2), Status::ok);
  tensor(r.gdma(0), l2(0), ddr1(0x10000), 1, 2048);    // core 0 reads L2 0..0x2000
  tensor(r.gdma(1), l2(0), ddr1(0x20000), 1, 2048);    // core 1 reads L2 0..0x2000
  tensor(r.gdma(1), ddr1(0), l2(0x100), 1, 32);        // core 1 writes L2 0x100..0x180
  tensor(r.gdma(0), ddr1(0), l2(0x1010), 1, 4);        // core 0 writes L2 0x1010..0x1020
  ASSERT_EQ(r.run(), 2u) << r.messages();
  EXPECT_NE(r.messages().find("L2 offset 0x100..0x180"), std::string::npos) << r.messages();
  EXPECT_NE(r.messages().find("L2 offset 0x1010..0x1020"), std::string::npos) << r.messages();
  EXPECT_NE(r.messages().find("read by core 0 gdma command 4 (tensor)"), std::string::npos) << r.messages();
  EXPECT_NE(r.messages().find("read by core 1 gdma command 3 (tensor)"), std::string::npos) << r.messages();
}

// AR mul_satu of int16 on lane 0 (w elements, every operand at w stride 2: two bytes of every
// four), opd0 from 0, opd1 from 0x2000, res0 to 0x4000: strided rows the access log keeps as
// strided entries and the checker walks page by page.
void strided_ar(cmd::CommandBuilder& t, uint32_t w, uint32_t dep = 0) {
  cmd::TiuLongRef v(t.append(CmdClass::AR, 20).value());
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(w);
  v.set_opt_res0_prec(3); v.set_opt_opd0_prec(3); v.set_opt_opd1_prec(3);
  v.set_opt_res0_sign(1); v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1);
  v.set_tsk_opd_num(2);
  v.set_short_res0_str(3); v.set_short_opd0_str(3); v.set_short_opd1_str(3);
  v.set_res0_w_str(2); v.set_opd0_w_str(2); v.set_opd1_w_str(2);
  v.set_res0_h_str(2 * w); v.set_opd0_h_str(2 * w); v.set_opd1_h_str(2 * w);
  v.set_opd0_addr(0); v.set_opd1_addr(0x2000); v.set_res0_addr(0x4000);
  v.set_cmd_id_dep(dep);
}

TEST(SimHazard, StridedRowsAreExactToTheByte) {
  // TIU 1 reads int16 elements at lane 0 0x0, 0x4, 0x8, ... 0x1ffc (2048 elements, two pages),
  // then GDMA 1 writes there with no dependency: a byte of element 1924 (0x1e10..0x1e12, well
  // past where the second page turned from runs into one state per byte) is a hazard; the
  // bytes between two elements (0x1e12..0x1e14) are not; four bytes across the gap name only
  // the element's bytes (0x1e14..0x1e16). The same for the strided write to res0 (0x5e10)
  // against a GDMA read, and with the dependency nothing.
  struct Case {
    uint64_t src, dst;
    uint32_t elements;
    const char* want;  // nullptr: no hazard
  };
  const Case cases[] = {
      {ddr1(0), kLmem | 0x1E10, 1, "core 0 gdma command 1 (tensor) writes LMEM lane 0 offset 0x1e10..0x1e12 read by core 0 tiu command 1 (AR)"},
      {ddr1(0), kLmem | 0x1E12, 1, nullptr},
      {ddr1(0), kLmem | 0x1E12, 2, "core 0 gdma command 1 (tensor) writes LMEM lane 0 offset 0x1e14..0x1e16 read by core 0 tiu command 1 (AR)"},
      {kLmem | 0x5E10, ddr1(0), 1, "core 0 gdma command 1 (tensor) reads LMEM lane 0 offset 0x5e10..0x5e12 written by core 0 tiu command 1 (AR)"},
      {kLmem | 0x5E12, ddr1(0), 1, nullptr},
  };
  for (const Case& c : cases) {
    for (int with_dep = 0; with_dep < 2; ++with_dep) {
      Rig r;
      strided_ar(r.tiu(0), 2048);
      tensor(r.gdma(0), c.src, c.dst, 1, c.elements, with_dep ? cmd::CommandBuilder::dep_on(1) : 0, 1);
      const uint64_t n = r.run();
      if (with_dep || c.want == nullptr) {
        EXPECT_EQ(n, 0u) << std::hex << c.dst << " " << r.messages();
        continue;
      }
      ASSERT_EQ(n, 1u) << r.messages();
      EXPECT_EQ(r.sim.hazard_messages()[0], std::string("hazard: ") + c.want + " with no dependency or barrier ordering them");
    }
  }
}

TEST(SimHazard, StridedRowsFindWhatWasWrittenBeforeThem) {
  // GDMA 1 writes int16 bytes at lane 0 0x1e10 (an element of the strided read) or 0x1e12 (between
  // two); TIU 2, behind a slow command, reads the strided row with no dependency on GDMA 1.
  for (const uint32_t at : {0x1E10u, 0x1E12u}) {
    Rig r;
    tensor(r.gdma(0), ddr1(0), kLmem | at, 1, 1, 0, 1);
    copy(r.tiu(0), 0x20000, 0x10000, 16384);  // TIU 1: elsewhere, slow
    strided_ar(r.tiu(0), 2048);
    const uint64_t n = r.run();
    if (at == 0x1E12) {
      EXPECT_EQ(n, 0u) << r.messages();
      continue;
    }
    ASSERT_EQ(n, 1u) << r.messages();
    EXPECT_EQ(r.sim.hazard_messages()[0],
              "hazard: core 0 tiu command 2 (AR) reads LMEM lane 0 offset 0x1e10..0x1e12 written by core 0 gdma "
              "command 1 (tensor) with no dependency or barrier ordering them");
  }
}

TEST(SimHazard, TimingOnlyRunsDoNotCheck) {
  sim::SimOptions o;
  o.functional = false;
  Rig r(o);
  tensor(r.gdma(0), ddr1(0), kLmem | 0x1000, 1, 16);
  copy(r.tiu(0), 0x2000, 0x1000, 16);
  EXPECT_EQ(r.run(), 0u);
  EXPECT_TRUE(r.sim.hazard_messages().empty());
}

}  // namespace
