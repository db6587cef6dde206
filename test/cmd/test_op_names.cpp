// tpu-mlir op names (op_names.hpp): every (class, eu) the decoder accepts has a name of its
// class's family, and the names the two real models use are exactly bmodel_dis's.
// Core test: runs on the host and on QEMU.
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/op_names.hpp"

using namespace tilefw::cmd;

TEST(CmdOpNames, EveryAcceptedEncodingHasAName) {
  unsigned named = 0;
  for (uint32_t t = 0; t < 16; ++t) {
    for (uint32_t eu = 0; eu < 32; ++eu) {
      for (int s = 0; s < 2; ++s) {
        const CmdClass c = tiu_class(t, eu, s != 0);
        if (c == CmdClass::none) continue;
        const uint32_t e = c == CmdClass::SYS_TR_ACC ? (eu & 7) : eu;
        EXPECT_NE(std::strcmp(op_name(c, e), "unknown"), 0);
        ++named;
      }
    }
  }
  for (uint32_t t = 0; t < 32; ++t) {
    for (uint32_t sp = 0; sp < 8; ++sp) {
      const CmdClass c = dma_class(t, sp);
      if (c == CmdClass::none) continue;
      EXPECT_NE(std::strcmp(op_name(c, sp), "unknown"), 0);
      ++named;
    }
  }
  EXPECT_GT(named, 300u);
  EXPECT_STREQ(op_name(CmdClass::AR, 17), "unknown");
  EXPECT_STREQ(op_name(CmdClass::none, 0), "unknown");
}

TEST(CmdOpNames, BmodelDisNames) {
  EXPECT_STREQ(op_name(CmdClass::sCONV, 0), "conv.normal");
  EXPECT_STREQ(op_name(CmdClass::sPorD, 4), "pord.maxpooling");
  EXPECT_STREQ(op_name(CmdClass::sPorD, 0), "pord.depthwise");
  EXPECT_STREQ(op_name(CmdClass::sAR, 15), "arith.add_satu");
  EXPECT_STREQ(op_name(CmdClass::sAR, 14), "arith.cast");
  EXPECT_STREQ(op_name(CmdClass::sSFU, 12), "sfu.taylor_4x");
  EXPECT_STREQ(op_name(CmdClass::sCW_sBC, 4), "tsbc.s_bc");
  EXPECT_STREQ(op_name(CmdClass::sCW_sBC, 2), "tsbc.l_copy");
  EXPECT_STREQ(op_name(CmdClass::MM2, 4), "mm2.nn");
  EXPECT_STREQ(op_name(CmdClass::MM, 1), "mm.normal");
  EXPECT_STREQ(op_name(CmdClass::SYS, 8), "system.send_msg");
  EXPECT_STREQ(op_name(CmdClass::SYS, 31), "system.end");
  EXPECT_STREQ(op_name(CmdClass::SYS_TR_ACC, 0), "system_tr_wr.wr_imm");
  EXPECT_STREQ(op_name(CmdClass::dma_tensor, 0), "dma.tensor");
  EXPECT_STREQ(op_name(CmdClass::dma_tensor, 3), "dma.tensor.broadcast");
  EXPECT_STREQ(op_name(CmdClass::dma_matrix, 0), "dma.matrix");
  EXPECT_STREQ(op_name(CmdClass::dma_sys, 3), "dma.sys.sys_send");
  EXPECT_STREQ(op_name(CmdClass::dma_sys, 0), "dma.sys.chain_end");
}
