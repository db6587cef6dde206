// The slowest legal streams under the default work budget (bench/RESULTS.md, "the work
// budget"): a stream of identical commands on core 0's TIU, driven through sg2260::Simulator
// with default options (functional, hazard-checked, the default budget), until the budget
// stops it or the stream ends. Prints the work done, how the run ended and its CPU time (user +
// sys, of the run alone).
//
// usage: worst_budget ar|conv|cast|dma|reshape [commands]
//   ar:   strided int16 AR mul_satu (with a rounding right shift) of 64 x 8192, every operand
//         at w stride 2 (1500 commands by default)
//   conv: FP16 CONV of 64 x 64 x 1 outputs, 64 input channels x 16 x 16 kernel: 16384 taps
//         per output (800 commands by default)
//   cast: strided AR copy of 64 x 8192 int32 to FP16, both operands at w stride 2 (1500)
//   dma:  GDMA tensor copy of 2^18 int8 elements from DDR to DDR, both sides at w stride 2:
//         every element its own byte range (3000 commands on core 0's GDMA)
//   reshape: the same copy with the dst shaped 256 x 1024 instead of 512 x 512 (shapes that
//         differ: the element-by-element walk with its index maths)
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/port/port.hpp"

namespace {

using namespace tilefw;
namespace sg = chip::sg2260;
namespace host = port::host;
namespace sim = port::host::sg2260;
using cmd::CmdClass;
using cmd::Engine;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

void ar_command(const cmd::TiuLongRef& v) {
  v.set_res0_n(1); v.set_res0_c(64); v.set_res0_h(1); v.set_res0_w(8192);
  v.set_opt_res0_prec(3); v.set_opt_opd0_prec(3); v.set_opt_opd1_prec(3);
  v.set_opt_res0_sign(1); v.set_opt_opd0_sign(1); v.set_opt_opd1_sign(1);
  v.set_tsk_opd_num(3); v.set_opt_opd2_const(1); v.set_opd2_addr(0xFF);  // shift right by 1
  v.set_opd2_n_str(1);  // half away from zero
  v.set_short_res0_str(3); v.set_short_opd0_str(3); v.set_short_opd1_str(3);
  v.set_res0_w_str(2); v.set_opd0_w_str(2); v.set_opd1_w_str(2);
  v.set_res0_h_str(16384); v.set_opd0_h_str(16384); v.set_opd1_h_str(16384);
  v.set_opd0_addr(0); v.set_opd1_addr(0x8000); v.set_res0_addr(0x10000);
}

void cast_command(const cmd::TiuLongRef& v) {
  v.set_res0_n(1); v.set_res0_c(64); v.set_res0_h(1); v.set_res0_w(8192);
  v.set_opt_res0_prec(1); v.set_opt_opd0_prec(4); v.set_opt_opd0_sign(1);  // int32 -> FP16
  v.set_short_res0_str(3); v.set_short_opd0_str(3);
  v.set_res0_w_str(2); v.set_opd0_w_str(2);
  v.set_res0_h_str(16384); v.set_opd0_h_str(16384);
  v.set_opd0_addr(0); v.set_res0_addr(0x20000);
}

// DDR offsets of the dma stream's two sides (in the 4 MiB region of tag 29).
constexpr uint32_t kDmaElements = 1u << 18;
constexpr uint64_t kDmaDst = 0x100000;

void dma_command(const cmd::DmaTensorRef& d, bool reshape) {
  d.set_src_data_format(0);  // int8
  d.set_nchw_copy(reshape ? 0 : 1);
  const uint32_t dst_h = reshape ? 256 : 512;
  d.set_src_nsize(1); d.set_src_csize(1); d.set_src_hsize(512); d.set_src_wsize(kDmaElements / 512);
  d.set_dst_nsize(1); d.set_dst_csize(1); d.set_dst_hsize(dst_h); d.set_dst_wsize(kDmaElements / dst_h);
  d.set_src_nstride(2 * kDmaElements); d.set_src_cstride(2 * kDmaElements); d.set_src_hstride(2 * kDmaElements / 512);
  d.set_src_wstride(2);
  d.set_dst_nstride(2 * kDmaElements); d.set_dst_cstride(2 * kDmaElements); d.set_dst_hstride(2 * kDmaElements / dst_h);
  d.set_dst_wstride(2);
  const uint64_t src = sg::make_dma_address(29, 0), dst = sg::make_dma_address(29, kDmaDst);
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
}

void conv_command(const cmd::TiuLongRef& v) {
  v.set_res0_n(1); v.set_res0_c(64); v.set_res0_h(64); v.set_res0_w(1);
  v.set_opd0_c(64); v.set_opd0_h(79); v.set_opd0_w(16); v.set_opd1_h(16); v.set_opd1_w(16);
  v.set_opt_res0_prec(1); v.set_opt_opd0_prec(1); v.set_opt_opd1_prec(1); v.set_opt_opd2_prec(1);
  v.set_res_op_x_str(1); v.set_res_op_y_str(1);
  v.set_opt_opd2_const(1); v.set_opt_opd3_const(1);
  v.set_opd0_addr(0); v.set_opd1_addr(0x1000); v.set_res0_addr(0x10000);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "";
  const bool ar = kind == "ar", conv = kind == "conv", cast = kind == "cast", reshape = kind == "reshape";
  const bool dma = kind == "dma" || reshape;
  if (!ar && !conv && !cast && !dma) {
    std::fprintf(stderr, "usage: worst_budget ar|conv|cast|dma|reshape [commands]\n");
    return 2;
  }
  const uint32_t commands =
      argc > 2 ? static_cast<uint32_t>(std::stoul(argv[2])) : (conv ? 800 : dma ? 3000 : 1500);
  host::Machine machine{host::kProfileSg2260};
  host::ScopedMachine scope{machine};
  // DDR tag 29: the dma stream's two sides below 2 MiB, the command stream from 2 MiB.
  constexpr uint64_t kStreamOffset = 0x200000;
  if (uint64_t{commands} * 128 + 4096 > (uint64_t{6} << 20)) return 2;
  if (machine.add_region(sg::ddr_region(29, 0, 8 << 20)) != Status::ok) return 1;
  // random LMEM and DDR contents (finite FP16 values for the conv: exponent field below 31)
  std::mt19937 rng(1);
  for (const chip::MemoryRegion& r : {sg::lmem_region(0), sg::ddr_region(29, 0, kStreamOffset)}) {
    uint8_t* p = machine.translate(r.device_base, r.size).value();
    for (uint64_t i = 0; i + 1 < r.size; i += 2) {
      const uint16_t v = static_cast<uint16_t>(rng()) & (conv ? 0xBBFFu : 0xFFFFu);
      std::memcpy(p + i, &v, 2);
    }
  }
  sim::SimOptions o;  // defaults: functional, hazard-checked, the default budget
  sim::Simulator s(machine, o);
  std::vector<uint8_t> buf(uint64_t{commands} * 128 + 4096);
  cmd::CommandBuilder w(dma ? Engine::gdma : Engine::tiu, ByteSpan(buf.data(), buf.size()));
  for (uint32_t i = 0; i < commands; ++i) {
    if (dma) {
      dma_command(cmd::DmaTensorRef(w.append(CmdClass::dma_tensor, 0).value()), reshape);
      continue;
    }
    const cmd::TiuLongRef v(w.append(conv ? CmdClass::CONV : CmdClass::AR, ar ? 20 : cast ? 19 : 0).value());
    if (ar) ar_command(v);
    else if (cast) cast_command(v);
    else conv_command(v);
  }
  if (w.end() != Status::ok) return 1;
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, kStreamOffset);
  if (port::copy_to_device(base, buf.data(), w.size()) != Status::ok) return 1;
  const double t0 = cpu_seconds();
  s.start(0, dma ? sim::kGdma : sim::kTiu, base, w.size());
  const Status st = s.run();
  const double t1 = cpu_seconds();
  std::printf("%s x %u: work %llu (budget %llu), status %s, %s; %.2f s of CPU (user + sys)\n", kind.c_str(), commands,
              static_cast<unsigned long long>(s.work_done()), static_cast<unsigned long long>(o.max_work),
              status_name(st), s.fault_message(0, dma ? sim::kGdma : sim::kTiu).c_str(), t1 - t0);
  return 0;
}
