// Cycle timing of the simulated a2a3 AI Core (docs/a2a3-timing.md). Every pipe (MTE2, MTE1, M,
// V, MTE3, FIX and the scalar unit S) keeps its own clock; an issue occupies its pipe for a
// throughput time and completes a start-up latency later; waits, V<->S flags and barriers make
// a pipe start no earlier than the completion it waits for. The engines call it as they take
// an instruction, so timing never changes a functional result. Host-only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tilefw::port::host::timing {

/// Pipes of the timer: chip::a2a3::Pipe codes 0..5, then the scalar unit.
inline constexpr unsigned kPipes = 7;
inline constexpr unsigned kPipeS = 6;
inline constexpr unsigned kPipeMte2 = 0, kPipeMte1 = 1, kPipeM = 2, kPipeV = 3, kPipeMte3 = 4, kPipeFix = 5;
const char* pipe_name(unsigned pipe) noexcept;

/// The model's parameters, in cycles (docs/a2a3-timing.md lists each with its source).
enum class Param : unsigned {
  // Vector issues: per op class a start-up latency (paid by the result of the chain's last
  // issue, or at a barrier or flag that waits for it), the extra latency of a 32-bit float
  // issue, and the cycles per repeat (copy: per 32 B block). Class order = VecClass.
  v_start_binary, v_start_div, v_start_scalar, v_start_unary, v_start_math, v_start_reduce, v_start_copy,
  v_start_dup, v_start_cvt,
  v_f32_binary, v_f32_div, v_f32_scalar, v_f32_unary, v_f32_math, v_f32_reduce, v_f32_copy, v_f32_dup,
  v_f32_cvt,
  v_binary,      // per repeat: vadd vsub vmul vmax vmin
  v_div,         // per repeat: vdiv
  v_scalar,      // per repeat: vadds vmuls vmaxs vmins
  v_unary,       // per repeat: vabs vrelu
  v_math,        // per repeat: vexp vln vsqrt vrsqrt vrec
  v_reduce,      // per repeat: vcadd vcgadd vcpadd vcmax vcmin
  v_copy,        // per 32 B block: copy_ubuf_to_ubuf
  v_dup,         // per repeat: vector_dup and vbrcb
  v_cvt,         // per repeat: vconv
  v_issue,       // per vector issue (decode, register read)
  v_barrier,     // pipe_barrier(PIPE_V): extra cycles after the drain
  sync_flag,     // one set_flag/wait_flag pair between two pipes (V<->S, MTE<->V ...)
  s_read,        // S: one scalar load of a UB element
  mte2_startup,  // MTE2: GM -> UB/L1 DMA latency per move
  mte2_block,    // MTE2: per 32 B block moved
  mte_startup,   // MTE1, MTE3, FIX: latency per move
  mte_block,     // MTE1, MTE3, FIX: per 32 B block moved
  m_startup,     // M: cube latency per matmul
  m_fractal,     // M: per 16x16x16 fractal step
  count
};
inline constexpr unsigned kParamCount = static_cast<unsigned>(Param::count);

/// One row of the parameter table: name, value, and where the value comes from.
struct ParamRow {
  const char* name;
  double value;
  const char* source;  // "fit" (fitted to the shared silicon cases), "doc" or "decision"
  const char* note;
};
/// The table (timing_params.cpp): the only place the model's numbers live.
const std::array<ParamRow, kParamCount>& param_table() noexcept;

using Params = std::array<double, kParamCount>;
Params default_params() noexcept;
/// Index of `name` in the table, or kParamCount.
unsigned param_index(const std::string& name) noexcept;

/// Vector op classes the cost formulas distinguish.
enum class VecClass : unsigned { binary, div, scalar, unary, math, reduce, copy, dup, cvt };

/// One issue on the timeline (the Perfetto trace's slices).
struct Slice {
  unsigned pipe = 0;
  uint64_t start = 0;
  uint64_t end = 0;  // completion (start + busy + latency)
  std::string name;  // the tile instruction (label) and the intrinsic
};

class PipeTimer {
 public:
  explicit PipeTimer(const Params& p = default_params());

