// The SG2260 simulator's engines (see sim.cpp for the scheduler): starting and resetting an
// engine, decoding its stream into ops, and publishing its state to the registers and reports.
#include "sg2260/sim.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "tilefw/cmd/classes.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::port::host::sg2260 {

namespace sg = chip::sg2260;
namespace regs = chip::sg2260::regs;
using cmd::CmdClass;

namespace {

// The SG2260 SDMA moves between DDR and L2 (the vendor's SDMA operand checks refuse local
// memory on either side); the simulator faults such a command itself rather than trusting the
// runtime's validation. Tag 31 is LMEM, or SMEM with bit 26.
bool sdma_touches_local(const cmd::Command& c) noexcept {
  const auto local = [](uint64_t a) { return sg::dma_tag(a) == sg::kTagLmem; };
  switch (c.cls) {
    case CmdClass::dma_gather:
    case CmdClass::dma_scatter: {
      const cmd::DmaGatherScatterView v = c.as<cmd::DmaGatherScatterView>();
      return local(v.src_start_addr()) || local(v.dst_start_addr()) || local(v.index_start_addr());
    }
    case CmdClass::dma_tensor:
    case CmdClass::dma_general: {
      const cmd::DmaCommonView v = c.as<cmd::DmaCommonView>();
      return (v.fill_constant_en() == 0 && local(v.src_start_addr())) || local(v.dst_start_addr());
    }
    case CmdClass::dma_masked_select:
      return local(c.as<cmd::DmaMaskedSelectView>().mask_start_addr()) ||
             local(c.as<cmd::DmaCommonView>().src_start_addr()) || local(c.as<cmd::DmaCommonView>().dst_start_addr());
    case CmdClass::dma_nonzero:
    case CmdClass::dma_matrix:
    case CmdClass::dma_cw_transpose:
    case CmdClass::dma_reverse:
    case CmdClass::dma_randmask:
    case CmdClass::dma_transfer: {
      const cmd::DmaCommonView v = c.as<cmd::DmaCommonView>();
      return local(v.src_start_addr()) || local(v.dst_start_addr());
    }
    default: return false;
  }
}
const char* kEngineNames[] = {"tiu", "gdma", "sdma", "hau"};
namespace t2 = chip::sg2260::timing_v2;

const char* state_name(uint32_t s) {
  switch (s) {
    case regs::kIdle: return "idle";
    case regs::kRunning: return "running";
    case regs::kBlockedDep: return "blocked on dep";
    case regs::kBlockedMsg: return "blocked on msg";
    case regs::kFault: return "fault";
  }
  return "?";
}

}  // namespace

void Simulator::start(uint32_t core, uint32_t kind, uint64_t device_addr, uint64_t bytes, uint32_t tag) {
  Engine& en = engine(core, kind);
  drop_flow(en, machine_.now());
  en.generation++;
  event_key_[core * regs::kEngines + kind] = kNoEvent;
  ++event_epoch_;
  en.tag = tag & regs::kQueueTagMask;
  en.next = 0;
  en.completed = 0;
  en.in_flight = false;
  en.hung = false;
  en.fault_code = Status::ok;
  en.fault_cmd = 0;
  en.fault_message.clear();
  en.state = regs::kRunning;
  en.dirty = true;
  Result<uint8_t*> p = machine_.translate(device_addr, bytes);
  if (!p.ok()) {
    en.ops.clear();
    en.cached_bytes = 0;
    fault(en, 1, p.status(), "stream not in device memory");
  } else {
    // Firmware resubmits the same buffers (a model runs many times): an unchanged stream at
    // the same place reuses its decoded form; the content hash proves it is unchanged.
    const uint64_t hash = options_.cache_streams ? stream_hash(p.value(), bytes) : 0;
    Status s = Status::ok;
    if (!options_.cache_streams || en.cached_bytes != bytes || en.stream != p.value() ||
        en.cached_hash != hash || en.ops.empty()) {
      en.ops.clear();
      en.cached_bytes = 0;
      s = decode(en, p.value(), bytes);
      if (s == Status::ok) {
        en.cached_bytes = bytes;
        en.cached_hash = hash;
      }
    }
    if (s == Status::ok) {
      if (checking()) hazards_.on_start(core * regs::kEngines + kind);
      if (checking() && observer_.on_start) observer_.on_start(core * regs::kEngines + kind);
      schedule(core * regs::kEngines + kind, machine_.now());
    }
  }
  publish();
}

