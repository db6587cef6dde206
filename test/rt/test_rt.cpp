// rt layer on host and on Cortex-M (QEMU): submission, completion, faults, timeouts with a
// late completion that really lands (after the reset, and during a newer submission), deadlock,
// validation before any doorbell, profiling hooks. The device is a deterministic completion
// model driven through the runtime's poll callback over the engine registers (host: the
// Machine's register window; QEMU: the RAM stand-in at __tilefw_regs_base): one command
// completes per poll call.
#include "tftest.hpp"

#include <cstdint>

#include "tilefw/port/port.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/rt/runtime.hpp"
#if !defined(TILEFW_TEST_MINITEST)
#include "machine.hpp"
#endif

namespace {

using tilefw::ByteSpan;
using tilefw::ConstByteSpan;
using tilefw::Status;
namespace cmd = tilefw::cmd;
namespace rt = tilefw::rt;
namespace sg = tilefw::chip::sg2260;
namespace regs = tilefw::chip::sg2260::regs;
namespace port = tilefw::port;

uint32_t reg(uint32_t core, uint32_t e, uint64_t off) { return port::reg_read32(regs::engine_reg(core, e, off)); }
void set(uint32_t core, uint32_t e, uint64_t off, uint32_t v) { port::reg_write32(regs::engine_reg(core, e, off), v); }

// The deterministic completion model (what the QEMU boards lack: an NPU). It latches
// QUEUE_TAG at the doorbell and publishes COMPLETED = tag << 20 | count, as the register map
// says. late_at: the command takes `late_polls` steps; a RESET stops the engine but the
// command stays in flight, and its completion lands `late_polls` steps after it started,
// carrying the old tag -- on an idle engine or in the middle of a new submission.
struct FakeDevice {
  enum Mode : uint8_t { complete, fault_at, hang_at, block_at, late_at } mode = complete;
  uint32_t core = 0, engine = 0, at = 0;  // where the mode applies
  uint32_t late_polls = 0;                // late_at: polls the command takes
  uint32_t waited = 0;
  uint32_t polls = 0;
  // The late command, once started: its tag and id; it lands when `waited` reaches late_polls.
  bool late_in_flight = false;
  uint32_t late_tag = 0, late_id = 0;
  uint32_t late_landed = 0;  // completions delivered after a reset or a newer doorbell
  uint32_t real_completions[sg::kCores][regs::kEngines] = {};  // of the current submission

