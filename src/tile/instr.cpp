// The non-template halves of the tile instructions: wait for the given events on the
// instruction's pipe, validate and issue, and return the event of the last issue.
#include "tilefw/tile/instr.hpp"

#include "tilefw/issue/engine_issue.hpp"

namespace tilefw::tile {

Status wait_events(Pipe waiter, const Event* events, size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) {
    const Event& e = events[i];
    if (e.seq == 0 || e.pipe == waiter) continue;
    const Status s = issue::wait_event(e.pipe, e.seq, waiter);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

Event latest_event(Pipe pipe) noexcept { return Event{pipe, issue::pipe_count(pipe)}; }

void pipe_barrier(Core&) noexcept { issue::barrier_all(); }

namespace detail {

namespace {
Result<Event> failed(Core& core, const desc::DescReport& r) noexcept {
  core.last_report = r;
  return r.status;
}
}  // namespace

Result<Event> unassigned(Core& core, const char* operand) noexcept {
  desc::DescReport r{};
  r.status = Status::tile_unassigned;
  r.field = operand;
  return failed(core, r);
}

Result<Event> layout_unsupported(Core& core, const char* field, chip::MemSpace space) noexcept {
  desc::DescReport r{};
  r.status = Status::desc_layout_unsupported;
  r.field = field;
  r.value = static_cast<uint32_t>(space);
  return failed(core, r);
}

Result<Event> shape_mismatch(Core& core, const char* operand, uint32_t got, uint32_t want) noexcept {
  desc::DescReport r{};
  r.status = Status::plan_valid_shape_mismatch;
  r.field = operand;
  r.value = got;
  r.limit = want;
  return failed(core, r);
}

namespace {
// Plan (and validate every step) before waiting, so a rejected instruction emits nothing; then
// the trusted replay of the sealed plan. The same request again finds its sealed plan in
// core.plan (PlanFn would return it at once, Plan::planned_for): then neither the planner call
// nor its report is needed.
template <auto PlanFn, auto RunFn>
Result<Event> plan_and_run(Core& core, const plan::Request& req, const Event* waits, size_t n) noexcept {
  // The core's profile decides where the chips' rules differ. A request made for another
  // profile (the instructions make them with the build's) is re-made for the core's: a copy
  // only then, so the common path copies nothing.
  if (req.chip != core.chip) {
    plan::Request on_chip = req;
    on_chip.chip = core.chip;
    return plan_and_run<PlanFn, RunFn>(core, on_chip, waits, n);
  }
  if (!core.plan.planned_for(req)) {
    desc::DescReport pr{};
    const Status planned = PlanFn(req, core.plan, &pr);
    if (planned != Status::ok) {
      pr.status = planned;
      if (pr.field == nullptr || pr.field[0] == '\0') pr.field = plan::tile_op_name(req.op);
      return failed(core, pr);
    }
  }
  if (const Status s = wait_events(Pipe::V, waits, n); s != Status::ok) return s;
  // No run report: the plan is sealed (PlanFn validated it whole), so its replay is trusted and
  // writes no validation report; a failure is the unit's STATUS alone.
  if (const Status s = RunFn(core.vu, core.plan, nullptr); s != Status::ok) {
    // A sealed plan fails only on data (TGATHER's indices): name them and the UB byte.
    desc::DescReport issued{};
    issued.status = s;
    issued.field = req.op == plan::TileOp::TGATHER ? "src1" : plan::tile_op_name(req.op);
    issued.byte_offset = issue::fault_offset(core.vu);
    return failed(core, issued);
  }
  return latest_event(Pipe::V);
}
}  // namespace

Result<Event> run_vector(Core& core, const plan::Request& req, const Event* waits, size_t n) noexcept {
  return plan_and_run<plan::plan_tile, run_plan>(core, req, waits, n);
}

Result<Event> run_vector_binary(Core& core, const plan::Request& req, const Event* waits, size_t n) noexcept {
  return plan_and_run<plan::plan_tile_binary, run_binary_plan>(core, req, waits, n);
}

Result<Event> run_move(Core& core, const desc::MoveDesc& d, const Event* waits, size_t n) noexcept {
  // Validated once, before the wait; the issue then only writes (issue::emit).
  desc::DescReport r{};
  const Result<desc::Validated<desc::MoveDesc>> v = desc::Validator::check(d, DType::u8, desc::Mask128::all(), &r, core.chip);
  if (!v.ok()) return failed(core, r);
  if (const Status s = wait_events(d.pipe, waits, n); s != Status::ok) return s;
  if (const Status s = issue::emit(*v); s != Status::ok) {
    desc::DescReport issued{};
    issued.status = s;
    return failed(core, issued);
  }
  return latest_event(d.pipe);
}

Result<Event> run_matmul(Core& core, const desc::MatmulDesc& d, const Event* waits, size_t n) noexcept {
  // Validated once, before the wait; the issue then only writes (issue::emit).
  desc::DescReport r{};
  const Result<desc::Validated<desc::MatmulDesc>> v = desc::Validator::check(d, DType::u8, desc::Mask128::all(), &r, core.chip);
  if (!v.ok()) return failed(core, r);
  if (const Status s = wait_events(Pipe::M, waits, n); s != Status::ok) return s;
  if (const Status s = issue::emit(*v); s != Status::ok) {
    desc::DescReport issued{};
    issued.status = s;
    return failed(core, issued);
  }
  return latest_event(Pipe::M);
}

}  // namespace detail

}  // namespace tilefw::tile
