// Operand validation of every class (validate.hpp lists the rules): for each rule one command
// that passes and one that fails with its Status, field, command id and byte offset.
// Core test: runs on the host and on QEMU.
#include <cstring>

#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
namespace sg = chip::sg2260;

// One command (after `before` SYS nops to give it a non-trivial id/offset), then the end.
struct One {
  uint8_t buf[256] = {};
  Engine engine;
  CommandBuilder b;
  uint8_t* cmd = nullptr;
  explicit One(Engine e, CmdClass cls, uint32_t eu, int before = 1) : engine(e), b(e, ByteSpan(buf, sizeof buf)) {
    for (int i = 0; i < before; ++i) EXPECT_EQ(b.send_msg(1, 1), Status::ok);
    cmd = b.append(cls, eu).value();
  }
  ValidationReport validate(const ValidateOptions& o = {}) {
    CommandBuilder copy = b;
    EXPECT_EQ(copy.end(), Status::ok);
    return validate_stream(engine, copy.bytes(), o);
  }
};

#define EXPECT_REJECTED(one, want, field_name)                   \
  do {                                                            \
    const ValidationReport r_ = (one).validate();                 \
    EXPECT_EQ(r_.status, want);                                   \
    EXPECT_EQ(r_.command_id, 2u);                                 \
    EXPECT_EQ(r_.offset, size_t{16});                             \
    EXPECT_STREQ(r_.field, field_name);                           \
  } while (0)
#define EXPECT_ACCEPTED(one) EXPECT_EQ((one).validate().status, Status::ok)

// Long AR add f32, 1 x c x 1 x w, alignEU, every operand in lane 0.
void long_ar(uint8_t* p, uint32_t c, uint32_t w, uint32_t res0, uint32_t opd0, uint32_t opd1) {
  TiuLongRef v(p);
  v.set_res0_n(1); v.set_res0_c(c); v.set_res0_h(1); v.set_res0_w(w);
  v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2); v.set_tsk_opd_num(2);
  v.set_res0_addr(res0); v.set_opd0_addr(opd0); v.set_opd1_addr(opd1);
}
}  // namespace

// ---- local addresses ---------------------------------------------------------------------

TEST(CmdOperands, LocalAddressBitsAbove26AreRejected) {
  One ok(Engine::tiu, CmdClass::AR, 2);
  long_ar(ok.cmd, 1, 8, 0x3FF00, 0, 0x100);
  EXPECT_ACCEPTED(ok);
  One bad(Engine::tiu, CmdClass::AR, 2);
  long_ar(bad.cmd, 1, 8, 0xF8000000u, 0, 0x100);  // would alias lane 0 offset 0
  EXPECT_REJECTED(bad, Status::cmd_lmem_out_of_range, "res0_addr");
  One bit27(Engine::tiu, CmdClass::AR, 2);
  long_ar(bit27.cmd, 1, 8, 0, 0x08000000u, 0x100);
  EXPECT_REJECTED(bit27, Status::cmd_lmem_out_of_range, "opd0_addr");
}

TEST(CmdOperands, LaneBits25To24AreRejected) {
  One bad(Engine::tiu, CmdClass::AR, 2);
  long_ar(bad.cmd, 1, 8, 0, 0, 0x01000000u);  // lane 64
  EXPECT_REJECTED(bad, Status::cmd_lmem_out_of_range, "opd1_addr");
  One ok(Engine::tiu, CmdClass::AR, 2);
  long_ar(ok.cmd, 1, 8, 0, 0, 63u << 18);  // lane 63
  EXPECT_ACCEPTED(ok);
}

TEST(CmdOperands, SmemOffsetBeyond64KiB) {
  One ok(Engine::tiu, CmdClass::AR, 2);
  long_ar(ok.cmd, 1, 8, 0x0400FF00u, 0, 0x100);
  EXPECT_ACCEPTED(ok);
  One bad(Engine::tiu, CmdClass::AR, 2);
  long_ar(bad.cmd, 1, 8, 0x04010000u, 0, 0x100);
  EXPECT_REJECTED(bad, Status::cmd_lmem_out_of_range, "res0_addr");
}

