// Whole-buffer validation of SG2260 command streams before anything runs: structure, classes,
// dependencies, address tags, LMEM ranges and tensor footprints. Executes nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::cmd {

/// One DDR region of a memory map: `device_addr` is the full 45-bit DMA address (tag in bits
/// 44:40, e.g. 0x200_0000_0000 for tag 2), as manifest.json `memory.ddr_regions` gives it.
struct DdrRegion {
  uint32_t tag = 0;
  uint64_t device_addr = 0;
  uint64_t bytes = 0;
};

/// "Not known" for ValidateOptions::peer_commands.
inline constexpr uint32_t kUnknownCount = 0xFFFFFFFFu;

/// What validating one CDMA port stream needs beyond the stream (docs/sg2260-commands.md
/// section 13.6): the chip that holds the stream and the port's peer, the peer's memory map
/// (the stream's own chip uses ValidateOptions::use_memory_map / ddr_regions), and the mode.
struct CdmaContext {
  /// Chip ids as the cmodel chip-id fields give them (4 bits; a field holding 0 is not checked).
  uint32_t chip = 0;
  uint32_t peer = 0;
  /// The peer's memory map, as ValidateOptions::use_memory_map / ddr_regions for the own chip.
  bool peer_use_memory_map = false;
  Span<const DdrRegion> peer_ddr_regions{};
  /// true: cmd_type 10/11 (fake_all_reduce / fake_p2p, cmodel only) are accepted; false: they
  /// are cmd_unknown_class.
  bool cmodel_compat = false;
  /// Longest accepted stream (tests lower it to exercise the limit cheaply).
  uint32_t max_commands = kCdmaMaxCommandsPerPort;
  /// false when chip and peer are not known (a lone stream file, a .bmodel's CDMA stream):
  /// the cmodel chip-id fields are then not compared.
  bool chips_known = true;
};

struct ValidateOptions {
  /// false: DDR tags 1..29 are accepted at any offset (the footprint must stay inside the tag's
  /// 40-bit space). true: every DDR access must lie inside one of `ddr_regions`.
  bool use_memory_map = false;
  Span<const DdrRegion> ddr_regions{};
  /// Longest accepted stream (docs/sg2260-commands.md section 9, Rule: dependency encoding);
  /// tests lower it to exercise the limit cheaply.
  uint32_t max_commands = chip::sg2260::kMaxCommandsPerStream;
  /// Number of commands of the other engine of the same core (GDMA for a TIU stream, TIU for
  /// a GDMA stream); kUnknownCount skips the dependency-range check.
  uint32_t peer_commands = kUnknownCount;
  /// Engine::cdma streams only.
  CdmaContext cdma{};
  /// Commands whose operands were checked when they were made (bit `id - 1` of byte
  /// `(id - 1) / 8`, least significant first): copies a generator made of a command of the same
  /// stream that this validation checks in full, with only dependency ids and linear (DDR, L2)
  /// DMA addresses moved, each moved operand passing dma_linear_operand_ok. Their operand checks
  /// are skipped; structure, length and dependencies are checked as for every command. Empty:
  /// none. validate_core sets it per stream from CoreStreams.
  Span<const uint8_t> checked_copies{};
};

/// Whether a linear DMA operand (DDR or L2) at the 45-bit DMA address `addr` spanning `bytes`
/// passes validate_stream's address and footprint checks under `o`: the rule validation applies
/// to such an operand, exported for a generator that moves a validated operand. false for an
/// LMEM address (its lanes are not a linear range).
[[nodiscard]] bool dma_linear_operand_ok(uint64_t addr, uint64_t bytes, const ValidateOptions& o) noexcept;

/// Result of a validation. On failure: the Status, the implicit id and byte offset of the
/// offending command (see Walker for the structural errors), the engine, the field name
/// (e.g. "dst_start_addr", "" when no single field is at fault) and a short reason.
struct ValidationReport {
  Status status = Status::ok;
  Engine engine = Engine::tiu;
  uint32_t command_id = 0;
  size_t offset = 0;
  const char* field = "";
  const char* message = "";
  /// Commands in the stream (end command included), when the walk got that far.
  uint32_t commands = 0;
  /// A valid TIU/GDMA/SDMA stream: the highest command count of the other engine its enabled
  /// cmd_id_dep fields wait for (0: none), so a caller that learns that count later checks
  /// the dependency ranges without walking the stream again.
  uint32_t max_dep_id = 0;
  /// A valid CDMA stream: its send-class commands (send, lossy_compress, lossy_decompress) and
  /// recvs, what Rule: CDMA pairing matches across the system.
  uint32_t cdma_sends = 0;
  uint32_t cdma_recvs = 0;

