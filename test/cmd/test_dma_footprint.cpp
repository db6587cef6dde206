// The DMA footprint rule (dma_footprint.hpp): element sizes by data format, strided spans and
// the operand ranges of each DMA class, with exact values, and the agreement with validation:
// a DDR region ending at an operand's last byte passes, one byte shorter fails.
// Core test: runs on the host and on QEMU.
#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/dma_footprint.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
namespace sg = chip::sg2260;

constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;
uint64_t ddr(uint32_t tag, uint64_t off) { return sg::make_dma_address(tag, off); }

// One DMA command of `cls`, then the end command, in a stream of its own.
struct OneDma {
  uint8_t buf[256] = {};
  CommandBuilder b;
  uint8_t* cmd = nullptr;
  OneDma(CmdClass cls, uint32_t eu) : b(Engine::gdma, ByteSpan(buf, sizeof buf)) {
    cmd = b.append(cls, eu).value();
  }
  ConstByteSpan stream() {
    CommandBuilder copy = b;
    EXPECT_EQ(copy.end(), Status::ok);
    return copy.bytes();
  }
  DmaOperands operands() {
    Walker w(Engine::gdma, stream());
    Command c;
    EXPECT_TRUE(w.next(c));
    return dma_operands(c);
  }
  // Validated against one DDR region [region_start, region_start + bytes) of tag 1.
  Status validate_in(uint64_t region_start, uint64_t bytes) {
    const DdrRegion region{1, region_start, bytes};
    ValidateOptions o;
    o.use_memory_map = true;
    o.ddr_regions = Span<const DdrRegion>(&region, 1);
    return validate_stream(Engine::gdma, stream(), o).status;
  }
};

void shape(const DmaCommonRef& d, bool src, uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint32_t ns, uint32_t cs,
           uint32_t hs, uint32_t ws) {
  if (src) {
    d.set_src_nsize(n); d.set_src_csize(c); d.set_src_hsize(h); d.set_src_wsize(w);
    d.set_src_nstride(ns); d.set_src_cstride(cs); d.set_src_hstride(hs); d.set_src_wstride(ws);
  } else {
    d.set_dst_nsize(n); d.set_dst_csize(c); d.set_dst_hsize(h); d.set_dst_wsize(w);
    d.set_dst_nstride(ns); d.set_dst_cstride(cs); d.set_dst_hstride(hs); d.set_dst_wstride(ws);
  }
}
void addrs(const DmaCommonRef& d, uint64_t src, uint64_t dst) {
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
}
}  // namespace

TEST(DmaFootprint, ElementBytesByFormat) {
  // INT8, FP16, FP32, INT16, INT32, BF16, FP20 (none), FP8 E4M3, FP8 E5M2, 9 (widest)
  const uint32_t want[10] = {1, 2, 4, 2, 4, 2, 0, 1, 1, 4};
  for (uint32_t f = 0; f < 10; ++f) EXPECT_EQ(dma_element_bytes(f), want[f]);
  EXPECT_EQ(dma_element_bytes(10), kBadDmaFormat);
  EXPECT_EQ(dma_element_bytes(15), kBadDmaFormat);
}

TEST(DmaFootprint, StridedSpan) {
  EXPECT_EQ(strided_span(1, 1, 1, 1, 0, 0, 0, 0), 1u);
  EXPECT_EQ(strided_span(2, 3, 4, 5, 1000, 100, 10, 1), 1u * 1000 + 2 * 100 + 3 * 10 + 4 + 1);
  EXPECT_EQ(strided_span(0, 3, 4, 5, 1000, 100, 10, 1), 0u);
  EXPECT_EQ(strided_span(1, 1, 1, 0, 0, 0, 0, 1), 0u);
  // the widest fields: 16-bit sizes, 32-bit strides
  EXPECT_EQ(strided_span(65535, 65535, 65535, 65535, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu),
            uint64_t{65534} * 0xFFFFFFFFu * 4 + 1);
}

