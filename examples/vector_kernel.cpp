// A small a2a3 vector kernel: a masked vadd (only the first 32 of 64 f32 lanes), then a vcadd
// row sum over the result. On the host it runs on the simulator and checks the numbers; on a
// Cortex-M board without an NPU (the QEMU boards) it checks the register image the issue layer
// emitted instead, since nothing executes the issues there.
#include <cstdint>
#include <cstring>

#include "example_print.hpp"
#include "tilefw/port/port.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/data/vector_desc.hpp"
#include "tilefw/issue/vector_issue.hpp"

#if !defined(TILEFW_EXAMPLE_TARGET)
#include "a2a3/vector_unit.hpp"
#include "machine.hpp"
#endif

namespace {

using tilefw::Status;
namespace a2a3 = tilefw::chip::a2a3;
namespace desc = tilefw::desc;
namespace issue = tilefw::issue;

constexpr uint32_t kSrc0 = 0;     // 64 f32: 1, 2, ..., 64
constexpr uint32_t kSrc1 = 256;   // 64 f32: 0.5
constexpr uint32_t kDst = 512;    // 64 f32, pre-filled with -1
constexpr uint32_t kSum = 768;    // one f32

Status write_f32(uint32_t ub_offset, const float* values, uint32_t count) {
  return tilefw::port::copy_to_device(a2a3::kUb.device_base + ub_offset, values, count * 4u);
}

int run_kernel() {
  float a[64];
  float b[64];
  float d[64];
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<float>(i + 1);
    b[i] = 0.5f;
    d[i] = -1.0f;
  }
  if (write_f32(kSrc0, a, 64) != Status::ok || write_f32(kSrc1, b, 64) != Status::ok ||
      write_f32(kDst, d, 64) != Status::ok) {
    example::print("cannot place the operands in UB\n");
    return 1;
  }

  issue::VectorUnit vu;
  issue::reset(vu);

  // 1. masked vadd: MASK selects lanes 0..31; lanes 32..63 of dst keep their -1.
  issue::set_mask(vu, 0, 0x0000'0000'FFFF'FFFFull);
  desc::BinIntrinsicDesc add{};
  add.op = desc::BinaryOp::vadd;
  add.repeat = 1;
  add.dst = {tilefw::chip::MemSpace::UB, kDst};
  add.src0 = {tilefw::chip::MemSpace::UB, kSrc0};
  add.src1 = {tilefw::chip::MemSpace::UB, kSrc1};
  const Status s1 = issue::issue_once<float>(vu, add);
  example::print("vadd (mask lanes 0..31): ");
  example::print(tilefw::status_name(s1));
  example::print("\n");

  // 2. vcadd over all 64 lanes of dst: one sum for the repeat.
  issue::set_mask(vu, ~0ull, ~0ull);
  desc::ReduceDesc sum{};
  sum.op = desc::ReduceOp::vcadd;
  sum.repeat = 1;
  sum.dst = {tilefw::chip::MemSpace::UB, kSum};
  sum.src = {tilefw::chip::MemSpace::UB, kDst};
  const Status s2 = issue::issue_once<float>(vu, sum);
  example::print("vcadd (row sum):         ");
  example::print(tilefw::status_name(s2));
  example::print("\n");
  if (s1 != Status::ok || s2 != Status::ok) return 1;

#if !defined(TILEFW_EXAMPLE_TARGET)
  float out[64];
  float total = 0;
  if (tilefw::port::copy_from_device(out, a2a3::kUb.device_base + kDst, sizeof out) != Status::ok ||
      tilefw::port::copy_from_device(&total, a2a3::kUb.device_base + kSum, 4) != Status::ok) {
    return 1;
  }
  example::print("dst[0..3] =");
  for (int i = 0; i < 4; ++i) {
    example::print(" ");
    example::print_double(out[i]);
  }
  example::print(", dst[31] = ");
  example::print_double(out[31]);
  example::print(", dst[32] = ");
  example::print_double(out[32]);
  example::print(" (kept)\n");
  // Lanes 0..31: (i+1)+0.5, sum 528 + 16; lanes 32..63: -1 each, sum -32. Every partial sum
  // is a multiple of 0.5 below 2^23, so the tree order gives exactly 512.
  example::print("row sum = ");
  example::print_double(total);
  example::print(" (expected 512)\n");
  bool ok = total == 512.0f;
  for (int i = 0; i < 64; ++i) ok = ok && out[i] == (i < 32 ? a[i] + 0.5f : -1.0f);
  example::print(ok ? "results match\n" : "MISMATCH\n");
  return ok ? 0 : 1;
#else
  // No NPU behind the stand-in registers: check what was emitted for the last issue.
  namespace vreg = a2a3::vreg;
  const uint64_t base = a2a3::kVectorUnitRegisters.base;
  const bool ok = tilefw::port::reg_read32(base + vreg::kMaskLo) == 0xFFFFFFFFu &&
                  tilefw::port::reg_read32(base + vreg::kMaskHi) == 0xFFFFFFFFu &&
                  tilefw::port::reg_read32(base + vreg::kDstAddr) == kSum &&
                  tilefw::port::reg_read32(base + vreg::kSrc0Addr) == kDst &&
                  tilefw::port::reg_read32(base + vreg::kRepeat) == 1u;
  example::print(ok ? "register image of the vcadd issue: as expected\n"
                    : "register image of the vcadd issue: WRONG\n");
  return ok ? 0 : 1;
#endif
}

}  // namespace

int main() {
#if !defined(TILEFW_EXAMPLE_TARGET)
  // Host: a simulated a2a3 machine with its vector unit listening on the doorbell.
  tilefw::port::host::Machine machine(tilefw::port::host::kProfileA2a3);
  tilefw::port::host::ScopedMachine scope(machine);
  tilefw::port::host::A2a3VectorUnit simulator(machine);
#endif
  return run_kernel();
}
