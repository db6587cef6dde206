// Whole-buffer validation (see validate.hpp for the exact list of checks and classes).

#include "tilefw/cmd/validate.hpp"

#include "footprint.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"

namespace tilefw::cmd {

namespace {
using detail::Fail;

ValidationReport fail_report(Engine e, Status s, const Command& c, const char* field,
                             const char* message, uint32_t count) noexcept {
  ValidationReport r;
  r.status = s;
  r.engine = e;
  r.command_id = c.id;
  r.offset = c.offset;
  r.field = field;
  r.message = message;
  r.commands = count;
  return r;
}

// The report of a walk that got to its end (or stopped on a structural error): the walkers
// (Walker, HauWalker) say the same things the same way.
template <class StreamWalker>
ValidationReport walk_report(Engine engine, const StreamWalker& walker) noexcept {
  ValidationReport r;
  r.engine = engine;
  r.status = walker.status();
  r.commands = walker.count();
  if (r.status != Status::ok) {
    r.command_id = walker.error_id();
    r.offset = walker.error_offset();
    r.message = walker.message();
  }
  return r;
}

constexpr const char* kTooLong = TILEFW_REASON("stream holds more than 2^20 - 1 commands");
constexpr const char* kPeerShort = TILEFW_REASON("waits for more commands than the other engine's stream holds");

// A HAU stream holds only message syncs (no addresses, no cmd_id_dep): its structure is all
// there is to check.
ValidationReport validate_hau(ConstByteSpan buffer, const ValidateOptions& o) noexcept {
  HauWalker walker(buffer);
  HauCommand c;
  while (walker.next(c)) {
    if (c.id > o.max_commands) {
      ValidationReport r;
      r.engine = Engine::hau;
      r.status = Status::cmd_stream_too_long;
      r.command_id = c.id;
      r.offset = c.offset;
      r.message = kTooLong;
      r.commands = c.id;
      return r;
    }
  }
  return walk_report(Engine::hau, walker);
}
}  // namespace

namespace {
// SYS_TR_ACC writes TGCR[reg_idx0] = imm0 and imm1's high / low words to reg_idx1 / 2; a
// requantising CONV's tensors are checked at the addresses written so far.
detail::Fail track_tgcr(const Command& c, detail::TgcrState& t) noexcept {
  if (c.cls == CmdClass::SYS_TR_ACC) {
    const SysTrAccView v(c.data);
    t.write(static_cast<uint32_t>(v.reg_idx0()), static_cast<uint32_t>(v.imm0()));
    t.write(static_cast<uint32_t>(v.reg_idx1()), static_cast<uint32_t>(v.imm1() >> 32));
    t.write(static_cast<uint32_t>(v.reg_idx2()), static_cast<uint32_t>(v.imm1()));
    return detail::kPass;
  }
  return detail::check_conv_rq(c, t);
}
}  // namespace

ValidationReport validate_stream(Engine engine, ConstByteSpan buffer,
                                 const ValidateOptions& o) noexcept {
  if (engine == Engine::hau) return validate_hau(buffer, o);
  if (engine == Engine::cdma) return detail::validate_cdma_stream(buffer, o);
  Walker walker(engine, buffer);
  Command c;
  uint32_t max_dep_id = 0;
  detail::TgcrState tgcr;  // the requantising CONV finds its parameters through these
  while (walker.next(c)) {
    if (c.id > o.max_commands) return fail_report(engine, Status::cmd_stream_too_long, c, "", kTooLong, c.id);
    if (c.dep_enabled() && c.dep_id() > max_dep_id) max_dep_id = c.dep_id();
    if (c.dep_enabled() && o.peer_commands != kUnknownCount && c.dep_id() > o.peer_commands) {
      return fail_report(engine, Status::cmd_unsatisfiable_dependency, c, "cmd_id_dep", kPeerShort, c.id);
    }
    // A checked copy's operands are those of a command this walk checks in full, moved
    // within the memory rule (ValidateOptions::checked_copies).
    const uint32_t bit = c.id - 1;
    const bool checked = bit / 8 < o.checked_copies.size() && ((o.checked_copies[bit / 8] >> (bit % 8)) & 1) != 0;
    Fail f = checked ? detail::kPass : engine == Engine::tiu ? detail::check_tiu(c) : detail::check_dma(c, o);
    if (f.status == Status::ok && engine == Engine::sdma && !checked) f = detail::check_sdma_reach(c);
    if (f.status == Status::ok && engine == Engine::tiu) f = track_tgcr(c, tgcr);
    if (f.status != Status::ok) return fail_report(engine, f.status, c, f.field, f.message, c.id);
  }
  ValidationReport r = walk_report(engine, walker);
  r.max_dep_id = max_dep_id;
  return r;
}

namespace {
// The first command of a valid stream that waits for more than `peer` commands of the other
// engine: walked only when the stream's highest dependency says there is one.
ValidationReport first_unsatisfiable(Engine engine, ConstByteSpan buffer, uint32_t peer) noexcept {
  Walker walker(engine, buffer);
  Command c;
  while (walker.next(c)) {
    if (c.dep_enabled() && c.dep_id() > peer) {
      return fail_report(engine, Status::cmd_unsatisfiable_dependency, c, "cmd_id_dep", kPeerShort, c.id);
    }
  }
  return ValidationReport{};
}

// Lock-step dry run of the TIU <-> GDMA dependencies (barriers assumed to pass).
ValidationReport dry_run(ConstByteSpan tiu, ConstByteSpan gdma) noexcept {
  Walker wt(Engine::tiu, tiu), wg(Engine::gdma, gdma);
  Command ct, cg;
  bool ht = wt.next(ct), hg = wg.next(cg);
  uint32_t done_t = 0, done_g = 0;
  for (;;) {
    bool progress = false;
    while (ht && (!ct.dep_enabled() || ct.dep_id() <= done_g)) {
      ++done_t;
      ht = wt.next(ct);
      progress = true;
    }
    while (hg && (!cg.dep_enabled() || cg.dep_id() <= done_t)) {
      ++done_g;
      hg = wg.next(cg);
      progress = true;
    }
    if (!ht && !hg) return ValidationReport{};
    if (!progress) break;
  }
  const Engine e = ht ? Engine::tiu : Engine::gdma;
  const Command& c = ht ? ct : cg;
  return fail_report(e, Status::cmd_unsatisfiable_dependency, c, "cmd_id_dep",
                     TILEFW_REASON("TIU and GDMA wait on each other: this dependency is never met"),
                     ht ? wt.count() : wg.count());
}
}  // namespace

ValidationReport validate_core(const CoreStreams& core, const ValidateOptions& options,
                               CoreCommandCounts& counts) noexcept {
  // Each stream on its own first (structure, addresses, footprints), so a broken stream is
  // reported as such rather than as a dependency on the commands it lost.
  ValidateOptions o = options;
  o.peer_commands = kUnknownCount;
  o.checked_copies = core.tiu_checked;
  const ValidationReport t = validate_stream(Engine::tiu, core.tiu, o);
  if (!t.ok()) return t;
  o.checked_copies = core.gdma_checked;
  const ValidationReport g = validate_stream(Engine::gdma, core.gdma, o);
  if (!g.ok()) return g;
  o.checked_copies = {};
  CoreCommandCounts n;
  n.by_engine[0] = t.commands;
  n.by_engine[1] = g.commands;
  const ConstByteSpan others[2] = {core.sdma, core.hau};
  for (uint32_t k = 0; k < 2; ++k) {
    if (others[k].empty()) continue;
    const ValidationReport r = validate_stream(static_cast<Engine>(2 + k), others[k], o);
    if (!r.ok()) return r;
    n.by_engine[2 + k] = r.commands;
  }
  // The dependency ranges, from each stream's highest dependency: a second walk only to name
  // the first command at fault.
  if (t.max_dep_id > g.commands) return first_unsatisfiable(Engine::tiu, core.tiu, g.commands);
  if (g.max_dep_id > t.commands) return first_unsatisfiable(Engine::gdma, core.gdma, t.commands);
  // When one engine waits on nothing it runs to its end, and then every wait of the other is
  // met (in range): only streams that both wait need the dry run.
  const ValidationReport d = t.max_dep_id == 0 || g.max_dep_id == 0 ? ValidationReport{} : dry_run(core.tiu, core.gdma);
  if (d.ok()) counts = n;
  return d;
}

ValidationReport validate_core(const CoreStreams& core, const ValidateOptions& options) noexcept {
  CoreCommandCounts counts;
  return validate_core(core, options, counts);
}

}  // namespace tilefw::cmd
