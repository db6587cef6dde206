// Typed CDMA builders (see cdma.hpp): every argument is checked before the command is
// appended, so a failing helper leaves the buffer as it was.

#include "tilefw/cmd/cdma.hpp"

#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

namespace {
constexpr uint64_t kAddrLimit = uint64_t{1} << 45;

bool tensor_ok(const CdmaTensor& t) noexcept {
  return t.addr < kAddrLimit && t.format < kCdmaFormatCount && t.n != 0 && t.c != 0 && t.h != 0 && t.w != 0 &&
         t.n <= 0xFFFF && t.c <= 0xFFFF;
}
constexpr uint32_t lo32(uint64_t a) noexcept { return static_cast<uint32_t>(a); }
constexpr uint32_t hi13(uint64_t a) noexcept { return static_cast<uint32_t>(a >> 32) & 0x1FFF; }

// The source side of a read / write (local for write, the peer's for read).
void put_src(const CdmaReadWriteRef& v, const CdmaTensor& t) noexcept {
  v.set_src_start_addr_h13(hi13(t.addr));
  v.set_src_start_addr_l32(lo32(t.addr));
  v.set_src_nsize(t.n);
  v.set_src_csize(t.c);
  v.set_src_hsize(t.h);
  v.set_src_wsize(t.w);
  v.set_src_nstride(t.nstride);
  v.set_src_cstride(t.cstride);
  v.set_src_hstride(t.hstride);
}
void put_dst(const CdmaReadWriteRef& v, const CdmaTensor& t) noexcept {
  v.set_dst_start_addr_h13(hi13(t.addr));
  v.set_dst_start_addr_l32(lo32(t.addr));
  v.set_dst_nsize(t.n);
  v.set_dst_csize(t.c);
  v.set_dst_hsize(t.h);
  v.set_dst_wsize(t.w);
  v.set_dst_nstride(t.nstride);
  v.set_dst_cstride(t.cstride);
  v.set_dst_hstride(t.hstride);
}

Status read_write(CommandBuilder& b, CmdClass cls, const CdmaTensor& src, const CdmaTensor& dst) noexcept {
  if (b.engine() != Engine::cdma || !tensor_ok(src) || !tensor_ok(dst) || dst.format != src.format) {
    return Status::invalid_argument;
  }
  TILEFW_TRY_ASSIGN(const CdmaReadWriteRef v, b.append_as<CdmaReadWriteRef>(cls, 0));
  v.set_stride_enable(1);
  v.set_src_data_format(src.format);
  put_src(v, src);
  put_dst(v, dst);
  return Status::ok;
}

Status sys(CommandBuilder& b, CdmaSysOp op, uint64_t value, uint32_t reg_sel) noexcept {
  if (b.engine() != Engine::cdma) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(const CdmaSysRef v, b.append_as<CdmaSysRef>(CmdClass::cdma_sys, static_cast<uint32_t>(op)));
  v.set_constant_value_l32(lo32(value));
  v.set_constant_value_h32(static_cast<uint32_t>(value >> 32));
  v.set_reg_sel(reg_sel);
  return Status::ok;
}
}  // namespace

Status cdma_send(CommandBuilder& b, const CdmaTensor& src, bool psum) noexcept {
  if (b.engine() != Engine::cdma || !tensor_ok(src)) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(const CdmaSendRef v, b.append_as<CdmaSendRef>(CmdClass::cdma_send, 0));
  v.set_stride_enable(1);
  v.set_src_data_format(src.format);
  v.set_psum_op(psum ? kCdmaPsumReadWrite : kCdmaPsumWriteOnly);
  v.set_src_start_addr_h13(hi13(src.addr));
  v.set_src_start_addr_l32(lo32(src.addr));
  v.set_src_nsize(src.n);
  v.set_src_csize(src.c);
  v.set_src_hsize(src.h);
  v.set_src_wsize(src.w);
  v.set_src_nstride(src.nstride);
  v.set_src_cstride(src.cstride);
  v.set_src_hstride(src.hstride);
  return Status::ok;
}

