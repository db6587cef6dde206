// CDMA port-stream validation (what is checked: validate.hpp, Engine::cdma): structure through
// the Walker, then per command its fields and the address of each side on the chip that owns
// it. First failure wins.

#include "footprint.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd::detail {

namespace {
namespace sg = chip::sg2260;

constexpr Fail bad_field(const char* field, const char* message) noexcept {
  return {Status::cmd_bad_field, field, message};
}
constexpr Fail bad_tag(const char* field, const char* message) noexcept {
  return {Status::cmd_bad_address_tag, field, message};
}

// The memory maps of the two chips a port joins.
struct Chips {
  const ValidateOptions* own;
  const ValidateOptions* peer;
  const CdmaContext* ctx;
};

[[gnu::noinline]] Fail check_format(uint32_t format, const char* field) noexcept {
  return format < kCdmaFormatCount ? kPass : bad_field(field,
      TILEFW_REASON("data format > 6 (FP20 is the last CDMA format)"));
}

// Every size of a shape must be at least 1: a zero-sized transfer moves nothing and its
// partner could never agree on a count.
[[gnu::noinline]] Fail check_sizes(uint32_t n, uint32_t c, uint32_t h, uint32_t w,
                                   const char* const (&names)[4]) noexcept {
  const uint32_t v[4] = {n, c, h, w};
  for (int i = 0; i < 4; ++i) {
    if (v[i] == 0) return bad_field(names[i], TILEFW_REASON("size 0: every size of a CDMA transfer is at least 1"));
  }
  return kPass;
}

// A non-zero cmodel chip id names the chip that holds its side; 0 is "not given".
[[gnu::noinline]] Fail check_chip_id(uint32_t id, uint32_t owner, const char* field, bool known) noexcept {
  if (!known || id == 0 || id == owner) return kPass;
  return bad_field(field, TILEFW_REASON("cmodel chip id names neither 0 nor the chip that owns this side"));
}

// One side of a transfer: the CDMA address rules (Rule: CDMA address spaces), then the
// footprint of `elements` strided elements inside the owning chip's memory.
Fail check_side(uint64_t addr, uint32_t format, uint64_t elements, bool lmem_allowed, const char* field,
                const ValidateOptions& owner) noexcept {
  const uint32_t tag = sg::dma_tag(addr);
  if (tag == 0) return bad_tag(field, TILEFW_REASON("DDR tag 0 names no region"));
  if (tag == sg::kTagLmem) {
    if (sg::local_is_smem(sg::dma_offset(addr))) return bad_tag(field, TILEFW_REASON("the CDMA never reaches SMEM"));
    if (!lmem_allowed) return bad_tag(field, TILEFW_REASON("LMEM only as a send's source or a recv's destination"));
    if (format == kCdmaFormatFp20) return bad_tag(field, TILEFW_REASON("FP20 data never lies in LMEM"));
  }
  if (format == kCdmaFormatFp20 && addr % 128 != 0) return bad_tag(field,
      TILEFW_REASON("FP20 address not 128-byte aligned"));
  Footprint f;
  const uint32_t esize = cdma_format_bytes(format);
  if (esize != 0 && elements != 0) {
    f.known = true;
    f.esize = esize;
    f.linear_bytes = elements * esize;
    f.flat_lmem = true;  // LMEM sides are addressed flat, lane-major
  }
  return check_dma_addr(addr, f, field, owner);
}

constexpr const char* kSrcSizes[4] = {"src_nsize", "src_csize", "src_hsize", "src_wsize"};
constexpr const char* kDstSizes[4] = {"dst_nsize", "dst_csize", "dst_hsize", "dst_wsize"};

// Out of line: the 64-bit products are one copy for every side of every class (the sizes and
// strides are fields of 32 bits or less).
[[gnu::noinline]] uint64_t span_of(uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint32_t ns, uint32_t cs,
                                   uint32_t hs) noexcept {
  return strided_span(n, c, h, w, ns, cs, hs, 1);
}

template <typename V>
uint64_t src_elements(const V& v) noexcept {
  return span_of(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), v.src_nstride(), v.src_cstride(),
                 v.src_hstride());
}

// send, lossy_compress, lossy_decompress.
Fail check_send(const Command& c, const CdmaSendView& v, const Chips& m) noexcept {
  const uint32_t format = v.src_data_format();
  Fail r = check_format(format, "src_data_format");
  if (!r.ok()) return r;
  if (v.psum_op() > kCdmaPsumReadWrite) return bad_field("psum_op", TILEFW_REASON("psum_op > 1"));
  if (c.cls == CmdClass::cdma_lossy_compress && format != kCdmaFormatFp32) {
    return bad_field("src_data_format", TILEFW_REASON("lossy_compress takes FP32"));
  }
  if (c.cls == CmdClass::cdma_lossy_decompress && format != kCdmaFormatFp20) {
    return bad_field("src_data_format", TILEFW_REASON("lossy_decompress takes FP20"));
  }
  if (v.fill_constant_en() != 0) return bad_field("fill_constant_en",
      TILEFW_REASON("fill_constant_en only on write and general"));
  r = check_sizes(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), kSrcSizes);
  if (!r.ok()) return r;
  return check_side(v.src_start_addr(), format, src_elements(v), true, "src_start_addr", *m.own);
}

