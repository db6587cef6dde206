// The bytes one SG2260 command reads and writes, as the execution functions gather them for the
// hazard checkers (sg2260/hazard.hpp, sg2260/cross_hazard.hpp). Host-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tilefw::port::host::sg2260 {

/// The bytes one command reads and writes, as device addresses of the machine's memory map: a
/// sequence of ranges per kind, in the order the execution logged them. A range adjacent to one
/// of the last four of its kind extends it (element loops touch memory in runs; up to 4 operands
/// interleave). A strided row whose elements stay apart is kept as one entry of `count` ranges
/// `stride` bytes apart (the same ranges in the same order, without a range per element: a
/// strided AR row of 8192 elements is one entry, and the hazard checker walks it as such).
class AccessLog {
 public:
  struct Range {
    uint64_t begin;
    uint64_t end;
  };
  /// The ranges [begin + k * stride, end + k * stride) for k < count, in that order (count 1:
  /// the one range [begin, end), stride unused).
  struct Strided {
    uint64_t begin;
    uint64_t end;
    uint64_t stride;
    uint64_t count;
  };
  void read(uint64_t addr, uint64_t bytes) { add(reads_, addr, bytes); }
  void write(uint64_t addr, uint64_t bytes) { add(writes_, addr, bytes); }
  /// `count` accesses of `bytes` each, `stride` bytes apart: the same ranges as as many
  /// read / write calls in that order.
  void read_strided(uint64_t addr, uint64_t bytes, uint64_t stride, uint64_t count) {
    add_strided(reads_, addr, bytes, stride, count);
  }
  void write_strided(uint64_t addr, uint64_t bytes, uint64_t stride, uint64_t count) {
    add_strided(writes_, addr, bytes, stride, count);
  }
  void clear() noexcept {
    reads_.slots.clear();
    reads_.fast_from = 0;
    writes_.slots.clear();
    writes_.fast_from = 0;
  }
  /// The entries of the kind in order (what the hazard checker walks): a single range to
  /// single(const Range&), a strided entry to strided(const Strided&).
  template <class S, class T>
  void for_each_read_entry(S&& single, T&& strided) const {
    visit(reads_.slots, single, strided);
  }
  template <class S, class T>
  void for_each_write_entry(S&& single, T&& strided) const {
    visit(writes_.slots, single, strided);
  }
  /// Calls f(const Range&) for each range of the kind, in order.
  template <class F>
  void for_each_read(F&& f) const {
    expand(reads_, f);
  }
  template <class F>
  void for_each_write(F&& f) const {
    expand(writes_, f);
  }
  /// The ranges one by one (a copy).
  std::vector<Range> reads() const { return ranges(reads_); }
  std::vector<Range> writes() const { return ranges(writes_); }

 private:
  // A kind's entries in slots of 16 bytes, so an element loop's log costs what a list of ranges
  // does: a single range is one slot; a strided entry two, both marked in `begin`'s top bit (no
  // device address has it): {begin | mark, end}, {stride | mark, count}.
  static constexpr uint64_t kMark = uint64_t{1} << 63;
  struct Log {
    std::vector<Range> slots;
    // With at least this many slots the last four are single ranges (4 past the last strided
    // entry; 0: there is none), so add's common case looks at no mark.
    size_t fast_from = 0;
  };

  template <class S, class T>
  static void visit(const std::vector<Range>& v, S& single, T& strided) {
    for (const Range *p = v.data(), *end = p + v.size(); p != end; ++p) {
      if ((p->begin & kMark) == 0) {
        single(*p);
        continue;
      }
      strided(Strided{p->begin & ~kMark, p->end, p[1].begin & ~kMark, p[1].end});
      ++p;
    }
  }
  template <class F>
  static void expand(const Log& log, F& f) {
    auto single = [&f](const Range& r) { f(r); };
    auto each = [&f](const Strided& s) {
      for (uint64_t k = 0; k < s.count; ++k) f(Range{s.begin + k * s.stride, s.end + k * s.stride});
    };
    visit(log.slots, single, each);
  }
  static std::vector<Range> ranges(const Log& v) {
    std::vector<Range> out;
    auto append = [&out](const Range& r) { out.push_back(r); };
    expand(v, append);
    return out;
  }
  static void push(Log& log, const Strided& s) {
    if (s.count == 1) {
      log.slots.push_back(Range{s.begin, s.end});
      return;
    }
    log.slots.push_back(Range{s.begin | kMark, s.end});
    log.slots.push_back(Range{s.stride | kMark, s.count});
    log.fast_from = log.slots.size() + 4;
  }

