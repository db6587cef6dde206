// validate_descriptors: builds one good a2a3 vector descriptor and one deliberately bad
// descriptor per validation rule, validates each and prints the Status and the message.
// Runs on the host and on Cortex-M (printf only, no heap). Exit 0 when every descriptor got
// the Status it was built to get.
#include <cstdio>

#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/describe.hpp"
#include "tilefw/desc/validate.hpp"

using tilefw::DType;
using tilefw::Status;
using tilefw::chip::MemSpace;
using namespace tilefw::desc;

namespace {

constexpr uint32_t kUb = tilefw::chip::a2a3::kUbBytes;

int g_failures = 0;

void show(const char* label, const DescReport& r, Status expected) {
  char msg[256];
  describe(r, msg, sizeof msg);
  const bool as_expected = r.status == expected;
  if (!as_expected) ++g_failures;
  std::printf("%s %-34s -> %s\n", as_expected ? "  " : "!!", label, msg);
  if (!as_expected) std::printf("   expected %s\n", tilefw::status_name(expected));
}

// seed 000 section 6: f32 64x64 tile add, repeat 64, block stride 1, repeat stride 8.
constexpr BinIntrinsicDesc good_add() {
  BinIntrinsicDesc d{};
  d.op = BinaryOp::vadd;
  d.repeat = 64;
  d.dst = {MemSpace::UB, 0};
  d.src0 = {MemSpace::UB, 16384};
  d.src1 = {MemSpace::UB, 32768};
  return d;
}

}  // namespace

int main() {
  std::printf("a2a3 vector descriptors, f32 unless noted (UB %u B)\n", static_cast<unsigned>(kUb));
  const BinIntrinsicDesc g = good_add();
  show("good: seed 000 64x64 vadd", validate(g, DType::f32), Status::ok);
  static_assert(is_valid<float>(good_add()), "the README example is valid at compile time");

  BinIntrinsicDesc d = g;
  d.repeat = 0;
  show("repeat=0 (normal mode)", validate(d, DType::f32), Status::desc_normal_mode_needs_repeat);
  d.repeat = 300;
  show("repeat=300", validate(d, DType::f32), Status::desc_repeat_out_of_range);

  d = g;
  d.mask_mode = MaskMode::count;
  d.vector_count = 4096;
  show("count mode with repeat=64", validate(d, DType::f32), Status::desc_count_mode_needs_zero_repeat);
  d.repeat = 0;
  show("good: count mode 4096 elements", validate(d, DType::f32), Status::ok);
  d.vector_count = 0;
  show("count mode with vector_count=0", validate(d, DType::f32), Status::desc_count_mode_needs_count);
  d.vector_count = 100;
  d.tail_elements = 4;
  show("count mode with tail_elements=4", validate(d, DType::f32), Status::desc_tail_in_count_mode);

  d = g;
  d.repeat = 1;
  d.tail_elements = 65;
  show("tail_elements=65", validate(d, DType::f32), Status::desc_tail_out_of_range);
  d.repeat = 2;
  d.tail_elements = 8;
  show("repeat=2 with tail_elements=8", validate(d, DType::f32), Status::desc_tail_with_multiple_repeats);

  d = g;
  d.stride_size_mode = true;
  show("stride_size_mode=true", validate(d, DType::f32), Status::desc_extension_mode_unsupported);
  d = g;
  d.src1_repeat_stride = 256;
  show("src1_repeat_stride=256", validate(d, DType::f32), Status::desc_stride_out_of_range);
  d = g;
  d.dst_block_stride = 0;
  show("dst_block_stride=0", validate(d, DType::f32), Status::desc_dst_block_stride_zero);
  d = g;
  d.op = BinaryOp::vdiv;
  show("vdiv on int32", validate(d, DType::i32), Status::desc_unsupported_dtype);
  d = g;
  d.op = static_cast<BinaryOp>(99);
  show("op code 99", validate(d, DType::f32), Status::desc_unknown_op);
  d = g;
  d.mask_mode = static_cast<MaskMode>(5);
  show("mask_mode code 5", validate(d, DType::f32), Status::desc_unknown_mask_mode);
  d = g;
  d.src0.space = MemSpace::L1;
  show("src0 in L1", validate(d, DType::f32), Status::desc_operand_not_in_ub);

  ReduceDesc rd{};
  rd.op = ReduceOp::vcadd;
  rd.repeat = 64;
  rd.dst = {MemSpace::UB, 65536};
  rd.src = {MemSpace::UB, 0};
  show("good: vcadd row sums", validate(rd, DType::f32), Status::ok);
  rd.vcadd_mode = 1;
  show("vcadd mode 1", validate(rd, DType::f32), Status::desc_reduce_mode_unsupported);

  d = g;
  d.dst.offset = 0xFFFFF000u;
  show("zero MASK, dst outside UB: NOP", validate(d, DType::f32, Mask128::none()), Status::ok);
  show("b32 MASK {hi=~0, lo=0}: NOP", validate(d, DType::f32, Mask128{~0ull, 0}), Status::ok);

  d = g;
  d.src0.offset = 16386;
  show("src0 misaligned by 2 bytes", validate(d, DType::f32), Status::misaligned);
  d = g;
  d.src1.offset = kUb - 64 * 256 + 32;
  show("src1 last block past UB", validate(d, DType::f32), Status::out_of_bounds);
  d.src1.offset = kUb - 64 * 256;
  show("good: src1 ends at UB end", validate(d, DType::f32), Status::ok);

  d = g;
  d.repeat = 2;
  d.dst.offset = 256;
  d.src0.offset = 0;
  show("dst(repeat 0) == src0(repeat 1)", validate(d, DType::f32), Status::illegal_overlap);
  d = g;
  d.repeat = 8;
  d.dst = d.src1;
  d.dst_repeat_stride = 0;
  d.src1_repeat_stride = 0;
  show("good: accumulator dst == src1", validate(d, DType::f32), Status::ok);
  d.src1 = g.src1;
  d.src0 = d.dst;
  d.src0_repeat_stride = 0;
  d.src1_repeat_stride = 8;
  show("accumulator on src0", validate(d, DType::f32), Status::illegal_overlap);

  rd = ReduceDesc{};
  rd.dst = {MemSpace::UB, 8};
  show("vcadd dst inside its src block", validate(rd, DType::f32), Status::illegal_overlap);

  std::printf("%s\n", g_failures == 0 ? "all descriptors got their expected status"
                                       : "some descriptors did not get their expected status");
  return g_failures == 0 ? 0 : 1;
}