// ---- AR / sAR ----------------------------------------------------------------------------

TEST(CmdOperands, LongArFootprint) {
  One ok(Engine::tiu, CmdClass::AR, 2);
  long_ar(ok.cmd, 1, 8, 0x3FFE0, 0, 0x100);  // 8 f32 = 32 B end exactly at the lane end
  EXPECT_ACCEPTED(ok);
  One bad(Engine::tiu, CmdClass::AR, 2);
  long_ar(bad.cmd, 1, 8, 0x3FFF0, 0, 0x100);
  EXPECT_REJECTED(bad, Status::cmd_footprint_out_of_range, "res0_addr");
  // c = 65 from lane 0 wraps to a second lane row: + one alignEU channel (16 f32 = 64 B).
  One wrap_ok(Engine::tiu, CmdClass::AR, 2);
  long_ar(wrap_ok.cmd, 65, 8, 0, 0x3FFA0, 0x100);
  EXPECT_ACCEPTED(wrap_ok);
  One wrap_bad(Engine::tiu, CmdClass::AR, 2);
  long_ar(wrap_bad.cmd, 65, 8, 0, 0x3FFC0, 0x100);
  EXPECT_REJECTED(wrap_bad, Status::cmd_footprint_out_of_range, "opd0_addr");
}

TEST(CmdOperands, ArSecondOperandByEuAndOperandCount) {
  // Binary add reads opd1 even when tsk_opd_num says 1.
  One add(Engine::tiu, CmdClass::AR, 2);
  long_ar(add.cmd, 1, 8, 0, 0x100, 0x3FFF0);
  TiuLongRef(add.cmd).set_tsk_opd_num(1);
  EXPECT_REJECTED(add, Status::cmd_footprint_out_of_range, "opd1_addr");
  // A cast reads opd0 only: opd1 is not an operand.
  One cast(Engine::tiu, CmdClass::AR, 14);
  long_ar(cast.cmd, 1, 8, 0, 0x100, 0xFFFFFFFFu);
  TiuLongRef(cast.cmd).set_tsk_opd_num(1);
  EXPECT_ACCEPTED(cast);
  // tsk_opd_num 3: opd2 (start check).
  One three(Engine::tiu, CmdClass::sAR, 2);
  SArRef s(three.cmd);
  s.set_res0_n(1); s.set_res0_c(1); s.set_res0_h(1); s.set_res0_w(4); s.set_tsk_opd_num(3);
  s.set_opd2_addr(0x02000000u);
  EXPECT_REJECTED(three, Status::cmd_lmem_out_of_range, "opd2_addr");
  s.set_opt_opd2_const(1);  // a constant: the field is its value
  EXPECT_ACCEPTED(three);
}

TEST(CmdOperands, PorDOperandsByEu) {
  // Max pooling reads input and pad value: tpu-mlir leaves the unused bias address 0xFFFFFFFF
  // (YOLOv5s core 0 #720, ResNet-50 core 0 #8) and the kernel address 0.
  for (uint32_t eu : {3u, 4u}) {
    One pool(Engine::tiu, CmdClass::sPorD, eu);
    SPorDRef v(pool.cmd);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(4);
    v.set_opd0_h(2); v.set_opd0_w(8); v.set_opd2_addr(0xFFFFFFFFu); v.set_opd1_addr(0xFFFFFFFFu);
    EXPECT_ACCEPTED(pool);
  }
  // Depthwise reads weights and bias: the same bias address is rejected.
  One dw(Engine::tiu, CmdClass::sPorD, 0);
  SPorDRef d(dw.cmd);
  d.set_res0_n(1); d.set_res0_c(1); d.set_res0_h(1); d.set_res0_w(4); d.set_opd0_h(1); d.set_opd0_w(4);
  d.set_opd2_addr(0xFFFFFFFFu);
  EXPECT_REJECTED(dw, Status::cmd_lmem_out_of_range, "opd2_addr");
  d.set_opt_opd2_const(1);  // a constant bias: the field is its value
  EXPECT_ACCEPTED(dw);
  // Avg pooling reads its scale (opd1) but no bias; the long form follows the same table.
  One avg(Engine::tiu, CmdClass::PorD, 1);
  TiuLongRef a(avg.cmd);
  a.set_res0_n(1); a.set_res0_c(1); a.set_res0_h(1); a.set_res0_w(4);
  a.set_opd0_n(1); a.set_opd0_c(1); a.set_opd0_h(1); a.set_opd0_w(4);
  a.set_opd2_addr(0xFFFFFFFFu);
  EXPECT_ACCEPTED(avg);
  a.set_opd1_addr(0xFFFFFFFFu);
  EXPECT_REJECTED(avg, Status::cmd_lmem_out_of_range, "opd1_addr");
}