  constexpr bool ok() const noexcept { return status == Status::ok; }
};

/// Validates one stream completely. Checks, in command order, the first failure wins:
/// - structure (Walker): cmd_truncated, cmd_unknown_class, cmd_missing_end, cmd_data_after_end;
/// - cmd_stream_too_long: more than `max_commands` commands (reported at id max_commands + 1);
/// - cmd_unsatisfiable_dependency: an enabled cmd_id_dep above `peer_commands`;
/// - the operands of every command (field = the address field's spec name, e.g. "res0_addr"):
///   * local addresses (TIU operands, tag-31 DMA addresses): cmd_lmem_out_of_range for bits
///     above 26 (no memory there; the simulator never aliases them), bits 25:24 (lane > 63)
///     and SMEM (bit 26) offsets beyond 64 KiB;
///   * DMA tags: cmd_bad_address_tag for tag 0, DDR outside the memory map, L2 outside
///     0x69_8000_0000 + 128 MiB;
///   * footprints, cmd_footprint_out_of_range: shape x stride x element size (strides in
///     elements) inside the operand's LMEM lane (lane rule: c over lanes from the start lane),
///     SMEM, L2, or DDR region (the tag's 40-bit space without a memory map);
///   * cmd_bad_field: TIU stride mode other than 0 (alignEU) / 3 (explicit), DMA data format
///     > 9, a matrix LMEM section width of 0, a CW&BC source not shaped for cw_ts/lane_bc.
///   A constant operand (its opt_*_const set) is not an address and is not checked.
///   TIU operand layouts: the operand's stride-mode field (0 alignEU, 3 the command's
///   strides); an operand whose layout has no stride-mode field is alignEU (mode 0, the layout
///   of every TIU operand of the real buffers); mode 3 without stride fields (sCMP) and TIU
///   operands in SMEM get a start check only. INT4 (TIU) and INT4/FP20 (DMA) operands get no
///   footprint (not byte-addressable).
/// Operands and footprints per class (S = start address only, F = start + footprint):
///   AR, sAR        res0 F, opd0 F, opd1 F (binary eu or tsk_opd_num >= 2), opd2 S
///                  (tsk_opd_num 3); every operand has res0's shape (element-wise)
///   MM2, sMM2      "matrix2" F for res0 M x N, opd0 M x K (tt: K x M), opd1 K x N (nt/tt:
///                  N x K); K = opd1_c (nn) or opd1_w (nt, tt); bias opd2 S; tf32 (eu 7) all S
///   SFU, sSFU      res0 F, opd0 F (res0's shape); opd1 (taylor table, eu 12/13) S
///   CW&BC          res0 F, opd0 F (own shape); sCW&sBC opd0 = (res0_n, opd0_c, res0_h, opd0_w)
///   CONV, CONV_BW, MM, RQ&DQ, SG, SGL, RAND, LIN, CMP, VC (long form; CMP, RQ&DQ, SGL, LIN
///                  and VC only for the eu below the executed ones): res0, opd0, opd1 F with their own
///                  shapes and strides; opd2, res1, opd3 S
///   CMP, sCMP eu 22..26 (the simulator's layouts, docs/sg2260-commands.md section 15):
///                  every operand in res0's shape; res0 F (opd0's precision for gt_and_sel /
///                  lt_and_sel, else opd2's), res1 F for those two (opd2's precision), else S;
///                  opd0, opd1 F (opd0's precision, mode 0 or 3; sCMP mode 3: S); opd2, opd3 F
///                  (opd2's precision, alignEU)
///   RQ&DQ, sRQ&sDQ eu 0, 1, 3, 4: res0, opd0 F (res0's shape, alignEU); opd1 not constant:
///                  F as the INT32 tensor (1, c, 1, 2) for rq0 / dq0, (1, c, 1, 3) for rq1 /
///                  dq1, and opd2 S; constant: opd1 and opd2 hold values, not checked
///   SGL, sSGL eu 17, 18: res0 F (n, c, h, w) by rows padded to 64 bytes, c stride h rows,
///                  n stride alignEU; opd0 (table) F (c, opd0_h, w) the same rows, c stride 0
///                  for short_opd0_str 4, S for modes other than 3 and 4; opd1 (indices) F
///                  (n, c, h for gather / opd0_h for scatter, 1) alignEU in opt_opd1_prec;
///                  opd2 (not the fill constant), res1 S
///   PorD           res0, opd0 F (own shapes and strides); opd1 S only for depthwise and avg
///                  pooling (eu 0, 1, 5, 6: weights / scale), opd2 S only for depthwise
///                  (eu 0, 5: bias); res1, opd3 S. Max/min pooling read neither (tpu-mlir
///                  leaves opd2 = 0xFFFFFFFF there)
///   sCONV          res0 F, opd0 F (res0_n, opd0_c/h/w, explicit strides); opd1, opd2, res1, opd3 S
///   sPorD          res0 F, opd0 F (res0_n, res0_c, opd0_h/w); opd1, opd2 by eu as PorD;
///                  res1, opd3 S
///   sRQ&sDQ        other eu: res0 F, opd0 F (res0's shape); opd1, opd2 S
///   LIN, sLIN eu 1, 20, 21 (long form: stride modes 0): res0, opd0 F (res0's shape,
///                  alignEU; opd0 in opt_opd0_prec, sLIN res0's); opd1 and (mac) opd2 not
///                  constant: F, one value per channel on the lanes
///   CONV, sCONV eu 0 with opt_rq (after the operand checks above): the tensors at the
///                  addresses TIU global config registers 6 (parameters: 2 int32 per channel,
///                  FP8 1 FP32) and 5 (kernel zero point, int16, unless opt_opd4_const) hold,
///                  as the stream's SYS_TR_ACC commands wrote them (0 before); opt_opd5_const
///                  reads no tensor
///   VC, sVC eu 0, 2..5, 7..11, 13, 15, 16, 20: res0 F (A_len, res0_c, 1, res0_w) with A_len =
///                  (opd0_c - 1) x opd0_w + opd1_w; opd0 F (1, opd0_c, 1, opd0_w); opd1 F (1,
///                  res0_c, 1, res0_w); all alignEU, own precisions; opd1_w 0 or above opd0_w:
///                  cmd_bad_field
///   sLIN           other eu: res0 F; opd0, opd1, opd2 S
///   sSG, sSGL      (sSGL: other eu) res0 F; tables, indices and the rest S (partial shapes)
///   sCMP           other eu: opd0 F (mode 0); res0, res1, opd1, opd2, opd3 S
///   sMM, sVC       (sVC: other eu) all S (the layouts give only result c/w sizes)
///   LAR            nothing: 16-bit in-lane addresses, every value lies inside a lane
///   DMA tensor     src, dst F with their own sizes (nchw_copy: dst = src sizes; sp_func 1
///                  NC-transpose: dst = (src c, n, h, w))
///   DMA matrix     sp_func 0 with one LMEM side: the section rule of test/data/sg2260-mm0; else S
///   DMA general    1-D, length src_cstride, LMEM addressed flat: src F, dst F (sp_func 1
///                  broadcast: dst S)
///   cw_transpose, reverse, randmask, transfer: src, dst F with their own sizes
///   masked_select, nonzero: src F, dst S (data-dependent size); mask S
///   gather, scatter: src F (src c/h/w sizes, c/h strides, w contiguous), dst F (dst sizes),
///                  index F (index_csize x index_hsize uint32, c-stride index_cstride, h
///                  contiguous); cmd_bad_field when src and dst differ in c or w size,
///                  index_hsize is not the walked side's h (gather dst, scatter src) or
///                  index_csize is neither 1 nor the c size (tilefw decision, sg2260/sim.hpp)
///   sys, compress, decompress, lossy_*: no operands checked (opaque bodies, Rule: closed class
///   lists)
/// Engine::sdma, in addition: no side of a transfer (src unless filling, dst, mask, index) in
///   local memory (tag 31: LMEM or SMEM): cmd_bad_address_tag. The SG2260 SDMA reaches DDR and
///   L2 only (the vendor's SDMA operand checks refuse local memory).
/// Engine::hau: the HAU stream's structure (cmd::HauWalker: 80-byte sync commands, eod, zero
/// padding) and the stream limit; its commands have no addresses and no cmd_id_dep.
/// Engine::cdma: one port stream (docs/sg2260-commands.md section 13.6), with `options.cdma`:
/// - structure as above (Walker: CDMA lengths, sys chain_end, zero padding), cmd_type 10/11
///   cmd_unknown_class unless cdma.cmodel_compat, cmd_stream_too_long above
///   cdma.max_commands (2^24 - 1);
/// - cmd_bad_field: data format > 6 (recv: its data_format), reduce_op > 4, psum_op > 1,
///   a reduce op the recv's format does not define, recv send_type > 2, a size (n, c, h, w of
///   each side; dst sizes unless nchw_copy) or cmd_length of 0, read/write element counts
///   that differ (unless nchw_copy), lossy_compress not FP32, lossy_decompress not FP20,
///   fill_constant_en on anything but write and general, sys_tr_wr reg_sel > 2, a non-zero
///   cmodel chip id that is not the chip owning its side, tx/rx send/wait with msg_id above
///   511 (constant_value_l32 bits 15:9 set), cnt 0, or cnt above 127 (bits 31:23 set);
/// - addresses: cmd_bad_address_tag for tag 0, SMEM, LMEM anywhere but a send's (or fake's)
///   source and a recv's destination, LMEM for FP20, FP20 not 128-byte aligned, DDR outside
///   the owning chip's memory map, L2 outside L2; cmd_lmem_out_of_range and
///   cmd_footprint_out_of_range as for the DMA, for footprints of n, c, h, w over the strides
///   (elements, w contiguous) times the element size, general: cmd_length elements, LMEM flat
///   (lane-major). FP20 sides get no footprint (no byte size). Ownership (our reading of the
///   send/recv/read/write/general semantics): send src, recv dst, read dst, write src and
///   general src lie on the stream's own chip (options.use_memory_map / ddr_regions); write
///   dst, read src and general dst on the peer (cdma.peer_use_memory_map /
///   peer_ddr_regions). A filled write or general has no source address to check.
/// A valid CDMA stream's report also gives cdma_sends / cdma_recvs. tcp_send / tcp_recv are
/// opaque (structure only).
[[nodiscard]] ValidationReport validate_stream(Engine engine, ConstByteSpan buffer,
                                               const ValidateOptions& options = {}) noexcept;

