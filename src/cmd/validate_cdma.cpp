// Validation of one CDMA stream (validate_stream(Engine::cdma); the checks are listed in
// tilefw/cmd/validate.hpp): fields, address spaces and footprints, each side against the memory
// of the chip that owns it (Rule: CDMA address spaces).

#include "footprint.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd::detail {

namespace {
namespace sg = chip::sg2260;

// Which chip holds a side, and how it may be addressed.
enum class Owner : uint8_t { own, peer };
enum class Local : uint8_t { refused, flat };  // LMEM (tag 31): refused, or flat lane-major

struct Side {
  uint64_t addr = 0;
  uint32_t format = 0;
  uint64_t n = 1, c = 1, h = 1, w = 1;
  uint64_t ns = 0, cs = 0, hs = 0;
  Owner owner = Owner::own;
  Local local = Local::refused;
  const char* field = "";
};

uint64_t elements(const Side& s) noexcept { return s.n * s.c * s.h * s.w; }

Fail check_side(const Side& s, const ValidateOptions& o) noexcept {
  const uint32_t tag = sg::dma_tag(s.addr);
  const uint64_t off = sg::dma_offset(s.addr);
  const bool fp20 = s.format == kCdmaFormatFp20;
  if (tag == sg::kTagLmem) {
    if ((off & (uint64_t{1} << sg::kSmemSelectBit)) != 0) {
      return {Status::cmd_bad_address_tag, s.field, "CDMA never reaches SMEM"};
    }
    if (s.local == Local::refused) {
      return {Status::cmd_bad_address_tag, s.field, "only a send's source or a recv's destination may be in LMEM"};
    }
    if (fp20) return {Status::cmd_bad_address_tag, s.field, "FP20 data may not be in LMEM"};
  }
  if (fp20 && s.addr % 128 != 0) {
    return {Status::cmd_bad_address_tag, s.field, "an FP20 address must be 128-byte aligned"};
  }
  const uint32_t es = cdma_format_bytes(s.format);
  Footprint f;
  if (es != 0) {
    f.known = true;
    f.esize = es;
    f.linear_bytes = strided_span(s.n, s.c, s.h, s.w, s.ns, s.cs, s.hs, 1) * es;
    f.flat_lmem = true;
  }
  ValidateOptions side = o;
  if (s.owner == Owner::peer) {
    side.use_memory_map = o.cdma.peer_use_memory_map;
    side.ddr_regions = o.cdma.peer_ddr_regions;
  }
  return check_dma_addr(s.addr, f, s.field, side);
}

Fail check_sizes(const Side& s, const char* field) noexcept {
  if (elements(s) == 0) return {Status::cmd_bad_field, field, "a size of 0"};
  return kPass;
}

Fail check_format(uint32_t format, const char* field) noexcept {
  return format <= kCdmaFormatFp20 ? kPass : Fail{Status::cmd_bad_field, field, "data format above 6 (FP20)"};
}

// A non-zero cmodel chip id must name the chip that holds that side.
Fail check_chip_id(uint32_t id, uint32_t expected, const char* field, const ValidateOptions& o) noexcept {
  if (o.cdma.chips_known && id != 0 && id != expected) {
    return {Status::cmd_bad_field, field, "cmodel chip id is not the chip that holds this side"};
  }
  return kPass;
}

Fail check_send(const Command& c, const ValidateOptions& o) noexcept {
  const CdmaSendView v(c.data);
  const uint32_t format = v.src_data_format();
  if (Fail f = check_format(format, "src_data_format"); !f.ok()) return f;
  if (v.psum_op() > 1) return {Status::cmd_bad_field, "psum_op", "psum_op above 1 (read-modify-write)"};
  if (v.fill_constant_en() != 0) return {Status::cmd_bad_field, "fill_constant_en", "a send cannot fill"};
  if (c.cls == CmdClass::cdma_lossy_compress && format != kCdmaFormatFp32) {
    return {Status::cmd_bad_field, "src_data_format", "lossy_compress takes FP32"};
  }
  if (c.cls == CmdClass::cdma_lossy_decompress && format != kCdmaFormatFp20) {
    return {Status::cmd_bad_field, "src_data_format", "lossy_decompress takes FP20"};
  }
  const Side s{v.src_start_addr(), format, v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(),
               v.src_nstride(), v.src_cstride(), v.src_hstride(), Owner::own, Local::flat, "src_start_addr"};
  if (Fail f = check_sizes(s, "src_wsize"); !f.ok()) return f;
  return check_side(s, o);
}

Fail check_recv(const Command& c, const ValidateOptions& o) noexcept {
  const CdmaRecvView v(c.data);
  const uint32_t format = v.recv_data_format();
  if (Fail f = check_format(format, "recv_data_format"); !f.ok()) return f;
  if (v.reduce_op() > kCdmaReduceAdd) return {Status::cmd_bad_field, "reduce_op", "reduce_op above 4 (add)"};
  if (!cdma_reduce_valid(v.reduce_op(), format)) {
    return {Status::cmd_bad_field, "reduce_op", "the reduce op is not defined for this data format"};
  }
  const Side s{v.dst_start_addr(), format, v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(),
               v.dst_nstride(), v.dst_cstride(), v.dst_hstride(), Owner::own, Local::flat, "dst_start_addr"};
  if (Fail f = check_sizes(s, "dst_wsize"); !f.ok()) return f;
  return check_side(s, o);
}

Fail check_general(const Command& c, const ValidateOptions& o) noexcept {
  const CdmaGeneralView v(c.data);
  const uint32_t format = v.src_data_format();
  if (Fail f = check_format(format, "src_data_format"); !f.ok()) return f;
  if (v.cmd_length() == 0) return {Status::cmd_bad_field, "cmd_length", "a length of 0"};
  if (Fail f = check_chip_id(v.src_chip_id(), o.cdma.chip, "src_chip_id", o); !f.ok()) return f;
  if (Fail f = check_chip_id(v.dst_chip_id(), o.cdma.peer, "dst_chip_id", o); !f.ok()) return f;
  Side src{v.src_start_addr(), format, 1, 1, 1, v.cmd_length(), 0, 0, 0, Owner::own, Local::refused, "src_start_addr"};
  Side dst = src;
  dst.addr = v.dst_start_addr();
  dst.owner = Owner::peer;
  dst.field = "dst_start_addr";
  if (v.fill_constant_en() == 0) {
    if (Fail f = check_side(src, o); !f.ok()) return f;
  }
  return check_side(dst, o);
}

Fail check_read_write(const Command& c, const ValidateOptions& o) noexcept {
  const CdmaReadWriteView v(c.data);
  const bool write = c.cls == CmdClass::cdma_write;
  const uint32_t format = v.src_data_format();
  if (Fail f = check_format(format, "src_data_format"); !f.ok()) return f;
  if (!write && v.fill_constant_en() != 0) return {Status::cmd_bad_field, "fill_constant_en", "a read cannot fill"};
  const uint32_t local = o.cdma.chip, remote = o.cdma.peer;
  if (Fail f = check_chip_id(v.src_chip_id(), write ? local : remote, "src_chip_id", o); !f.ok()) return f;
  if (Fail f = check_chip_id(v.dst_chip_id(), write ? remote : local, "dst_chip_id", o); !f.ok()) return f;
  Side src{v.src_start_addr(), format, v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(),
           v.src_nstride(), v.src_cstride(), v.src_hstride(), write ? Owner::own : Owner::peer, Local::refused,
           "src_start_addr"};
  Side dst{v.dst_start_addr(), format, v.dst_nsize(), v.dst_csize(), v.dst_hsize(), v.dst_wsize(),
           v.dst_nstride(), v.dst_cstride(), v.dst_hstride(), write ? Owner::peer : Owner::own, Local::refused,
           "dst_start_addr"};
  if (v.nchw_copy() != 0) {
    dst.n = src.n, dst.c = src.c, dst.h = src.h, dst.w = src.w;
  }
  if (Fail f = check_sizes(src, "src_wsize"); !f.ok()) return f;
  if (Fail f = check_sizes(dst, "dst_wsize"); !f.ok()) return f;
  if (elements(src) != elements(dst)) {
    return {Status::cmd_bad_field, "dst_wsize", "source and destination hold different element counts"};
  }
  const bool fill = write && v.fill_constant_en() != 0;  // src_nstride holds the constant
  if (!fill) {
    if (Fail f = check_side(src, o); !f.ok()) return f;
  }
  return check_side(dst, o);
}

Fail check_sys(const Command& c) noexcept {
  const CdmaSysView v(c.data);
  if (c.eu == static_cast<uint32_t>(CdmaSysOp::sys_tr_wr) && v.reg_sel() > 2) {
    return {Status::cmd_bad_field, "reg_sel", "sys_tr_wr selects register 0..2 (current, source, destination id)"};
  }
  if (c.eu >= static_cast<uint32_t>(CdmaSysOp::tx_send_msg) && v.msg_cnt() == 0) {
    return {Status::cmd_bad_field, "constant_value_l32", "a message count of 0"};
  }
  return kPass;
}

Fail check_fake(const Command& c, const ValidateOptions& o) noexcept {
  if (!o.cdma.cmodel_compat) {
    return {Status::cmd_unknown_class, "cmd_type", "fake_all_reduce / fake_p2p exist only in cmodel-compatible mode"};
  }
  const CdmaFakeView v(c.data);
  if (Fail f = check_format(v.src_data_format(), "src_data_format"); !f.ok()) return f;
  const Side s{v.src_start_addr(), v.src_data_format(), v.src_nsize(), v.src_csize(), v.src_hsize(), v.src_wsize(),
               v.src_nstride(), v.src_cstride(), v.src_hstride(), Owner::own, Local::flat, "src_start_addr"};
  if (Fail f = check_sizes(s, "src_wsize"); !f.ok()) return f;
  return check_side(s, o);
}
}  // namespace

Fail check_cdma(const Command& c, const ValidateOptions& o) noexcept {
  switch (c.cls) {
    case CmdClass::cdma_send:
    case CmdClass::cdma_lossy_compress:
    case CmdClass::cdma_lossy_decompress: return check_send(c, o);
    case CmdClass::cdma_recv: return check_recv(c, o);
    case CmdClass::cdma_general: return check_general(c, o);
    case CmdClass::cdma_read:
    case CmdClass::cdma_write: return check_read_write(c, o);
    case CmdClass::cdma_sys: return check_sys(c);
    case CmdClass::cdma_fake_all_reduce:
    case CmdClass::cdma_fake_p2p: return check_fake(c, o);
    default: return kPass;  // tcp frames: header only (the executor refuses them)
  }
}

}  // namespace tilefw::cmd::detail
