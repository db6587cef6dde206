// The chip-to-chip topology of a system of SG2260 chips: which chips a C2C link joins, parsed
// from the presets of docs/sg2260-commands.md section 13.6 (Rule: messages and topologies), and
// the routes CDMA transfers take. Core code: fixed arrays, no heap, no formatted strings.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilefw/base/span.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"

namespace tilefw::cmd {

inline constexpr uint32_t kMaxChips = chip::sg2260::kMaxChips;
/// Vertices: the chips, then at most one PCIe switch (switch:BxN).
inline constexpr uint32_t kMaxVertices = kMaxChips + 1;
/// Links: every chip uses at most its 10 ports, so at most 64 x 10 / 2 chip-to-chip links.
inline constexpr uint32_t kMaxLinks = kMaxChips * chip::sg2260::kCdmaPorts / 2;
/// Hops of the longest route: a direct link, or chip -> switch -> chip.
inline constexpr uint32_t kMaxHops = 2;

/// The link and CDMA figures of a system (Rule: CDMA timing v1), defaults from the chip
/// profile. A system file or manifest overrides each.
struct C2cFigures {
  double link_gbytes_per_s = chip::sg2260::kC2cLinkGBytesPerSecond;
  double link_latency_ns = chip::sg2260::kC2cLinkLatencyNs;
  double alpha_ns = chip::sg2260::kCdmaAlphaNs;
  double beta_ns = chip::sg2260::kCdmaBetaNs;
  double switch_latency_ns = chip::sg2260::kPcieSwitchHopNs;
  uint32_t credits = chip::sg2260::kCdmaCredits;
};

/// One undirected link: vertices a < b (a chip, or the switch vertex `chips()`); it is two
/// directed links, ids 2i (a -> b) and 2i + 1 (b -> a).
struct Link {
  uint16_t a = 0;
  uint16_t b = 0;
  bool through_switch = false;  // one end is the PCIe switch
};

class Topology {
 public:
  static constexpr uint32_t kMaxHops = cmd::kMaxHops;
  /// Parses a preset for a system of `chips` chips (1..64):
  ///   ring:N      N chips in a ring (ring:2 is one link; ring:1 none)
  ///   chain:N     0-1-...-(N-1)
  ///   star:N      chip 0 linked to each other chip
  ///   switch:BxN  B boards of N chips, each board a chain, each board's first chip linked to
  ///               one PCIe switch (vertex `chips`)
  ///   mesh:N      every pair linked
  ///   sg2260-8    the 8-chip server: 0-1 0-2 0-4 1-3 1-5 2-3 2-6 3-7 4-5 6-7
  ///   edges:[a-b,c-d,...]  the links listed
  /// N (B x N) must equal `chips`; a chip may have at most 10 links (its CDMA ports).
  /// invalid_argument with message() naming the rule broken; the topology is then empty.
  [[nodiscard]] Status parse(const char* text, size_t length, uint32_t chips) noexcept;

  /// What parse() refused ("" after a success).
  const char* message() const noexcept { return message_; }
  /// The chip the refusal is about (the one with too many links, or an out-of-range id).
  uint32_t bad_chip() const noexcept { return bad_chip_; }

  uint32_t chips() const noexcept { return chips_; }
  /// Chips plus the switch vertex, if any.
  uint32_t vertices() const noexcept { return chips_ + (has_switch_ ? 1u : 0u); }
  bool has_switch() const noexcept { return has_switch_; }
  uint32_t link_count() const noexcept { return link_count_; }
  Link link(uint32_t i) const noexcept { return links_[i]; }
  /// Directed links: 2 x link_count(). The endpoints of directed link d.
  uint32_t directed_from(uint32_t d) const noexcept { return d % 2 == 0 ? links_[d / 2].a : links_[d / 2].b; }
  uint32_t directed_to(uint32_t d) const noexcept { return d % 2 == 0 ? links_[d / 2].b : links_[d / 2].a; }
  /// Links of vertex v.
  uint32_t degree(uint32_t v) const noexcept { return v < kMaxVertices ? degree_[v] : 0; }

  /// A link joins chips a and b.
  bool adjacent(uint32_t a, uint32_t b) const noexcept;
  /// A CDMA transfer from chip a reaches chip b: a direct link, or a path through the switch
  /// only (an SG2260 never forwards through another chip: its port table names direct peers).
  bool reachable(uint32_t a, uint32_t b) const noexcept;
  /// The directed links a transfer from chip `from` to chip `to` crosses, in order, into
  /// `out`: the shortest path whose inner vertices are switches, ties to the lower-numbered
  /// next vertex. Returns the hop count (0: unreachable, or from == to, or `out` too small).
  uint32_t route(uint32_t from, uint32_t to, Span<uint32_t> out) const noexcept;

 private:
  void clear() noexcept;
  Status refuse(const char* why, uint32_t chip = 0) noexcept;
  Status add(uint32_t a, uint32_t b) noexcept;
  Status build_preset(const char* text, size_t length, uint32_t chips) noexcept;
  Status parse_edges(const char* text, size_t length) noexcept;
  int32_t link_between(uint32_t a, uint32_t b) const noexcept;

  uint32_t chips_ = 0;
  bool has_switch_ = false;
  uint32_t link_count_ = 0;
  Link links_[kMaxLinks]{};
  uint8_t degree_[kMaxVertices]{};
  const char* message_ = "";
  uint32_t bad_chip_ = 0;
};

}  // namespace tilefw::cmd
