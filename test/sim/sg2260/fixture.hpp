// The fixture the SG2260 simulator's per-class tests share: one machine with DDR tag 1
// (64 KiB), pointers into its DDR / L2 / LMEM, a zeroed command of a class, and execution of
// one command on core 0 (sim::execute_command, no scheduler).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "machine.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/views.hpp"

namespace simtest {

using tilefw::ByteSpan;
using tilefw::Status;
namespace cmd = tilefw::cmd;
using cmd::CmdClass;
using cmd::Engine;
namespace sg = tilefw::chip::sg2260;
namespace host = tilefw::port::host;
namespace sim = tilefw::port::host::sg2260;

inline constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;
/// DMA addresses: DDR tag 1, L2, and LMEM (lane, offset) of the issuing core.
inline uint64_t ddr1(uint64_t off) { return sg::make_dma_address(1, off); }
inline uint64_t l2(uint64_t off) { return sg::make_dma_address(sg::kTagL2, sg::kL2Base + off); }
inline uint64_t lmem(uint32_t lane, uint32_t off) { return kLmem | (uint64_t{lane} << 18) | off; }

/// A zeroed command of `cls` (TIU or GDMA by class) in a 128-byte buffer.
struct Cmd {
  uint8_t b[128] = {};
  Cmd(CmdClass cls, uint32_t eu) {
    cmd::CommandBuilder w(cmd::is_tiu_class(cls) ? Engine::tiu : Engine::gdma, ByteSpan(b, sizeof b));
    EXPECT_TRUE(w.append(cls, eu).ok());
  }
};

inline void dma_addrs(const cmd::DmaCommonRef& d, uint64_t src, uint64_t dst) {
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
}

struct Bench {
  host::Machine machine{host::kProfileSg2260};
  Bench() { EXPECT_EQ(machine.add_region(sg::ddr_region(1, 0, 65536)), Status::ok); }
  uint8_t* ddr(uint64_t off) { return machine.translate(sg::kDdrWindowBase + ddr1(off), 1).value(); }
  uint8_t* l2p(uint64_t off) { return machine.translate(sg::kL2Base + off, 1).value(); }
  /// Core 0's LMEM byte at (lane, offset).
  uint8_t* lm(uint32_t lane, uint32_t off) {
    return machine.translate(sg::lmem_region(0).device_base + uint64_t{lane} * sg::kLaneBytes + off, 1).value();
  }
  template <typename T>
  T get(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <typename T>
  void put(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }
  /// Executes one command on core 0; `out`, when given, receives the simulator's message.
  Status exec(Engine e, const uint8_t* data, std::string* out = nullptr) {
    std::string msg;
    const Status s = sim::execute_command(machine, 0, static_cast<uint32_t>(e), data, msg);
    if (out != nullptr) *out = msg;
    return s;
  }
};

}  // namespace simtest
