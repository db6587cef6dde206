// What the CDMA tests share: a System of N chips with DDR tag 1 (4 MiB each), one CDMA stream
// builder per (chip, peer), and loading / starting the streams. Collective schedules are
// built here from the n-cmd builders (cdma_send, cdma_recv, cdma_msg).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/system.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/cdma_system.hpp"

namespace cdmatest {

using tilefw::ByteSpan;
using tilefw::Status;
namespace cmd = tilefw::cmd;
namespace sg = tilefw::chip::sg2260;
namespace host = tilefw::port::host;
namespace sim = tilefw::port::host::sg2260;

inline constexpr uint64_t kDdrBytes = 4u << 20;
inline constexpr uint64_t kStreamBase = 3u << 20;  // streams live above the data
inline uint64_t ddr1(uint64_t off) { return sg::make_dma_address(1, off); }

struct Stream {
  std::vector<uint8_t> buffer = std::vector<uint8_t>(1 << 16);
  cmd::CommandBuilder b{cmd::Engine::cdma, ByteSpan(buffer.data(), buffer.size())};
};

struct Cluster {
  std::unique_ptr<sim::System> system;
  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<Stream>> streams;
  /// The chips' core streams a test starts itself, for the static message check; tests that
  /// build an unsatisfiable wait on purpose clear `check_messages`.
  std::vector<cmd::CoreStream> core_streams;
  bool check_messages = true;

  Cluster(uint32_t chips, const std::string& topology, bool functional = true, cmd::C2cFigures c2c = {}) {
    sim::SystemOptions o;
    o.chips = chips;
    o.topology = topology;
    o.c2c = c2c;
    o.sim.functional = functional;
    o.ddr = {sg::ddr_region(1, 0, kDdrBytes)};
    system = std::make_unique<sim::System>(o);
  }
  sim::System& sys() { return *system; }
  uint8_t* ddr(uint32_t chip, uint64_t off) {
    return system->machine(chip).translate(sg::kDdrWindowBase + ddr1(off), 1).value();
  }
  cmd::CommandBuilder& on(uint32_t chip, uint32_t peer) {
    auto& s = streams[{chip, peer}];
    if (!s) s = std::make_unique<Stream>();
    return s->b;
  }
  static cmd::CdmaTensor flat(uint64_t off, uint32_t elements, uint32_t format = cmd::kCdmaFormatFp32) {
    cmd::CdmaTensor t;
    t.addr = ddr1(off);
    t.format = format;
    t.w = elements;
    t.hstride = elements;
    t.cstride = elements;
    t.nstride = elements;
    return t;
  }
  void send(uint32_t chip, uint32_t peer, uint64_t off, uint32_t n, bool psum, uint32_t fmt = cmd::kCdmaFormatFp32) {
    EXPECT_EQ(cmd::cdma_send(on(chip, peer), flat(off, n, fmt), psum), Status::ok);
  }
  void recv(uint32_t chip, uint32_t peer, uint64_t off, uint32_t n, uint32_t reduce,
            uint32_t fmt = cmd::kCdmaFormatFp32) {
    EXPECT_EQ(cmd::cdma_recv(on(chip, peer), flat(off, n, fmt), reduce), Status::ok);
  }
  void msg(uint32_t chip, uint32_t peer, cmd::CdmaSysOp op, uint32_t id, uint32_t cnt = 1) {
    EXPECT_EQ(cmd::cdma_msg(on(chip, peer), op, id, cnt), Status::ok);
  }
  /// Ends every stream, copies each into its chip's DDR and starts it on the port for its peer.
  /// Every schedule a test runs passes the static message check (Rule: reachable message
  /// waits): no false refusal of what runs to completion.
  void start() {
    std::vector<cmd::CdmaStream> cdma;
    for (auto& [key, s] : streams) {
      EXPECT_EQ(s->b.end(), Status::ok);
      cdma.push_back(cmd::CdmaStream{key.first, key.second, s->b.bytes()});
    }
    if (check_messages) {
      const cmd::SystemValidation v = cmd::validate_messages(
          system->chips(), tilefw::Span<const cmd::CoreStream>(core_streams.data(), core_streams.size()),
          tilefw::Span<const cmd::CdmaStream>(cdma.data(), cdma.size()));
      EXPECT_TRUE(v.ok()) << "chip " << v.chip << " command " << v.report.command_id << ": " << v.report.message;
    }
    uint64_t off = kStreamBase;
    for (auto& [key, s] : streams) {
      const size_t bytes = s->b.size();
      std::memcpy(ddr(key.first, off), s->buffer.data(), bytes);
      system->start_cdma(key.first, key.second, sg::kDdrWindowBase + ddr1(off), bytes);
      off += (bytes + 255) / 256 * 256;
    }
  }
  Status run() {
    start();
    return system->run();
  }
  uint64_t cycles() const {
    uint64_t c = 0;
    for (uint32_t k = 0; k < system->chips(); ++k) c = std::max(c, system->chip_stats(k).cycles);
    return c;
  }
};

}  // namespace cdmatest
