// Message formatter for DescReport, kept out of the headers: it is not constexpr and pulls in
// the Status name and description tables.

#include "tilefw/desc/describe.hpp"

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/memory.hpp"

namespace tilefw::desc {
namespace {

// Appends into a fixed buffer and counts what did not fit.
class Writer {
 public:
  Writer(char* buf, std::size_t n) noexcept : buf_(buf), n_(n) {
    if (n_ > 0) buf_[0] = '\0';
  }
  Writer& str(const char* s) noexcept {
    for (; s != nullptr && *s != '\0'; ++s) put(*s);
    return *this;
  }
  Writer& num(uint64_t v) noexcept {
    char tmp[24];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (k > 0) put(tmp[--k]);
    return *this;
  }
  std::size_t length() const noexcept { return len_; }

 private:
  void put(char c) noexcept {
    if (len_ + 1 < n_) {
      buf_[len_] = c;
      buf_[len_ + 1] = '\0';
    }
    ++len_;
  }
  char* buf_;
  std::size_t n_;
  std::size_t len_ = 0;
};

}  // namespace

std::size_t describe(const DescReport& r, char* buf, std::size_t n) noexcept {
  Writer w(buf, n);
  w.str(status_name(r.status));
  switch (r.status) {
    case Status::ok:
      if (r.nop) w.str(" (NOP: no mask bit applies to the dtype; nothing is read or written)");
      if (r.touches_reserved_ub) {
        w.str(" (diagnostic: touches the top ")
            .num(chip::a2a3::kUbReservedTopBytes / 1024)
            .str(" KB of UB, which Ascend C reserves)");
      }
      break;
    case Status::misaligned:
      w.str(": ").str(r.field).str(" is ").num(r.byte_offset).str(", not a multiple of ").num(r.limit);
      break;
    case Status::out_of_bounds:
      w.str(": ").str(r.field).str(" block ").num(r.block_index).str(" of repeat ").num(r.repeat_index)
          .str(" at UB byte offset ").num(r.byte_offset).str(" is outside UB (").num(r.limit).str(" B)");
      break;
    case Status::illegal_overlap:
      w.str(": ").str(r.field).str(" block ").num(r.block_index).str(" of repeat ").num(r.repeat_index)
          .str(" (UB byte offset ").num(r.byte_offset).str(") overlaps ").str(r.other).str(" block ")
          .num(r.other_block).str(" of repeat ").num(r.other_repeat).str(" (UB byte offset ")
          .num(r.other_offset).str(")");
      if (r.repeat_index == r.other_repeat) {
        w.str(" partly within one repeat");
      } else {
        w.str(": a later repeat reads what an earlier one wrote");
      }
      break;
    case Status::desc_unsupported_dtype:
      w.str(": ").str(r.field).str(" is ");
      if (r.value <= static_cast<uint32_t>(DType::u32)) {
        w.str(dtype_name(static_cast<DType>(r.value)));
      } else {
        w.num(r.value);
      }
      w.str("; ").str(status_description(r.status));
      break;
    case Status::desc_operand_not_in_ub:
      w.str(": ").str(r.field).str(" is ");
      if (r.value <= static_cast<uint32_t>(chip::MemSpace::DDR)) {
        w.str(chip::mem_space_name(static_cast<chip::MemSpace>(r.value)));
      } else {
        w.num(r.value);
      }
      w.str("; ").str(status_description(r.status));
      break;
    default:
      w.str(": ").str(r.field).str(" is ").num(r.value);
      if (r.limit != 0) w.str(" (limit ").num(r.limit).str(")");
      w.str("; ").str(status_description(r.status));
      break;
  }
  return w.length();
}

}  // namespace tilefw::desc
