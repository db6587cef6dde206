// Topology presets and routes (see topology.hpp). Routes never pass through a chip: the SG2260
// forwards no CDMA traffic, so only switch vertices may be intermediate.
#include "tilefw/cmd/topology.hpp"

namespace tilefw::cmd {

namespace {

constexpr uint32_t kCdmaPorts = chip::sg2260::kCdmaPorts;

// The SG2260 8-chip server's links (docs/sg2260-commands.md section 13.5).
constexpr uint8_t kSg2260Eight[][2] = {{0, 1}, {0, 2}, {0, 4}, {1, 3}, {1, 5},
                                       {2, 3}, {2, 6}, {3, 7}, {4, 5}, {6, 7}};

struct Cursor {
  const char* p;
  const char* end;
  bool eat(const char* word) noexcept {
    const char* q = p;
    for (; *word != 0; ++word, ++q) {
      if (q == end || *q != *word) return false;
    }
    p = q;
    return true;
  }
  void skip_spaces() noexcept {
    while (p != end && *p == ' ') ++p;
  }
  // A decimal number below 2^20 (more digits than that is an error, not a wrap).
  bool number(uint32_t& out) noexcept {
    if (p == end || *p < '0' || *p > '9') return false;
    uint32_t v = 0;
    while (p != end && *p >= '0' && *p <= '9') {
      v = v * 10 + static_cast<uint32_t>(*p - '0');
      if (v >= (1u << 20)) return false;
      ++p;
    }
    out = v;
    return true;
  }
  bool done() const noexcept { return p == end; }
};

// Appends text / a decimal number to a bounded, NUL-terminated message.
struct MessageWriter {
  char* out;
  size_t cap;
  size_t n = 0;
  void put(const char* s) noexcept {
    while (s != nullptr && *s != 0 && n + 1 < cap) out[n++] = *s++;
    out[n] = 0;
  }
  void put(uint64_t v) noexcept {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (k > 0 && n + 1 < cap) out[n++] = digits[--k];
    out[n] = 0;
  }
};

}  // namespace

void Topology::clear() noexcept {
  chips_ = 0;
  vertices_ = 0;
  links_ = 0;
}

Status Topology::fail(const char* what, uint64_t n0, const char* mid, uint64_t n1, const char* tail) noexcept {
  clear();
  MessageWriter w{message_, kMessageBytes};
  w.put("topology: ");
  w.put(what);
  if (n0 != kNone) w.put(n0);
  w.put(mid);
  if (n1 != kNone) w.put(n1);
  w.put(tail);
  return Status::invalid_argument;
}

Status Topology::add(uint32_t a, uint32_t b) noexcept {
  if (a == b) return fail("link ", a, "-", b, " joins a chip to itself");
  const uint32_t lo = a < b ? a : b;
  const uint32_t hi = a < b ? b : a;
  if (hi >= vertices_) return fail("link ", a, "-", b, ": no such chip in this system");
  if (adjacent(lo, hi)) return fail("link ", lo, "-", hi, " is listed twice");
  if (links_ == kMaxLinks) return fail("more than ", kMaxLinks, " links");
  a_[links_] = static_cast<uint8_t>(lo);
  b_[links_] = static_cast<uint8_t>(hi);
  ++links_;
  return Status::ok;
}

Status Topology::check_count(const char* preset, uint32_t n, uint32_t chips) noexcept {
  if (n != chips) {
    clear();
    MessageWriter m{message_, kMessageBytes};
    m.put("topology: ");
    m.put(preset);
    if (preset[0] != 's' || preset[1] != 'g') m.put(uint64_t{n});  // "ring:" + N; sg2260-8 is whole
    m.put(" has ");
    m.put(uint64_t{n});
    m.put(" chips, the system ");
    m.put(uint64_t{chips});
    return Status::invalid_argument;
  }
  return Status::ok;
}

// Degrees: a chip has kCdmaPorts CDMA ports, one per linked peer. Switch vertices have no bound.
Status Topology::finish() noexcept {
  for (uint32_t v = 0; v < chips_; ++v) {
    const uint32_t d = degree(v);
    if (d > kCdmaPorts) return fail("chip ", v, " has ", d, " links, more than its 10 CDMA ports");
  }
  message_[0] = 0;
  return Status::ok;
}

Status Topology::parse(const char* text, size_t length, uint32_t chips) noexcept {
  clear();
  message_[0] = 0;
  if (text == nullptr) return fail("no text");
  if (chips == 0 || chips > kMaxChips) return fail("the system has ", chips, " chips; 1 to ", kMaxChips, " allowed");
  chips_ = chips;
  vertices_ = chips;
  Cursor c{text, text + length};
  uint32_t n = 0;
  if (c.eat("sg2260-8")) {
    if (!c.done()) return fail("unexpected text after sg2260-8");
    TILEFW_TRY(check_count("sg2260-8", 8, chips));
    for (const auto& l : kSg2260Eight) TILEFW_TRY(add(l[0], l[1]));
    return finish();
  }
  if (c.eat("edges:[")) {
    c.skip_spaces();
    if (c.eat("]") && c.done()) return finish();
    for (;;) {
      uint32_t a = 0;
      uint32_t b = 0;
      c.skip_spaces();
      if (!c.number(a) || !c.eat("-") || !c.number(b)) return fail("edges: expected a link as chip-chip");
      if (a >= chips || b >= chips) return fail("link ", a, "-", b, ": no such chip in this system");
      TILEFW_TRY(add(a, b));
      c.skip_spaces();
      if (c.eat(",")) continue;
      if (c.eat("]") && c.done()) return finish();
      return fail("edges: expected ',' or a final ']'");
    }
  }
  if (c.eat("switch:")) {
    uint32_t boards = 0;
    if (!c.number(boards) || !c.eat("x") || !c.number(n) || !c.done()) return fail("switch: expected switch:BxN");
    if (boards == 0 || n == 0) return fail("switch: boards and chips per board must be at least 1");
    if (uint64_t{boards} * n != chips) {
      return fail("switch has ", uint64_t{boards} * n, " chips, the system ", chips);
    }
    vertices_ = chips + 1;
    for (uint32_t k = 0; k < boards; ++k) {
      for (uint32_t i = 0; i + 1 < n; ++i) TILEFW_TRY(add(k * n + i, k * n + i + 1));
      TILEFW_TRY(add(k * n, chips));
    }
    return finish();
  }
  const char* preset = nullptr;
  for (const char* p : {"ring:", "chain:", "star:", "mesh:"}) {
    if (c.eat(p)) {
      preset = p;
      break;
    }
  }
  if (preset == nullptr) return fail("unknown preset (ring:N, chain:N, star:N, switch:BxN, mesh:N, sg2260-8, edges:[...])");
  if (!c.number(n) || !c.done()) return fail("expected a chip count after the preset name");
  if (n > kMaxChips) return fail("", n, " chips; at most ", kMaxChips, " allowed");
  TILEFW_TRY(check_count(preset, n, chips));
  switch (preset[0]) {
    case 'r':
      if (n < 2) return fail("ring needs at least 2 chips");
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t j = (i + 1) % n;
        if (n == 2 && i == 1) break;  // ring:2 is one link
        TILEFW_TRY(add(i, j));
      }
      break;
    case 'c':
      for (uint32_t i = 0; i + 1 < n; ++i) TILEFW_TRY(add(i, i + 1));
      break;
    case 's':
      if (n - 1 > kCdmaPorts) return fail("star:", n, " gives the hub ", n - 1, " links, more than its 10 CDMA ports");
      for (uint32_t i = 1; i < n; ++i) TILEFW_TRY(add(0, i));
      break;
    default:  // mesh
      if (n - 1 > kCdmaPorts) return fail("mesh:", n, " gives each chip ", n - 1, " links, more than its 10 CDMA ports");
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t j = i + 1; j < n; ++j) TILEFW_TRY(add(i, j));
      }
      break;
  }
  return finish();
}