TEST(DmaFootprint, TensorSidesAndValidationAgree) {
  // f16 DDR -> DDR: src 1 x 2 x 3 x 4 strides 0/100/10/1 spans 100 + 20 + 3 + 1 = 124
  // elements = 248 bytes; dst 1 x 1 x 1 x 24 contiguous = 48 bytes.
  OneDma t(CmdClass::dma_tensor, 0);
  DmaCommonRef d(t.cmd);
  d.set_src_data_format(1);
  shape(d, true, 1, 2, 3, 4, 0, 100, 10, 1);
  shape(d, false, 1, 1, 1, 24, 0, 24, 24, 1);
  addrs(d, ddr(1, 0x1000), ddr(2, 0x40));
  const DmaOperands o = t.operands();
  EXPECT_TRUE(o.src.used);
  EXPECT_EQ(o.src.addr, ddr(1, 0x1000));
  EXPECT_EQ(o.src.bytes, 248u);
  EXPECT_EQ(o.dst.addr, ddr(2, 0x40));
  EXPECT_EQ(o.dst.bytes, 48u);
  EXPECT_FALSE(o.extra.used);
  // The dst is checked against no region of tag 2 here: move it next to the source.
  addrs(d, ddr(1, 0x1000), ddr(1, 0x1000 + 248));
  EXPECT_EQ(t.validate_in(ddr(1, 0x1000), 248 + 48), Status::ok);
  EXPECT_EQ(t.validate_in(ddr(1, 0x1000), 248 + 47), Status::cmd_footprint_out_of_range);
}

TEST(DmaFootprint, NcTransposeDestinationTakesTheSourceShapeSwapped) {
  // src 2 x 3 x 1 x 8 f32; NC-transpose dst is 3 x 2 x 1 x 8 with dst strides 16/8/8/1:
  // (3-1)*16 + (2-1)*8 + 7 + 1 = 48 elements = 192 bytes (the dst size fields are unused).
  OneDma t(CmdClass::dma_tensor, 1);
  DmaCommonRef d(t.cmd);
  d.set_src_data_format(2);
  shape(d, true, 2, 3, 1, 8, 24, 8, 8, 1);
  shape(d, false, 0, 0, 0, 0, 16, 8, 8, 1);
  addrs(d, ddr(1, 0), ddr(3, 0));
  EXPECT_EQ(t.operands().src.bytes, 48u * 4);
  EXPECT_EQ(t.operands().dst.bytes, 192u);
}

TEST(DmaFootprint, FillReplacesTheTensorSource) {
  OneDma t(CmdClass::dma_tensor, 0);
  DmaCommonRef d(t.cmd);
  d.set_src_data_format(0);
  d.set_fill_constant_en(1);
  shape(d, true, 1, 1, 1, 16, 0, 16, 16, 1);
  shape(d, false, 1, 1, 1, 16, 0, 16, 16, 1);
  addrs(d, 0, ddr(4, 8));
  const DmaOperands o = t.operands();
  EXPECT_FALSE(o.src.used);
  EXPECT_TRUE(o.dst.used);
  EXPECT_EQ(o.dst.bytes, 16u);
}

TEST(DmaFootprint, MatrixGlobalSideIsRowsTimesRowStride) {
  // DDR -> LMEM, bf16: the global side is 5 rows of 30 with row stride 64: 4*64 + 30 = 286
  // elements = 572 bytes. A transpose (sp_func 1) has no layout: start only.
  OneDma m(CmdClass::dma_matrix, 0);
  DmaCommonRef d(m.cmd);
  d.set_src_data_format(5);
  shape(d, true, 1, 1, 5, 30, 0, 0, 64, 1);
  shape(d, false, 5, 1, 1, 16, 64, 32, 0, 1);
  addrs(d, ddr(1, 0x200), kLmem);
  DmaOperands o = m.operands();
  EXPECT_EQ(o.src.bytes, 572u);
  EXPECT_EQ(o.dst.addr, kLmem);
  EXPECT_EQ(m.validate_in(ddr(1, 0x200), 572), Status::ok);
  EXPECT_EQ(m.validate_in(ddr(1, 0x200), 571), Status::cmd_footprint_out_of_range);
  OneDma tr(CmdClass::dma_matrix, 1);
  DmaCommonRef dt(tr.cmd);
  dt.set_src_data_format(5);
  shape(dt, true, 1, 1, 5, 30, 0, 0, 64, 1);
  addrs(dt, ddr(1, 0x200), kLmem);
  o = tr.operands();
  EXPECT_TRUE(o.src.used);
  EXPECT_EQ(o.src.bytes, 0u);
}