// fake_all_reduce / fake_p2p (cmodel-compatible mode): a send body with a destination chip id.
Fail check_fake(const CdmaFakeView& v, const Chips& m) noexcept {
  const uint32_t format = v.src_data_format();
  Fail r = check_format(format, "src_data_format");
  if (!r.ok()) return r;
  if (v.fill_constant_en() != 0) return bad_field("fill_constant_en",
      TILEFW_REASON("fill_constant_en only on write and general"));
  r = check_sizes(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), kSrcSizes);
  if (!r.ok()) return r;
  r = check_chip_id(v.dst_chip_id(), m.ctx->peer, "dst_chip_id", m.ctx->chips_known);
  if (!r.ok()) return r;
  return check_side(v.src_start_addr(), format, src_elements(v), true, "src_start_addr", *m.own);
}

Fail check_recv(const CdmaRecvView& v, const Chips& m) noexcept {
  const uint32_t format = v.data_format();
  Fail r = check_format(format, "data_format");
  if (!r.ok()) return r;
  if (v.send_type() > kCdmaPairLossyDecompress) return bad_field("send_type", TILEFW_REASON("paired send type > 2"));
  if (v.reduce_op() > kCdmaReduceAdd) return bad_field("reduce_op", TILEFW_REASON("reduce_op > 4"));
  if (!cdma_reduce_valid(format, v.reduce_op())) {
    return bad_field("reduce_op",
        TILEFW_REASON("reduce op not defined for the data format (INT8/INT16: none; mul: no INT32)"));
  }
  r = check_sizes(v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(), kDstSizes);
  if (!r.ok()) return r;
  const uint64_t elements = span_of(v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(), v.dst_nstride(),
                                    v.dst_cstride(), v.dst_hstride());
  return check_side(v.dst_start_addr(), format, elements, true, "dst_start_addr", *m.own);
}

// read (pull: src on the peer, dst here) and write (push: src here, dst on the peer).
Fail check_read_write(const Command& c, const CdmaReadWriteView& v, const Chips& m) noexcept {
  const bool write = c.cls == CmdClass::cdma_write;
  const uint32_t format = v.src_data_format();
  Fail r = check_format(format, "src_data_format");
  if (!r.ok()) return r;
  if (!write && v.fill_constant_en() != 0) {
    return bad_field("fill_constant_en", TILEFW_REASON("fill_constant_en only on write and general"));
  }
  r = check_sizes(v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(), kSrcSizes);
  if (!r.ok()) return r;
  const bool copy = v.nchw_copy() != 0;  // dst takes the src sizes
  const uint32_t dn = copy ? v.src_nsize() : v.dst_nsize(), dc = copy ? v.src_csize() : v.dst_csize();
  const uint32_t dh = copy ? v.src_hsize() : v.dst_hsize(), dw = copy ? v.src_wsize() : v.dst_wsize();
  if (!copy) {
    r = check_sizes(v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(), kDstSizes);
    if (!r.ok()) return r;
    if (uint64_t{v.src_nsize()} * v.src_csize() * v.src_hsize() * v.src_wsize() != uint64_t{dn} * dc * dh * dw) {
      return bad_field("dst_nsize", TILEFW_REASON("read/write: src and dst element counts differ"));
    }
  }
  const uint32_t src_chip = write ? m.ctx->chip : m.ctx->peer, dst_chip = write ? m.ctx->peer : m.ctx->chip;
  r = check_chip_id(v.src_chip_id(), src_chip, "src_chip_id", m.ctx->chips_known);
  if (r.ok()) r = check_chip_id(v.dst_chip_id(), dst_chip, "dst_chip_id", m.ctx->chips_known);
  if (!r.ok()) return r;
  if (!(write && v.fill_constant_en() != 0)) {
    r = check_side(v.src_start_addr(), format, src_elements(v), false, "src_start_addr", write ? *m.own : *m.peer);
    if (!r.ok()) return r;
  }
  const uint64_t dst_elements =
      span_of(dn, dc, dh, dw, v.dst_nstride(), v.dst_cstride(), v.dst_hstride());
  return check_side(v.dst_start_addr(), format, dst_elements, false, "dst_start_addr", write ? *m.peer : *m.own);
}