  void clear_all() {
    for (uint32_t c = 0; c < sg::kCores; ++c) {
      for (uint32_t e = 0; e < regs::kEngines; ++e) {
        for (uint64_t off = 0; off < regs::kEngineBlockBytes; off += 4) set(c, e, off, 0);
      }
    }
  }
  static uint32_t tag_of(uint32_t c, uint32_t e) { return reg(c, e, regs::kCompleted) >> regs::kCompletedTagShift; }
  static uint32_t count_of(uint32_t c, uint32_t e) { return reg(c, e, regs::kCompleted) & regs::kCompletedCountMask; }
  void step() {
    ++polls;
    // The late command in flight finishes whatever the engine does meanwhile.
    if (late_in_flight && ++waited >= late_polls) {
      late_in_flight = false;
      if (tag_of(core, engine) == late_tag && reg(core, engine, regs::kStatus) == regs::kRunning) {
        complete_one(core, engine);  // not reset: an ordinary (slow) completion
      } else {
        ++late_landed;  // stale: the engine was reset or took new work; it lands anyway
        set(core, engine, regs::kCompleted, regs::completed_value(late_tag, late_id));
        if (late_id >= reg(core, engine, regs::kQueueCount)) set(core, engine, regs::kStatus, regs::kIdle);
      }
    }
    for (uint32_t c = 0; c < sg::kCores; ++c) {
      for (uint32_t e = 0; e < regs::kEngines; ++e) {
        if (reg(c, e, regs::kReset) != 0) {  // reset: stop; an in-flight late command stays in flight
          set(c, e, regs::kReset, 0);
          set(c, e, regs::kStatus, regs::kIdle);
          set(c, e, regs::kCompleted, 0);
        }
        if (reg(c, e, regs::kDoorbell) != 0) {
          set(c, e, regs::kDoorbell, 0);
          set(c, e, regs::kCompleted, regs::completed_value(reg(c, e, regs::kQueueTag), 0));
          set(c, e, regs::kStatus, regs::kRunning);
          real_completions[c][e] = 0;
          continue;
        }
        const uint32_t state = reg(c, e, regs::kStatus);
        if (state != regs::kRunning) continue;
        const uint32_t done = count_of(c, e);
        const bool here = c == core && e == engine && done + 1 == at;
        if (here && mode == fault_at) {
          set(c, e, regs::kStatus, regs::kFault);
          set(c, e, regs::kFaultCmd, at);
          set(c, e, regs::kFaultCode, static_cast<uint32_t>(Status::cmd_lmem_out_of_range));
          continue;
        }
        if (here && mode == hang_at) continue;
        if (mode == block_at && done + 1 == at) {
          set(c, e, regs::kStatus, regs::kBlockedMsg);
          continue;
        }
        if (here && mode == late_at) {
          if (!late_in_flight && (late_tag != tag_of(c, e) || late_id != at)) {
            late_in_flight = true;  // starts now, lands late_polls steps later
            late_tag = tag_of(c, e);
            late_id = at;
            waited = 0;
          }
          continue;
        }
        complete_one(c, e);
      }
    }
  }
  void complete_one(uint32_t c, uint32_t e) {
    const uint32_t done = count_of(c, e) + 1;
    ++real_completions[c][e];
    set(c, e, regs::kCompleted, regs::completed_value(tag_of(c, e), done));
    if (done >= reg(c, e, regs::kQueueCount)) set(c, e, regs::kStatus, regs::kIdle);
  }
  static void poll(void* self) { static_cast<FakeDevice*>(self)->step(); }
  // The runtime's clock in these tests: 16 ticks per device step, so a timeout is a number
  // of device steps, not a wall-clock time that a loaded machine running QEMU stretches.
  static uint64_t clock(void* self) { return uint64_t{static_cast<FakeDevice*>(self)->polls} * 16; }
};

// The register window of the port: on the host a Machine with the sg2260 profile, on the
// target the linker's RAM stand-in (not zeroed at reset: cleared here).
struct Board {
#if !defined(TILEFW_TEST_MINITEST)
  port::host::Machine machine{port::host::kProfileSg2260};
  port::host::ScopedMachine scope{machine};
#endif
  FakeDevice dev;
  Board() { dev.clear_all(); }
};

// Streams: TIU send/wait/end (3 commands), GDMA send/wait/chain_end (3), no SDMA.
struct Streams {
  uint8_t tiu[64] = {};
  uint8_t gdma[64] = {};
  size_t tiu_bytes = 0, gdma_bytes = 0;
  Streams() {
    cmd::CommandBuilder t(cmd::Engine::tiu, ByteSpan(tiu, sizeof tiu));
    cmd::CommandBuilder g(cmd::Engine::gdma, ByteSpan(gdma, sizeof gdma));
    (void)t.send_msg(1, 2);
    (void)t.wait_msg(1, 2);
    (void)t.end();
    (void)g.send_msg(1, 2);
    (void)g.wait_msg(1, 2);
    (void)g.end();
    tiu_bytes = t.size();
    gdma_bytes = g.size();
  }
  rt::CoreSubmission on(uint32_t core) const {
    rt::CoreSubmission s;
    s.core = core;
    s.tiu = rt::EngineStream{sg::kDdrWindowBase + 0x1000, ConstByteSpan(tiu, tiu_bytes)};
    s.gdma = rt::EngineStream{sg::kDdrWindowBase + 0x2000, ConstByteSpan(gdma, gdma_bytes)};
    return s;
  }
};

struct HookLog {
  uint32_t begins = 0, ends = 0, last_completed = 0;
  uint64_t last_ticks = 0;
  static void hook(void* ctx, uint32_t, cmd::Engine, rt::HookEvent e, uint32_t completed, uint64_t ticks) {
    HookLog* h = static_cast<HookLog*>(ctx);
    h->last_ticks = ticks;
    if (e == rt::HookEvent::begin) {
      ++h->begins;
    } else {
      ++h->ends;
      h->last_completed = completed;
    }
  }
};

rt::Config config_for(Board& b, uint64_t timeout = 100000) {
  rt::Config c;
  c.timeout_ticks = timeout;
  c.poll_slice_ticks = 16;
  c.poll = &FakeDevice::poll;
  c.poll_context = &b.dev;
  c.clock = &FakeDevice::clock;
  c.clock_context = &b.dev;
  return c;
}

TEST(Runtime, RegisterMapFitsTheWindow) {
  EXPECT_EQ(regs::engine_block(0, 0), sg::kEngineRegisters.base);
  EXPECT_TRUE(sg::kEngineRegisters.contains(regs::engine_reg(7, 2, regs::kCycleHi), 4));
  EXPECT_EQ(regs::engine_block(1, 2) - regs::engine_block(0, 0), 0x180u);
}

TEST(Runtime, SubmitProgramsQueuesAndCompletes) {
  Board b;
  Streams s;
  HookLog log;
  rt::Config c = config_for(b);
  c.hook = &HookLog::hook;
  c.hook_context = &log;
  rt::Runtime r(c);
  const rt::CoreSubmission subs[] = {s.on(0), s.on(5)};
  ASSERT_EQ(r.submit(tilefw::Span<const rt::CoreSubmission>(subs, 2)), Status::ok);
  EXPECT_EQ(reg(5, 1, regs::kQueueBaseLo), static_cast<uint32_t>(sg::kDdrWindowBase + 0x2000));
  EXPECT_EQ(reg(5, 1, regs::kQueueBaseHi), static_cast<uint32_t>((sg::kDdrWindowBase + 0x2000) >> 32));
  EXPECT_EQ(reg(5, 0, regs::kQueueBytes), 48u);
  EXPECT_EQ(reg(5, 0, regs::kQueueCount), 3u);
  EXPECT_EQ(reg(0, 0, regs::kDoorbell), 1u);
  EXPECT_TRUE(r.busy());
  EXPECT_EQ(r.submit(s.on(0)), Status::rt_busy);
  EXPECT_EQ(r.wait(), Status::ok);
  EXPECT_FALSE(r.busy());
  EXPECT_EQ(r.completed(5, cmd::Engine::gdma), 3u);
  EXPECT_EQ(log.begins, 4u);
  EXPECT_EQ(log.ends, 4u);
  EXPECT_EQ(log.last_completed, 3u);
  // Hook timestamps come from the configured clock (16 ticks per device step).
  EXPECT_EQ(log.last_ticks, uint64_t{b.dev.polls} * 16);
  EXPECT_NE(log.last_ticks, 0u);
  // The core is free again.
  EXPECT_EQ(r.submit(s.on(0)), Status::ok);
  EXPECT_EQ(r.wait(), Status::ok);
}

TEST(Runtime, InvalidStreamStartsNothing) {
  Board b;
  Streams s;
  rt::Runtime r(config_for(b));
  rt::CoreSubmission bad = s.on(3);
  bad.gdma.bytes = ConstByteSpan(s.gdma, s.gdma_bytes - 16);  // chain_end cut off
  const rt::CoreSubmission subs[] = {s.on(2), bad};
  EXPECT_EQ(r.submit(tilefw::Span<const rt::CoreSubmission>(subs, 2)), Status::cmd_missing_end);
  EXPECT_EQ(r.report().core, 3u);
  EXPECT_EQ(r.report().engine, cmd::Engine::gdma);
  EXPECT_EQ(r.report().command_id, 3u);
  EXPECT_EQ(r.report().offset, s.gdma_bytes - 16);
  EXPECT_TRUE(r.report().refused);
  EXPECT_STREQ(r.report().field, "");  // a structural error: no single field at fault
  EXPECT_EQ(reg(2, 0, regs::kDoorbell), 0u);  // atomic: core 2 was valid but did not start
  EXPECT_FALSE(r.busy());
  rt::CoreSubmission no_gdma = s.on(1);
  no_gdma.gdma = rt::EngineStream{};
  EXPECT_EQ(r.submit(no_gdma), Status::invalid_argument);
  EXPECT_FALSE(r.report().refused);  // not a validation report
  rt::CoreSubmission far = s.on(8);
  EXPECT_EQ(r.submit(far), Status::invalid_argument);
}

TEST(Runtime, RefusedStreamNamesTheFieldAsValidationDoes) {
  // A GDMA tensor copy reading DDR tag 0 (no region): the runtime's report carries what
  // cmd::validate_core says, field included, so a caller prints validate's line from it.
  Board b;
  Streams s;
  uint8_t gdma[128] = {};
  cmd::CommandBuilder g(cmd::Engine::gdma, ByteSpan(gdma, sizeof gdma));
  (void)g.send_msg(1, 2);
  cmd::DmaCommonRef d(g.append(cmd::CmdClass::dma_tensor, 0).value());
  d.set_src_nsize(1); d.set_src_csize(1); d.set_src_hsize(1); d.set_src_wsize(4);
  d.set_dst_nsize(1); d.set_dst_csize(1); d.set_dst_hsize(1); d.set_dst_wsize(4);
  d.set_dst_start_addr_h13(0x100);  // tag 1
  (void)g.wait_msg(1, 2);
  (void)g.end();
  rt::CoreSubmission sub = s.on(5);
  sub.gdma.bytes = g.bytes();
  rt::Runtime r(config_for(b));
  EXPECT_EQ(r.submit(sub), Status::cmd_bad_address_tag);
  const cmd::ValidationReport want = cmd::validate_core(cmd::CoreStreams{sub.tiu.bytes, sub.gdma.bytes, {}, {}});
  EXPECT_TRUE(r.report().refused);
  EXPECT_EQ(r.report().core, 5u);
  EXPECT_EQ(r.report().engine, cmd::Engine::gdma);
  EXPECT_EQ(r.report().command_id, 2u);
  EXPECT_EQ(r.report().offset, want.offset);
  EXPECT_STREQ(r.report().field, "src_start_addr");
  EXPECT_STREQ(r.report().message, want.message);
  EXPECT_FALSE(r.busy());
}

TEST(Runtime, EngineFaultIsReportedWithCommandId) {
  Board b;
  b.dev.mode = FakeDevice::fault_at;
  b.dev.core = 4;
  b.dev.engine = 1;
  b.dev.at = 2;
  Streams s;
  rt::Runtime r(config_for(b));
  ASSERT_EQ(r.submit(s.on(4)), Status::ok);
  EXPECT_EQ(r.wait(), Status::rt_engine_fault);
  EXPECT_EQ(r.report().core, 4u);
  EXPECT_EQ(r.report().engine, cmd::Engine::gdma);
  EXPECT_EQ(r.report().command_id, 2u);
  EXPECT_EQ(r.report().device_code, Status::cmd_lmem_out_of_range);
  EXPECT_FALSE(r.report().refused);  // a fault while running, not a refused submission
  EXPECT_FALSE(r.busy());
  EXPECT_EQ(reg(4, 1, regs::kReset), 1u);  // the runtime reset the engines it used
}

TEST(Runtime, HangTimesOutAndResets) {
  Board b;
  b.dev.mode = FakeDevice::hang_at;
  b.dev.core = 1;
  b.dev.engine = 0;
  b.dev.at = 3;
  Streams s;
  rt::Runtime r(config_for(b, 2000));
  ASSERT_EQ(r.submit(s.on(1)), Status::ok);
  EXPECT_EQ(r.wait(), Status::rt_timeout);
  EXPECT_EQ(r.report().core, 1u);
  EXPECT_EQ(r.report().engine, cmd::Engine::tiu);
  EXPECT_EQ(r.report().command_id, 3u);
  EXPECT_EQ(r.report().engine_state, static_cast<uint32_t>(regs::kRunning));
  EXPECT_FALSE(r.busy());
}

TEST(Runtime, LateCompletionAfterTimeoutIsIgnored) {
  Board b;
  b.dev.mode = FakeDevice::late_at;
  b.dev.core = 6;
  b.dev.engine = 1;
  b.dev.at = 3;           // the last command (chain_end): its completion would finish the stream
  b.dev.late_polls = 200;  // beyond the timeout (2000 ticks = 125 device steps)
  Streams s;
  HookLog log;
  rt::Config c = config_for(b, 2000);
  c.hook = &HookLog::hook;
  c.hook_context = &log;
  rt::Runtime r(c);
  ASSERT_EQ(r.submit(s.on(6)), Status::ok);
  EXPECT_EQ(r.wait(), Status::rt_timeout);
  ASSERT_TRUE(b.dev.late_in_flight);
  const uint32_t first_tag = b.dev.late_tag;  // the submission's tag, latched at its doorbell
  EXPECT_NE(first_tag, 0u);
  EXPECT_EQ(r.report().core, 6u);
  EXPECT_EQ(r.report().engine, cmd::Engine::gdma);
  EXPECT_EQ(r.report().command_id, 3u);
  const uint32_t ends = log.ends;
  // 1. The completion lands after the reset: the register shows it (old tag, count 3 of 3,
  //    STATUS idle), and the runtime, idle now, ignores it.
  while (b.dev.late_in_flight) b.dev.step();
  EXPECT_EQ(b.dev.late_landed, 1u);
  EXPECT_EQ(reg(6, 1, regs::kCompleted), regs::completed_value(first_tag, 3));
  EXPECT_EQ(reg(6, 1, regs::kStatus), static_cast<uint32_t>(regs::kIdle));
  EXPECT_EQ(r.poll(), Status::ok);
  EXPECT_FALSE(r.busy());
  EXPECT_EQ(r.completed(6, cmd::Engine::gdma), 0u);
  EXPECT_EQ(log.ends, ends);  // no hook for it either
  // 2. Again, but the stale completion lands while a newer submission runs on the engine: it
  //    says "3 of 3, idle" with the old tag, and the runtime must not take it for the new
  //    stream's end. The new stream finishes only when its own three commands complete.
  ASSERT_EQ(r.submit(s.on(6)), Status::ok);  // times out again at command 3 ...
  EXPECT_EQ(r.wait(), Status::rt_timeout);
  EXPECT_TRUE(b.dev.late_in_flight);
  const uint32_t stale_tag = b.dev.late_tag;
  b.dev.mode = FakeDevice::hang_at;  // ... and the next submission's first command is slow
  b.dev.at = 1;
  ASSERT_EQ(r.submit(s.on(6)), Status::ok);
  b.dev.step();  // the device takes the doorbell
  const uint32_t new_tag = FakeDevice::tag_of(6, 1);
  EXPECT_NE(new_tag, stale_tag);
  EXPECT_EQ(r.poll(), Status::rt_busy);
  while (b.dev.late_in_flight) b.dev.step();  // lands on the new submission's registers
  EXPECT_EQ(b.dev.late_landed, 2u);
  EXPECT_EQ(reg(6, 1, regs::kCompleted), regs::completed_value(stale_tag, 3));
  EXPECT_EQ(reg(6, 1, regs::kStatus), static_cast<uint32_t>(regs::kIdle));
  EXPECT_EQ(b.dev.real_completions[6][1], 0u);
  EXPECT_EQ(r.poll(), Status::rt_busy);  // a stale "finished" is not this stream's finish
  EXPECT_TRUE(r.busy());
  EXPECT_EQ(r.completed(6, cmd::Engine::gdma), 0u);
  // The device starts the new stream over (the stale write clobbered its registers) and
  // completes it for real; only then does the runtime see the end.
  b.dev.mode = FakeDevice::complete;
  set(6, 1, regs::kDoorbell, 1);
  EXPECT_EQ(r.wait(), Status::ok);
  EXPECT_EQ(b.dev.real_completions[6][1], 3u);
  EXPECT_EQ(r.completed(6, cmd::Engine::gdma), 3u);
  EXPECT_EQ(reg(6, 1, regs::kCompleted), regs::completed_value(new_tag, 3));
}

TEST(Runtime, EveryEngineBlockedIsADeadlock) {
  Board b;
  b.dev.mode = FakeDevice::block_at;
  b.dev.at = 2;  // every engine stops in its wait_msg
  Streams s;
  rt::Runtime r(config_for(b, 1000000));
  const rt::CoreSubmission subs[] = {s.on(0), s.on(1)};
  ASSERT_EQ(r.submit(tilefw::Span<const rt::CoreSubmission>(subs, 2)), Status::ok);
  EXPECT_EQ(r.wait(), Status::rt_deadlock);
  EXPECT_EQ(r.report().core, 0u);
  EXPECT_EQ(r.report().command_id, 2u);
  EXPECT_EQ(r.report().engine_state, static_cast<uint32_t>(regs::kBlockedMsg));
  EXPECT_LT(b.dev.polls, 100u);  // declared promptly, not by the timeout
}

}  // namespace