TEST(CmdOperands, ConstantOperandIsNotAnAddress) {
  One c(Engine::tiu, CmdClass::AR, 2);
  long_ar(c.cmd, 1, 8, 0, 0x100, 0xBF800000u);  // -1.0f as opd1
  EXPECT_REJECTED(c, Status::cmd_lmem_out_of_range, "opd1_addr");
  TiuLongRef(c.cmd).set_opt_opd1_const(1);
  EXPECT_ACCEPTED(c);
}

TEST(CmdOperands, StrideModes) {
  // Mode 3: explicit strides (elements). 2 x 4 f32 with h stride 100: last element at 104.
  One ex(Engine::tiu, CmdClass::AR, 19);
  TiuLongRef v(ex.cmd);
  v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(2); v.set_res0_w(4); v.set_opt_res0_prec(2);
  v.set_opt_opd0_prec(2); v.set_tsk_opd_num(1);
  v.set_short_res0_str(3); v.set_res0_h_str(100); v.set_res0_w_str(1);
  v.set_res0_addr(0x40000 - 104 * 4);
  EXPECT_ACCEPTED(ex);
  v.set_res0_addr(0x40000 - 103 * 4);
  EXPECT_REJECTED(ex, Status::cmd_footprint_out_of_range, "res0_addr");
  v.set_res0_addr(0);
  v.set_short_opd0_str(2);  // T3..T5 / compact: unsupported in tilefw v1
  EXPECT_REJECTED(ex, Status::cmd_bad_field, "short_opd0_str");
}

// ---- MM2 / sMM2 --------------------------------------------------------------------------

void mm2(uint8_t* p, bool is_long, uint32_t opd1_addr) {
  // M 4, N 34, K 16, f16 (nn: K = opd1_c, nt/tt: K = opd1_w).
  if (is_long) {
    TiuLongRef v(p);
    v.set_res0_c(4); v.set_res0_w(34); v.set_opd1_c(16); v.set_opd1_w(16);
    v.set_opt_res0_prec(1); v.set_opt_opd0_prec(1); v.set_opt_opd1_prec(1); v.set_opt_opd2_const(1);
    v.set_res0_addr(0x8000); v.set_opd1_addr(opd1_addr);
  } else {
    SMm2Ref v(p);
    v.set_res0_c(4); v.set_res0_w(34); v.set_opd1_c(16); v.set_opd1_w(16);
    v.set_opt_res0_prec(1); v.set_opt_opd0_prec(1); v.set_opt_opd1_prec(1); v.set_opt_opd2_const(1);
    v.set_res0_addr(0x8000); v.set_opd1_addr(opd1_addr);
  }
}

