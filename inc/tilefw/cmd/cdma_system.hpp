// The checks across a system's CDMA streams (docs/sg2260-commands.md section 13.6, what
// validation checks in CDMA streams): routes, each stream alone with the memory of both chips,
// and the send/recv pairing of every directed pair of chips (Rule: CDMA pairing); and over
// every stream a chip runs together, its message waits (Rule: reachable message waits).
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
/// One engine stream of a chip's core (TIU, GDMA, SDMA or HAU), for the message check.
struct CoreStream {
  uint32_t chip = 0;
  uint32_t core = 0;
  Engine engine = Engine::tiu;
  ConstByteSpan bytes{};
};
/// A chip's DDR, as ValidateOptions says it for one chip.
struct ChipMemory {
  bool use_memory_map = false;
  Span<const DdrRegion> ddr_regions{};
};
/// Where a system check failed: the report (command id, byte offset, field, message) and the
/// stream (`stream`: its index in the CDMA span; chip and peer), or for a core's engine stream
/// (report.engine not cdma) `core_stream`, its index in the CoreStream span, and `core`.
struct SystemValidation {
  static constexpr size_t kNoStream = SIZE_MAX;
  ValidationReport report;
  uint32_t chip = 0;
  uint32_t peer = 0;
  size_t stream = 0;
  uint32_t core = 0;
  size_t core_stream = kNoStream;
  /// cmd_unsatisfiable_message: the wait's message id and count, the sends of that id the
  /// refused waits need (`msg_needed`) and the chip's sends that can count for them
  /// (`msg_sends`; fewer than needed).
  uint32_t msg_id = 0;
  uint32_t msg_cnt = 0;
  uint32_t msg_needed = 0;
  uint32_t msg_sends = 0;
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

/// The message check (Rule: reachable message waits), for callers that hold every stream a
/// chip runs together: its cores' TIU, GDMA, SDMA and HAU streams and its CDMA streams (TX and
/// RX threads). A chip's counter per message id only grows by sends (TIU send_msg, DMA sys
/// send, HAU send, CDMA tx_send_msg / rx_send_msg) and is reset when as many waiters as a
/// wait's count have passed. Each stream (each CDMA thread) runs in order, so a wait cannot
/// count the sends that follow it on its own thread. cmd_unsatisfiable_message, in this order
/// (chips ascending, core streams in span order, then CDMA streams, TX before RX; first failure
/// wins):
/// - a wait whose count is above the chip's sends of its id (field "msg_cnt");
/// - a wait whose count is above the sends of its id that can come before it: every other
///   thread's plus its own thread's earlier ones (field "msg_cnt");
/// - when every wait on an id has one count c: W waits need c x ceil(W / c) sends (each group
///   of c waiters resets the counter, so each group needs c sends of its own); reported on the
///   last wait of that id in the order above (field "msg_id").
/// A stream that does not walk (its own validation refuses it) takes no part: nothing is
/// reported for it here. Streams of chips at or past `chips` are ignored. No heap: about 7 KB
/// of stack (counters per message id); each stream is walked up to four times.
[[nodiscard]] SystemValidation validate_messages(uint32_t chips, Span<const CoreStream> cores,
                                                 Span<const CdmaStream> cdma) noexcept;

/// validate_system, then validate_messages over the same chips, `cores` holding every core
/// stream of every chip.
[[nodiscard]] SystemValidation validate_system(const Topology& topology, Span<const CdmaStream> streams,
                                               Span<const ChipMemory> chips, Span<const CoreStream> cores,
                                               const ValidateOptions& base = {}) noexcept;

}  // namespace tilefw::cmd
