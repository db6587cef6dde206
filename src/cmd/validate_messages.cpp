// The message check over every stream a chip runs together (validate_messages in
// tilefw/cmd/cdma_system.hpp, Rule: reachable message waits). A chip has one counter per
// message id: sends add 1, a wait of count c passes once the counter reaches c, and the c-th
// waiter to pass resets it. What is checked here holds whatever order the engines take, so a
// refusal is a wait that no schedule can release; a stream set that passes may still deadlock
// (the simulator names such a wait).

#include <cstring>

#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/cdma_system.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

namespace {

constexpr uint32_t kIds = 1u << chip::sg2260::kMsgIdBits;
constexpr uint8_t kMixed = 0xFF;  // the waits of an id use more than one count

struct MsgEvent {
  bool send = false;
  uint32_t id = 0;
  uint32_t cnt = 0;
  uint32_t command_id = 0;
  size_t offset = 0;
};

enum class Side : uint8_t { whole, tx, rx };

// One thread of a chip, in order: a core engine's stream, or one side of a CDMA port (recv and
// rx_* sys run on RX, everything else on TX).
class ThreadCursor {
 public:
  ThreadCursor(Engine e, ConstByteSpan bytes, Side side) noexcept
      : engine_(e), side_(side), walker_(e == Engine::hau ? Engine::tiu : e, e == Engine::hau ? ConstByteSpan{} : bytes),
        hau_(e == Engine::hau ? bytes : ConstByteSpan{}) {}

  bool next(MsgEvent& out) noexcept {
    if (engine_ == Engine::hau) {
      HauCommand h;
      while (hau_.next(h)) {
        if (!h.is_send() && !h.is_wait()) continue;
        out = MsgEvent{h.is_send(), h.msg_id, h.msg_cnt, h.id, h.offset};
        return true;
      }
      return false;
    }
    Command c;
    while (walker_.next(c)) {
      if (message_of(c, out)) return true;
    }
    return false;
  }
  bool failed() const noexcept {
    return engine_ == Engine::hau ? hau_.status() != Status::ok : walker_.status() != Status::ok;
  }

 private:
  bool message_of(const Command& c, MsgEvent& out) const noexcept {
    out.command_id = c.id;
    out.offset = c.offset;
    if (c.cls == CmdClass::SYS && (c.eu == 8 || c.eu == 9)) {
      const SysView v = c.as<SysView>();
      out.send = c.eu == 8;
      out.id = v.msg_id();
      out.cnt = v.msg_cnt();
      return true;
    }
    if (c.cls == CmdClass::dma_sys && (c.eu == 3 || c.eu == 4)) {
      const DmaSysView v = c.as<DmaSysView>();
      out.send = c.eu == 3;
      out.id = v.msg_id();
      out.cnt = v.msg_cnt();
      return true;
    }
    if (c.cls != CmdClass::cdma_sys) return false;
    const auto op = static_cast<CdmaSysOp>(c.eu);
    const bool tx = op == CdmaSysOp::tx_send || op == CdmaSysOp::tx_wait;
    const bool rx = op == CdmaSysOp::rx_send || op == CdmaSysOp::rx_wait;
    if (!(side_ == Side::tx ? tx : rx)) return false;
    const CdmaSysView v = c.as<CdmaSysView>();
    out.send = op == CdmaSysOp::tx_send || op == CdmaSysOp::rx_send;
    out.id = v.msg_id();
    out.cnt = v.msg_cnt();
    return true;
  }