TEST(CmdOperands, Mm2OperandOrientation) {
  for (int is_long = 0; is_long < 2; ++is_long) {
    const CmdClass cls = is_long ? CmdClass::MM2 : CmdClass::sMM2;
    // nn: right operand K rows x N = 34 f16 (68 B per lane): at 0x3FFC0 it runs past the lane.
    One nn(Engine::tiu, cls, 4);
    mm2(nn.cmd, is_long != 0, 0x3FFC0);
    EXPECT_REJECTED(nn, Status::cmd_footprint_out_of_range, "opd1_addr");
    // nt: right operand stored N x K = 16 f16 (32 B per lane): fits.
    One nt(Engine::tiu, cls, 5);
    mm2(nt.cmd, is_long != 0, 0x3FFC0);
    EXPECT_ACCEPTED(nt);
    One nt_bad(Engine::tiu, cls, 5);
    mm2(nt_bad.cmd, is_long != 0, 0x3FFF0);
    EXPECT_REJECTED(nt_bad, Status::cmd_footprint_out_of_range, "opd1_addr");
    // tt: the left operand is K x M = 16 rows of 4 f16 (8 B): at 0x3FFF8 it fits, at 0x3FFFA not.
    One tt(Engine::tiu, cls, 6);
    mm2(tt.cmd, is_long != 0, 0);
    if (is_long) TiuLongRef(tt.cmd).set_opd0_addr(0x3FFF8); else SMm2Ref(tt.cmd).set_opd0_addr(0x3FFF8);
    EXPECT_ACCEPTED(tt);
    if (is_long) TiuLongRef(tt.cmd).set_opd0_addr(0x3FFFA); else SMm2Ref(tt.cmd).set_opd0_addr(0x3FFFA);
    EXPECT_REJECTED(tt, Status::cmd_footprint_out_of_range, "opd0_addr");
    // A bias tensor (opd2 not constant) gets a start check.
    One bias(Engine::tiu, cls, 4);
    mm2(bias.cmd, is_long != 0, 0x4000);
    if (is_long) { TiuLongRef b(bias.cmd); b.set_opt_opd2_const(0); b.set_opd2_addr(0xF0000000u); }
    else { SMm2Ref b(bias.cmd); b.set_opt_opd2_const(0); b.set_opd2_addr(0xF0000000u); }
    EXPECT_REJECTED(bias, Status::cmd_lmem_out_of_range, "opd2_addr");
  }
}

// ---- CW&BC, SFU --------------------------------------------------------------------------

TEST(CmdOperands, CwBcFootprintAndShape) {
  One ok(Engine::tiu, CmdClass::sCW_sBC, 0);  // cw_ts: res0 1x4x1x8 f32 from opd0 1x8x1x4
  SCwBcRef v(ok.cmd);
  v.set_res0_n(1); v.set_res0_c(4); v.set_res0_h(1); v.set_res0_w(8); v.set_opd0_c(8); v.set_opd0_w(4);
  v.set_opt_res0_prec(2); v.set_res0_addr(0x1000); v.set_opd0_addr(0x3FFF0);  // 4 f32 per lane
  EXPECT_ACCEPTED(ok);
  v.set_opd0_addr(0x3FFF4);
  EXPECT_REJECTED(ok, Status::cmd_footprint_out_of_range, "opd0_addr");
  v.set_opd0_addr(0);
  v.set_opd0_w(5);
  EXPECT_REJECTED(ok, Status::cmd_bad_field, "opd0_c");
  One bc(Engine::tiu, CmdClass::CW_BC, 3);  // lane_bc: one source channel
  TiuLongRef l(bc.cmd);
  l.set_res0_n(1); l.set_res0_c(64); l.set_res0_h(1); l.set_res0_w(8); l.set_opt_res0_prec(2);
  l.set_opd0_n(1); l.set_opd0_c(1); l.set_opd0_h(1); l.set_opd0_w(8); l.set_opt_opd0_prec(2);
  l.set_res0_addr(0x3FFE0);
  EXPECT_ACCEPTED(bc);
  l.set_res0_addr(0x3FFE4);
  EXPECT_REJECTED(bc, Status::cmd_footprint_out_of_range, "res0_addr");
  l.set_res0_addr(0);
  l.set_opd0_c(2);
  EXPECT_REJECTED(bc, Status::cmd_bad_field, "opd0_c");
}

