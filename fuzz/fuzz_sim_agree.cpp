// Structure-aware libFuzzer target (hostile input, the fuzzing class): builds valid-looking SG2260
// streams for
// core 0 from the input -- a TIU and a GDMA stream of commands of the classes the simulator
// executes, every field of each command's layout taken from the input, then the end commands
// -- and checks that validation and the simulator agree and that a run ends within its work
// bound:
//   - a core validate_core accepts runs without a fault of the kinds validation decides
//     (addresses, footprints, fields): the simulator may only refuse an operation it does not
//     implement (sim_unsupported_op), the work budget (capacity_exceeded), a command no real
//     buffer can be (cmd_footprint_out_of_range from command_extent, "refused before running"),
//     or an SGL index past its rows (data, not the command);
//   - the run finishes (no event loop left running) with the work done <= the budget.
// Abort on violation. Input: byte 0 = commands per stream (mod 8), then per command a class
// selector byte and the layout's field values, 8 input bytes per field.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "machine.hpp"
#include "tilefw/port/port.hpp"
#include "sg2260/sim.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/views.hpp"

using namespace tilefw;
namespace sg = chip::sg2260;
namespace sim = port::host::sg2260;
using cmd::CmdClass;

namespace {
void require(bool c) {
  if (!c) std::abort();
}

struct Input {
  const uint8_t* p;
  size_t n;
  uint64_t take() {
    uint64_t v = 0;
    const size_t k = n < 8 ? n : 8;
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
};

struct Kind {
  CmdClass cls;
  uint32_t eu;
};
constexpr Kind kTiu[] = {{CmdClass::AR, 2}, {CmdClass::sAR, 0}, {CmdClass::MM2, 4}, {CmdClass::sMM2, 5},
                         {CmdClass::CW_BC, 3}, {CmdClass::sCW_sBC, 0}, {CmdClass::SFU, 17},
                         {CmdClass::CMP, 22}, {CmdClass::sCMP, 24}, {CmdClass::RQ_DQ, 1}, {CmdClass::sRQ_sDQ, 0},
                         {CmdClass::SGL, 17}, {CmdClass::sSGL, 18}};
constexpr Kind kDma[] = {{CmdClass::dma_tensor, 0}, {CmdClass::dma_tensor, 1}, {CmdClass::dma_general, 0},
                         {CmdClass::dma_matrix, 0}, {CmdClass::dma_gather, 0}, {CmdClass::dma_scatter, 0}};

// Field values: mostly small (a real shape), sometimes anything, addresses near real ones.
uint64_t value(const cmd::FieldDesc& f, uint64_t r) {
  const std::string name = f.name;
  if (name == "cmd_id_dep" || name == "tsk_eu_typ" || name == "tsk_typ" || name == "cmd_type" ||
      name == "cmd_special_function" || name == "cmd_short" || name.rfind("eu", 0) == 0) {
    return ~uint64_t{0};  // marker: keep what the builder wrote
  }
  switch (r & 3) {
    case 0: return (r >> 2) & 0xF;
    case 1: return (r >> 2) & 0xFF;
    case 2: return r >> 2;
    default: return (r >> 2) & 0x3FFFF;
  }
}

void fill(uint8_t* p, CmdClass cls, Input& in) {
  for (const cmd::FieldDesc& f : cmd::fields_of(cls)) {
    const uint64_t v = value(f, in.take());
    if (v == ~uint64_t{0}) continue;
    if (cmd::field_fits(f, v)) {
      cmd::write_field(p, f, v);
    } else {
      cmd::write_field(p, f, v & ((f.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << f.width) - 1)));
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Input in{data + 1, size - 1};
  const uint32_t per_stream = data[0] % 8;
  std::vector<uint8_t> tiu(4096), gdma(4096);
  cmd::CommandBuilder t(cmd::Engine::tiu, ByteSpan(tiu.data(), tiu.size()));
  cmd::CommandBuilder g(cmd::Engine::gdma, ByteSpan(gdma.data(), gdma.size()));
  for (uint32_t i = 0; i < per_stream && in.n > 0; ++i) {
    const Kind kt = kTiu[in.take() % (sizeof kTiu / sizeof kTiu[0])];
    Result<uint8_t*> pt = t.append(kt.cls, kt.eu);
    if (pt.ok()) fill(pt.value(), kt.cls, in);
    const Kind kd = kDma[in.take() % (sizeof kDma / sizeof kDma[0])];
    Result<uint8_t*> pd = g.append(kd.cls, kd.eu);
    if (pd.ok()) fill(pd.value(), kd.cls, in);
  }
  if (t.end() != Status::ok || g.end() != Status::ok) return 0;

  port::host::Machine machine(port::host::kProfileSg2260);
  port::host::ScopedMachine scope(machine);
  const cmd::DdrRegion map[2] = {{1, sg::make_dma_address(1, 0), 65536}, {29, sg::make_dma_address(29, 0), 16384}};
  require(machine.add_region(sg::ddr_region(1, 0, 65536)) == Status::ok);
  require(machine.add_region(sg::ddr_region(29, 0, 16384)) == Status::ok);
  cmd::ValidateOptions o;
  o.use_memory_map = true;
  o.ddr_regions = Span<const cmd::DdrRegion>(map, 1);  // the streams' region is not the model's
  const cmd::ValidationReport r = cmd::validate_core({ConstByteSpan(tiu.data(), t.size()), ConstByteSpan(gdma.data(), g.size()), {}}, o);
  if (!r.ok()) return 0;
  sim::SimOptions so;
  so.max_work = 1u << 22;
  sim::Simulator s(machine, so);
  const uint64_t base = sg::kDdrWindowBase + sg::make_dma_address(29, 0);
  require(port::copy_to_device(base, tiu.data(), t.size()) == Status::ok);
  require(port::copy_to_device(base + 8192, gdma.data(), g.size()) == Status::ok);
  s.start(0, 0, base, t.size());
  s.start(0, 1, base + 8192, g.size());
  const Status st = s.run();
  require(s.work_done() <= so.max_work);
  if (st == Status::ok || st == Status::rt_deadlock) return 0;  // a fault elsewhere can leave the peer blocked
  for (uint32_t e = 0; e < 2; ++e) {
    const Status f = s.fault_code(0, e);
    if (f == Status::ok) continue;
    const std::string& m = s.fault_message(0, e);
    const bool allowed = f == Status::sim_unsupported_op || f == Status::capacity_exceeded ||
                         (f == Status::cmd_footprint_out_of_range && m.find("refused before running") != std::string::npos) ||
                         // an SGL index past its rows: data, which validation cannot see
                         (f == Status::cmd_footprint_out_of_range && m.find("rows") != std::string::npos &&
                          m.find("index") != std::string::npos);
    if (!allowed) {
      std::fprintf(stderr, "validate accepted, the simulator faulted: engine %u command %u: %s: %s\n", e,
                   s.fault_command(0, e), status_name(f), m.c_str());
      std::abort();
    }
  }
  return 0;
}
