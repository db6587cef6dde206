// run_plan / run: the replay of a plan's steps through the issue layer.
#include "tilefw/tile/run.hpp"

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
  }
  return Status::invalid_argument;  // a step kind this build does not know
}

}  // namespace

Status run_plan(issue::VectorUnit& vu, const plan::Plan& p, RunReport* report) noexcept {
  RunReport local{};
  RunReport& rep = report != nullptr ? *report : local;
  rep = RunReport{};
  // The plans' precondition: normal mode, MASK all ones.
  if (vu.counter_mode()) issue::set_mask_norm(vu);
  if (!(vu.mask == desc::Mask128::all())) issue::set_mask(vu, ~uint64_t{0}, ~uint64_t{0});
  plan::Step s{};
  for (plan::Plan::Cursor c = p.begin(); c.next(s);) {
    ++rep.steps;
    if (s.is_issue()) ++rep.issues;
    const Status st = emit(vu, s, &rep.desc);
    if (st != Status::ok) {
      rep.status = st;
      return st;
    }
  }
  rep.desc = desc::DescReport{};
  return Status::ok;
}

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
