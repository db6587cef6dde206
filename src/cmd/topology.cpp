// Topology presets and routes (tilefw/cmd/topology.hpp).
#include "tilefw/cmd/topology.hpp"

namespace tilefw::cmd {

namespace {

constexpr uint32_t kPorts = chip::sg2260::kCdmaPorts;

// A tiny reader over the preset text: no allocation, no locale.
struct Text {
  const char* p;
  size_t n;
  size_t at = 0;
  bool done() const noexcept { return at == n; }
  bool eat(const char* word) noexcept {
    size_t k = 0;
    while (word[k] != '\0') {
      if (at + k >= n || p[at + k] != word[k]) return false;
      ++k;
    }
    at += k;
    return true;
  }
  bool eat_char(char c) noexcept {
    if (at < n && p[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  // A decimal number of at most 4 digits (ids and counts are < 10000).
  bool number(uint32_t& out) noexcept {
    uint32_t v = 0;
    size_t digits = 0;
    while (at < n && p[at] >= '0' && p[at] <= '9' && digits < 5) {
      v = v * 10 + static_cast<uint32_t>(p[at] - '0');
      ++at;
      ++digits;
    }
    out = v;
    return digits > 0 && digits <= 4;
  }
};

constexpr uint8_t kServer8[10][2] = {{0, 1}, {0, 2}, {0, 4}, {1, 3}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {6, 7}};

}  // namespace

void Topology::clear() noexcept {
  chips_ = 0;
  has_switch_ = false;
  link_count_ = 0;
  for (uint8_t& d : degree_) d = 0;
}

Status Topology::refuse(const char* why, uint32_t chip) noexcept {
  clear();
  message_ = why;
  bad_chip_ = chip;
  return Status::invalid_argument;
}

int32_t Topology::link_between(uint32_t a, uint32_t b) const noexcept {
  const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  for (uint32_t i = 0; i < link_count_; ++i) {
    if (links_[i].a == lo && links_[i].b == hi) return static_cast<int32_t>(i);
  }
  return -1;
}

// One undirected link between two vertices; refuses self links, repeats and a chip past its
// ports.
Status Topology::add(uint32_t a, uint32_t b) noexcept {
  if (a >= vertices() || b >= vertices()) return refuse("a link names a chip past the system's chips", a >= vertices() ? a : b);
  if (a == b) return refuse("a link from a chip to itself", a);
  if (link_between(a, b) >= 0) return refuse("a link listed twice", a);
  for (uint32_t v : {a, b}) {
    const bool is_switch = has_switch_ && v == chips_;
    if (!is_switch && degree_[v] >= kPorts) return refuse("a chip has more links than its 10 CDMA ports", v);
  }
  if (link_count_ >= kMaxLinks) return refuse("more links than a system of 64 chips can have");
  Link l;
  l.a = static_cast<uint16_t>(a < b ? a : b);
  l.b = static_cast<uint16_t>(a < b ? b : a);
  l.through_switch = has_switch_ && (a == chips_ || b == chips_);
  links_[link_count_++] = l;
  ++degree_[a];
  ++degree_[b];
  return Status::ok;
}

Status Topology::parse_edges(const char* text, size_t length) noexcept {
  Text t{text, length};
  if (!t.eat_char('[')) return refuse("edges: expected '[' after \"edges:\"");
  if (t.eat_char(']')) return t.done() ? Status::ok : refuse("edges: text after ']'");
  for (;;) {
    uint32_t a = 0, b = 0;
    if (!t.number(a) || !t.eat_char('-') || !t.number(b)) return refuse("edges: expected a link as A-B");
    if (a >= chips_ || b >= chips_) return refuse("edges: a chip id past the system's chips", a >= chips_ ? a : b);
    if (const Status s = add(a, b); s != Status::ok) return s;
    if (t.eat_char(']')) break;
    if (!t.eat_char(',')) return refuse("edges: expected ',' or ']'");
  }
  return t.done() ? Status::ok : refuse("edges: text after ']'");
}

Status Topology::build_preset(const char* text, size_t length, uint32_t chips) noexcept {
  Text t{text, length};
  uint32_t n = 0, boards = 0;
  if (t.eat("edges:")) return parse_edges(text + t.at, length - t.at);
  if (t.eat("sg2260-8")) {
    if (!t.done()) return refuse("unknown topology preset");
    if (chips != 8) return refuse("sg2260-8 is a system of 8 chips");
    for (const auto& l : kServer8) {
      if (const Status s = add(l[0], l[1]); s != Status::ok) return s;
    }
    return Status::ok;
  }
  enum { kRing, kChain, kStar, kMesh, kSwitch } kind;
  if (t.eat("ring:")) {
    kind = kRing;
  } else if (t.eat("chain:")) {
    kind = kChain;
  } else if (t.eat("star:")) {
    kind = kStar;
  } else if (t.eat("mesh:")) {
    kind = kMesh;
  } else if (t.eat("switch:")) {
    kind = kSwitch;
    if (!t.number(boards) || !t.eat_char('x')) return refuse("switch: expected BxN (boards x chips per board)");
  } else {
    return refuse("unknown topology preset (ring:N, chain:N, star:N, switch:BxN, mesh:N, sg2260-8, edges:[...])");
  }
  if (!t.number(n) || !t.done()) return refuse("expected a chip count after the preset's ':'");
  const uint32_t total = kind == kSwitch ? boards * n : n;
  if (n == 0 || total != chips) return refuse("the preset's chip count is not the system's");
  switch (kind) {
    case kRing:
      for (uint32_t i = 0; n > 1 && i < (n == 2 ? 1u : n); ++i) {
        if (const Status s = add(i, (i + 1) % n); s != Status::ok) return s;
      }
      return Status::ok;
    case kChain:
      for (uint32_t i = 0; i + 1 < n; ++i) {
        if (const Status s = add(i, i + 1); s != Status::ok) return s;
      }
      return Status::ok;
    case kStar:
      for (uint32_t i = 1; i < n; ++i) {
        if (const Status s = add(0, i); s != Status::ok) return s;
      }
      return Status::ok;
    case kMesh:
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = i + 1; j < n; ++j) {
          if (const Status s = add(i, j); s != Status::ok) return s;
        }
      }
      return Status::ok;
    case kSwitch:
      has_switch_ = boards > 1;  // one board: no switch to cross
      for (uint32_t b = 0; b < boards; ++b) {
        for (uint32_t i = 0; i + 1 < n; ++i) {
          if (const Status s = add(b * n + i, b * n + i + 1); s != Status::ok) return s;
        }
        if (has_switch_) {
          if (const Status s = add(b * n, chips_); s != Status::ok) return s;
        }
      }
      return Status::ok;
  }
  return Status::ok;
}

Status Topology::parse(const char* text, size_t length, uint32_t chips) noexcept {
  clear();
  message_ = "";
  bad_chip_ = 0;
  if (chips == 0 || chips > kMaxChips) return refuse("a system has 1..64 chips", chips);
  if (text == nullptr || length == 0) return refuse("an empty topology");
  chips_ = chips;
  return build_preset(text, length, chips);
}

bool Topology::adjacent(uint32_t a, uint32_t b) const noexcept {
  return a < chips_ && b < chips_ && a != b && link_between(a, b) >= 0;
}

bool Topology::reachable(uint32_t a, uint32_t b) const noexcept {
  if (adjacent(a, b)) return true;
  // Through the switch: both chips linked to it.
  return has_switch_ && a < chips_ && b < chips_ && a != b && link_between(a, chips_) >= 0 &&
         link_between(b, chips_) >= 0;
}

uint32_t Topology::route(uint32_t from, uint32_t to, Span<uint32_t> out) const noexcept {
  if (!reachable(from, to)) return 0;
  if (adjacent(from, to)) {
    if (out.size() < 1) return 0;
    const uint32_t i = static_cast<uint32_t>(link_between(from, to));
    out[0] = 2 * i + (from < to ? 0u : 1u);
    return 1;
  }
  if (out.size() < 2) return 0;
  const uint32_t up = static_cast<uint32_t>(link_between(from, chips_));
  const uint32_t down = static_cast<uint32_t>(link_between(to, chips_));
  out[0] = 2 * up + (from < chips_ ? 0u : 1u);  // chip -> switch: the switch is the higher vertex
  out[1] = 2 * down + 1;                          // switch -> chip
  return 2;
}

}  // namespace tilefw::cmd
