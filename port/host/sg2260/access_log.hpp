// The bytes one SG2260 command reads and writes, as the execution functions gather them for the
// hazard checkers (sg2260/hazard.hpp, sg2260/cross_hazard.hpp). Host-only.
#pragma once

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
    reads_.clear();
    writes_.clear();
  }
  /// The entries as logged (what the hazard checker walks).
  const std::vector<Strided>& read_entries() const noexcept { return reads_; }
  const std::vector<Strided>& write_entries() const noexcept { return writes_; }
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
  template <class F>
  static void expand(const std::vector<Strided>& v, F& f) {
    for (const Strided& s : v) {
      for (uint64_t k = 0; k < s.count; ++k) f(Range{s.begin + k * s.stride, s.end + k * s.stride});
    }
  }
  static std::vector<Range> ranges(const std::vector<Strided>& v) {
    std::vector<Range> out;
    auto push = [&out](const Range& r) { out.push_back(r); };
    expand(v, push);
    return out;
  }
  static void add(std::vector<Strided>& v, uint64_t addr, uint64_t bytes) {
    // The last four ranges, newest first: one that ends where this begins grows; one that
    // holds it already takes it (a table, a broadcast read again).
    uint32_t seen = 0;
    for (size_t i = v.size(); i > 0 && seen < 4; --i) {
      Strided& s = v[i - 1];
      for (uint64_t k = s.count; k > 0 && seen < 4; --k, ++seen) {
        const uint64_t b = s.begin + (k - 1) * s.stride, e = s.end + (k - 1) * s.stride;
        if (e == addr) {
          if (s.count == 1) s.end = addr + bytes;
          else grow_element(v, i - 1, k - 1, addr + bytes);
          return;
        }
        if (addr >= b && addr + bytes <= e) return;
      }
    }
    v.push_back(Strided{addr, addr + bytes, 0, 1});
  }
  // Range k of the strided entry v[i] (one of its last four) ends at `end` now: the entry splits
  // around it.
  static void grow_element(std::vector<Strided>& v, size_t i, uint64_t k, uint64_t end) {
    const Strided s = v[i];
    Strided parts[3];
    size_t n = 0;
    if (k > 0) parts[n++] = Strided{s.begin, s.end, s.stride, k};
    parts[n++] = Strided{s.begin + k * s.stride, end, 0, 1};
    if (k + 1 < s.count) parts[n++] = Strided{s.begin + (k + 1) * s.stride, s.end + (k + 1) * s.stride, s.stride, s.count - k - 1};
    v[i] = parts[0];
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(i) + 1, parts + 1, parts + n);
  }
  static bool ranges_at_least(const std::vector<Strided>& v, uint64_t n) {
    uint64_t have = 0;
    for (size_t i = v.size(); i > 0 && have < n; --i) have += v[i - 1].count;
    return have >= n;
  }
  // The j-th last range (0: the newest) of at least j + 1.
  static Range last_range(const std::vector<Strided>& v, uint64_t j) {
    size_t i = v.size() - 1;
    while (j >= v[i].count) j -= v[i--].count;
    const uint64_t k = v[i].count - 1 - j;
    return Range{v[i].begin + k * v[i].stride, v[i].end + k * v[i].stride};
  }
  static void add_strided(std::vector<Strided>& v, uint64_t addr, uint64_t bytes, uint64_t stride, uint64_t count) {
    // With a stride above the size no access meets another of the same run, so once the last
    // four ranges are the run's first four (the first may have extended an earlier range) add
    // could only append: the further accesses are one entry.
    uint64_t k = 0;
    for (; k < count && k < 4; ++k) add(v, addr + k * stride, bytes);
    if (k == count) return;
    bool own = stride > bytes && ranges_at_least(v, 4) && last_range(v, 3).end == addr + bytes;
    for (uint64_t j = 1; own && j < 4; ++j) {
      const Range r = last_range(v, 3 - j);
      own = r.begin == addr + j * stride && r.end == addr + j * stride + bytes;
    }
    if (!own) {
      for (; k < count; ++k) add(v, addr + k * stride, bytes);
      return;
    }
    v.push_back(Strided{addr + k * stride, addr + k * stride + bytes, stride, count - k});
  }
  std::vector<Strided> reads_, writes_;
};

}  // namespace tilefw::port::host::sg2260
