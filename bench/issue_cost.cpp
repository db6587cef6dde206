// issue_cost MODE N: runs N single issues of the seed-000 f32 64x64 vadd through the host port:
// MODE=issue: the trusted path, issue::emit of a descriptor validated once before the loop
// (desc::Validator::check; then mask-state compare + register writes + doorbell + status read);
// MODE=unvalidated: issue_once (validation on every issue, then the same writes); MODE=raw: the
// same registers written directly. bench/issue_cost.py runs both under
// callgrind and reports the instruction-count ratio; no simulator is attached, so only the
// core's cost and the port's register path are counted.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tilefw/port/port.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_desc.hpp"
#include "tilefw/issue/vector_issue.hpp"

namespace {
namespace vreg = tilefw::chip::a2a3::vreg;

__attribute__((noinline)) uint32_t raw_issue(uint64_t b, const tilefw::desc::BinIntrinsicDesc& d) {
  namespace port = tilefw::port;
  port::reg_write32(b + vreg::kOp, vreg::op_word(tilefw::issue::op_code(d.op),
                                                 static_cast<uint32_t>(tilefw::DType::f32)));
  port::reg_write32(b + vreg::kRepeat, d.repeat);
  port::reg_write32(b + vreg::kDstAddr, d.dst.offset);
  port::reg_write32(b + vreg::kSrc0Addr, d.src0.offset);
  port::reg_write32(b + vreg::kSrc1Addr, d.src1.offset);
  port::reg_write32(b + vreg::kDstStride, vreg::stride_word(d.dst_block_stride, d.dst_repeat_stride));
  port::reg_write32(b + vreg::kSrc0Stride, vreg::stride_word(d.src0_block_stride, d.src0_repeat_stride));
  port::reg_write32(b + vreg::kSrc1Stride, vreg::stride_word(d.src1_block_stride, d.src1_repeat_stride));
  port::ring_doorbell(b + vreg::kDoorbell, 1u);
  return port::reg_read32(b + vreg::kStatus);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: issue_cost issue|unvalidated|raw N\n");
    return 2;
  }
  const bool use_issue = std::strcmp(argv[1], "issue") == 0;
  const bool use_unvalidated = std::strcmp(argv[1], "unvalidated") == 0;
  const long n = std::atol(argv[2]);
  // The f32 64 x 64 tile add of docs/a2a3-vector-semantics.md section 1.1: repeat 64, strides 1 /
  // 8.
  tilefw::desc::BinIntrinsicDesc d{};
  d.repeat = 64;
  d.dst.offset = 0;
  d.src0.offset = 16384;
  d.src1.offset = 32768;
  tilefw::issue::VectorUnit vu;
  tilefw::issue::reset(vu);
  const auto validated = tilefw::desc::Validator::check(d, tilefw::DType::f32, vu.mask);
  if (!validated.ok()) return 1;
  uint32_t acc = 0;
  for (long i = 0; i < n; ++i) {
    if (use_issue) {
      acc += static_cast<uint32_t>(tilefw::issue::emit(vu, *validated));
    } else if (use_unvalidated) {
      acc += static_cast<uint32_t>(tilefw::issue::issue_once<float>(vu, d));
    } else {
      acc += raw_issue(vu.base, d);
    }
  }
  std::printf("%s x %ld: status sum %u\n", argv[1], n, acc);
  return acc == 0 ? 0 : 1;
}
