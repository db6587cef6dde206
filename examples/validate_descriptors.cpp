// validate_descriptors: builds good a2a3 vector descriptors and deliberately bad ones of every
// kind (binary, unary, scalar, reduction; UB copy, duplicate, conversion, block broadcast),
// validates each and prints its Status and the message naming the field. Runs on the host and
// on Cortex-M (example_print.hpp: no printf, no heap). Exit 0 when every descriptor got the
// Status and the field it was built to get.
#include <cstdint>

#include "example_print.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/describe.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"
#include "tilefw/desc/validate_vector.hpp"

using tilefw::DType;
using tilefw::Status;
using tilefw::chip::MemSpace;
using namespace tilefw::desc;

namespace {

// The UB of the build's profile (a2a3 192 KB; an A5 build, -Dchip=a5, 256 KB).
constexpr uint32_t kUb = static_cast<uint32_t>(tilefw::chip::region_size(tilefw::chip::kBuildChip, MemSpace::UB));

int g_failures = 0;

bool same(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

// Prints `label -> message`; a report whose Status, or whose field when one is expected,
// differs from the expectation is marked `!!` and makes the program fail.
void show(const char* label, const DescReport& r, Status expected, const char* field = "") {
  char msg[256];
  (void)describe(r, msg, sizeof msg);
  const bool as_expected = r.status == expected && (field[0] == '\0' || same(r.field, field));
  if (!as_expected) ++g_failures;
  example::print(as_expected ? "   " : "!! ");
  example::print_padded(label, 40);
  example::print(" -> ");
  example::print(msg);
  example::print("\n");
  if (!as_expected) {
    example::print("   expected ");
    example::print(tilefw::status_name(expected));
    example::print(" on ");
    example::print(field);
    example::print("\n");
  }
}

void heading(const char* text) {
  example::print("\n");
  example::print(text);
  example::print("\n");
}

// docs/a2a3-vector-semantics.md section 1.1: f32 64x64 tile add, repeat 64, block stride 1, repeat
// stride 8.
constexpr BinIntrinsicDesc good_add() {
  BinIntrinsicDesc d{};
  d.op = BinaryOp::vadd;
  d.repeat = 64;
  d.dst = {MemSpace::UB, 0};
  d.src0 = {MemSpace::UB, 16384};
  d.src1 = {MemSpace::UB, 32768};
  return d;
}

// vexp over the same 64x64 f32 tile.
constexpr UnaryDesc good_exp() {
  UnaryDesc d{};
  d.op = UnaryOp::vexp;
  d.repeat = 64;
  d.dst = {MemSpace::UB, 0};
  d.src = {MemSpace::UB, 16384};
  return d;
}

// vmuls by 2.0 (f32 bits) over the 64x64 tile.
constexpr ScalarDesc good_muls() {
  ScalarDesc d{};
  d.op = ScalarOp::vmuls;
  d.scalar_bits = 0x40000000u;
  d.repeat = 64;
  d.dst = {MemSpace::UB, 0};
  d.src = {MemSpace::UB, 16384};
  return d;
}

// A reduction over 64 rows of 64 f32 at UB 0, destination at 64 KB.
constexpr ReduceDesc reduce(ReduceOp op, uint32_t dst_offset,
                            ReduceOrder order = ReduceOrder::value_index) {
  ReduceDesc d{};
  d.op = op;
  d.order = order;
  d.repeat = 64;
  d.dst = {MemSpace::UB, dst_offset};
  d.src = {MemSpace::UB, 0};
  return d;
}

// copy_ubuf_to_ubuf: 16 bursts of 8 blocks (4 KB) from UB 0 to UB 8 KB.
constexpr CopyDesc good_copy() {
  CopyDesc d{};
  d.nburst = 16;
  d.burst_len = 8;
  d.dst = {MemSpace::UB, 8192};
  d.src = {MemSpace::UB, 0};
  return d;
}

// vector_dup of 1.0f over 8 repeats at UB 0.
constexpr DupDesc good_dup() {
  DupDesc d{};
  d.scalar_bits = 0x3F800000u;
  d.repeat = 8;
  d.dst = {MemSpace::UB, 0};
  return d;
}

// vconv f32 -> f16 (rint), 4 repeats of 64 lanes: src 8 blocks, dst 4 blocks per repeat.
constexpr CvtDesc good_cvt() {
  CvtDesc d{};
  d.repeat = 4;
  d.dst = {MemSpace::UB, 32768};
  d.src = {MemSpace::UB, 0};
  return d;
}

// vbrcb f32: 8 repeats, each broadcasting 8 source elements into 8 dst blocks.
constexpr BrcbDesc good_brcb() {
  BrcbDesc d{};
  d.repeat = 8;
  d.dst = {MemSpace::UB, 32768};
  d.src = {MemSpace::UB, 0};
  return d;
}

}  // namespace

int main() {
  example::print("a2a3 vector descriptors, f32 unless noted (UB ");
  example::print_u64(kUb);
  example::print(" B)\n");
  heading("binary (vadd/vsub/vmul/vdiv/vmax/vmin)");
  const BinIntrinsicDesc g = good_add();
  show("good: f32 64x64 tile add (vadd)", validate(g, DType::f32), Status::ok);
  static_assert(is_valid<float>(good_add()), "the README example is valid at compile time");

  BinIntrinsicDesc d = g;
  d.repeat = 0;
  show("repeat=0 (normal mode)", validate(d, DType::f32), Status::desc_normal_mode_needs_repeat,
       "repeat");
  d.repeat = 300;
  show("repeat=300", validate(d, DType::f32), Status::desc_repeat_out_of_range, "repeat");

  d = g;
  d.mask_mode = MaskMode::count;
  d.vector_count = 4096;
  show("count mode with repeat=64", validate(d, DType::f32),
       Status::desc_count_mode_needs_zero_repeat, "repeat");
  d.repeat = 0;
  show("good: count mode 4096 elements", validate(d, DType::f32), Status::ok);
  d.vector_count = 0;
  show("count mode with vector_count=0", validate(d, DType::f32),
       Status::desc_count_mode_needs_count, "vector_count");
  d.vector_count = 100;
  d.tail_elements = 4;
  show("count mode with tail_elements=4", validate(d, DType::f32), Status::desc_tail_in_count_mode,
       "tail_elements");

  d = g;
  d.repeat = 1;
  d.tail_elements = 65;
  show("tail_elements=65", validate(d, DType::f32), Status::desc_tail_out_of_range,
       "tail_elements");
  d.repeat = 2;
  d.tail_elements = 8;
  show("repeat=2 with tail_elements=8", validate(d, DType::f32),
       Status::desc_tail_with_multiple_repeats, "tail_elements");

  d = g;
  d.stride_size_mode = true;
  show("stride_size_mode=true", validate(d, DType::f32), Status::desc_extension_mode_unsupported,
       "stride_size_mode");
  d = g;
  d.src1_repeat_stride = 256;
  show("src1_repeat_stride=256", validate(d, DType::f32), Status::desc_stride_out_of_range,
       "src1_repeat_stride");
  d = g;
  d.dst_block_stride = 0;
  show("dst_block_stride=0", validate(d, DType::f32), Status::desc_dst_block_stride_zero,
       "dst_block_stride");
  d = g;
  d.op = BinaryOp::vdiv;
  show("vdiv on int32", validate(d, DType::i32), Status::desc_unsupported_dtype, "dtype");
  d = g;
  d.op = static_cast<BinaryOp>(99);
  show("op code 99", validate(d, DType::f32), Status::desc_unknown_op, "op");
  d = g;
  d.mask_mode = static_cast<MaskMode>(5);
  show("mask_mode code 5", validate(d, DType::f32), Status::desc_unknown_mask_mode, "mask_mode");
  d = g;
  d.src0.space = MemSpace::L1;
  show("src0 in L1", validate(d, DType::f32), Status::desc_operand_not_in_ub, "src0.space");

  ReduceDesc rd{};
  rd.op = ReduceOp::vcadd;
  rd.repeat = 64;
  rd.dst = {MemSpace::UB, 65536};
  rd.src = {MemSpace::UB, 0};
  show("good: vcadd row sums", validate(rd, DType::f32), Status::ok);
  rd.vcadd_mode = 1;
  show("vcadd mode 1", validate(rd, DType::f32), Status::desc_reduce_mode_unsupported,
       "vcadd_mode");

  d = g;
  d.dst.offset = 0xFFFFF000u;
  show("zero MASK, dst outside UB: NOP", validate(d, DType::f32, Mask128::none()), Status::ok);
  show("b32 MASK {hi=~0, lo=0}: NOP", validate(d, DType::f32, Mask128{~0ull, 0}), Status::ok);

  d = g;
  d.src0.offset = 16386;
  show("src0 misaligned by 2 bytes", validate(d, DType::f32), Status::misaligned, "src0.offset");
  d = g;
  d.src1.offset = kUb - 64 * 256 + 32;
  show("src1 last block past UB", validate(d, DType::f32), Status::out_of_bounds, "src1");
  d.src1.offset = kUb - 64 * 256;
  show("good: src1 ends at UB end", validate(d, DType::f32), Status::ok);

  d = g;
  d.repeat = 2;
  d.dst.offset = 256;
  d.src0.offset = 0;
  show("dst(repeat 0) == src0(repeat 1)", validate(d, DType::f32), Status::illegal_overlap, "dst");
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
  show("accumulator on src0", validate(d, DType::f32), Status::illegal_overlap, "dst");

  rd = ReduceDesc{};
  rd.dst = {MemSpace::UB, 8};
  show("vcadd dst inside its src block", validate(rd, DType::f32), Status::illegal_overlap, "dst");

  heading("unary (vabs/vexp/vln/vsqrt/vrsqrt/vrec/vrelu)");
  const UnaryDesc ug = good_exp();
  show("good: vexp 64x64", validate(ug, DType::f32), Status::ok);
  static_assert(is_valid<float>(good_exp()), "unary descriptors validate at compile time too");
  UnaryDesc u = ug;
  show("vexp on int16", validate(u, DType::i16), Status::desc_unsupported_dtype, "dtype");
  u.src_block_stride = 65536;
  show("src_block_stride=65536", validate(u, DType::f32), Status::desc_stride_out_of_range,
       "src_block_stride");
  u = ug;
  u.op = static_cast<UnaryOp>(42);
  show("unary op code 42", validate(u, DType::f32), Status::desc_unknown_op, "op");
  u = ug;
  u.dst.offset = 16;
  show("dst misaligned by 16 bytes", validate(u, DType::f32), Status::misaligned, "dst.offset");
  u = ug;
  u.repeat = 2;
  u.tail_elements = 3;
  show("repeat=2 with tail_elements=3", validate(u, DType::f32),
       Status::desc_tail_with_multiple_repeats, "tail_elements");

  heading("scalar (vadds/vmuls/vmaxs/vmins)");
  const ScalarDesc sg = good_muls();
  show("good: vmuls by 2.0", validate(sg, DType::f32), Status::ok);
  ScalarDesc sc = sg;
  show("vmuls on uint8", validate(sc, DType::u8), Status::desc_unsupported_dtype, "dtype");
  sc.dst_block_stride = 0;
  show("dst_block_stride=0", validate(sc, DType::f32), Status::desc_dst_block_stride_zero,
       "dst_block_stride");
  sc = sg;
  sc.dst.space = MemSpace::L0A;
  show("dst in L0A", validate(sc, DType::f32), Status::desc_operand_not_in_ub, "dst.space");
  sc = sg;
  sc.src.offset = kUb - 32 * 256;
  show("src runs past UB", validate(sc, DType::f32), Status::out_of_bounds, "src");
  sc = sg;
  sc.repeat_stride_mode = true;
  show("repeat_stride_mode=true", validate(sc, DType::f32), Status::desc_extension_mode_unsupported,
       "repeat_stride_mode");

  heading("reductions (destination units and alignment per op, docs/a2a3-vector-semantics.md section 7)");
  show("good: vcgadd, dst 8 sums per repeat", validate(reduce(ReduceOp::vcgadd, 65536), DType::f32),
       Status::ok);
  show("vcgadd dst 16 B off its 32 B unit",
       validate(reduce(ReduceOp::vcgadd, 65536 + 16), DType::f32), Status::misaligned,
       "dst.offset");
  ReduceDesc rr = reduce(ReduceOp::vcgadd, 65536);
  rr.dst_repeat_stride = 65536;
  show("vcgadd dst_repeat_stride=65536", validate(rr, DType::f32), Status::desc_stride_out_of_range,
       "dst_repeat_stride");
  show("good: vcpadd, dst 128 B per repeat", validate(reduce(ReduceOp::vcpadd, 65536), DType::f32),
       Status::ok);
  show("vcpadd dst 8 B off its 32 B unit",
       validate(reduce(ReduceOp::vcpadd, 65536 + 8), DType::f32), Status::misaligned, "dst.offset");
  show("vcpadd dst runs past UB", validate(reduce(ReduceOp::vcpadd, kUb - 63 * 128), DType::f32),
       Status::out_of_bounds, "dst");
  show("good: vcmax value_index, f16 dst at +2",
       validate(reduce(ReduceOp::vcmax, 65538), DType::f16), Status::ok);
  show("vcmax value_index f32, dst at +2", validate(reduce(ReduceOp::vcmax, 65538), DType::f32),
       Status::misaligned, "dst.offset");
  show("vcmax order code 9",
       validate(reduce(ReduceOp::vcmax, 65536, static_cast<ReduceOrder>(9)), DType::f32),
       Status::desc_unknown_op, "order");
  show("vcmin only_index (u32) f16, dst at +2",
       validate(reduce(ReduceOp::vcmin, 65538, ReduceOrder::only_index), DType::f16),
       Status::misaligned, "dst.offset");
  show("vcmin on int32", validate(reduce(ReduceOp::vcmin, 65536), DType::i32),
       Status::desc_unsupported_dtype, "dtype");

  heading("UB-to-UB copy (copy_ubuf_to_ubuf)");
  const CopyDesc cg = good_copy();
  show("good: 16 bursts x 8 blocks", validate(cg), Status::ok);
  CopyDesc cp = cg;
  cp.nburst = 0;
  show("nburst=0", validate(cp), Status::desc_copy_burst_out_of_range, "nburst");
  cp = cg;
  cp.burst_len = 70000;
  show("burst_len=70000", validate(cp), Status::desc_copy_burst_out_of_range, "burst_len");
  cp = cg;
  cp.src_gap = 65536;
  show("src_gap=65536", validate(cp), Status::desc_stride_out_of_range, "src_gap");
  cp = cg;
  cp.dst.offset = 8200;
  show("dst misaligned by 8 bytes", validate(cp), Status::misaligned, "dst.offset");
  cp = cg;
  cp.dst.offset = kUb - 2048;
  show("dst runs past UB", validate(cp), Status::out_of_bounds, "dst");
  cp = cg;
  cp.dst.offset = 2048;
  show("dst overlaps src", validate(cp), Status::illegal_overlap, "dst");

  heading("duplicate (vector_dup)");
  const DupDesc dg = good_dup();
  show("good: dup 1.0f, 8 repeats", validate(dg, DType::f32), Status::ok);
  DupDesc du = dg;
  show("dup on int8", validate(du, DType::i8), Status::desc_unsupported_dtype, "dtype");
  du.dst_repeat_stride = 65536;
  show("dst_repeat_stride=65536", validate(du, DType::f32), Status::desc_stride_out_of_range,
       "dst_repeat_stride");
  du = dg;
  du.mask_mode = MaskMode::count;
  du.vector_count = 100;
  show("count mode with repeat=8", validate(du, DType::f32),
       Status::desc_count_mode_needs_zero_repeat, "repeat");
  du = dg;
  du.dst.offset = 16;
  show("dst misaligned (f16)", validate(du, DType::f16), Status::misaligned, "dst.offset");

  heading("conversion (vconv)");
  const CvtDesc vg = good_cvt();
  show("good: f32 -> f16 rint", validate(vg), Status::ok);
  CvtDesc cv = vg;
  cv.src_type = DType::f16;
  cv.dst_type = DType::f32;
  show("f16 -> f32 with rint (exact: needs none)", validate(cv),
       Status::desc_conversion_unsupported, "round");
  cv = vg;
  cv.dst_repeat_stride = 256;
  show("dst_repeat_stride=256", validate(cv), Status::desc_stride_out_of_range,
       "dst_repeat_stride");
  cv = vg;
  cv.dst_block_stride = 0;
  show("dst_block_stride=0", validate(cv), Status::desc_dst_block_stride_zero, "dst_block_stride");
  cv = vg;
  cv.dst.offset = 256;
  show("dst overlaps a later src repeat", validate(cv), Status::illegal_overlap, "dst");

  heading("block broadcast (vbrcb)");
  const BrcbDesc bg = good_brcb();
  show("good: vbrcb f32, 8 repeats", validate(bg, DType::f32), Status::ok);
  BrcbDesc bb = bg;
  bb.repeat = 0;
  show("repeat=0", validate(bb, DType::f32), Status::desc_repeat_out_of_range, "repeat");
  bb = bg;
  show("vbrcb on int8", validate(bb, DType::i8), Status::desc_unsupported_dtype, "dtype");
  bb.src.offset = 16;
  show("src misaligned by 16 bytes", validate(bb, DType::f32), Status::misaligned, "src.offset");
  bb = bg;
  bb.dst.offset = 0;
  bb.src.offset = 224;
  show("dst blocks cover src", validate(bb, DType::f32), Status::illegal_overlap, "dst");

  example::print(g_failures == 0
                     ? "\nall descriptors got their expected status and field\n"
                     : "\nsome descriptors did not get their expected status or field\n");
  return g_failures == 0 ? 0 : 1;
}