void Simulator::reset(uint32_t core, uint32_t kind) {
  Engine& en = engine(core, kind);
  drop_flow(en, machine_.now());
  en.generation++;  // events of the old submission (a late completion) are dropped
  event_key_[core * regs::kEngines + kind] = kNoEvent;
  ++event_epoch_;
  en.tag = 0;
  // The decoded form stays: it is only reused for the same bytes (start() checks).
  en.next = 0;
  en.completed = 0;
  en.in_flight = false;
  en.hung = false;
  en.state = regs::kIdle;
  en.fault_code = Status::ok;
  en.fault_cmd = 0;
  en.dirty = true;
  publish();
}

// The HAU's sync commands: a send or wait of the chip-wide message barriers, costing
// timing_v1::kSysCycles like TIU SYS / DMA sys ones (plus the wait; v2 keeps it), touching
// no memory.
Status Simulator::decode_hau(Engine& en, const uint8_t* data, uint64_t bytes) {
  en.stream = data;
  cmd::HauWalker w(ConstByteSpan(data, static_cast<size_t>(bytes)));
  cmd::HauCommand c;
  while (w.next(c)) {
    Op op;
    op.offset = static_cast<uint32_t>(c.offset);
    op.cls = static_cast<uint8_t>(CmdClass::none);
    op.cycles = chip::sg2260::timing_v1::kSysCycles;
    op.sync = c.is_send() ? 1 : 2;
    op.msg_id = static_cast<uint16_t>(c.msg_id);
    op.msg_cnt = static_cast<uint8_t>(c.msg_cnt);
    en.ops.push_back(op);
  }
  if (w.status() != Status::ok) {
    fault(en, w.error_id(), w.status(), std::string("HAU stream does not decode: ") + w.message());
    return w.status();
  }
  return Status::ok;
}

Status Simulator::decode(Engine& en, const uint8_t* data, uint64_t bytes) {
  if (en.kind == kHau) return decode_hau(en, data, bytes);
  en.stream = data;
  const cmd::Engine ce = static_cast<cmd::Engine>(en.kind);
  cmd::Command c;
  {  // one counting walk first: the Op table is sized once (growing it moved ~half the decode time)
    cmd::Walker count(ce, ConstByteSpan(data, static_cast<size_t>(bytes)));
    size_t n = 0;
    while (count.next(c)) ++n;
    en.ops.reserve(n);
  }
  cmd::Walker w(ce, ConstByteSpan(data, static_cast<size_t>(bytes)));
  while (w.next(c)) {
    Op op;
    op.offset = static_cast<uint32_t>(c.offset);
    op.cls = static_cast<uint8_t>(c.cls);
    op.eu = static_cast<uint8_t>(c.eu);
    op.dep = c.dep_enabled() ? c.dep_id() : 0;
    uint64_t cycles = 0;
    DmaDemand d;
    command_cost(en.kind, c.data, cycles, op.bytes, op.ops, options_.timing, &d);
    op.cycles = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(cycles, 0xFFFFFFFFu)));
    if (options_.timing == TimingModel::v2 && en.kind != kTiu && d.bytes != 0) {
      op.flow = true;
      op.startup = d.startup;
      // A what-if's servers scale each engine's cap with them (an engine's cap is its share of
      // the memory it touches).
      double cap = d.cap;
      if (d.ddr != 0 && options_.ddr_bytes_per_cycle > 0) cap *= options_.ddr_bytes_per_cycle / t2::kDdrBytesPerCycle;
      if (d.ddr == 0 && d.l2 != 0 && options_.l2_bytes_per_cycle > 0) cap *= options_.l2_bytes_per_cycle / t2::kL2BytesPerCycle;
      op.cap = static_cast<uint16_t>(std::clamp(cap, 1.0, 65535.0));
      op.ddr = d.ddr;
      op.l2 = d.l2;
    }
    if (c.cls == CmdClass::SYS && (c.eu == 8 || c.eu == 9)) {
      const cmd::SysView v = c.as<cmd::SysView>();
      op.sync = c.eu == 8 ? 1 : 2;
      op.msg_id = static_cast<uint16_t>(v.msg_id());
      op.msg_cnt = static_cast<uint8_t>(v.msg_cnt());
    } else if (c.cls == CmdClass::dma_sys && (c.eu == 3 || c.eu == 4)) {
      const cmd::DmaSysView v = c.as<cmd::DmaSysView>();
      op.sync = c.eu == 3 ? 1 : 2;
      op.msg_id = static_cast<uint16_t>(v.msg_id());
      op.msg_cnt = static_cast<uint8_t>(v.msg_cnt());
    } else if (c.is_end()) {
      op.sync = 3;
    }
    if (en.kind == kSdma) op.unreachable = sdma_touches_local(c);
    en.ops.push_back(op);
  }
  if (w.status() != Status::ok) {
    fault(en, w.error_id(), w.status(), std::string("stream does not decode: ") + w.message());
    return w.status();
  }
  return Status::ok;
}