/// The streams of one core. An empty `sdma` / `hau` span means "no SDMA / HAU stream".
struct CoreStreams {
  ConstByteSpan tiu{};
  ConstByteSpan gdma{};
  ConstByteSpan sdma{};
  ConstByteSpan hau{};
  /// ValidateOptions::checked_copies of the TIU and GDMA streams (empty: none).
  Span<const uint8_t> tiu_checked{};
  Span<const uint8_t> gdma_checked{};
};

/// Validates the streams of one core as a set: each stream as validate_stream does, with the
/// dependency ranges checked against the other engine's command count (the HAU stream, when
/// given, structurally), then a dry run of the TIU/GDMA dependencies (message barriers
/// assumed to pass): a command whose dependency can
/// never be met because the two engines wait on each other is cmd_unsatisfiable_dependency
/// at the first blocked TIU command (or GDMA command when TIU finished). SDMA dependencies
/// are not checked (no public source says whom an SDMA command waits for).
/// `options.peer_commands` is ignored.
[[nodiscard]] ValidationReport validate_core(const CoreStreams& core,
                                             const ValidateOptions& options = {}) noexcept;

/// Commands of each stream of a valid core (end commands included), by Engine; 0 for a stream
/// not given. Engine::cdma has no slot: CDMA streams belong to chip ports, not cores.
struct CoreCommandCounts {
  uint32_t by_engine[kCoreEngines] = {};
};
static_assert(kCoreEngines == chip::sg2260::regs::kEngines, "one register window per core engine");
/// validate_core, also giving the command counts (what a runtime programs into its queues),
/// so that no one walks the streams again to count them. `counts` is filled only when valid.
/// Each stream is walked once, TIU and GDMA twice when both wait on each other (the dependency
/// dry run), plus once more when a dependency range fails, to name the first command at fault.
[[nodiscard]] ValidationReport validate_core(const CoreStreams& core, const ValidateOptions& options,
                                             CoreCommandCounts& counts) noexcept;

}  // namespace tilefw::cmd