  const Params& params() const noexcept { return p_; }
  /// Names the tile instruction the next issues belong to (trace slices, reports).
  void set_label(std::string label) { label_ = std::move(label); }
  /// Slices kept at most (a trace stays loadable).
  static constexpr size_t kMaxSlices = size_t{1} << 20;
  /// Completions kept per pipe for waits (8 B each: at most 3.5 MiB for the seven pipes).
  static constexpr uint64_t kKeptCompletions = uint64_t{1} << 16;
  /// 2^53: the largest cycle count a double holds exactly; times beyond saturate there.
  static constexpr double kMaxCycles = 9007199254740992.0;
  /// Keeps trace slices, the first kMaxSlices (off by default: a kernel's run does not pay).
  void keep_slices(bool on) noexcept { keep_ = on; }

  /// One issue on `pipe`: busy cycles of throughput, then `latency` to completion.
  uint64_t issue(unsigned pipe, double busy, double latency, const char* what);
  /// A vector issue of `units` repeats (copy: 32 B blocks) of class `c`; `f32`: its dtype is
  /// a 32-bit float.
  uint64_t vector(VecClass c, uint64_t units, const char* what, bool f32 = false);
  /// A DMA move of `blocks` 32 B blocks on a move pipe (MTE2/MTE1/MTE3/FIX).
  uint64_t move(unsigned pipe, uint64_t blocks, const char* what);
  /// A cube matmul of m x k x n.
  uint64_t matmul(uint64_t m, uint64_t k, uint64_t n);
  /// A scalar read of UB by S.
  uint64_t scalar_read();

  /// `waiter` starts nothing before instruction `seq` (1-based) of `producer` completes.
  /// Completions are kept for the last kKeptCompletions issues of each pipe only (a long-lived
  /// program's timer stays bounded): a wait for an older one returns false, counts in
  /// stale_waits() and waits for the latest completion among the issues no longer kept (never
  /// earlier than the one asked for).
  bool wait(unsigned waiter, unsigned producer, uint32_t seq);
  /// set_flag(producer) / wait_flag(waiter) on the producer's last instruction, plus its cost.
  void flag(unsigned producer, unsigned waiter);
  /// pipe_barrier(pipe): the pipe's next issue waits for all its issues to complete.
  void pipe_barrier(unsigned pipe);
  /// A barrier of all pipes.
  void barrier_all();

  /// Cycle at which the last issue of any pipe completes (the program's time), at most
  /// kMaxCycles (then saturated() is true).
  uint64_t total() const noexcept;
  /// Cycles a pipe was occupied (the sum of its issues' throughput), at most kMaxCycles.
  uint64_t busy(unsigned pipe) const noexcept { return cycles_of(busy_[pipe]); }
  uint64_t issues(unsigned pipe) const noexcept { return count_[pipe]; }
  /// Issues of all pipes.
  uint64_t issues() const noexcept;
  /// Waits that named an issue older than the kept completions.
  uint64_t stale_waits() const noexcept { return stale_waits_; }
  /// A time reached kMaxCycles: totals and slices are clamped there, no longer exact.
  bool saturated() const noexcept;
  const std::vector<Slice>& slices() const noexcept { return slices_; }

 private:
  double cost(Param k) const noexcept { return p_[static_cast<unsigned>(k)]; }
  static uint64_t cycles_of(double t) noexcept;
  Params p_;
  std::array<double, kPipes> free_{};   // when the pipe can take its next issue
  std::array<double, kPipes> ready_{};  // the earliest start its waits allow
  std::array<double, kPipes> busy_{};
  // Completion of the last kKeptCompletions issues of each pipe: issue n (1-based) at
  // (n - 1) % kKeptCompletions; the latest completion among the older ones in dropped_.
  std::array<std::vector<double>, kPipes> done_{};
  std::array<uint64_t, kPipes> count_{};
  std::array<double, kPipes> dropped_{};
  uint64_t stale_waits_ = 0;
  std::array<double, kPipes> last_done_{};
  std::string label_;
  bool keep_ = false;
  std::vector<Slice> slices_;
};

}  // namespace tilefw::port::host::timing
