// The checks across a system's CDMA streams (docs/sg2260-commands.md section 13.6, what
// validation checks in CDMA streams): routes, each stream alone with the memory of both chips,
// and the send/recv pairing of every directed pair of chips (Rule: CDMA pairing).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/cmd/topology.hpp"
#include "tilefw/cmd/validate.hpp"

namespace tilefw::cmd {

// ---- a system's CDMA streams ---------------------------------------------------------------
/// The stream chip `chip` runs on its port to chip `peer`.
struct CdmaStream {
  uint32_t chip = 0;
  uint32_t peer = 0;
  ConstByteSpan bytes{};
};
/// A chip's DDR, as ValidateOptions says it for one chip.
struct ChipMemory {
  bool use_memory_map = false;
  Span<const DdrRegion> ddr_regions{};
};
/// Where a system check failed: the report (command id, byte offset, field, message) and the
/// stream (`stream`: its index in the span; chip and peer).
struct SystemValidation {
  ValidationReport report;
  uint32_t chip = 0;
  uint32_t peer = 0;
  size_t stream = 0;
  constexpr bool ok() const noexcept { return report.ok(); }
};

/// Validates every CDMA stream of a system, in this order (first failure wins):
/// - invalid_argument: a chip or peer past the topology's chips, a stream to its own chip, two
///   streams for one (chip, peer), or `chips` shorter than the topology;
/// - cmd_no_route: a peer the chip cannot reach (Topology::reachable), or a chip with more
///   streams than its 10 CDMA ports;
/// - each stream alone: validate_stream(Engine::cdma) with the chip's and the peer's memory
///   (`base` gives the other options);
/// - cmd_unmatched_transfer: the sends of (A, B) and the recvs of (B, A) differ in number
///   (Rule: CDMA pairing); reported at the first command without a partner (the extra send,
///   or the extra recv on B's stream);
/// - cmd_pair_mismatch: the k-th send and the k-th recv of a pair differ in element count or
///   format, or the send's psum_op is not (the recv's reduce_op != none), or the reduce op is
///   not valid for the format; reported on the recv.
[[nodiscard]] SystemValidation validate_system(const Topology& topology, Span<const CdmaStream> streams,
                                               Span<const ChipMemory> chips, const ValidateOptions& base = {}) noexcept;

}  // namespace tilefw::cmd
