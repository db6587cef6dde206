// run_plan / run: the replay of a plan's steps through the issue layer.
#include "tilefw/tile/run.hpp"

#include <type_traits>

namespace tilefw::tile {

namespace {

Status emit(issue::VectorUnit& vu, const plan::Step& s, desc::DescReport* r) noexcept {
  switch (s.kind) {
    case plan::StepKind::set_mask:
      issue::set_mask(vu, s.mask.hi, s.mask.lo);
      return Status::ok;
    case plan::StepKind::set_mask_count:
      return issue::set_mask_count(vu, s.count);
    case plan::StepKind::set_mask_norm:
      issue::set_mask_norm(vu);
      return Status::ok;
    case plan::StepKind::binary: return issue::issue_once(vu, s.binary, s.dtype, r);
    case plan::StepKind::unary: return issue::issue_once(vu, s.unary, s.dtype, r);
    case plan::StepKind::scalar: return issue::issue_once(vu, s.scalar, s.dtype, r);
    case plan::StepKind::reduce: return issue::issue_once(vu, s.reduce, s.dtype, r);
    case plan::StepKind::copy: return issue::issue_once(vu, s.copy, r);
    case plan::StepKind::dup: return issue::issue_once(vu, s.dup, s.dtype, r);
    case plan::StepKind::cvt: return issue::issue_once(vu, s.cvt, r);
    case plan::StepKind::brcb: return issue::issue_once(vu, s.brcb, s.dtype, r);
    case plan::StepKind::gather: return issue::issue_once(vu, s.gather, s.dtype, r);
    case plan::StepKind::cmp: return issue::issue_once(vu, s.cmp, s.dtype, r);
    case plan::StepKind::sel: return issue::issue_once(vu, s.sel, s.dtype, r);
  }
  return Status::invalid_argument;  // a step kind this build does not know
}

// A step of a plan validated whole: the issue layer's trusted path (register writes and the
// doorbell only, under the state the step was validated in).
Status emit(issue::VectorUnit& vu, const plan::TrustedStep& t) noexcept {
  const plan::Step& s = t.step();
  switch (s.kind) {
    case plan::StepKind::binary: return issue::emit(vu, t.binary());
    case plan::StepKind::unary: return issue::emit(vu, t.unary());
    case plan::StepKind::scalar: return issue::emit(vu, t.scalar());
    case plan::StepKind::reduce: return issue::emit(vu, t.reduce());
    case plan::StepKind::copy: return issue::emit(vu, t.copy());
    case plan::StepKind::dup: return issue::emit(vu, t.dup());
    case plan::StepKind::cvt: return issue::emit(vu, t.cvt());
    case plan::StepKind::brcb: return issue::emit(vu, t.brcb());
    case plan::StepKind::gather: return issue::emit(vu, t.gather());
    case plan::StepKind::cmp: return issue::emit(vu, t.cmp());
    case plan::StepKind::sel: return issue::emit(vu, t.sel());
    default: return emit(vu, s, nullptr);  // mode steps: plain register writes either way
  }
}

// The trusted step of a plan_tile_binary plan: binary issues and mode steps only, so a firmware
// using only binary tile instructions links no other issue kind.
struct BinaryStep {
  plan::TrustedStep t{};
};
bool next(plan::Plan::Cursor& c, plan::Step& s) noexcept { return c.next(s); }
bool next(plan::Plan::Cursor& c, plan::TrustedStep& s) noexcept { return c.next(s); }
bool next(plan::Plan::Cursor& c, BinaryStep& s) noexcept { return c.next(s.t); }

const plan::Step& step_of(const plan::Step& s) noexcept { return s; }
const plan::Step& step_of(const plan::TrustedStep& t) noexcept { return t.step(); }
const plan::Step& step_of(const BinaryStep& b) noexcept { return b.t.step(); }
Status emit_step(issue::VectorUnit& vu, const plan::Step& s, RunReport* rep) noexcept {
  return emit(vu, s, rep != nullptr ? &rep->desc : nullptr);
}
Status emit_step(issue::VectorUnit& vu, const plan::TrustedStep& t, RunReport*) noexcept { return emit(vu, t); }
Status emit_step(issue::VectorUnit& vu, const BinaryStep& b, RunReport*) noexcept {
  const plan::Step& s = b.t.step();
  switch (s.kind) {
    case plan::StepKind::set_mask:
      issue::set_mask(vu, s.mask.hi, s.mask.lo);
      return Status::ok;
    case plan::StepKind::set_mask_count: return issue::set_mask_count(vu, s.count);
    case plan::StepKind::set_mask_norm:
      issue::set_mask_norm(vu);
      return Status::ok;
    case plan::StepKind::binary: return issue::emit(vu, b.t.binary());
    default: return Status::invalid_argument;  // not a plan of plan_tile_binary
  }
}

// StepT = plan::TrustedStep for a plan validated whole, plan::Step for any other. `rep`: the
// caller's report, or nullptr when it has none (nothing is counted then).
template <class StepT>
Status replay(issue::VectorUnit& vu, const plan::Plan& p, RunReport* rep) noexcept {
  StepT s{};
  for (plan::Plan::Cursor c = p.begin(); next(c, s);) {
    if (rep != nullptr) {
      ++rep->steps;
      if (step_of(s).is_issue()) ++rep->issues;
    }
    if (const Status st = emit_step(vu, s, rep); st != Status::ok) {
      if (rep != nullptr) rep->status = st;
      return st;
    }
  }
  return Status::ok;
}

}  // namespace

namespace {
// The report's cycle fields: the counters' difference over the run (a core's performance
// counters, read through the port: the core has no clock of its own).
void record_cycles(RunReport& rep, const issue::CycleCounters& before) noexcept {
  const issue::CycleCounters d = issue::elapsed(before, issue::read_cycle_counters());
  rep.cycles = d.cycles;
  for (uint32_t i = 0; i < chip::a2a3::sreg::kCounterPipes; ++i) rep.pipe_busy[i] = d.busy[i];
}

// Puts the unit in the plans' precondition (normal mode, MASK all ones), replays, reports.
// Without a caller's report none is built: its initialisation (a 112-byte block GCC fills with
// `rep stos`, tens of cycles to start) was a measurable part of a small tile instruction.
template <class StepT>
Status run_as(issue::VectorUnit& vu, const plan::Plan& p, RunReport* rep) noexcept {
  issue::CycleCounters before{};
  if (rep != nullptr) {
    *rep = RunReport{};
    before = issue::read_cycle_counters();
  }
  if (vu.counter_mode()) issue::set_mask_norm(vu);
  if (!(vu.mask == desc::Mask128::all())) issue::set_mask(vu, ~uint64_t{0}, ~uint64_t{0});
  const Status st = replay<StepT>(vu, p, rep);
  if (rep != nullptr) record_cycles(*rep, before);
  if (st != Status::ok) return st;
  // Only the plain replay writes validation reports (issue_once); after a success its last
  // one is cleared. A trusted replay never writes rep->desc: it is still the empty report.
  if constexpr (std::is_same_v<StepT, plan::Step>) {
    if (rep != nullptr) rep->desc = desc::DescReport{};
  }
  return Status::ok;
}
}  // namespace

Status run_plan(issue::VectorUnit& vu, const plan::Plan& p, RunReport* report) noexcept {
  // A plan validated whole (plan_tile, plan_seal) is trusted: its issues skip validation. Any
  // other plan is replayed through issue_once, which validates every issue.
  return p.trusted() ? run_as<plan::TrustedStep>(vu, p, report) : run_as<plan::Step>(vu, p, report);
}

namespace detail {
Status run_binary_plan(issue::VectorUnit& vu, const plan::Plan& p, RunReport* report) noexcept {
  if (!p.trusted()) {
    if (report != nullptr) {
      *report = RunReport{};
      report->status = Status::invalid_argument;
    }
    return Status::invalid_argument;
  }
  return run_as<BinaryStep>(vu, p, report);
}
}  // namespace detail

Status run(issue::VectorUnit& vu, const plan::Request& req, plan::Plan& scratch, RunReport* report) noexcept {
  desc::DescReport plan_report{};
  const Status s = plan::plan_tile(req, scratch, &plan_report);
  if (s != Status::ok) {
    if (report != nullptr) {
      *report = RunReport{};
      report->status = s;
      report->desc = plan_report;
    }
    return s;
  }
  return run_plan(vu, scratch, report);
}

}  // namespace tilefw::tile