  static void add(Log& log, uint64_t addr, uint64_t bytes) {
    // The last four ranges, newest first: one that ends where this begins grows; one that
    // holds it already takes it (a table, a broadcast read again). Taken here while they are
    // single ranges (an element loop's ranges), else through the tail's entries.
    std::vector<Range>& v = log.slots;
    const size_t n = v.size();
    if (n < log.fast_from) {
      add_near_strided(log, addr, bytes);
      return;
    }
    for (size_t i = n; i > 0 && i + 4 > n; --i) {
      Range& r = v[i - 1];
      if (r.end == addr) {
        r.end += bytes;
        return;
      }
      if (addr >= r.begin && addr + bytes <= r.end) return;
    }
    v.push_back(Range{addr, addr + bytes});
  }

  // The newest entries of a log, oldest first, holding its last four ranges (or all of them).
  struct Tail {
    Strided e[8];
    size_t n = 0;
    size_t first_slot = 0;  // where the oldest of them begins
    uint64_t ranges = 0;
  };
  static Tail tail(const std::vector<Range>& v) {
    Tail t;
    Strided rev[4];
    size_t i = v.size();
    while (i > 0 && t.ranges < 4) {
      if ((v[i - 1].begin & kMark) != 0) {
        rev[t.n] = Strided{v[i - 2].begin & ~kMark, v[i - 2].end, v[i - 1].begin & ~kMark, v[i - 1].end};
        i -= 2;
      } else {
        rev[t.n] = Strided{v[i - 1].begin, v[i - 1].end, 0, 1};
        i -= 1;
      }
      t.ranges += rev[t.n++].count;
    }
    for (size_t k = 0; k < t.n; ++k) t.e[k] = rev[t.n - 1 - k];
    t.first_slot = i;
    return t;
  }
  // add() where a strided entry is among the last four ranges: the tail's entries are taken off,
  // changed (a strided entry whose range grows splits around it) and put back.
  static void add_near_strided(Log& log, uint64_t addr, uint64_t bytes) {
    std::vector<Range>& v = log.slots;
    Tail t = tail(v);
    uint32_t seen = 0;
    for (size_t i = t.n; i > 0 && seen < 4; --i) {
      const Strided s = t.e[i - 1];
      for (uint64_t k = s.count; k > 0 && seen < 4; --k, ++seen) {
        const uint64_t b = s.begin + (k - 1) * s.stride, e = s.end + (k - 1) * s.stride;
        if (addr >= b && addr + bytes <= e && e != addr) return;
        if (e != addr) continue;
        Strided parts[3];
        size_t m = 0;
        if (k - 1 > 0) parts[m++] = Strided{s.begin, s.end, s.stride, k - 1};
        parts[m++] = Strided{b, addr + bytes, 0, 1};
        if (k < s.count) parts[m++] = Strided{s.begin + k * s.stride, s.end + k * s.stride, s.stride, s.count - k};
        v.resize(t.first_slot);
        log.fast_from = t.first_slot == 0 ? 0 : std::min(log.fast_from, t.first_slot + 4);
        for (size_t j = 0; j + 1 < i; ++j) push(log, t.e[j]);
        for (size_t j = 0; j < m; ++j) push(log, parts[j]);
        for (size_t j = i; j < t.n; ++j) push(log, t.e[j]);
        return;
      }
    }
    v.push_back(Range{addr, addr + bytes});
  }

  static void add_strided(Log& log, uint64_t addr, uint64_t bytes, uint64_t stride, uint64_t count) {
    // With a stride above the size no access meets another of the same run, so once the last
    // four ranges are the run's first four (the first may have extended an earlier range) add
    // could only append: the further accesses are one entry.
    uint64_t k = 0;
    for (; k < count && k < 4; ++k) add(log, addr + k * stride, bytes);
    if (k == count) return;
    bool own = stride > bytes && ((addr | stride) & kMark) == 0;
    if (own) {
      // the last four ranges, oldest first
      const Tail t = tail(log.slots);
      Range last[4];
      size_t m = 0;
      for (size_t i = t.n; i > 0 && m < 4; --i) {
        for (uint64_t j = t.e[i - 1].count; j > 0 && m < 4; --j, ++m) {
          last[3 - m] = Range{t.e[i - 1].begin + (j - 1) * t.e[i - 1].stride, t.e[i - 1].end + (j - 1) * t.e[i - 1].stride};
        }
      }
      own = m == 4 && last[0].end == addr + bytes;
      for (uint64_t j = 1; own && j < 4; ++j) own = last[j].begin == addr + j * stride && last[j].end == addr + j * stride + bytes;
    }
    if (!own) {
      for (; k < count; ++k) add(log, addr + k * stride, bytes);
      return;
    }
    push(log, Strided{addr + k * stride, addr + k * stride + bytes, stride, count - k});
  }
  Log reads_, writes_;
};

}  // namespace tilefw::port::host::sg2260