TEST(CmdOperands, SfuFootprintAndTable) {
  One s(Engine::tiu, CmdClass::sSFU, 17);  // rsqrt, f32 1x2x1x8
  SSfuRef v(s.cmd);
  v.set_res0_n(1); v.set_res0_c(2); v.set_res0_h(1); v.set_res0_w(8);
  v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2);
  v.set_res0_addr(0x100); v.set_opd0_addr(0x3FFE0); v.set_opd1_addr(0xFFFFFFFFu);  // no table
  EXPECT_ACCEPTED(s);
  v.set_opd0_addr(0x3FFE4);
  EXPECT_REJECTED(s, Status::cmd_footprint_out_of_range, "opd0_addr");
  One t(Engine::tiu, CmdClass::sSFU, 13);  // taylor: opd1 is the table
  SSfuRef w(t.cmd);
  w.set_res0_n(1); w.set_res0_c(1); w.set_res0_h(1); w.set_res0_w(1); w.set_opd1_addr(0xFFFFFFFFu);
  EXPECT_REJECTED(t, Status::cmd_lmem_out_of_range, "opd1_addr");
  w.set_opd1_addr(0x2000);
  EXPECT_ACCEPTED(t);
}

// ---- the other TIU classes -----------------------------------------------------------------

TEST(CmdOperands, ShortFormsCheckTheirOperands) {
  {  // sCONV input with explicit strides: c=2 lanes, 4x4 f16, h stride 4
    One c(Engine::tiu, CmdClass::sCONV, 0);
    SConvRef v(c.cmd);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(1); v.set_opt_res0_prec(1);
    v.set_opd0_c(2); v.set_opd0_h(4); v.set_opd0_w(4); v.set_opt_opd0_prec(1); v.set_short_opd0_str(3);
    v.set_opd0_h_str(4); v.set_opd0_w_str(1); v.set_opd0_addr(0x40000 - 32);
    EXPECT_ACCEPTED(c);
    v.set_opd0_addr(0x40000 - 30);
    EXPECT_REJECTED(c, Status::cmd_footprint_out_of_range, "opd0_addr");
    v.set_opd0_addr(0);
    v.set_res1_addr(0x01000000u);
    EXPECT_REJECTED(c, Status::cmd_lmem_out_of_range, "res1_addr");
  }
  {  // sPorD result, alignEU int8 64 per lane row
    One p(Engine::tiu, CmdClass::sPorD, 4);
    SPorDRef v(p.cmd);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(2); v.set_res0_w(32); v.set_res0_addr(0x3FFC0);
    EXPECT_ACCEPTED(p);
    v.set_res0_addr(0x3FFC1);
    EXPECT_REJECTED(p, Status::cmd_footprint_out_of_range, "res0_addr");
  }
  {  // sCMP opd0 (mode 0), results start-checked
    One m(Engine::tiu, CmdClass::sCMP, 22);
    SCmpRef v(m.cmd);
    v.set_res0_n(1); v.set_res0_c(1); v.set_res0_h(1); v.set_res0_w(16); v.set_opt_opd0_prec(2);
    v.set_opd0_addr(0x3FFC0);
    EXPECT_ACCEPTED(m);
    v.set_opd0_addr(0x3FFC4);
    EXPECT_REJECTED(m, Status::cmd_footprint_out_of_range, "opd0_addr");
    v.set_opd0_addr(0);
    v.set_res1_addr(0x10000000u);
    EXPECT_REJECTED(m, Status::cmd_lmem_out_of_range, "res1_addr");
    v.set_res1_addr(0);
    v.set_short_opd1_str(1);
    EXPECT_REJECTED(m, Status::cmd_bad_field, "short_opd1_str");
  }
  {  // sRQ&sDQ, sLIN, sSG, sSGL: result footprint (int32 = 4 B)
    const CmdClass cls[] = {CmdClass::sRQ_sDQ, CmdClass::sLIN, CmdClass::sSG, CmdClass::sSGL};
    const uint32_t eus[] = {0, 1, 0, 17};
    for (int i = 0; i < 4; ++i) {
      One o(Engine::tiu, cls[i], eus[i]);
      const Span<const FieldDesc> f = fields_of(cls[i]);
      auto set = [&](const char* name, uint64_t v) {
        for (const FieldDesc& d : f) {
          if (std::strcmp(d.name, name) == 0) write_field(o.cmd, d, v);
        }
      };
      set("res0_n", 1); set("res0_c", 1); set("res0_h", 1); set("res0_w", 4); set("opt_res0_prec", 4);
      set("res0_addr", 0x3FFF0);
      EXPECT_ACCEPTED(o);
      set("res0_addr", 0x3FFF4);
      EXPECT_REJECTED(o, Status::cmd_footprint_out_of_range, "res0_addr");
    }
  }
  {  // sMM and sVC (other eu): start checks
    One m(Engine::tiu, CmdClass::sMM, 1);
    SMmRef(m.cmd).set_opd1_addr(0x3FFFF);
    EXPECT_ACCEPTED(m);
    SMmRef(m.cmd).set_opd1_addr(0x40000000u);
    EXPECT_REJECTED(m, Status::cmd_lmem_out_of_range, "opd1_addr");
    // sVC eu 23 (mulDHR, not executed; the executed ones read opd2_addr as a value)
    One c(Engine::tiu, CmdClass::sVC, 23);
    SVcRef(c.cmd).set_opd2_addr(0x02000000u);
    EXPECT_REJECTED(c, Status::cmd_lmem_out_of_range, "opd2_addr");
  }
}

