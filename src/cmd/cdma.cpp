// CDMA builders and the validation of a system's CDMA streams (tilefw/cmd/cdma.hpp).

#include "tilefw/cmd/cdma.hpp"

#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

const char* cdma_format_name(uint32_t format) noexcept {
  constexpr const char* k[7] = {"INT8", "FP16", "FP32", "INT16", "INT32", "BF16", "FP20"};
  return format < 7 ? k[format] : "?";
}

namespace {
// Packed strides of a tensor whose strides were left 0.
struct Strides {
  uint64_t n, c, h;
};
Strides strides_of(const CdmaTensor& t) noexcept {
  const uint64_t h = t.hstride != 0 ? t.hstride : t.w;
  const uint64_t c = t.cstride != 0 ? t.cstride : h * t.h;
  const uint64_t n = t.nstride != 0 ? t.nstride : c * t.c;
  return {n, c, h};
}
bool fits32(const Strides& s) noexcept { return (s.n >> 32) == 0 && (s.c >> 32) == 0 && (s.h >> 32) == 0; }
bool shape_ok(const CdmaTensor& t) noexcept {
  return t.n != 0 && t.c != 0 && t.h != 0 && t.w != 0 && t.n <= 0xFFFF && t.c <= 0xFFFF &&
         t.format <= kCdmaFormatFp20 && (t.addr >> 45) == 0;
}
}  // namespace

Status cdma_send(CommandBuilder& b, const CdmaTensor& src, bool psum) noexcept {
  const Strides s = strides_of(src);
  if (!shape_ok(src) || !fits32(s)) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(CdmaSendRef v, b.append_as<CdmaSendRef>(CmdClass::cdma_send, 0));
  v.set_stride_enable(1);
  v.set_src_data_format(src.format);
  v.set_psum_op(psum ? 1 : 0);
  v.set_src_start_addr_h13(src.addr >> 32);
  v.set_src_start_addr_l32(src.addr & 0xFFFFFFFFu);
  v.set_src_nsize(src.n), v.set_src_csize(src.c), v.set_src_hsize(src.h), v.set_src_wsize(src.w);
  v.set_src_nstride(s.n), v.set_src_cstride(s.c), v.set_src_hstride(s.h);
  return Status::ok;
}

Status cdma_recv(CommandBuilder& b, const CdmaTensor& dst, uint32_t reduce_op) noexcept {
  const Strides s = strides_of(dst);
  if (!shape_ok(dst) || !fits32(s) || !cdma_reduce_valid(reduce_op, dst.format)) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(CdmaRecvRef v, b.append_as<CdmaRecvRef>(CmdClass::cdma_recv, 0));
  v.set_stride_enable(1);
  v.set_recv_data_format(dst.format);
  v.set_reduce_op(reduce_op);
  v.set_dst_start_addr_h13(dst.addr >> 32);
  v.set_dst_start_addr_l32(dst.addr & 0xFFFFFFFFu);
  v.set_dst_nsize(dst.n), v.set_dst_csize(dst.c), v.set_dst_hsize(dst.h), v.set_dst_wsize(dst.w);
  v.set_dst_nstride(s.n), v.set_dst_cstride(s.c), v.set_dst_hstride(s.h);
  return Status::ok;
}

namespace {
Status read_write(CommandBuilder& b, CmdClass cls, const CdmaTensor& src, const CdmaTensor& dst) noexcept {
  const Strides ss = strides_of(src), ds = strides_of(dst);
  if (!shape_ok(src) || !shape_ok(dst) || !fits32(ss) || !fits32(ds) || src.format != dst.format ||
      uint64_t{src.n} * src.c * src.h * src.w != uint64_t{dst.n} * dst.c * dst.h * dst.w) {
    return Status::invalid_argument;
  }
  TILEFW_TRY_ASSIGN(CdmaReadWriteRef v, b.append_as<CdmaReadWriteRef>(cls, 0));
  v.set_stride_enable(1);
  v.set_src_data_format(src.format);
  v.set_src_start_addr_h13(src.addr >> 32), v.set_src_start_addr_l32(src.addr & 0xFFFFFFFFu);
  v.set_dst_start_addr_h13(dst.addr >> 32), v.set_dst_start_addr_l32(dst.addr & 0xFFFFFFFFu);
  v.set_src_nsize(src.n), v.set_src_csize(src.c), v.set_src_hsize(src.h), v.set_src_wsize(src.w);
  v.set_dst_nsize(dst.n), v.set_dst_csize(dst.c), v.set_dst_hsize(dst.h), v.set_dst_wsize(dst.w);
  v.set_src_nstride(ss.n), v.set_src_cstride(ss.c), v.set_src_hstride(ss.h);
  v.set_dst_nstride(ds.n), v.set_dst_cstride(ds.c), v.set_dst_hstride(ds.h);
  return Status::ok;
}
}  // namespace

Status cdma_write(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept {
  return read_write(b, CmdClass::cdma_write, src, dst);
}
Status cdma_read(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept {
  return read_write(b, CmdClass::cdma_read, src, dst);
}

Status cdma_general(CommandBuilder& b, uint64_t src, uint64_t dst, uint32_t format, uint32_t length) noexcept {
  if (length == 0 || format > kCdmaFormatFp20 || (src >> 45) != 0 || (dst >> 45) != 0) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(CdmaGeneralRef v, b.append_as<CdmaGeneralRef>(CmdClass::cdma_general, 0));
  v.set_src_data_format(format);
  v.set_cmd_length(length);
  v.set_src_start_addr_h13(src >> 32), v.set_src_start_addr_l32(src & 0xFFFFFFFFu);
  v.set_dst_start_addr_h13(dst >> 32), v.set_dst_start_addr_l32(dst & 0xFFFFFFFFu);
  return Status::ok;
}

Status cdma_msg(CommandBuilder& b, CdmaSysOp op, uint32_t msg_id, uint32_t cnt) noexcept {
  const uint32_t sp = static_cast<uint32_t>(op);
  if (sp < 3 || sp > 6 || msg_id >= (1u << chip::sg2260::kMsgIdBits) || cnt == 0 ||
      cnt >= (1u << chip::sg2260::kMsgCntBits)) {
    return Status::invalid_argument;
  }
  TILEFW_TRY_ASSIGN(CdmaSysRef v, b.append_as<CdmaSysRef>(CmdClass::cdma_sys, sp));
  v.set_constant_value_l32((cnt << 16) | msg_id);
  return Status::ok;
}

}  // namespace tilefw::cmd
