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

struct ValidateOptions {
  /// false: DDR tags 1..29 are accepted at any offset (the footprint must stay inside the tag's
  /// 40-bit space). true: every DDR access must lie inside one of `ddr_regions`.
  bool use_memory_map = false;
  Span<const DdrRegion> ddr_regions{};
  /// Longest accepted stream (decision 3); tests lower it to exercise the limit cheaply.
  uint32_t max_commands = chip::sg2260::kMaxCommandsPerStream;
  /// Number of commands of the other engine of the same core (GDMA for a TIU stream, TIU for
  /// a GDMA stream); kUnknownCount skips the dependency-range check.
  uint32_t peer_commands = kUnknownCount;
};

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

  constexpr bool ok() const noexcept { return status == Status::ok; }
};

/// Validates one stream completely. Checks, in command order, the first failure wins:
/// - structure (Walker): cmd_truncated, cmd_unknown_class, cmd_missing_end, cmd_data_after_end;
/// - cmd_stream_too_long: more than `max_commands` commands (reported at id max_commands + 1);
/// - cmd_unsatisfiable_dependency: an enabled cmd_id_dep above `peer_commands`;
/// - DMA addresses of every non-sys class with a documented layout (src/dst, mask of
///   masked_select, index of gather/scatter; src is skipped when fill_constant_en is set):
///   cmd_bad_address_tag (tag 0, DDR outside the memory map, L2 tag outside 0x69_8000_0000 +
///   128 MiB), cmd_lmem_out_of_range (tag 31: bits above lane 63 / SMEM above 64 KiB);
/// - TIU addresses of sAR and sMM2 operands (res0 and the non-constant opd0/opd1):
///   cmd_lmem_out_of_range;
/// - footprints (shape x stride x element size, strides in elements), cmd_footprint_out_of_range,
///   for: GDMA/SDMA tensor (sp_func 0), matrix (sp_func 0, one side LMEM: the README's section
///   rule), general (sp_func 0 both sides, sp_func 1 src only; 1-D, length = src_cstride); TIU
///   sAR (every eu; stride modes 0 alignEU and 3 explicit) and sMM2 nn (eu 4, "matrix2"
///   layout). An LMEM footprint must stay inside its 256 KiB lane (general: inside the 16 MiB
///   lane-major LMEM), L2 inside L2, DDR inside its region (or its tag's 40-bit space).
///   Unsupported codes on these classes are cmd_bad_field (stride mode other than 0/3,
///   data format > 9). INT4/FP20 operands get no footprint check.
[[nodiscard]] ValidationReport validate_stream(Engine engine, ConstByteSpan buffer,
                                               const ValidateOptions& options = {}) noexcept;

/// The three streams of one core. An empty `sdma` span means "no SDMA stream".
struct CoreStreams {
  ConstByteSpan tiu{};
  ConstByteSpan gdma{};
  ConstByteSpan sdma{};
};

/// Validates the streams of one core as a set: each stream as validate_stream does, with the
/// dependency ranges checked against the other engine's command count, then a dry run of the
/// TIU/GDMA dependencies (message barriers assumed to pass): a command whose dependency can
/// never be met because the two engines wait on each other is cmd_unsatisfiable_dependency
/// at the first blocked TIU command (or GDMA command when TIU finished). SDMA dependencies
/// are not checked (no public source says whom an SDMA command waits for).
/// `options.peer_commands` is ignored.
[[nodiscard]] ValidationReport validate_core(const CoreStreams& core,
                                             const ValidateOptions& options = {}) noexcept;

}  // namespace tilefw::cmd