TEST(CmdOperands, LongFormsUseEachOperandsOwnShape) {
  One c(Engine::tiu, CmdClass::CONV, 0);
  TiuLongRef v(c.cmd);
  v.set_opd1_n(1); v.set_opd1_c(1); v.set_opd1_h(3); v.set_opd1_w(3); v.set_opt_opd1_prec(0);
  v.set_opd1_addr(0x3FFC0);  // 9 int8 in one 64-element row
  EXPECT_ACCEPTED(c);
  v.set_opd1_addr(0x3FFF8);
  EXPECT_REJECTED(c, Status::cmd_footprint_out_of_range, "opd1_addr");
  v.set_opd1_addr(0);
  v.set_opd3_addr(0xFF000000u);
  EXPECT_REJECTED(c, Status::cmd_lmem_out_of_range, "opd3_addr");
  v.set_opt_opd3_const(1);
  EXPECT_ACCEPTED(c);
}

TEST(CmdOperands, LarAddressesAreInLane) {
  One l(Engine::tiu, CmdClass::LAR, 2);
  LarRef v(l.cmd);
  v.set_res0_addr(0xFFFF); v.set_opd0_addr(0xFFFF); v.set_opd1_addr(0xFFFF);
  EXPECT_ACCEPTED(l);
}

// ---- DMA -----------------------------------------------------------------------------------

void dma_addrs(const DmaCommonRef& d, uint64_t src, uint64_t dst) {
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
}
void dma_shape(const DmaCommonRef& d, bool src, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
               uint32_t ns, uint32_t cs, uint32_t hs, uint32_t ws) {
  if (src) {
    d.set_src_nsize(n); d.set_src_csize(c); d.set_src_hsize(h); d.set_src_wsize(w);
    d.set_src_nstride(ns); d.set_src_cstride(cs); d.set_src_hstride(hs); d.set_src_wstride(ws);
  } else {
    d.set_dst_nsize(n); d.set_dst_csize(c); d.set_dst_hsize(h); d.set_dst_wsize(w);
    d.set_dst_nstride(ns); d.set_dst_cstride(cs); d.set_dst_hstride(hs); d.set_dst_wstride(ws);
  }
}
constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;
constexpr uint64_t kL2 = (uint64_t{sg::kTagL2} << sg::kTagShift) | sg::kL2Base;
uint64_t ddr(uint64_t off) { return sg::make_dma_address(1, off); }

