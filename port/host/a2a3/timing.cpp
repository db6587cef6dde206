// The pipe timer of the a2a3 simulator (see timing.hpp and docs/a2a3-timing.md).
#include "a2a3/timing.hpp"

#include <algorithm>
#include <cmath>

namespace tilefw::port::host::timing {

const char* pipe_name(unsigned pipe) noexcept {
  static constexpr const char* kNames[kPipes] = {"MTE2", "MTE1", "M", "V", "MTE3", "FIX", "S"};
  return pipe < kPipes ? kNames[pipe] : "?";
}

Params default_params() noexcept {
  Params p{};
  const auto& t = param_table();
  for (unsigned i = 0; i < kParamCount; ++i) p[i] = t[i].value;
  return p;
}

unsigned param_index(const std::string& name) noexcept {
  const auto& t = param_table();
  for (unsigned i = 0; i < kParamCount; ++i) {
    if (name == t[i].name) return i;
  }
  return kParamCount;
}

PipeTimer::PipeTimer(const Params& p) : p_(p) {}

uint64_t PipeTimer::issue(unsigned pipe, double busy, double latency, const char* what) {
  if (pipe >= kPipes) return 0;
  // In-order issue per pipe: after the previous issue's throughput and after every wait.
  const double start = std::max(free_[pipe], ready_[pipe]);
  free_[pipe] = start + busy;
  const double done = start + busy + latency;
  busy_[pipe] += busy;
  std::vector<double>& ring = done_[pipe];
  const uint64_t n = count_[pipe]++;
  if (ring.size() < kKeptCompletions) {
    ring.push_back(done);
  } else {
    double& slot = ring[n % kKeptCompletions];
    dropped_[pipe] = std::max(dropped_[pipe], slot);  // issue n + 1 - kKeptCompletions leaves
    slot = done;
  }
  last_done_[pipe] = std::max(last_done_[pipe], done);
  if (keep_ && slices_.size() < kMaxSlices) {
    slices_.push_back(
        Slice{pipe, cycles_of(start), cycles_of(done), label_.empty() ? std::string(what) : label_ + " " + what});
  }
  return cycles_of(done);
}

uint64_t PipeTimer::cycles_of(double t) noexcept {
  if (!(t > 0)) return 0;
  return t >= kMaxCycles ? static_cast<uint64_t>(kMaxCycles) : static_cast<uint64_t>(std::llround(t));
}

uint64_t PipeTimer::issues() const noexcept {
  uint64_t n = 0;
  for (uint64_t c : count_) n += c;
  return n;
}

bool PipeTimer::saturated() const noexcept {
  for (unsigned p = 0; p < kPipes; ++p) {
    if (last_done_[p] >= kMaxCycles || ready_[p] >= kMaxCycles || busy_[p] >= kMaxCycles) return true;
  }
  return false;
}

uint64_t PipeTimer::vector(VecClass c, uint64_t units, const char* what, bool f32) {
  const unsigned k = static_cast<unsigned>(c);
  const double per = p_[static_cast<unsigned>(Param::v_binary) + k];
  const double latency =
      p_[static_cast<unsigned>(Param::v_start_binary) + k] + (f32 ? p_[static_cast<unsigned>(Param::v_f32_binary) + k] : 0.0);
  return issue(kPipeV, cost(Param::v_issue) + per * static_cast<double>(units), latency, what);
}

uint64_t PipeTimer::move(unsigned pipe, uint64_t blocks, const char* what) {
  const bool gm = pipe == kPipeMte2;
  const double per = cost(gm ? Param::mte2_block : Param::mte_block);
  return issue(pipe, per * static_cast<double>(blocks), cost(gm ? Param::mte2_startup : Param::mte_startup), what);
}

uint64_t PipeTimer::matmul(uint64_t m, uint64_t k, uint64_t n) {
  const uint64_t steps = ((m + 15) / 16) * ((k + 15) / 16) * ((n + 15) / 16);
  return issue(kPipeM, cost(Param::m_fractal) * static_cast<double>(steps), cost(Param::m_startup), "matmul");
}

uint64_t PipeTimer::scalar_read() { return issue(kPipeS, cost(Param::s_read), 0.0, "ld"); }

bool PipeTimer::wait(unsigned waiter, unsigned producer, uint32_t seq) {
  if (waiter >= kPipes || producer >= kPipes || seq == 0 || seq > count_[producer]) return true;
  const bool kept = count_[producer] - seq < kKeptCompletions;
  if (!kept) ++stale_waits_;
  const double done = kept ? done_[producer][(seq - 1) % kKeptCompletions] : dropped_[producer];
  ready_[waiter] = std::max(ready_[waiter], done + cost(Param::sync_flag));
  return kept;
}

void PipeTimer::flag(unsigned producer, unsigned waiter) {
  if (waiter >= kPipes || producer >= kPipes) return;
  ready_[waiter] = std::max({ready_[waiter], last_done_[producer], ready_[producer]}) + cost(Param::sync_flag);
}

void PipeTimer::pipe_barrier(unsigned pipe) {
  if (pipe >= kPipes) return;
  ready_[pipe] = std::max(ready_[pipe], last_done_[pipe]) + cost(Param::v_barrier);
}

void PipeTimer::barrier_all() {
  double t = 0;
  for (unsigned p = 0; p < kPipes; ++p) t = std::max({t, last_done_[p], ready_[p]});
  for (unsigned p = 0; p < kPipes; ++p) ready_[p] = t + cost(Param::v_barrier);
}

uint64_t PipeTimer::total() const noexcept {
  double t = 0;
  for (unsigned p = 0; p < kPipes; ++p) t = std::max(t, last_done_[p]);
  return cycles_of(t);
}

}  // namespace tilefw::port::host::timing
