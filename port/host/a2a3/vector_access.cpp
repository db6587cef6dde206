// Block and run enumeration of vector-unit operands for the pipe tracker.
#include "a2a3/vector_access.hpp"

#include <bit>

namespace tilefw::port::host::vector_access {

namespace {
constexpr uint64_t kBlock = 32;
using chip::a2a3::Pipe;

// Accumulates byte ranges and reports each maximal contiguous run once.
class Runs {
 public:
  Runs(PipeTracker& t, bool write) noexcept : t_(t), write_(write) {}
  ~Runs() { flush(); }
  Runs(const Runs&) = delete;
  Runs& operator=(const Runs&) = delete;
  void add(uint64_t off, uint64_t len) {
    if (have_ && off >= start_ && off + len <= end_) return;  // re-touched (stride 0)
    if (have_ && off == end_) {
      end_ += len;
      return;
    }
    flush();
    start_ = off;
    end_ = off + len;
    have_ = true;
  }

 private:
  void flush() {
    if (!have_) return;
    if (write_) t_.write(Pipe::V, chip::MemSpace::UB, start_, end_ - start_);
    else t_.read(Pipe::V, chip::MemSpace::UB, start_, end_ - start_);
    have_ = false;
  }
  PipeTracker& t_;
  bool write_;
  bool have_ = false;
  uint64_t start_ = 0;
  uint64_t end_ = 0;
};
}  // namespace

namespace {
// Lanes [from, from + n) of `m` as the low n bits (n <= 64; lanes past 127 read as 0).
uint64_t lane_bits(desc::Mask128 m, uint32_t from, uint32_t n) noexcept {
  uint64_t v = 0;
  if (from < 64) v = from == 0 ? m.lo : (m.lo >> from) | (m.hi << (64 - from));
  else if (from < 128) v = m.hi >> (from - 64);
  return n >= 64 ? v : v & ((uint64_t{1} << n) - 1);
}
}  // namespace

uint8_t block_bits(desc::Mask128 lanes, uint32_t lanes_per_repeat, uint32_t lanes_per_block) noexcept {
  // The common case: every lane of the repeat set. Then block b counts iff it has a lane there.
  // Its usual form first (a full 64-lane repeat of b32 or 128-lane one of b16: the low word, or
  // both words, all ones) in two compares, then the general full-repeat test.
  if (lanes_per_block != 0 && lanes.lo == ~uint64_t{0} &&
      (lanes_per_repeat == 64 || (lanes_per_repeat == 128 && lanes.hi == ~uint64_t{0}))) {
    const uint32_t n = quotient(lanes_per_repeat + lanes_per_block - 1, lanes_per_block);
    return static_cast<uint8_t>(n >= 8 ? 0xFFu : (1u << n) - 1);
  }
  const uint32_t limit = lanes_per_repeat < 128 ? lanes_per_repeat : 128;
  const uint32_t lo_n = limit < 64 ? limit : 64;
  if (lanes_per_block != 0 && lane_bits(lanes, 0, lo_n) == lane_bits(desc::Mask128::all(), 0, lo_n) &&
      (limit <= 64 || lane_bits(lanes, 64, limit - 64) == lane_bits(desc::Mask128::all(), 64, limit - 64))) {
    const uint32_t n = quotient(limit + lanes_per_block - 1, lanes_per_block);
    return static_cast<uint8_t>(n >= 8 ? 0xFFu : (1u << n) - 1);
  }
  // Whole blocks of lanes at a time (one shift and mask each, not a test per lane).
  uint8_t bits = 0;
  for (uint32_t b = 0; b < 8 && b * lanes_per_block < lanes_per_repeat; ++b) {
    if (lane_bits(lanes, b * lanes_per_block, lanes_per_block) != 0) bits = static_cast<uint8_t>(bits | (1u << b));
  }
  return bits;
}

void blocks(PipeTracker& t, bool write, uint64_t off, uint64_t blk, uint64_t rep, uint64_t repeats, uint8_t body,
            uint8_t last) {
  if (repeats == 0) return;
  Runs runs(t, write);
  // Unit block stride over full, consecutive repeats: one run (the hot, contiguous case).
  const bool prefix = (last & (last + 1)) == 0 && last != 0;  // blocks 0..j of the last repeat
  if (blk == kBlock && body == 0xFF && prefix && (rep == 8 * kBlock || repeats == 1)) {
    // `last` is a prefix of blocks, so its bit width is its count (and inline, where popcount
    // is a libgcc call on a baseline x86-64 build).
    runs.add(off, (repeats - 1) * rep + kBlock * static_cast<uint64_t>(std::bit_width(static_cast<unsigned>(last))));
    return;
  }
  for (uint64_t r = 0; r < repeats; ++r) {
    const uint8_t bits = r + 1 == repeats ? last : body;
    for (uint32_t b = 0; b < 8; ++b) {
      if ((bits >> b) & 1u) runs.add(off + r * rep + b * blk, kBlock);
    }
  }
}

void runs(PipeTracker& t, bool write, uint64_t off, uint64_t stride, uint64_t len, uint64_t count) {
  Runs r(t, write);
  for (uint64_t i = 0; i < count; ++i) r.add(off + i * stride, len);
}

}  // namespace tilefw::port::host::vector_access