TEST(CmdOperands, DmaTensorNcTransposeDestination) {
  // src 2 x 3 x 1 x 8 f32 in DDR; NC-transpose writes dst n 3 x c 2 x 1 x 8 into LMEM:
  // 2 lanes from lane 0, last element at n stride 2 * 16 + 7 = 39 f32.
  One t(Engine::gdma, CmdClass::dma_tensor, 1);
  DmaCommonRef d(t.cmd);
  d.set_src_data_format(2);
  dma_shape(d, true, 2, 3, 1, 8, 24, 8, 8, 1);
  dma_shape(d, false, 0, 0, 0, 0, 16, 0, 8, 1);
  dma_addrs(d, ddr(0), kLmem | (0x40000 - 40 * 4));
  EXPECT_ACCEPTED(t);
  dma_addrs(d, ddr(0), kLmem | (0x40000 - 39 * 4));
  EXPECT_REJECTED(t, Status::cmd_footprint_out_of_range, "dst_start_addr");
}

TEST(CmdOperands, DmaOwnSizesForCwTransposeAndReverse) {
  for (CmdClass cls : {CmdClass::dma_cw_transpose, CmdClass::dma_reverse}) {
    One t(Engine::gdma, cls, 0);
    DmaCommonRef d(t.cmd);
    d.set_src_data_format(1);
    dma_shape(d, true, 1, 4, 1, 8, 0, 8, 8, 1);
    dma_shape(d, false, 1, 8, 1, 4, 0, 4, 4, 1);
    dma_addrs(d, kL2 + sg::kL2Bytes - 64, ddr(0));  // 32 f16 = 64 B end exactly at L2's end
    EXPECT_ACCEPTED(t);
    dma_addrs(d, kL2 + sg::kL2Bytes - 62, ddr(0));
    EXPECT_REJECTED(t, Status::cmd_footprint_out_of_range, "src_start_addr");
  }
}

TEST(CmdOperands, DmaFp8FormatsAreOneByteElements) {
  // 7 FP8 E4M3 and 8 FP8 E5M2 (docs/sg2260-commands.md section 6.3): 64 elements = 64 bytes ending
  // exactly at L2's end
  for (uint32_t fmt : {7u, 8u}) {
    One t(Engine::gdma, CmdClass::dma_tensor, 0);
    DmaCommonRef d(t.cmd);
    d.set_src_data_format(fmt);
    dma_shape(d, true, 1, 1, 1, 64, 0, 64, 64, 1);
    dma_shape(d, false, 1, 1, 1, 64, 0, 64, 64, 1);
    dma_addrs(d, kL2 + sg::kL2Bytes - 64, ddr(0));
    EXPECT_ACCEPTED(t);
    dma_addrs(d, kL2 + sg::kL2Bytes - 63, ddr(0));
    EXPECT_REJECTED(t, Status::cmd_footprint_out_of_range, "src_start_addr");
  }
}

TEST(CmdOperands, DmaDataDependentAndIndexedOperandsAreStartChecked) {
  One m(Engine::gdma, CmdClass::dma_masked_select, 0);
  DmaMaskedSelectRef v(m.cmd);
  v.set_src_data_format(2);
  dma_shape(DmaCommonRef(m.cmd), true, 1, 1, 1, 8, 0, 8, 8, 1);
  dma_shape(DmaCommonRef(m.cmd), false, 1, 1, 1, 60000, 0, 60000, 60000, 1);  // never written whole
  dma_addrs(DmaCommonRef(m.cmd), ddr(0), kLmem | 0x3FF00);
  v.set_mask_start_addr_h13(0x100);
  EXPECT_ACCEPTED(m);
  v.set_mask_start_addr_h13(0);  // tag 0
  EXPECT_REJECTED(m, Status::cmd_bad_address_tag, "mask_start_addr");
  One g(Engine::gdma, CmdClass::dma_gather, 0);
  DmaGatherScatterRef gs(g.cmd);
  gs.set_src_start_addr_h13(0x100); gs.set_dst_start_addr_h13(0x1F00); gs.set_index_start_addr_h13(0x100);
  EXPECT_ACCEPTED(g);
  gs.set_index_start_addr_l32(0x02000000u); gs.set_index_start_addr_h13(0x1F00);  // LMEM lane 128
  EXPECT_REJECTED(g, Status::cmd_lmem_out_of_range, "index_start_addr");
}

