// SG2260 command classes: the engines, the class of every (tsk_typ, tsk_eu_typ) and
// (cmd_type, cmd_special_function) pair, class names exactly as `tilefw dump` prints them
// (docs/cli.md section 2), and command lengths (docs/sg2260-commands.md sections 2, 3 and 6.1,
// and Rule: closed class lists in its section 1).
#pragma once

#include <cstdint>

namespace tilefw::cmd {

/// The engines of one SG2260 core: the three command engines, and the HAU, which in the real
/// multi-core models only takes part in the message barriers (its 80-byte sync commands:
/// tilefw/cmd/hau.hpp; cmd::Walker and the command classes below cover TIU, GDMA and SDMA),
/// then the CDMA. A CDMA engine belongs to a chip port, not to a core: it has no register
/// window among a core's engines (chip::sg2260::regs::kEngines stays 4), so per-core tables
/// indexed by Engine stop before Engine::cdma (kCoreEngines).
enum class Engine : uint8_t { tiu, gdma, sdma, hau, cdma };

/// The engines a core has (tiu, gdma, sdma, hau): the size of every per-core table indexed by
/// Engine.
inline constexpr uint32_t kCoreEngines = 4;

/// "tiu", "gdma", "sdma", "hau", "cdma".
const char* engine_name(Engine e) noexcept;
constexpr bool is_dma(Engine e) noexcept { return e == Engine::gdma || e == Engine::sdma; }
/// True for the engines of a core (everything but the per-port CDMA).
constexpr bool is_core_engine(Engine e) noexcept { return static_cast<uint32_t>(e) < kCoreEngines; }

/// Every command class. TIU long forms, TIU short forms (prefix s), the 16-byte TIU classes,
/// then the DMA cmd_types (GDMA and SDMA share the format), then the CDMA cmd_types.
enum class CmdClass : uint8_t {
  // TIU, 128-byte long form
  CONV, CONV_BW, PorD, MM, MM2, AR, RQ_DQ, CW_BC, SG, SGL, RAND, SFU, LIN, CMP, VC,
  // TIU, 16-byte classes
  LAR, SYS_TR_ACC, SYS,
  // TIU short forms
  sCONV, sPorD, sMM, sMM2, sAR, sRQ_sDQ, sCW_sBC, sSG, sSGL, sSFU, sLIN, sCMP, sVC,
  // DMA (value - dma_tensor is not the cmd_type: class_type() gives it)
  dma_tensor, dma_matrix, dma_masked_select, dma_general, dma_cw_transpose, dma_nonzero, dma_sys,
  dma_gather, dma_scatter, dma_reverse, dma_compress, dma_decompress, dma_lossy_compress,
  dma_lossy_decompress, dma_randmask, dma_transfer,
  // CDMA, in cmd_type order (0..11; cmd_type 7 is sys, 8/9 tcp, 10/11 the cmodel-only fakes)
  cdma_send, cdma_read, cdma_write, cdma_general, cdma_recv, cdma_lossy_compress,
  cdma_lossy_decompress, cdma_sys, cdma_tcp_send, cdma_tcp_recv, cdma_fake_all_reduce,
  cdma_fake_p2p,
  /// No class: an unknown encoding.
  none,
};

/// Name as docs/cli.md section 2 lists it ("CONV", "RQ&DQ", "sMM2", "tensor", "sys", ...; the
/// CDMA classes drop their prefix: "send", "recv", "fake_p2p", ...).
const char* class_name(CmdClass c) noexcept;
constexpr bool is_tiu_class(CmdClass c) noexcept { return c < CmdClass::dma_tensor; }
constexpr bool is_dma_class(CmdClass c) noexcept {
  return c >= CmdClass::dma_tensor && c <= CmdClass::dma_transfer;
}
constexpr bool is_cdma_class(CmdClass c) noexcept {
  return c >= CmdClass::cdma_send && c < CmdClass::none;
}
constexpr bool is_tiu_short(CmdClass c) noexcept {
  return c >= CmdClass::sCONV && c <= CmdClass::sVC;
}

/// Length in bytes of a command of class `c` (0 for none): TIU long 128, LAR / SYS_TR_ACC /
/// SYS 16, short forms 32..64 (table 1.3), DMA sys 16, every other DMA class 96; CDMA read
/// and write 64, sys and tcp 16, every other CDMA class 32.
uint32_t class_length(CmdClass c) noexcept;

/// The tsk_typ a TIU class encodes (15 for SYS, ...); the cmd_type of a DMA or CDMA class.
uint32_t class_type(CmdClass c) noexcept;

/// Class of a TIU command from its header. tsk_typ 7, 12 and 15 ignore `cmd_short` (bit 0 is
/// not cmd_short there); `eu` is the 5-bit tsk_eu_typ (SYS_TR_ACC uses its low 3 bits only).
/// none when the (tsk_typ, eu) pair is not in the exhaustive lists of docs/sg2260-commands.md
/// section 2 (Rule: closed class lists):
/// e.g. AR eu 17/29/30, tsk_typ 11, RAND with cmd_short = 1, SYS eu 13 (rand_seed: only a secondary
/// source names it, like AR 29/30, so tilefw does not accept it; docs/sg2260-commands.md section 2).
CmdClass tiu_class(uint32_t tsk_typ, uint32_t eu, bool cmd_short) noexcept;

/// True when `eu` is a defined tsk_eu_typ of class `c` (the builders check this).
bool tiu_eu_valid(CmdClass c, uint32_t eu) noexcept;

/// Class of a GDMA/SDMA command from (cmd_type, cmd_special_function), none when the pair is
/// not in the list of docs/sg2260-commands.md section 6.1 (e.g. tensor sp_func 5/6 of BM1688,
/// cmd_type 14 or > 16).
CmdClass dma_class(uint32_t cmd_type, uint32_t sp_func) noexcept;

/// Bytes a TIU command occupies, by the robust length rule of docs/sg2260-commands.md section 3
/// (tsk_typ 7/12/15:
/// 16; cmd_short 0: 128; else by class). 0 when the class is unknown. `header` needs 8 bytes.
uint32_t tiu_length(const uint8_t* header) noexcept;
/// Bytes a DMA command occupies: cmd_type 6 (sys) 16, any other 96.
uint32_t dma_length(const uint8_t* header) noexcept;

/// Class of a CDMA command from (cmd_type, cmd_special_function) (docs/sg2260-commands.md
/// section 13.1, Rule: CDMA lengths and types): cmd_type 0..11, sp_func 0 except on sys
/// (cmd_type 7: sp_func 0..6; 7 is none); cmd_type 12..15 none. tcp_send / tcp_recv (8/9)
/// accept any sp_func: their bits 8..23 are buffer_length, there is no sp_func to check.
/// The fakes (10/11) decode here; validation accepts them only in cmodel-compatible mode.
CmdClass cdma_class(uint32_t cmd_type, uint32_t sp_func) noexcept;
/// Bytes a CDMA command occupies, keyed on cmd_type (bits 4..7): read / write 64, sys and tcp
/// 16, every other cmd_type up to 11 32; 0 for cmd_type 12..15 (no command). `header` needs
/// 8 bytes.
uint32_t cdma_length(const uint8_t* header) noexcept;
/// Longest CDMA port stream: the port's send and recv command-id registers count 24 bits.
inline constexpr uint32_t kCdmaMaxCommandsPerPort = (1u << 24) - 1;

}  // namespace tilefw::cmd