Status cdma_recv(CommandBuilder& b, const CdmaTensor& dst, uint32_t reduce_op) noexcept {
  if (b.engine() != Engine::cdma || !tensor_ok(dst) || !cdma_reduce_valid(dst.format, reduce_op)) {
    return Status::invalid_argument;
  }
  TILEFW_TRY_ASSIGN(const CdmaRecvRef v, b.append_as<CdmaRecvRef>(CmdClass::cdma_recv, 0));
  v.set_stride_enable(1);
  // The firmware always writes the cmodel format, so validation can match it with the send's.
  v.set_data_format(dst.format);
  v.set_send_type(kCdmaPairSend);
  v.set_reduce_op(reduce_op);
  v.set_dst_start_addr_h13(hi13(dst.addr));
  v.set_dst_start_addr_l32(lo32(dst.addr));
  v.set_dst_nsize(dst.n);
  v.set_dst_csize(dst.c);
  v.set_dst_hsize(dst.h);
  v.set_dst_wsize(dst.w);
  v.set_dst_nstride(dst.nstride);
  v.set_dst_cstride(dst.cstride);
  v.set_dst_hstride(dst.hstride);
  return Status::ok;
}

Status cdma_write(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept {
  return read_write(b, CmdClass::cdma_write, src, dst);
}
Status cdma_read(CommandBuilder& b, const CdmaTensor& src, const CdmaTensor& dst) noexcept {
  return read_write(b, CmdClass::cdma_read, src, dst);
}

Status cdma_write_fill(CommandBuilder& b, uint32_t constant, const CdmaTensor& dst) noexcept {
  if (b.engine() != Engine::cdma || !tensor_ok(dst)) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(const CdmaReadWriteRef v, b.append_as<CdmaReadWriteRef>(CmdClass::cdma_write, 0));
  v.set_stride_enable(1);
  v.set_fill_constant_en(1);
  v.set_src_data_format(dst.format);
  v.set_src_nstride(constant);
  // The source shape is the destination's, so the element counts agree (nchw_copy would say
  // the same, but the firmware fills both).
  v.set_src_nsize(dst.n);
  v.set_src_csize(dst.c);
  v.set_src_hsize(dst.h);
  v.set_src_wsize(dst.w);
  put_dst(v, dst);
  return Status::ok;
}

Status cdma_general(CommandBuilder& b, uint64_t src, uint64_t dst, uint32_t format, uint32_t length,
                    bool fill) noexcept {
  if (b.engine() != Engine::cdma || format >= kCdmaFormatCount || length == 0 || dst >= kAddrLimit ||
      (!fill && src >= kAddrLimit) || (fill && src > 0xFFFFFFFFu)) {
    return Status::invalid_argument;
  }
  TILEFW_TRY_ASSIGN(const CdmaGeneralRef v, b.append_as<CdmaGeneralRef>(CmdClass::cdma_general, 0));
  v.set_fill_constant_en(fill ? 1 : 0);
  v.set_src_data_format(format);
  v.set_src_start_addr_h13(hi13(src));
  v.set_src_start_addr_l32(lo32(src));
  v.set_dst_start_addr_h13(hi13(dst));
  v.set_dst_start_addr_l32(lo32(dst));
  v.set_cmd_length(length);
  return Status::ok;
}

Status cdma_msg(CommandBuilder& b, CdmaSysOp op, uint32_t msg_id, uint32_t cnt) noexcept {
  const bool msg_op = op == CdmaSysOp::tx_send || op == CdmaSysOp::tx_wait || op == CdmaSysOp::rx_send ||
                      op == CdmaSysOp::rx_wait;
  const bool fits = msg_id < (1u << chip::sg2260::kMsgIdBits) && cnt != 0 && cnt < (1u << chip::sg2260::kMsgCntBits);
  if (!msg_op || !fits) {
    return Status::invalid_argument;
  }
  return sys(b, op, (uint64_t{cnt} << 16) | msg_id, 0);
}

Status cdma_nop(CommandBuilder& b) noexcept { return sys(b, CdmaSysOp::nop, 0, 0); }

Status cdma_sys_tr_wr(CommandBuilder& b, uint32_t reg_sel, uint64_t value) noexcept {
  if (reg_sel > kCdmaRegDstMacId) return Status::invalid_argument;
  return sys(b, CdmaSysOp::sys_tr_wr, value, reg_sel);
}

CdmaTransferCounts count_cdma_transfers(ConstByteSpan stream) noexcept {
  CdmaTransferCounts n;
  Walker w(Engine::cdma, stream);
  Command c;
  while (w.next(c)) {
    if (c.cls == CmdClass::cdma_recv) {
      ++n.recvs;
    } else if (c.cls == CmdClass::cdma_send || c.cls == CmdClass::cdma_lossy_compress ||
               c.cls == CmdClass::cdma_lossy_decompress) {
      ++n.sends;
    }
  }
  return n;
}

}  // namespace tilefw::cmd
