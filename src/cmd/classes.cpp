// Class tables of the SG2260 codec (docs/sg2260-commands.md sections 2, 3 and 6.1; Rule: closed
// class lists).

#include "tilefw/cmd/classes.hpp"

#include <initializer_list>

#include "tilefw/cmd/bits.hpp"
#include "tilefw/cmd/views.hpp"
#include "decode_table.hpp"

namespace tilefw::cmd {

namespace {
constexpr bool in(uint32_t v, uint32_t lo, uint32_t hi) noexcept { return v >= lo && v <= hi; }
// Bit set of eu values: bit i set = eu i defined.
constexpr bool has(uint32_t set, uint32_t eu) noexcept { return eu < 32 && ((set >> eu) & 1u) != 0; }
constexpr uint32_t bits(std::initializer_list<uint32_t> l) noexcept {
  uint32_t s = 0;
  for (uint32_t v : l) s |= 1u << v;
  return s;
}
constexpr uint32_t kConvEu = bits({0, 2});
constexpr uint32_t kConvBwEu = bits({1, 4});
constexpr uint32_t kPorDEu = bits({0, 1, 3, 4, 5, 6, 7, 8});
constexpr uint32_t kMm2Eu = bits({4, 5, 6, 7});
constexpr uint32_t kArEu = bits({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19,
                                 20, 21, 22, 23, 26, 27, 28});
constexpr uint32_t kRqDqEu = bits({0, 1, 3, 4});
constexpr uint32_t kCwBcEu = bits({0, 1, 2, 3, 4, 5});
constexpr uint32_t kSgEu = bits({0, 1, 3, 4, 5, 6, 8, 9, 13, 14, 15, 16});
constexpr uint32_t kSglEu = bits({17, 18});
constexpr uint32_t kLarEu = (1u << 19) - 1;  // 0..18
constexpr uint32_t kRandEu = bits({0, 1, 2});
constexpr uint32_t kSfuEu = bits({12, 13, 15, 17});
constexpr uint32_t kLinEu = bits({1, 20, 21});
constexpr uint32_t kCmpEu = bits({22, 23, 24, 25, 26, 27});
constexpr uint32_t kVcEu = bits({0, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 16, 20, 23});
constexpr uint32_t kSysEu = bits({0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 30, 31});
}  // namespace

const char* engine_name(Engine e) noexcept {
  switch (e) {
    case Engine::tiu: return "tiu";
    case Engine::gdma: return "gdma";
    case Engine::sdma: return "sdma";
    case Engine::hau: return "hau";
    case Engine::cdma: return "cdma";
  }
  return "?";
}

const char* class_name(CmdClass c) noexcept {
  switch (c) {
    case CmdClass::CONV: return "CONV";
    case CmdClass::CONV_BW: return "CONV_BW";
    case CmdClass::PorD: return "PorD";
    case CmdClass::MM: return "MM";
    case CmdClass::MM2: return "MM2";
    case CmdClass::AR: return "AR";
    case CmdClass::RQ_DQ: return "RQ&DQ";
    case CmdClass::CW_BC: return "CW&BC";
    case CmdClass::SG: return "SG";
    case CmdClass::SGL: return "SGL";
    case CmdClass::RAND: return "RAND";
    case CmdClass::SFU: return "SFU";
    case CmdClass::LIN: return "LIN";
    case CmdClass::CMP: return "CMP";
    case CmdClass::VC: return "VC";
    case CmdClass::LAR: return "LAR";
    case CmdClass::SYS_TR_ACC: return "SYS_TR_ACC";
    case CmdClass::SYS: return "SYS";
    case CmdClass::sCONV: return "sCONV";
    case CmdClass::sPorD: return "sPorD";
    case CmdClass::sMM: return "sMM";
    case CmdClass::sMM2: return "sMM2";
    case CmdClass::sAR: return "sAR";
    case CmdClass::sRQ_sDQ: return "sRQ&sDQ";
    case CmdClass::sCW_sBC: return "sCW&sBC";
    case CmdClass::sSG: return "sSG";
    case CmdClass::sSGL: return "sSGL";
    case CmdClass::sSFU: return "sSFU";
    case CmdClass::sLIN: return "sLIN";
    case CmdClass::sCMP: return "sCMP";
    case CmdClass::sVC: return "sVC";
    case CmdClass::dma_tensor: return "tensor";
    case CmdClass::dma_matrix: return "matrix";
    case CmdClass::dma_masked_select: return "masked_select";
    case CmdClass::dma_general: return "general";
    case CmdClass::dma_cw_transpose: return "cw_transpose";
    case CmdClass::dma_nonzero: return "nonzero";
    case CmdClass::dma_sys: return "sys";
    case CmdClass::dma_gather: return "gather";
    case CmdClass::dma_scatter: return "scatter";
    case CmdClass::dma_reverse: return "reverse";
    case CmdClass::dma_compress: return "compress";
    case CmdClass::dma_decompress: return "decompress";
    case CmdClass::dma_lossy_compress: return "lossy_compress";
    case CmdClass::dma_lossy_decompress: return "lossy_decompress";
    case CmdClass::dma_randmask: return "randmask";
    case CmdClass::dma_transfer: return "transfer";
    case CmdClass::cdma_send: return "send";
    case CmdClass::cdma_read: return "read";
    case CmdClass::cdma_write: return "write";
    case CmdClass::cdma_general: return "general";
    case CmdClass::cdma_recv: return "recv";
    case CmdClass::cdma_lossy_compress: return "lossy_compress";
    case CmdClass::cdma_lossy_decompress: return "lossy_decompress";
    case CmdClass::cdma_sys: return "sys";
    case CmdClass::cdma_tcp_send: return "tcp_send";
    case CmdClass::cdma_tcp_recv: return "tcp_recv";
    case CmdClass::cdma_fake_all_reduce: return "fake_all_reduce";
    case CmdClass::cdma_fake_p2p: return "fake_p2p";
    case CmdClass::none: return "unknown";
  }
  return "unknown";
}

namespace {
constexpr uint32_t length_of(CmdClass c) noexcept {
  switch (c) {
    case CmdClass::LAR:
    case CmdClass::SYS_TR_ACC:
    case CmdClass::SYS:
    case CmdClass::dma_sys:
    case CmdClass::cdma_sys:
    case CmdClass::cdma_tcp_send:
    case CmdClass::cdma_tcp_recv: return 16;
    case CmdClass::cdma_read:
    case CmdClass::cdma_write: return 64;
    case CmdClass::cdma_send:
    case CmdClass::cdma_general:
    case CmdClass::cdma_recv:
    case CmdClass::cdma_lossy_compress:
    case CmdClass::cdma_lossy_decompress:
    case CmdClass::cdma_fake_all_reduce:
    case CmdClass::cdma_fake_p2p: return 32;
    case CmdClass::sCONV:
    case CmdClass::sPorD:
    case CmdClass::sAR: return 64;
    case CmdClass::sMM:
    case CmdClass::sSG:
    case CmdClass::sSGL:
    case CmdClass::sCMP:
    case CmdClass::sVC: return 48;
    case CmdClass::sMM2:
    case CmdClass::sRQ_sDQ:
    case CmdClass::sCW_sBC:
    case CmdClass::sSFU:
    case CmdClass::sLIN: return 32;
    case CmdClass::none: return 0;
    default: return is_tiu_class(c) ? 128 : 96;
  }
}
}  // namespace

namespace {
constexpr detail::ClassLengths make_class_lengths() noexcept {
  detail::ClassLengths t{};
  for (size_t c = 0; c < detail::kClassCount; ++c) t.v[c] = static_cast<uint8_t>(length_of(static_cast<CmdClass>(c)));
  return t;
}
}  // namespace

constexpr detail::ClassLengths detail::kClassLength = make_class_lengths();

uint32_t class_length(CmdClass c) noexcept {
  return detail::kClassLength.v[c < CmdClass::none ? static_cast<size_t>(c) : static_cast<size_t>(CmdClass::none)];
}

uint32_t class_type(CmdClass c) noexcept {
  switch (c) {
    case CmdClass::CONV: case CmdClass::CONV_BW: case CmdClass::sCONV: return 0;
    case CmdClass::PorD: case CmdClass::sPorD: return 1;
    case CmdClass::MM: case CmdClass::MM2: case CmdClass::sMM: case CmdClass::sMM2: return 2;
    case CmdClass::AR: case CmdClass::sAR: return 3;
    case CmdClass::RQ_DQ: case CmdClass::sRQ_sDQ: return 4;
    case CmdClass::CW_BC: case CmdClass::sCW_sBC: return 5;
    case CmdClass::SG: case CmdClass::SGL: case CmdClass::sSG: case CmdClass::sSGL: return 6;
    case CmdClass::LAR: return 7;
    case CmdClass::RAND: return 8;
    case CmdClass::SFU: case CmdClass::sSFU: return 9;
    case CmdClass::LIN: case CmdClass::sLIN: return 10;
    case CmdClass::SYS_TR_ACC: return 12;
    case CmdClass::CMP: case CmdClass::sCMP: return 13;
    case CmdClass::VC: case CmdClass::sVC: return 14;
    case CmdClass::SYS: return 15;
    case CmdClass::dma_tensor: return 0;
    case CmdClass::dma_matrix: return 1;
    case CmdClass::dma_masked_select: return 2;
    case CmdClass::dma_general: return 3;
    case CmdClass::dma_cw_transpose: return 4;
    case CmdClass::dma_nonzero: return 5;
    case CmdClass::dma_sys: return 6;
    case CmdClass::dma_gather: return 7;
    case CmdClass::dma_scatter: return 8;
    case CmdClass::dma_reverse: return 9;
    case CmdClass::dma_compress: return 10;
    case CmdClass::dma_decompress: return 11;
    case CmdClass::dma_lossy_compress: return 12;
    case CmdClass::dma_lossy_decompress: return 13;
    case CmdClass::dma_randmask: return 15;
    case CmdClass::dma_transfer: return 16;
    case CmdClass::cdma_send: return 0;
    case CmdClass::cdma_read: return 1;
    case CmdClass::cdma_write: return 2;
    case CmdClass::cdma_general: return 3;
    case CmdClass::cdma_recv: return 4;
    case CmdClass::cdma_lossy_compress: return 5;
    case CmdClass::cdma_lossy_decompress: return 6;
    case CmdClass::cdma_sys: return 7;
    case CmdClass::cdma_tcp_send: return 8;
    case CmdClass::cdma_tcp_recv: return 9;
    case CmdClass::cdma_fake_all_reduce: return 10;
    case CmdClass::cdma_fake_p2p: return 11;
    case CmdClass::none: return 0xFF;
  }
  return 0xFF;
}

namespace detail {
// Never defined: a tsk_typ with a third long class makes the decode table fail to compile.
void tiu_type_has_three_classes();
}  // namespace detail

namespace {
constexpr CmdClass tiu_class_of(uint32_t tsk_typ, uint32_t eu, bool s) noexcept {
  switch (tsk_typ) {
    case 0:
      if (has(kConvEu, eu)) return s ? CmdClass::sCONV : CmdClass::CONV;
      if (has(kConvBwEu, eu)) return s ? CmdClass::sCONV : CmdClass::CONV_BW;
      return CmdClass::none;
    case 1: return has(kPorDEu, eu) ? (s ? CmdClass::sPorD : CmdClass::PorD) : CmdClass::none;
    case 2:
      if (eu == 1) return s ? CmdClass::sMM : CmdClass::MM;
      if (has(kMm2Eu, eu)) return s ? CmdClass::sMM2 : CmdClass::MM2;
      return CmdClass::none;
    case 3: return has(kArEu, eu) ? (s ? CmdClass::sAR : CmdClass::AR) : CmdClass::none;
    case 4: return has(kRqDqEu, eu) ? (s ? CmdClass::sRQ_sDQ : CmdClass::RQ_DQ) : CmdClass::none;
    case 5: return has(kCwBcEu, eu) ? (s ? CmdClass::sCW_sBC : CmdClass::CW_BC) : CmdClass::none;
    case 6:
      if (has(kSgEu, eu)) return s ? CmdClass::sSG : CmdClass::SG;
      if (has(kSglEu, eu)) return s ? CmdClass::sSGL : CmdClass::SGL;
      return CmdClass::none;
    case 7: return has(kLarEu, eu) ? CmdClass::LAR : CmdClass::none;
    case 8: return (!s && has(kRandEu, eu)) ? CmdClass::RAND : CmdClass::none;
    case 9: return has(kSfuEu, eu) ? (s ? CmdClass::sSFU : CmdClass::SFU) : CmdClass::none;
    case 10: return has(kLinEu, eu) ? (s ? CmdClass::sLIN : CmdClass::LIN) : CmdClass::none;
    case 12: return (eu & 7) == 0 ? CmdClass::SYS_TR_ACC : CmdClass::none;
    case 13: return has(kCmpEu, eu) ? (s ? CmdClass::sCMP : CmdClass::CMP) : CmdClass::none;
    case 14: return has(kVcEu, eu) ? (s ? CmdClass::sVC : CmdClass::VC) : CmdClass::none;
    case 15: return has(kSysEu, eu) ? CmdClass::SYS : CmdClass::none;
    default: return CmdClass::none;
  }
}

constexpr detail::TiuDecodeTable make_tiu_decode_table() noexcept {
  detail::TiuDecodeTable t{};
  for (uint32_t k = 0; k < 16; ++k) t.cls[k][0] = t.cls[k][1] = CmdClass::none;
  for (size_t c = 0; c < detail::kTiuClassCount; ++c) t.short_of[c] = CmdClass::none;
  for (uint32_t k = 0; k < 16; ++k) {
    for (uint32_t e = 0; e < 32; ++e) {
      const CmdClass l = tiu_class_of(k, e, false);
      if (l == CmdClass::none) continue;
      const int slot = t.cls[k][0] == CmdClass::none || t.cls[k][0] == l   ? 0
                       : t.cls[k][1] == CmdClass::none || t.cls[k][1] == l ? 1
                                                                           : -1;
      if (slot < 0) detail::tiu_type_has_three_classes();
      t.cls[k][slot] = l;
      t.eus[k][slot] |= uint32_t{1} << e;
      // Each long class's short form: the same tsk_typ and eu with cmd_short set.
      t.short_of[static_cast<size_t>(l)] = tiu_class_of(k, e, true);
    }
  }
  return t;
}
// The two-step lookup gives tiu_class_of for every header: a long class's short form never
// depends on the eu.
constexpr bool decode_table_exact(const detail::TiuDecodeTable& t) noexcept {
  for (uint32_t k = 0; k < 16; ++k) {
    for (uint32_t e = 0; e < 32; ++e) {
      for (uint32_t s = 0; s < 2; ++s) {
        if (detail::tiu_decode(t, k, e, s != 0) != tiu_class_of(k, e, s != 0)) return false;
      }
    }
  }
  return true;
}
static_assert(decode_table_exact(make_tiu_decode_table()), "a short class that the long class does not determine");
}  // namespace

// Every (tsk_typ, eu) decoded once at compile time, with each long class's short form: the
// walker looks classes up per command (two mask tests, a load more for a short form), where the
// switch above costs several branches more.
constexpr detail::TiuDecodeTable detail::kTiuDecode = make_tiu_decode_table();

CmdClass tiu_class(uint32_t tsk_typ, uint32_t eu, bool s) noexcept {
  if (tsk_typ > 15 || eu > 31) return CmdClass::none;
  return detail::tiu_decode(detail::kTiuDecode, tsk_typ, eu, s);
}

bool tiu_eu_valid(CmdClass c, uint32_t eu) noexcept {
  if (!is_tiu_class(c)) return false;
  if (c == CmdClass::SYS_TR_ACC) return eu == 0;
  const bool s = is_tiu_short(c);
  const CmdClass got = tiu_class(class_type(c), eu, s);
  if (got == c) return true;
  return false;
}

CmdClass dma_class(uint32_t t, uint32_t sp) noexcept {
  switch (t) {
    case 0: return in(sp, 0, 4) ? CmdClass::dma_tensor : CmdClass::none;
    case 1: return sp <= 1 ? CmdClass::dma_matrix : CmdClass::none;
    case 2: return sp <= 1 ? CmdClass::dma_masked_select : CmdClass::none;
    case 3: return sp <= 1 ? CmdClass::dma_general : CmdClass::none;
    case 4: return sp == 0 ? CmdClass::dma_cw_transpose : CmdClass::none;
    case 5: return sp == 0 ? CmdClass::dma_nonzero : CmdClass::none;
    case 6: return sp <= 7 ? CmdClass::dma_sys : CmdClass::none;
    case 7: return sp == 0 ? CmdClass::dma_gather : CmdClass::none;
    case 8: return sp <= 1 ? CmdClass::dma_scatter : CmdClass::none;
    case 9: return sp <= 3 ? CmdClass::dma_reverse : CmdClass::none;
    case 10: return sp <= 1 ? CmdClass::dma_compress : CmdClass::none;
    case 11: return sp <= 1 ? CmdClass::dma_decompress : CmdClass::none;
    case 12: return sp <= 1 ? CmdClass::dma_lossy_compress : CmdClass::none;
    case 13: return sp <= 1 ? CmdClass::dma_lossy_decompress : CmdClass::none;
    case 15: return sp <= 6 ? CmdClass::dma_randmask : CmdClass::none;
    case 16: return sp == 0 ? CmdClass::dma_transfer : CmdClass::none;
    default: return CmdClass::none;
  }
}

uint32_t tiu_length(const uint8_t* h) noexcept {
  const uint32_t t = static_cast<uint32_t>(read_field(h, 41, 4));
  if (t == 7 || t == 12 || t == 15) return 16;
  if (read_field(h, 0, 1) == 0) return 128;
  return class_length(tiu_class(t, static_cast<uint32_t>(read_field(h, 45, 5)), true));
}

uint32_t dma_length(const uint8_t* h) noexcept { return read_field(h, 32, 5) == 6 ? 16 : 96; }

CmdClass cdma_class(uint32_t t, uint32_t sp) noexcept {
  // Indexed by cmd_type: every class but sys and tcp needs sp_func 0.
  constexpr CmdClass kByType[12] = {
      CmdClass::cdma_send,           CmdClass::cdma_read,          CmdClass::cdma_write,
      CmdClass::cdma_general,        CmdClass::cdma_recv,          CmdClass::cdma_lossy_compress,
      CmdClass::cdma_lossy_decompress, CmdClass::cdma_sys,         CmdClass::cdma_tcp_send,
      CmdClass::cdma_tcp_recv,       CmdClass::cdma_fake_all_reduce, CmdClass::cdma_fake_p2p};
  if (t >= 12) return CmdClass::none;
  if (t == 7) return sp <= 6 ? CmdClass::cdma_sys : CmdClass::none;
  // tcp: bits 8..23 hold buffer_length, so the header has no sp_func there.
  if (t == 8 || t == 9) return kByType[t];
  return sp == 0 ? kByType[t] : CmdClass::none;
}

uint32_t cdma_length(const uint8_t* h) noexcept {
  const uint32_t t = static_cast<uint32_t>(read_field(h, 4, 4));
  if (t == 1 || t == 2) return 64;
  if (t >= 7 && t <= 9) return 16;
  return t < 12 ? 32 : 0;
}

Span<const FieldDesc> fields_of(CmdClass c) noexcept {
  switch (c) {
    case CmdClass::CONV: case CmdClass::CONV_BW: case CmdClass::PorD: case CmdClass::MM:
    case CmdClass::MM2: case CmdClass::AR: case CmdClass::RQ_DQ: case CmdClass::CW_BC:
    case CmdClass::SG: case CmdClass::SGL: case CmdClass::RAND: case CmdClass::SFU:
    case CmdClass::LIN: case CmdClass::CMP: case CmdClass::VC: return kTiuLongFields;
    case CmdClass::LAR: return kLarFields;
    case CmdClass::SYS_TR_ACC: return kSysTrAccFields;
    case CmdClass::SYS: return kSysFields;
    case CmdClass::sCONV: return kSConvFields;
    case CmdClass::sPorD: return kSPorDFields;
    case CmdClass::sMM: return kSMmFields;
    case CmdClass::sMM2: return kSMm2Fields;
    case CmdClass::sAR: return kSArFields;
    case CmdClass::sRQ_sDQ: return kSRqDqFields;
    case CmdClass::sCW_sBC: return kSCwBcFields;
    case CmdClass::sSG: return kSSgFields;
    case CmdClass::sSGL: return kSSglFields;
    case CmdClass::sSFU: return kSSfuFields;
    case CmdClass::sLIN: return kSLinFields;
    case CmdClass::sCMP: return kSCmpFields;
    case CmdClass::sVC: return kSVcFields;
    case CmdClass::dma_tensor: return kDmaTensorFields;
    case CmdClass::dma_masked_select: return kDmaMaskedSelectFields;
    case CmdClass::dma_nonzero: return kDmaNonzeroFields;
    case CmdClass::dma_gather: case CmdClass::dma_scatter: return kDmaGatherScatterFields;
    case CmdClass::dma_compress: case CmdClass::dma_decompress:
    case CmdClass::dma_lossy_compress: case CmdClass::dma_lossy_decompress: return kDmaOpaqueFields;
    case CmdClass::dma_sys: return kDmaSysFields;
    case CmdClass::dma_matrix: case CmdClass::dma_general: case CmdClass::dma_cw_transpose:
    case CmdClass::dma_reverse: case CmdClass::dma_randmask:
    case CmdClass::dma_transfer: return kDmaCommonFields;
    case CmdClass::cdma_send: case CmdClass::cdma_lossy_compress:
    case CmdClass::cdma_lossy_decompress: return kCdmaSendFields;
    case CmdClass::cdma_read: case CmdClass::cdma_write: return kCdmaReadWriteFields;
    case CmdClass::cdma_general: return kCdmaGeneralFields;
    case CmdClass::cdma_recv: return kCdmaRecvFields;
    case CmdClass::cdma_sys: return kCdmaSysFields;
    case CmdClass::cdma_tcp_send: case CmdClass::cdma_tcp_recv: return kCdmaTcpFields;
    case CmdClass::cdma_fake_all_reduce: case CmdClass::cdma_fake_p2p: return kCdmaFakeFields;
    case CmdClass::none: return {};
  }
  return {};
}

}  // namespace tilefw::cmd