  Engine engine_;
  Side side_;
  Walker walker_;
  HauWalker hau_;
};

// The threads of the streams: the core streams in order, then each CDMA stream's TX and RX.
struct Threads {
  Span<const CoreStream> cores;
  Span<const CdmaStream> cdma;
  size_t count() const noexcept { return cores.size() + 2 * cdma.size(); }
  uint32_t chip(size_t t) const noexcept { return t < cores.size() ? cores[t].chip : cdma[(t - cores.size()) / 2].chip; }
  ThreadCursor open(size_t t) const noexcept {
    if (t < cores.size()) return ThreadCursor(cores[t].engine, cores[t].bytes, Side::whole);
    const size_t i = t - cores.size();
    return ThreadCursor(Engine::cdma, cdma[i / 2].bytes, i % 2 == 0 ? Side::tx : Side::rx);
  }
};

struct ChipCounts {
  uint32_t sends[kIds];
  uint32_t waits[kIds];
  uint8_t cnt[kIds];  // 0: no wait yet, kMixed: several counts
};

SystemValidation refuse(const Threads& th, size_t t, const MsgEvent& e, const char* field, const char* message) noexcept {
  SystemValidation v;
  v.report.status = Status::cmd_unsatisfiable_message;
  v.report.command_id = e.command_id;
  v.report.offset = e.offset;
  v.report.field = field;
  v.report.message = message;
  v.msg_id = e.id;
  v.msg_cnt = e.cnt;
  if (t < th.cores.size()) {
    v.chip = th.cores[t].chip;
    v.core = th.cores[t].core;
    v.report.engine = th.cores[t].engine;
    v.core_stream = t;
    v.stream = SystemValidation::kNoStream;
  } else {
    const size_t i = (t - th.cores.size()) / 2;
    v.chip = th.cdma[i].chip;
    v.peer = th.cdma[i].peer;
    v.report.engine = Engine::cdma;
    v.stream = i;
  }
  return v;
}

// Every send and wait of chip k. false: one of its streams does not walk.
bool count_chip(const Threads& th, uint32_t k, ChipCounts& n) noexcept {
  std::memset(&n, 0, sizeof n);
  for (size_t t = 0; t < th.count(); ++t) {
    if (th.chip(t) != k) continue;
    ThreadCursor c = th.open(t);
    MsgEvent e;
    while (c.next(e)) {
      if (e.send) {
        n.sends[e.id]++;
        continue;
      }
      n.waits[e.id]++;
      if (n.cnt[e.id] == 0) n.cnt[e.id] = e.cnt == 0 ? kMixed : static_cast<uint8_t>(e.cnt);  // cnt 0: no groups
      if (n.cnt[e.id] != e.cnt) n.cnt[e.id] = kMixed;
    }
    if (c.failed()) return false;
  }
  return true;
}

// Each wait against the sends that can come before it (all but its own thread's later ones).
SystemValidation check_waits(const Threads& th, uint32_t k, const ChipCounts& n, uint32_t (&own)[kIds]) noexcept {
  for (size_t t = 0; t < th.count(); ++t) {
    if (th.chip(t) != k) continue;
    std::memset(own, 0, sizeof own);
    MsgEvent e;
    for (ThreadCursor c = th.open(t); c.next(e);) {
      if (e.send) own[e.id]++;
    }
    for (ThreadCursor c = th.open(t); c.next(e);) {
      if (e.send) {
        own[e.id]--;  // own[id] is now this thread's sends still to come
        continue;
      }
      if (n.sends[e.id] < e.cnt) {
        SystemValidation v = refuse(th, t, e, "msg_cnt", "a message wait for more sends than its chip makes of that id");
        v.msg_needed = e.cnt;
        v.msg_sends = n.sends[e.id];
        return v;
      }
      if (n.sends[e.id] - own[e.id] < e.cnt) {
        SystemValidation v = refuse(th, t, e, "msg_cnt",
                                    "a message wait that needs sends following it on its own in-order thread");
        v.msg_needed = e.cnt;
        v.msg_sends = n.sends[e.id] - own[e.id];
        return v;
      }
    }
  }
  return SystemValidation{};
}

// The last wait on `id` of chip k, in thread order.
SystemValidation last_wait(const Threads& th, uint32_t k, uint32_t id) noexcept {
  size_t at = 0;
  MsgEvent last;
  for (size_t t = 0; t < th.count(); ++t) {
    if (th.chip(t) != k) continue;
    MsgEvent e;
    for (ThreadCursor c = th.open(t); c.next(e);) {
      if (!e.send && e.id == id) {
        last = e;
        at = t;
      }
    }
  }
  return refuse(th, at, last, "msg_id",
                "the waits of this message id need more sends than its chip makes (every cnt waiters reset the "
                "counter, so each group needs cnt sends of its own)");
}

SystemValidation check_groups(const Threads& th, uint32_t k, const ChipCounts& n) noexcept {
  for (uint32_t id = 0; id < kIds; ++id) {
    const uint32_t c = n.cnt[id];
    if (n.waits[id] == 0 || c == kMixed || c == 0) continue;
    const uint64_t needed = uint64_t{c} * ((n.waits[id] + c - 1) / c);
    if (n.sends[id] >= needed) continue;
    SystemValidation v = last_wait(th, k, id);
    v.msg_needed = static_cast<uint32_t>(needed);
    v.msg_sends = n.sends[id];
    return v;
  }
  return SystemValidation{};
}

}  // namespace

SystemValidation validate_messages(uint32_t chips, Span<const CoreStream> cores, Span<const CdmaStream> cdma) noexcept {
  const Threads th{cores, cdma};
  ChipCounts n;
  uint32_t own[kIds];
  for (uint32_t k = 0; k < chips; ++k) {
    if (!count_chip(th, k, n)) continue;
    if (SystemValidation v = check_waits(th, k, n, own); !v.ok()) return v;
    if (SystemValidation v = check_groups(th, k, n); !v.ok()) return v;
  }
  return SystemValidation{};
}

SystemValidation validate_system(const Topology& topology, Span<const CdmaStream> streams, Span<const ChipMemory> chips,
                                 Span<const CoreStream> cores, const ValidateOptions& base) noexcept {
  if (SystemValidation v = validate_system(topology, streams, chips, base); !v.ok()) return v;
  return validate_messages(topology.chips(), cores, streams);
}

}  // namespace tilefw::cmd