int32_t Topology::directed_link(uint32_t from, uint32_t to) const noexcept {
  for (uint32_t i = 0; i < links_; ++i) {
    if (a_[i] == from && b_[i] == to) return static_cast<int32_t>(2 * i);
    if (b_[i] == from && a_[i] == to) return static_cast<int32_t>(2 * i + 1);
  }
  return -1;
}

uint32_t Topology::degree(uint32_t vertex) const noexcept {
  uint32_t d = 0;
  for (uint32_t i = 0; i < links_; ++i) d += (a_[i] == vertex ? 1u : 0u) + (b_[i] == vertex ? 1u : 0u);
  return d;
}

bool Topology::reachable(uint32_t a, uint32_t b) const noexcept {
  uint32_t scratch[kMaxHops];
  return route(a, b, Span<uint32_t>(scratch)).ok();
}

Result<uint32_t> Topology::route(uint32_t from, uint32_t to, Span<uint32_t> out) const noexcept {
  if (from >= chips_ || to >= chips_ || from == to) return Status::invalid_argument;
  // Distances to `to` by breadth-first search backwards; only `to` itself and switch vertices
  // may be expanded (a chip is an end point, never a relay).
  uint8_t dist[kMaxVertices];
  for (uint32_t v = 0; v < vertices_; ++v) dist[v] = 0xFF;
  uint8_t queue[kMaxVertices];
  uint32_t head = 0;
  uint32_t tail = 0;
  dist[to] = 0;
  queue[tail++] = static_cast<uint8_t>(to);
  while (head < tail) {
    const uint32_t v = queue[head++];
    if (v != to && !is_switch(v)) continue;
    for (uint32_t i = 0; i < links_; ++i) {
      const uint32_t u = a_[i] == v ? b_[i] : (b_[i] == v ? a_[i] : kMaxVertices);
      if (u == kMaxVertices || dist[u] != 0xFF) continue;
      dist[u] = static_cast<uint8_t>(dist[v] + 1);
      queue[tail++] = static_cast<uint8_t>(u);
    }
  }
  if (dist[from] == 0xFF) return Status::cmd_no_route;
  const uint32_t hops = dist[from];
  if (out.size() < hops) return Status::buffer_too_small;
  uint32_t at = from;
  for (uint32_t h = 0; h < hops; ++h) {
    // The lowest-numbered next vertex one step closer (a relay must be a switch or `to`).
    uint32_t next = kMaxVertices;
    for (uint32_t u = 0; u < vertices_ && next == kMaxVertices; ++u) {
      if (dist[u] + 1u == dist[at] && (u == to || is_switch(u)) && adjacent(at, u)) next = u;
    }
    out[h] = static_cast<uint32_t>(directed_link(at, next));
    at = next;
  }
  return hops;
}

}  // namespace tilefw::cmd