// general: cmd_length elements pushed from this chip to the peer.
Fail check_general(const CdmaGeneralView& v, const Chips& m) noexcept {
  const uint32_t format = v.src_data_format();
  Fail r = check_format(format, "src_data_format");
  if (!r.ok()) return r;
  if (v.cmd_length() == 0) return bad_field("cmd_length",
      TILEFW_REASON("cmd_length 0: a general moves at least one element"));
  r = check_chip_id(v.src_chip_id(), m.ctx->chip, "src_chip_id", m.ctx->chips_known);
  if (r.ok()) r = check_chip_id(v.dst_chip_id(), m.ctx->peer, "dst_chip_id", m.ctx->chips_known);
  if (!r.ok()) return r;
  if (v.fill_constant_en() == 0) {
    r = check_side(v.src_start_addr(), format, v.cmd_length(), false, "src_start_addr", *m.own);
    if (!r.ok()) return r;
  }
  return check_side(v.dst_start_addr(), format, v.cmd_length(), false, "dst_start_addr", *m.peer);
}

Fail check_sys(const Command& c, const CdmaSysView& v) noexcept {
  const auto op = static_cast<CdmaSysOp>(c.eu);
  if (op == CdmaSysOp::sys_tr_wr) {
    return v.reg_sel() <= kCdmaRegDstMacId ? kPass : bad_field("reg_sel", TILEFW_REASON("sys_tr_wr reg_sel > 2"));
  }
  if (c.eu < static_cast<uint32_t>(CdmaSysOp::tx_send)) return kPass;  // chain_end, nop
  // tx/rx send/wait: msg_id = l32[8:0], cnt = l32[22:16]; a larger id or count spills into
  // bits 15:9 or 31:23.
  const uint32_t l32 = v.constant_value_l32();
  if ((l32 & 0xFE00u) != 0) return bad_field("msg_id", TILEFW_REASON("msg_id above 511"));
  if ((l32 >> 23) != 0) return bad_field("cnt", TILEFW_REASON("cnt above 127"));
  if (v.msg_cnt() == 0) return bad_field("cnt", TILEFW_REASON("cnt 0: a message count is 1..127"));
  return kPass;
}

Fail check_cdma(const Command& c, const Chips& m) noexcept {
  switch (c.cls) {
    case CmdClass::cdma_send:
    case CmdClass::cdma_lossy_compress:
    case CmdClass::cdma_lossy_decompress: return check_send(c, c.as<CdmaSendView>(), m);
    case CmdClass::cdma_recv: return check_recv(c.as<CdmaRecvView>(), m);
    case CmdClass::cdma_read:
    case CmdClass::cdma_write: return check_read_write(c, c.as<CdmaReadWriteView>(), m);
    case CmdClass::cdma_general: return check_general(c.as<CdmaGeneralView>(), m);
    case CmdClass::cdma_sys: return check_sys(c, c.as<CdmaSysView>());
    case CmdClass::cdma_fake_all_reduce:
    case CmdClass::cdma_fake_p2p:
      if (!m.ctx->cmodel_compat) {
        return {Status::cmd_unknown_class, "cmd_type",
                TILEFW_REASON("fake_all_reduce / fake_p2p exist in cmodel-compatible mode only")};
      }
      return check_fake(c.as<CdmaFakeView>(), m);
    default: return kPass;  // tcp_send / tcp_recv: opaque
  }
}

[[gnu::noinline]] ValidationReport report_at(const Command& c, Status s, const char* field,
                                             const char* message) noexcept {
  ValidationReport r;
  r.status = s;
  r.engine = Engine::cdma;
  r.command_id = c.id;
  r.offset = c.offset;
  r.field = field;
  r.message = message;
  r.commands = c.id;
  return r;
}
}  // namespace

ValidationReport validate_cdma_stream(ConstByteSpan buffer, const ValidateOptions& o) noexcept {
  ValidateOptions peer = o;
  peer.use_memory_map = o.cdma.peer_use_memory_map;
  peer.ddr_regions = o.cdma.peer_ddr_regions;
  const Chips m{&o, &peer, &o.cdma};
  Walker walker(Engine::cdma, buffer);
  Command c;
  uint32_t sends = 0, recvs = 0;
  while (walker.next(c)) {
    if (c.id > o.cdma.max_commands) {
      return report_at(c, Status::cmd_stream_too_long, "",
          TILEFW_REASON("CDMA port stream holds more than 2^24 - 1 commands"));
    }
    const Fail f = check_cdma(c, m);
    if (!f.ok()) return report_at(c, f.status, f.field, f.message);
    if (c.cls == CmdClass::cdma_recv) ++recvs;
    if (c.cls == CmdClass::cdma_send || c.cls == CmdClass::cdma_lossy_compress ||
        c.cls == CmdClass::cdma_lossy_decompress) {
      ++sends;
    }
  }
  ValidationReport r;
  r.engine = Engine::cdma;
  r.status = walker.status();
  r.commands = walker.count();
  if (r.status != Status::ok) {
    r.command_id = walker.error_id();
    r.offset = walker.error_offset();
    r.message = walker.message();
    return r;
  }
  r.cdma_sends = sends;
  r.cdma_recvs = recvs;
  return r;
}

}  // namespace tilefw::cmd::detail