void Simulator::publish() {
  for (Engine& en : engines_) {
    if (!en.dirty) continue;
    en.dirty = false;
    machine_.write32(regs::engine_reg(en.core, en.kind, regs::kCompleted), regs::completed_value(en.tag, en.completed));
    machine_.write32(regs::engine_reg(en.core, en.kind, regs::kStatus), en.state);
    machine_.write32(regs::engine_reg(en.core, en.kind, regs::kFaultCode),
                     static_cast<uint32_t>(en.fault_code));
    machine_.write32(regs::engine_reg(en.core, en.kind, regs::kFaultCmd), en.fault_cmd);
    machine_.write32(regs::engine_reg(en.core, en.kind, regs::kCycleLo), static_cast<uint32_t>(en.last_end));
    machine_.write32(regs::engine_reg(en.core, en.kind, regs::kCycleHi),
                     static_cast<uint32_t>(en.last_end >> 32));
  }
}

uint32_t Simulator::state(uint32_t core, uint32_t kind) const noexcept { return engine(core, kind).state; }
uint32_t Simulator::completed(uint32_t core, uint32_t kind) const noexcept {
  return engine(core, kind).completed;
}
const std::string& Simulator::fault_message(uint32_t core, uint32_t kind) const noexcept {
  return engine(core, kind).fault_message;
}

std::string Simulator::blocked_report() const {
  std::string out;
  char line[160];
  for (const Engine& en : engines_) {
    if (en.state == regs::kIdle) continue;
    const uint32_t id = en.state == regs::kFault ? en.fault_cmd : static_cast<uint32_t>(en.next) + 1;
    std::snprintf(line, sizeof line, "core %u %s command %u: %s", en.core, kEngineNames[en.kind], id,
                  state_name(en.state));
    out += line;
    if (en.state == regs::kBlockedMsg && en.next < en.ops.size()) {
      std::snprintf(line, sizeof line, " %u (count %u of %u)", en.ops[en.next].msg_id,
                    msg_count_[en.ops[en.next].msg_id], en.ops[en.next].msg_cnt);
      out += line;
    } else if (en.state == regs::kBlockedDep && en.next < en.ops.size()) {
      std::snprintf(line, sizeof line, " (needs %u completed %s commands)", en.ops[en.next].dep,
                    kEngineNames[dep_peer(en.kind)]);
      out += line;
    } else if (en.state == regs::kFault) {
      out += std::string(" ") + status_name(en.fault_code) + ": " + en.fault_message;
    }
    out += "\n";
  }
  return out;
}

EngineStats Simulator::stats(uint32_t core, uint32_t kind) const noexcept {
  const Engine& en = engine(core, kind);
  return EngineStats{en.count, en.busy, en.last_end};
}

uint64_t Simulator::core_cycles(uint32_t core) const noexcept {
  uint64_t m = 0;
  for (uint32_t k = 0; k < regs::kEngines; ++k) m = std::max(m, engine(core, k).last_end);
  return m;
}

}  // namespace tilefw::port::host::sg2260
