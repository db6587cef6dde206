// SG2260 core model of the host simulator: 8 cores x (TIU, GDMA, SDMA, HAU) engines as processes of
// one deterministic discrete-event scheduler in simulated cycles (timing model v2 by default,
// v1 on request: inc/tilefw/chip/sg2260.hpp timing_v1 / timing_v2), with
// functional execution on the Machine's LMEM/SMEM/L2/DDR and tilefw's engine registers.
// Host-only (standard library), single-threaded.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "machine.hpp"
#include "sg2260/hazard.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/classes.hpp"

namespace tilefw::port::host::sg2260 {

/// The engines of a core by their register-window index (cmd::Engine's order).
inline constexpr uint32_t kTiu = static_cast<uint32_t>(cmd::Engine::tiu);
inline constexpr uint32_t kGdma = static_cast<uint32_t>(cmd::Engine::gdma);
inline constexpr uint32_t kSdma = static_cast<uint32_t>(cmd::Engine::sdma);
inline constexpr uint32_t kHau = static_cast<uint32_t>(cmd::Engine::hau);
/// TIU and GDMA of a core wait on each other's completed count (cmd_id_dep); SDMA and the HAU
/// have no such peer.
constexpr bool has_dep_peer(uint32_t kind) noexcept { return kind == kTiu || kind == kGdma; }
constexpr uint32_t dep_peer(uint32_t kind) noexcept { return kind == kTiu ? kGdma : kTiu; }

/// The named timing models (docs/sg2260-commands.md section 12; constants in the chip
/// profile). v1: every command costs its formula, DMA bandwidth per engine with no sharing.
/// v2: MM2 at the chip's MAC-per-lane peak, DMA bytes through the shared DDR and L2 servers.
enum class TimingModel : uint8_t { v1, v2 };
inline const char* timing_model_name(TimingModel m) noexcept { return m == TimingModel::v1 ? "v1" : "v2"; }

/// What a DMA command asks of the memory system (timing model v2): after `startup` cycles,
/// `bytes` flow at most `cap` bytes per cycle, through the DDR server with weight `ddr`
/// (sides in DDR: 0, 1 or 2) and the L2 server with weight `l2`.
struct DmaDemand {
  uint64_t bytes = 0;
  uint32_t startup = 0;
  uint32_t cap = 0;
  uint8_t ddr = 0;
  uint8_t l2 = 0;
};

/// How the scheduler orders engines that are ready at the same cycle. Results of a correctly
/// synchronised program do not depend on it (tests run several).
struct TiePolicy {
  enum Kind : uint8_t { core_major, reverse, random } kind = core_major;
  uint64_t seed = 1;  // random only
};

/// One executed command, for traces.
struct TraceRecord {
  uint16_t core = 0;
  uint8_t engine = 0;  // 0 TIU, 1 GDMA, 2 SDMA, 3 HAU (cls none: a sync)
  uint8_t cls = 0;     // cmd::CmdClass
  uint32_t id = 0;
  uint64_t start = 0;  // cycle the command started (after its dependency / barrier wait)
  uint64_t end = 0;    // cycle it completed
  uint64_t bytes = 0;  // DMA: bytes moved; TIU: bytes written
  uint64_t ops = 0;    // TIU: element operations (MM2: multiply-adds)
};

/// Simulated faults (tests of the runtime's error paths).
enum class InjectKind : uint8_t {
  hang,   // the command starts and never completes (STATUS stays running)
  error,  // the command reports FAULT_CODE = `code` instead of running
  late,   // the command completes `extra_cycles` later than the timing model says (v2 DMA:
          // the startup is `extra_cycles` longer)
};
struct Injection {
  uint32_t core = 0;
  uint32_t engine = 0;
  uint32_t command_id = 0;
  InjectKind kind = InjectKind::hang;
  uint64_t extra_cycles = 0;
  Status code = Status::rt_engine_fault;
};

struct SimOptions {
  TiePolicy tie{};
  TimingModel timing = TimingModel::v2;
  /// false: timing only (no data moves; faults only from decoding), for benchmarks.
  bool functional = true;
  bool trace = false;
  /// Longest clock jump of one poll-hook step: a core polling with a timeout sees time pass
  /// in steps of at most this many cycles, so its timeout fires before a much later event.
  uint64_t max_advance = 256;
  /// Timing model v2's DDR and L2 servers in bytes per cycle; 0: the chip profile's
  /// (timing_v2::kDdrBytesPerCycle, kL2BytesPerCycle). A chip what-if sets them; each DMA
  /// engine's cap on a transfer touching DDR (or only L2) scales by the same ratio.
  double ddr_bytes_per_cycle = 0;
  double l2_bytes_per_cycle = 0;
  /// Reuse the decoded form of a stream started again unchanged at the same place.
  bool cache_streams = true;
  /// Functional runs: check every access against the happens-before order of the engines
  /// (sg2260/hazard.hpp); hazards are counted, not faults.
  bool check_hazards = true;
  /// Functional runs: the run-wide work budget, in element operations (command_extent()'s
  /// estimate summed over the executed commands). A command that would exceed it faults with
  /// capacity_exceeded before it runs: the last-resort bound on a run's time, after the
  /// per-command refusal of what no real buffer can be. 0: no budget.
  uint64_t max_work = kDefaultMaxWork;
  /// The real YOLOv5s (test/data/sg2260-tdb) needs 6.82e8 (its conv taps and taylor terms
  /// counted) and runs in about 2.4 s of CPU here (release build); the default leaves it 1.2 %
  /// of room. A legal stream spending the whole budget on the slowest measured path
  /// (hazard-checked AR over strided int16 rows, bench/worst_budget.cpp: about 28 ns of CPU per unit
  /// of work in a release build) takes 19.5 s of CPU: the two bounds the budget is set between
  /// (any legal stream ends within 20 s with default options, and a real model runs with them);
  /// what no real buffer can be is refused up front per command (command_extent).
  static constexpr uint64_t kDefaultMaxWork = 690'000'000;
};

/// Per-engine totals after a run.
struct EngineStats {
  uint64_t commands = 0;
  uint64_t busy_cycles = 0;  // sum of command durations (waits excluded)
  uint64_t last_end = 0;
};

class Simulator {
 public:
  /// Attaches to `machine` (which must have the sg2260 profile): hooks DOORBELL and RESET of
  /// every engine and installs the machine's poll hook, so a core polling the registers
  /// drives the simulation. The machine must outlive the simulator.
  Simulator(Machine& machine, const SimOptions& options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  void inject(const Injection& injection) { injections_.push_back(injection); }
  void clear_injections() { injections_.clear(); }

  /// Starts an engine directly (what a DOORBELL write does): latches the stream at the
  /// device address, decodes it (or reuses the decoded form when the same bytes were started
  /// at the same place before: checked by a content hash); a stream that cannot be decoded
  /// faults the engine.
  void start(uint32_t core, uint32_t engine, uint64_t device_addr, uint64_t bytes, uint32_t tag = 0);
  void reset(uint32_t core, uint32_t engine);

  /// Processes every event at the earliest pending cycle (moving the machine clock there if
  /// it is behind). false when nothing is pending. The engine registers are updated by
  /// poll_step() and run(), not here (a direct driver reads state() / completed()).
  bool step();
  /// The machine's poll hook: moves the clock towards the next event by at most
  /// SimOptions::max_advance cycles and processes the events that are due.
  void poll_step();
  /// Runs until nothing is pending. Returns ok, or the first fault's Status; when engines are
  /// left blocked, rt_deadlock (see blocked_report()).
  Status run();

  /// Current simulated cycle (the machine clock).
  uint64_t now() const noexcept { return machine_.now(); }
  uint32_t state(uint32_t core, uint32_t engine) const noexcept;
  uint32_t completed(uint32_t core, uint32_t engine) const noexcept;
  /// The text of the last fault of an engine ("" when none; kept across a reset, cleared by
  /// the next start), e.g. "sMM2 eu 6: opd0 outside LMEM".
  const std::string& fault_message(uint32_t core, uint32_t engine) const noexcept;
  /// The command id and Status of the engine's last fault (0 and ok when none).
  uint32_t fault_command(uint32_t core, uint32_t engine) const noexcept { return engine_at(core, engine).fault_cmd; }
  Status fault_code(uint32_t core, uint32_t engine) const noexcept { return engine_at(core, engine).fault_code; }
  /// One line per engine left blocked or faulted: "core 3 tiu command 5: blocked on msg 24".
  std::string blocked_report() const;
  /// Commands executed since construction (all engines).
  uint64_t commands_executed() const noexcept { return executed_; }
  /// Work (command_extent()) of the commands executed so far, against SimOptions::max_work.
  uint64_t work_done() const noexcept { return work_; }
  const std::vector<TraceRecord>& trace() const noexcept { return trace_; }
  EngineStats stats(uint32_t core, uint32_t engine) const noexcept;
  /// Last completion cycle over the core's engines (0 when it ran nothing).
  uint64_t core_cycles(uint32_t core) const noexcept;
  /// Hazards found so far (0 when not checking: timing-only runs or check_hazards off) and
  /// the first HazardChecker::kMaxMessages of them.
  uint64_t hazard_count() const noexcept { return hazards_.count(); }
  const std::vector<std::string>& hazard_messages() const noexcept { return hazards_.messages(); }

  // ---- what a multi-chip System (sg2260/system.hpp) needs; single-chip runs never call
  // these, and the message hook is unset there, so their behaviour and timing are unchanged.
  /// The cycle of the earliest pending event, UINT64_MAX when none.
  uint64_t next_event_time() const noexcept;
  /// Changes whenever an event is added or removed: next_event_time() is unchanged while it is.
  uint64_t event_epoch() const noexcept { return event_epoch_; }
  /// Writes the engine registers (what poll_step() and run() do after their events).
  void publish_registers() { publish(); }
  /// The run's outcome as run() reports it, without running: ok, the first fault's Status,
  /// rt_deadlock when an engine is blocked, rt_timeout when one hangs.
  Status outcome() const noexcept;
  /// The chip-wide message counters (Rule: chip-wide barrier counters), shared with the
  /// chip's CDMA threads: signal_message() adds 1 and wakes the engines waiting on the id at
  /// now(); pass_message() applies the wait rule the engines use (passes when the count has
  /// reached cnt; the cnt-th waiter to pass resets the counter) and says whether it passed.
  void signal_message(uint32_t msg_id);
  bool pass_message(uint32_t msg_id, uint32_t cnt);
  uint32_t message_count(uint32_t msg_id) const noexcept { return msg_count_[msg_id & (msg_count_.size() - 1)]; }
  /// Called after an engine's send_msg has added its 1 (the CDMA threads waiting on the id
  /// wake then).
  void set_message_hook(std::function<void(uint32_t msg_id)> hook) { message_hook_ = std::move(hook); }
  /// The synchronisation and accesses the hazard checker sees, for a System's cross-chip check
  /// (functional runs with check_hazards only): engine = core * 4 + kind, as HazardChecker's.
  struct SyncObserver {
    std::function<void(uint32_t engine)> on_start;
    std::function<void(uint32_t engine, uint32_t id, uint32_t dep_engine, uint32_t dep, int wait_msg, bool reset)> on_issue;
    std::function<void(uint32_t engine, const AccessLog& log)> on_executed;
    std::function<void(uint32_t engine, int send_msg)> on_complete;
  };
  void set_sync_observer(SyncObserver observer) { observer_ = std::move(observer); }

  /// Per-command decoded form.
  struct Op {
    uint32_t offset = 0;
    uint32_t cycles = 0;
    uint32_t dep = 0;       // enabled dependency id (0 = none)
    uint16_t msg_id = 0;
    uint8_t msg_cnt = 0;
    uint8_t cls = 0;        // cmd::CmdClass
    uint8_t eu = 0;
    uint8_t sync = 0;       // 0 none, 1 send, 2 wait, 3 end
    uint64_t bytes = 0;
    uint64_t ops = 0;
    // timing model v2, DMA with bytes to move: startup, engine cap and server weights
    uint32_t startup = 0;
    uint16_t cap = 0;
    uint8_t ddr = 0;
    uint8_t l2 = 0;
    bool flow = false;
    bool unreachable = false;  // an SDMA transfer with a side in local memory: faults when issued
  };

 private:
  struct Engine {
    uint32_t core = 0;
    uint32_t kind = 0;
    std::vector<Op> ops;
    const uint8_t* stream = nullptr;
    size_t next = 0;          // index of the next command to issue
    uint32_t completed = 0;
    uint32_t state = chip::sg2260::regs::kIdle;
    uint32_t generation = 0;
    uint32_t tag = 0;         // QUEUE_TAG latched at DOORBELL (published in COMPLETED 31:20)
    bool in_flight = false;
    bool hung = false;
    uint64_t start = 0;       // start cycle of the in-flight command
    // timing model v2: a DMA command in flight is in its startup, then its bytes flow
    bool flowing = false;     // in active_ (bytes flowing through the servers)
    double remaining = 0;     // bytes still to flow
    double rate = 0;          // bytes per cycle since flow_time_
    uint64_t finish = 0;      // projected completion cycle (scheduled)
    uint32_t fault_cmd = 0;
    Status fault_code = Status::ok;
    std::string fault_message;
    uint64_t last_end = 0;
    uint64_t busy = 0;
    uint64_t count = 0;
    bool dirty = false;
    uint64_t cached_bytes = 0;  // decoded form of the stream at `stream` (0: none)
    uint64_t cached_hash = 0;
  };
  struct Event {
    uint64_t time;
    uint64_t tie;
    uint32_t engine;
    uint32_t generation;
    bool operator>(const Event& o) const noexcept {
      return time != o.time ? time > o.time : tie > o.tie;
    }
  };

  static constexpr uint32_t kPerCore = chip::sg2260::regs::kEngines;
  Engine& engine(uint32_t core, uint32_t kind) { return engines_[core * kPerCore + kind]; }
  const Engine& engine_at(uint32_t core, uint32_t kind) const { return engines_[core * kPerCore + kind]; }
  const Engine& engine(uint32_t core, uint32_t kind) const { return engines_[core * kPerCore + kind]; }
  void schedule(uint32_t index, uint64_t time);
  /// The engine whose live event comes first (time, then the tie key), or -1 when none.
  int next_event() const noexcept;
  void handle(const Event& e);
  void try_issue(Engine& en, uint64_t t);
  void complete(Engine& en, uint64_t t);
  // timing model v2 DMA sharing
  void advance_flows(uint64_t t);
  void reshare(uint64_t t);
  void drop_flow(Engine& en, uint64_t t);
  void fault(Engine& en, uint32_t cmd_id, Status code, std::string message);
  void wake_msg(uint32_t msg_id, uint64_t t);
  void publish();
  static uint64_t stream_hash(const uint8_t* data, uint64_t bytes) noexcept;
  Status decode(Engine& en, const uint8_t* data, uint64_t bytes);
  Status decode_hau(Engine& en, const uint8_t* data, uint64_t bytes);
  Status execute(Engine& en, const Op& op, std::string& message);
  bool checking() const noexcept { return options_.functional && options_.check_hazards; }

  Machine& machine_;
  SimOptions options_;
  std::vector<Engine> engines_;
  // Each engine's one live event (a wake-up or a completion) as one key: its time in the high
  // bits, its tie-break rank (kTieBits) in the low ones, kNoEvent for none. One array of
  // integers, so the scan for the first event is a branch-free minimum (it was 30 % of a
  // timing run with separate time and tie arrays).
  static constexpr uint32_t kTieBits = 6;
  static constexpr uint64_t kNoEvent = UINT64_MAX;
  static constexpr uint64_t kLatestEvent = (kNoEvent >> kTieBits) - 1;  // times are clamped to it
  std::vector<uint64_t> event_key_;
  uint64_t event_time(size_t i) const noexcept { return event_key_[i] >> kTieBits; }
  std::vector<Injection> injections_;
  std::vector<uint32_t> msg_count_;
  std::vector<uint32_t> msg_passed_;
  std::vector<TraceRecord> trace_;
  uint64_t rng_;
  uint64_t executed_ = 0;
  uint64_t work_ = 0;  // command_extent() work of the commands executed so far
  std::vector<uint32_t> active_;  // engines whose bytes flow (v2), by index
  uint64_t flow_time_ = 0;        // cycle up to which the flows' progress is counted
  HazardChecker hazards_;
  AccessLog access_log_;
  std::function<void(uint32_t)> message_hook_;
  SyncObserver observer_;
  uint64_t event_epoch_ = 0;
};

/// Functional execution of one command on core `core`'s memories (sg2260/exec_*.cpp).
/// ok, or a Status with `message` naming the class and the problem (sim_unsupported_op for
/// an operation the simulator does not implement). Local addresses with bits above 26 or
/// lanes above 63 fault (cmd_lmem_out_of_range): nothing aliases.
///
/// Executed (semantics from docs/sg2260-commands.md and test/data/sg2260-mm0/README.md):
///   DMA    tensor sp_func 0 (copy, fill), 1 (NC-transpose: dst(c,n,h,w) = src(n,c,h,w)) and
///          3 (broadcast, below);
///          matrix sp_func 0 (one LMEM side, section rule); general sp_func 0 (1-D, LMEM
///          flat, fill); sys chain_end / nop / send / wait
///   TIU    AR and sAR eu 0 mul, 1 not, 2 add, 3 sub, 4 max, 5 min, 7 and, 8 or, 9 xor, 12 div
///          (float), 14 cast (round modes below), 15 add_satu, 16 sub_satu, 20 mul_satu
///          (integer results, clamped to the result type), 19 copy, 26 abs, 27 fsub_abs
///          (a NaN operand of mul, add, sub, div, fsub_abs: the result is opd0's NaN when opd0
///          is one, else opd1's, sign and payload kept: a tilefw decision, so the bits do not
///          depend on how the host compiler orders a commutative op's operands);
///          MM2 and sMM2 eu 4 nn, 5 nt, 6 tt (float operands; or int8 / int16 operands with
///          exact sums saturated to res0's range, a tilefw decision; constant bias);
///          CW&BC and sCW&sBC eu 0 cw_ts (res0(n,c,h,w) = opd0(n,w,h,c)) and 3 lane_bc
///          (res0(n,c,h,w) = opd0(n,0,h,w)); SFU and sSFU eu 17 rsqrt (float, correctly
///          rounded 1/sqrt, NaN = the positive quiet NaN) and eu 13 taylor (tilefw decision,
///          float operands only): res0 = sum_{j<L} coef[j] * x^j for each element x of opd0,
///          L = opd1_n (sSFU: opd1_n@144), coef = L consecutive values of opd0's precision
///          at local_offset(opd1_addr) of the lane holding x (every lane reads its own copy:
///          a 64-lane SIMD unit reads a table without crossing lanes, so the generator writes
///          the table into every lane; opd1_addr's lane bits are not used), evaluated by
///          Horner from coef[L-1] down in double and rounded once to res0's precision
///          (nearest even); L = 0 or L > 32 faults with cmd_bad_field naming opd1_n;
///          SYS send/wait/end/nop/barriers,
///          SYS_TR_ACC (TGCR writes, see below)
///   DMA    gather (cmd_type 7, sp_func 0; tilefw decision, the spec gives the BM1690 layout
///          only): for c < dst_csize, h < dst_hsize, w < dst_wsize,
///          dst[c, h, w] = src[c, idx(c, h) - start_pos, w] when start_pos <= idx(c, h) <
///          start_pos + src_hsize, else constant_value (its low bytes of the element size; the
///          row is filled whatever fill_constant_en says). idx(c, h) is the uint32 at element
///          (c', h) of the index tensor, c' = c, or 0 when index_csize = 1 (one index row for
///          every c), address index_start_addr + (c' * index_cstride + h) * 4 (index dtype
///          uint32, h contiguous); strides src_cstride/src_hstride, dst_cstride/dst_hstride in
///          elements of src_data_format, w contiguous. Each side (src, dst, index) may be DDR,
///          L2, SMEM or LMEM; in LMEM, c runs over lanes from the start lane and the c-stride
///          applies per wrap past lane 63 (the tensor DMA's lane rule); an LMEM dst lane whose
///          localmem_mask bit is 0 is not written. Shapes: src_csize = dst_csize, src_wsize =
///          dst_wsize, index_hsize = dst_hsize, index_csize 1 or dst_csize (else
///          cmd_bad_field). The whole index tensor is read before the first write; rows are
///          then moved in (c, h) order. Any byte-sized format (no conversion).
///   DMA    scatter (cmd_type 8; tilefw decision): for c < src_csize, h < src_hsize in (c, h)
///          order, when start_pos <= idx(c, h) < start_pos + dst_hsize, with r = idx(c, h) -
///          start_pos: sp_func 0 inplace dst[c, r, w] = src[c, h, w], sp_func 1 add
///          dst[c, r, w] += src[c, h, w] (w < src_wsize); an index outside is skipped. Two h
///          hitting one dst row: inplace, the later h wins; add, both are added in h order.
///          Add: int8/int16/int32 wrap (two's complement), f16/bf16/f32 add in f32 (RNE) and
///          round to the format (RNE); other formats are unsupported. idx, strides, sides,
///          lane rule, mask and the index read first as for gather; shapes src_csize =
///          dst_csize, src_wsize = dst_wsize, index_hsize = src_hsize, index_csize 1 or
///          src_csize. Timing v1 (both): startup + bytes / bw with bytes = the walked side's
///          elements (gather dst_c*h*w, scatter src_c*h*w) x element size, independent of the
///          index values (filled and skipped rows count; the index read does not).
///   TIU    AR / sAR eu 10 sel_gt, 11 sel_eq, 13 sel_lt (tilefw decision, as compares):
///          res0 = (opd0 > / == / < opd1) ? 1 : 0 in res0's type (1.0 / 0.0 for floats),
///          element-wise with the binary AR operands (strides, constants, mixed precisions
///          compared as exact values); NaN compares false (sel_eq of NaN and NaN is 0).
///   TIU    AR / sAR eu 14 cast (tilefw decision on the integer side): float (f32/f16/bf16)
///          or integer -> integer (int8/int16/int32, signed or unsigned by res0's sign; sAR has
///          no res0 sign field: signed when opd0 or opd1 is signed) rounds by the round mode
///          (opd2_n_str, the list below), saturates to res0's range,
///          NaN -> 0; integer -> float rounds once by the same mode (f32 too).
///   TIU    FP8 (tilefw decision): precision code 7 is one byte; the operand's sign bit
///          selects the format, 1 E4M3 (OCP E4M3FN: bias 7, no infinity, NaN S.1111.111,
///          largest 448), 0 E5M2 (IEEE-like: bias 15, infinities) - tpu-mlir's DT_FP8E4M3 /
///          DT_FP8E5M2 differ only in the format bit (1 << 5) and FP8 is always signed, so the
///          per-operand sign bit is the free bit that carries it. Operands without a sign field
///          (sSFU, sCW&sBC) are E4M3; sAR's res0 takes opd0's or opd1's sign as for integers.
///          Conversion to FP8 rounds once by the mode (casts) or to nearest even; a magnitude
///          above the largest finite value gives E5M2 infinity and E4M3 NaN. DMA formats 7 and
///          8 are E4M3 / E5M2 bytes (moved, never converted); 6 is FP20.
///   TIU    Round modes (docs/sg2260-commands.md section 5, Rule: round modes, as the real YOLOv5s
///          commands need: their floor casts hold 3, their divs 2): opd2_n_str 0 half to even,
///          1 half away from zero, 2 toward zero, 3 down, 4 up (the order of the vendor
///          backend's rounding-mode list); 5..7 are unsupported. They round cast (eu 14) and
///          div (eu 12) results and the right shift of the saturating ops; floats are rounded
///          once in the direction asked (E4M3 overflow toward the range gives its top value),
///          every other AR result rounds to nearest even.
///   TIU    AR add_satu / sub_satu / mul_satu (tilefw decision): integer results as above; with
///          tsk_opd_num 3 and opt_opd2_const the exact result is first shifted by the signed
///          low byte of opd2_addr (left when positive, right rounding by the round mode when
///          negative), then saturated (YOLOv5s' exp: (n + 15) << 10 builds f16 2^n). Float
///          results: the exact result clamped to the format's finite range, then rounded.
///   TIU    SFU eu 12 taylor_4x: the polynomial of taylor (eu 13) above; "4x" is throughput.
///   TIU    CW&BC eu 2 lane_copy res0(n, c, h, w) = opd0(n, c, h, w) (opd0's shape = res0's,
///          any lanes); eu 4 static_bc res0(n, c, h, w) = opd0(n, 0, h, w) as lane_bc, opd0_c
///          not read (the real commands give res0_c); the source is read before any write.
///   TIU    CONV / sCONV eu 0 conv.normal (tilefw decision; the spec gives fields only): input
///          opd0 (n, ic = opd0_c, ih, iw) with channel ic on lane (L0 + ic) % 64 (lane rule,
///          alignEU or explicit strides), output channel oc on lane (Lr + oc) % 64. Window:
///          zeros inserted between input rows / columns (opd0_y/x_ins0), pads up/dn/lf/rt
///          (pad_mode 0 only; the pad value opd3 is a constant in opd0's precision, a tensor
///          is unsupported), taps dilated by opd1_y/x_ins0 + 1, strides res_op_y/x_str;
///          opt_kernel_rotate flips the kernel in h and w. res0_h/w above the windows the
///          fields give fault cmd_bad_field. Kernel (opd1, or the constant opd1_addr with
///          opt_opd1_const) of output channel oc: on lane (L1 + oc) % 64 at the in-lane offset
///          + ((L1 + oc) / 64) * S elements, S = ceil(ic/P) * kh * kw * P, P = 64 bytes / element
///          size (f16/bf16 32, int8/fp8 64, f32 16), tap (ic, ky, kx) at element
///          (ic / P) * kh * kw * P + (ky * kw + kx) * P + ic % P (the real f16 kernels' slots).
///          Bias opd2 (opt_opd2_const: the constant) in opd2's precision, one value per output
///          channel on lane (L2 + oc) % 64 at + ((L2 + oc) / 64) elements. Floats: acc = 0, then
///          acc = fmaf(x, w, acc) in FP32 over (ic, ky, kx) in that order, + bias in FP32,
///          + old res0 in FP32 (opt_res_add), relu, rounded once to res0 (RNE). Integers
///          (int8 / int16 inputs and kernels): exact sums, saturated to res0's range (res0
///          sign). INT32 inputs, eu 1/2/4 (bw, tf32) and float / integer operand mixes
///          are unsupported. opt_rq (requantising CONV, INT8 and FP8, its parameters found
///          through TGCR 5 and 6): docs/sg2260-commands.md section 15, "requantising CONV",
///          sg2260/exec_conv_rq.hpp; its undefined forms are refused by name there.
///   TIU    PorD / sPorD (tilefw decision) over channels c = res0_c (opd0 has res0's n and c,
///          opd0_h/w; the window rules of CONV, per channel: channel c reads only its lane):
///          eu 4 maxpool / eu 3 minpool: the largest / smallest window value including the pad
///          value (opd3 constant, opd0's precision), NaN if any is NaN, rounded to res0;
///          eu 1 avgpool (float only): s = 0, s += x in FP32 over (ky, kx), result
///          s * m in FP32 rounded to res0, m = opd1_addr as an FP32 constant (opt_opd1_const;
///          the real commands hold 1.0 and 1/49); eu 0 depthwise: as CONV with one input
///          channel per output channel, the kernel in opd0's precision (sPorD has no opd1
///          precision) on lane (L1 + c) % 64 at + ((L1 + c) / 64) * kh * kw elements, tap
///          (ky, kx) at ky * kw + kx; float bias in FP32 (opd2_prec not read: the real f16
///          depthwise commands leave it 0), integer bias in opd2's precision. roi_* (5..8) are
///          unsupported.
///   TIU    MM / sMM eu 1 mm.normal (tilefw decision fitted to the real ResNet-50 FC): left L
///          (M = opd0_n rows, K = opd0_c * opd0_w) stored as the tensor (M, opd0_c, 1, opd0_w),
///          L[m][k] at (m, k / opd0_w, 0, k % opd0_w); right R (K x N, N = res0_c * res0_w) as
///          (K, res0_c, 1, res0_w), R[k][j] at (k, j / res0_w, 0, j % res0_w); result Y as
///          (M, res0_c, 1, res0_w); all alignEU (sMM) or by the long form's stride modes; R in
///          opd0's precision, the bias (opt_opd2_const: constant; else per column j as (1,
///          res0_c, 1, res0_w)) in res0's. opd1_w is not read. Floats: fmaf over k in FP32,
///          + bias, + old res0 (opt_res_add), relu, rounded once; integers exact, saturated.
///          opt_left_tran, opt_opd0_const and opt_rq are unsupported.
///   DMA    tensor sp_func 3 broadcast (tilefw decision): dst(n, c, h, w) = src(n, 0, h, w) for
///          n, h, w < the src sizes and c < dst_csize; src_csize must be 1 (cmd_bad_field);
///          localmem_mask and fill as for copies. Timing: bytes = the dst elements written.
///   SYS_TR_ACC eu 0 writes TIU global config registers (per core, 0 until written:
///          TGCR[reg_idx0] = imm0, TGCR[reg_idx1] / TGCR[reg_idx2] = imm1's high / low word);
///          the requantising CONV reads them (sg2260/exec_tgcr.cpp).
///   TIU    CMP / sCMP eu 22..26 (fused compare selects, max / min with a select), RQ&DQ /
///          sRQ&sDQ rq0, rq1, dq0 (constants), dq1 (requantise, dequantise), SGL / sSGL
///          gather_line and scatter_line: docs/sg2260-commands.md section 15 (documented facts
///          and the tilefw decisions "fused compares", "requantisation", "line gathers").
/// Unsupported, each with a message naming class and eu (the spec names them but gives no
/// semantics, or only a layout): AR eu 6/21/22 shifts, 18 mac, 23 mulDHR,
/// 28 copy_mb; integer div; MM2 tf32 (eu 7), INT32 MM2 operands, bias tensors, opt_rq
/// (MM, MM2, PorD; CONV's undefined requantising forms);
/// CW&BC eu 1 wc_ts, 5 static_distribute; SFU eu 15 normalize; CMP / sCMP eu 27 srch_bin
/// (eu 22..26 run: sg2260/exec_cmp.cpp); RQ&DQ dq0 with a parameter tensor (the rest runs:
/// sg2260/exec_rqdq.cpp); SG eu 0..16 (SGL runs: sg2260/exec_sgl.cpp); CONV_BW, conv.tf32,
/// PorD roi_*, LAR, RAND and their short forms; LIN's and VC's undefined forms (LIN eu 1, 20,
/// 21 runs: sg2260/exec_lin.cpp; VC all but div and mulDHR: sg2260/exec_vc.cpp;
/// docs/sg2260-commands.md section 15, "fused linear", "vector correlation"); DMA tensor sp_func 2, 4 (collect, distribute), matrix transpose, general
/// broadcast, and the cmd_types masked_select, cw_transpose, nonzero, reverse,
/// compress/decompress/lossy_*, randmask, transfer; gather/scatter in fp20, scatter
/// add in fp8.
/// `log`: when not null, receives the bytes the command read and wrote (hazard checker).
/// (static_bc, CW&BC eu 4: res0(n, c, h, w) = S(n, h, w) with S the contiguous (n, h, w)
/// array at byte offset opd0_addr & 0xFFFF of the core's static memory, i.e. SMEM: a tilefw
/// decision from the real commands, whose opd0_addr is always 0x580 -- tpu-mlir's
/// EXP_FP16_TAYLOR_OFFSET in the static memory the firmware fills at boot -- while the GDMA
/// writes the image to LMEM lane 0 at the same time; read from LMEM it would be a race.)
Status execute_command(Machine& machine, uint32_t core, uint32_t engine, const uint8_t* data,
                       std::string& message, AccessLog* log = nullptr);
/// What the firmware leaves in static memory at boot (tpu-mlir's memmap: the lookup tables
/// its kernels broadcast with static_bc), as far as tilefw knows the contents: the exp Taylor
/// coefficients 1/k! at EXP_TAYLOR_OFFSET 0x000 (32 x f32), EXP_FP16_TAYLOR_OFFSET 0x580
/// (64 x f16) and EXP_BF16_TAYLOR_OFFSET 0x600 (64 x bf16), each rounded to nearest even;
/// every other byte of the 64 KiB is 0 (the other tables' values are not public). The
/// Simulator writes them into every core's SMEM when it attaches.
inline constexpr uint32_t kStaticExpF32Offset = 0x000;
inline constexpr uint32_t kStaticExpF16Offset = 0x580;
inline constexpr uint32_t kStaticExpBf16Offset = 0x600;
void load_static_tables(Machine& machine, uint32_t core);

/// The command's extent, checked before any executor runs it (sg2260/limits.cpp; called by
/// execute_command, and by the Simulator for its work budget): refuses with
/// cmd_footprint_out_of_range and a message giving the count, the shape and the memory, a
/// command whose walked element count exceeds the bytes of the memory holding them (TIU res0
/// and MM2's M x K / K x N operands against LMEM; DMA against the memory of the side it walks:
/// LMEM, SMEM, L2 or the DDR region of the address) -- zero strides over a huge shape, which
/// no real buffer is. `work`: the element operations it costs (the elements it walks; MM2:
/// M*N*K / 64 + M*K + K*N + M*N, its multiply-adds running ~64x faster per element; CONV and
/// PorD: res0 + res0 x taps / 64 for FP16 / BF16 / FP8 operands, / 8 for others, taps the
/// input channels (CONV) times the kernel; SFU taylor: res0 + res0 x terms / 8).
Status command_extent(const Machine& machine, uint32_t engine, const uint8_t* data, uint64_t& work,
                      std::string& message);
/// The cost of one command under `model` and its trace figures (bytes, ops). false when the
/// model has no formula for the class (it then costs 1 cycle, or a DMA's startup only for
/// the opaque compress classes): callers list such classes as uncosted (the same classes in
/// v1 and v2). For a DMA, `cycles` is its cost alone on the chip (v1 and v2 agree there);
/// `dma`, when not null, receives what v2's scheduler shares (bytes 0: startup only).
bool command_cost(uint32_t engine, const uint8_t* data, uint64_t& cycles, uint64_t& bytes,
                  uint64_t& ops, TimingModel model = TimingModel::v2, DmaDemand* dma = nullptr);

}  // namespace tilefw::port::host::sg2260
