// The chip-to-chip topology of a multi-chip SG2260 system (docs/sg2260-commands.md section 13,
// Rule: messages and topologies): which chips are linked, so which CDMA peers a chip can
// reach, and the route a transfer takes. Fixed arrays, no heap: the runtime, the validator and
// the simulator all hold one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace tilefw::cmd {

/// The C2C figures of a system (Rule: CDMA timing v1); the defaults are the chip profile's.
struct C2cFigures {
  double link_gbytes_per_s = chip::sg2260::kC2cLinkGbytesPerSecond;  // per direction
  double link_latency_ns = chip::sg2260::kC2cLinkLatencyNs;          // per hop
  double alpha_ns = chip::sg2260::kC2cAlphaNs;                       // CDMA startup
  double beta_ns = chip::sg2260::kC2cBetaNs;                         // fake all-reduce term
  double switch_latency_ns = chip::sg2260::kC2cSwitchLatencyNs;      // per switch vertex crossed
  uint32_t credits = chip::sg2260::kC2cCredits;                      // recvs with credits out, per port
};

/// One undirected link between vertices a < b. Vertices below chips() are chips; the others
/// are switch vertices (switch:BxN).
struct TopoLink {
  uint32_t a = 0;
  uint32_t b = 0;
};

/// Presets (the text given to parse()):
///   ring:N      chips i and (i + 1) % N linked; ring:2 is one link
///   chain:N     chips i and i + 1
///   star:N      chip 0 (the hub) to every other chip
///   switch:BxN  B boards, each a chain of N chips (board k holds chips k*N .. k*N + N - 1);
///               each board's first chip linked to one switch vertex (id = chips())
///   mesh:N      every pair of chips (a chip has 10 ports: N <= 11)
///   sg2260-8    the SG2260 8-chip server: 0-1, 0-2, 0-4, 1-3, 1-5, 2-3, 2-6, 3-7, 4-5, 6-7
///   edges:[a-b,c-d,...]  the listed links, chips only
/// N (B x N for switch) must equal the system's chip count, at most kMaxChips; no chip may
/// have more links than kCdmaPorts; no link may repeat or join a chip to itself.
/// Directed links: link i carries id 2i from a to b (a < b) and 2i + 1 from b to a.
class Topology {
 public:
  static constexpr uint32_t kMaxChips = chip::sg2260::kMaxChips;
  static constexpr uint32_t kMaxVertices = kMaxChips + 1;  // the chips and one switch
  static constexpr uint32_t kMaxLinks = kMaxChips * chip::sg2260::kCdmaPorts / 2 + kMaxChips;
  static constexpr uint32_t kMaxHops = kMaxVertices;
  static constexpr size_t kMessageBytes = 112;

  /// Replaces the topology by the preset in text[0, length) for a system of `chips` chips.
  /// invalid_argument with message() naming what is wrong; the topology is then empty.
  [[nodiscard]] Status parse(const char* text, size_t length, uint32_t chips) noexcept;

  uint32_t chips() const noexcept { return chips_; }
  /// Chips plus switch vertices.
  uint32_t vertices() const noexcept { return vertices_; }
  bool is_switch(uint32_t vertex) const noexcept { return vertex >= chips_ && vertex < vertices_; }
  uint32_t link_count() const noexcept { return links_; }
  TopoLink link(uint32_t i) const noexcept { return i < links_ ? TopoLink{a_[i], b_[i]} : TopoLink{}; }
  uint32_t directed_link_count() const noexcept { return 2 * links_; }
  /// The directed link from `from` to `to` across one link, or -1 when they are not linked.
  int32_t directed_link(uint32_t from, uint32_t to) const noexcept;
  /// The vertex a directed link leaves from / arrives at.
  uint32_t directed_source(uint32_t id) const noexcept { return (id & 1) == 0 ? a_[id / 2] : b_[id / 2]; }
  uint32_t directed_target(uint32_t id) const noexcept { return (id & 1) == 0 ? b_[id / 2] : a_[id / 2]; }
  /// Links of a vertex.
  uint32_t degree(uint32_t vertex) const noexcept;
  /// a and b (chips or switch vertices) share a link.
  bool adjacent(uint32_t a, uint32_t b) const noexcept { return directed_link(a, b) >= 0; }
  /// Chip b can be reached from chip a: directly, or through switch vertices only (an SG2260
  /// never forwards through another chip).
  bool reachable(uint32_t a, uint32_t b) const noexcept;
  /// The route from chip `from` to chip `to` as directed link ids in `out`, by fewest hops
  /// through switch vertices only, ties to the lower-numbered next vertex. Returns the hop
  /// count; invalid_argument when a chip is out of range or from = to, cmd_no_route when `to`
  /// is unreachable, buffer_too_small when `out` cannot hold the route.
  Result<uint32_t> route(uint32_t from, uint32_t to, Span<uint32_t> out) const noexcept;

  /// What the last parse() found wrong ("" after a success).
  const char* message() const noexcept { return message_; }

 private:
  void clear() noexcept;
  Status fail(const char* what, uint64_t n0 = kNone, const char* mid = nullptr, uint64_t n1 = kNone,
              const char* tail = nullptr) noexcept;
  Status add(uint32_t a, uint32_t b) noexcept;
  Status check_count(const char* preset, uint32_t n, uint32_t chips) noexcept;
  Status finish() noexcept;
  static constexpr uint64_t kNone = UINT64_MAX;

  uint32_t chips_ = 0;
  uint32_t vertices_ = 0;
  uint32_t links_ = 0;
  uint8_t a_[kMaxLinks] = {};
  uint8_t b_[kMaxLinks] = {};
  char message_[kMessageBytes] = {};
};

}  // namespace tilefw::cmd