TEST(CmdOperands, DmaGeneralBroadcastReadsItsSourceOnly) {
  One b(Engine::gdma, CmdClass::dma_general, 1);
  DmaCommonRef d(b.cmd);
  d.set_src_data_format(0);
  d.set_src_cstride(256);
  dma_addrs(d, kLmem | (sg::kLmemBytesPerCore - 256), kLmem | (sg::kLmemBytesPerCore - 1));
  EXPECT_ACCEPTED(b);
  dma_addrs(d, kLmem | (sg::kLmemBytesPerCore - 255), kLmem);
  EXPECT_REJECTED(b, Status::cmd_footprint_out_of_range, "src_start_addr");
}

TEST(CmdOperands, DmaLocalAddressBitsAndSmem) {
  One t(Engine::gdma, CmdClass::dma_tensor, 0);
  DmaCommonRef d(t.cmd);
  d.set_src_data_format(0);
  d.set_nchw_copy(1);
  dma_shape(d, true, 1, 1, 1, 256, 0, 256, 256, 1);
  dma_shape(d, false, 0, 0, 0, 0, 0, 256, 256, 1);  // nchw_copy: dst sizes = src sizes
  dma_addrs(d, ddr(0), kLmem | (uint64_t{1} << 26) | (0x10000 - 256));  // SMEM, linear
  EXPECT_ACCEPTED(t);
  dma_addrs(d, ddr(0), kLmem | (uint64_t{1} << 26) | (0x10000 - 255));
  EXPECT_REJECTED(t, Status::cmd_footprint_out_of_range, "dst_start_addr");
  dma_addrs(d, ddr(0), kLmem | (uint64_t{1} << 35));  // tag-31 offset bit 35: no memory
  EXPECT_REJECTED(t, Status::cmd_lmem_out_of_range, "dst_start_addr");
}

TEST(CmdOperands, SdmaCannotAddressLocalMemory) {
  // The same copy DDR -> LMEM is fine on the GDMA and refused on the SDMA (DDR and L2 only);
  // DDR -> L2 is fine on both. A fill has no source, so only its destination counts.
  for (Engine e : {Engine::gdma, Engine::sdma}) {
    One t(e, CmdClass::dma_tensor, 0);
    DmaCommonRef d(t.cmd);
    d.set_src_data_format(2);
    d.set_nchw_copy(1);
    dma_shape(d, true, 1, 1, 1, 16, 0, 16, 16, 1);
    dma_shape(d, false, 0, 0, 0, 0, 0, 16, 16, 1);
    dma_addrs(d, ddr(0), kL2);
    EXPECT_ACCEPTED(t);
    dma_addrs(d, ddr(0), kLmem);
    if (e == Engine::gdma) {
      EXPECT_ACCEPTED(t);
    } else {
      EXPECT_REJECTED(t, Status::cmd_bad_address_tag, "dst_start_addr");
    }
    dma_addrs(d, kLmem | (uint64_t{1} << 26), kL2);  // SMEM source
    if (e == Engine::gdma) {
      EXPECT_ACCEPTED(t);
    } else {
      EXPECT_REJECTED(t, Status::cmd_bad_address_tag, "src_start_addr");
    }
    d.set_fill_constant_en(1);  // no source read: only the L2 destination
    EXPECT_ACCEPTED(t);
  }
  One g(Engine::sdma, CmdClass::dma_gather, 0);
  DmaGatherScatterRef gs(g.cmd);
  gs.set_src_start_addr_h13(0x100); gs.set_dst_start_addr_h13(0x100); gs.set_index_start_addr_h13(0x100);
  EXPECT_ACCEPTED(g);
  gs.set_index_start_addr_h13(0x1F00);  // indices in LMEM
  EXPECT_REJECTED(g, Status::cmd_bad_address_tag, "index_start_addr");
}