TEST(DmaFootprint, GeneralIsOneDimensionalAndBroadcastWritesStartOnly) {
  OneDma g(CmdClass::dma_general, 0);
  DmaCommonRef d(g.cmd);
  d.set_src_data_format(4);
  d.set_src_cstride(1000);
  addrs(d, ddr(1, 0), ddr(1, 4000));
  EXPECT_EQ(g.operands().src.bytes, 4000u);
  EXPECT_EQ(g.operands().dst.bytes, 4000u);
  EXPECT_EQ(g.validate_in(ddr(1, 0), 8000), Status::ok);
  EXPECT_EQ(g.validate_in(ddr(1, 0), 7999), Status::cmd_footprint_out_of_range);
  OneDma b(CmdClass::dma_general, 1);
  DmaCommonRef db(b.cmd);
  db.set_src_data_format(4);
  db.set_src_cstride(1000);
  addrs(db, ddr(1, 0), ddr(1, 4000));
  EXPECT_EQ(b.operands().src.bytes, 4000u);
  EXPECT_TRUE(b.operands().dst.used);
  EXPECT_EQ(b.operands().dst.bytes, 0u);
}

TEST(DmaFootprint, Fp20AndBadFormatsGiveStartAddressesOnly) {
  for (uint32_t fmt : {6u, 12u}) {
    OneDma t(CmdClass::dma_tensor, 0);
    DmaCommonRef d(t.cmd);
    d.set_src_data_format(fmt);
    shape(d, true, 1, 1, 1, 64, 0, 64, 64, 1);
    shape(d, false, 1, 1, 1, 64, 0, 64, 64, 1);
    addrs(d, ddr(1, 0), ddr(1, 4096));
    const DmaOperands o = t.operands();
    EXPECT_TRUE(o.src.used && o.dst.used);
    EXPECT_EQ(o.src.bytes, 0u);
    EXPECT_EQ(o.dst.bytes, 0u);
  }
}

TEST(DmaFootprint, GatherIndexIsUint32AndMaskIsStartOnly) {
  // gather f16: src c 2 x h 10 x w 8 (c stride 100, h stride 8): 100 + 72 + 8 = 180 elements;
  // dst c 2 x h 3 x w 8 (c stride 24, h stride 8): 24 + 16 + 8 = 48; index c 1 x h 3: 3 u32.
  OneDma g(CmdClass::dma_gather, 0);
  DmaGatherScatterRef v(g.cmd);
  v.set_src_data_format(1);
  v.set_src_csize(2); v.set_src_hsize(10); v.set_src_wsize(8); v.set_src_cstride(100); v.set_src_hstride(8);
  v.set_dst_csize(2); v.set_dst_hsize(3); v.set_dst_wsize(8); v.set_dst_cstride(24); v.set_dst_hstride(8);
  v.set_index_csize(1); v.set_index_hsize(3); v.set_index_cstride(3);
  v.set_src_start_addr_h13(0x100); v.set_dst_start_addr_h13(0x200); v.set_index_start_addr_h13(0x300);
  const DmaOperands o = g.operands();
  EXPECT_EQ(o.src.bytes, 360u);
  EXPECT_EQ(o.dst.bytes, 96u);
  EXPECT_TRUE(o.extra.used);
  EXPECT_EQ(o.extra.addr, ddr(3, 0));
  EXPECT_EQ(o.extra.bytes, 12u);
  OneDma m(CmdClass::dma_masked_select, 0);
  DmaMaskedSelectRef mv(m.cmd);
  mv.set_src_data_format(2);
  shape(DmaCommonRef(m.cmd), true, 1, 1, 1, 8, 0, 8, 8, 1);
  shape(DmaCommonRef(m.cmd), false, 1, 1, 1, 60000, 0, 60000, 60000, 1);
  addrs(DmaCommonRef(m.cmd), ddr(1, 0), ddr(2, 0));
  mv.set_mask_start_addr_h13(0x500);
  const DmaOperands mo = m.operands();
  EXPECT_EQ(mo.src.bytes, 32u);
  EXPECT_EQ(mo.dst.bytes, 0u);  // as many elements as the data selects
  EXPECT_EQ(mo.extra.addr, ddr(5, 0));
  EXPECT_EQ(mo.extra.bytes, 0u);
}

TEST(DmaFootprint, SysCommandsHaveNoOperands) {
  uint8_t buf[64] = {};
  CommandBuilder b(Engine::gdma, ByteSpan(buf, sizeof buf));
  EXPECT_EQ(b.send_msg(1, 1), Status::ok);
  EXPECT_EQ(b.end(), Status::ok);
  Walker w(Engine::gdma, b.bytes());
  Command c;
  while (w.next(c)) {
    const DmaOperands o = dma_operands(c);
    EXPECT_FALSE(o.src.used || o.dst.used || o.extra.used);
  }
}
