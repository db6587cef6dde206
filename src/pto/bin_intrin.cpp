// TBIN_INTRIN's non-template half: wait on pipe V, then one validated issue.
#include "pto/bin_intrin.hpp"

#include "tilefw/issue/vector_issue.hpp"

namespace pto::detail {

tilefw::Result<tilefw::tile::Event> issue_binary(tilefw::tile::Core& core, const tilefw::desc::BinIntrinsicDesc& d,
                                                 tilefw::DType dt, const tilefw::tile::Event* waits,
                                                 size_t n) noexcept {
  // issue_once validates against the mask it will set and writes nothing when it rejects; the
  // waits before it are harmless (they only order the pipes).
  tilefw::desc::DescReport r{};
  const tilefw::Status waited = tilefw::tile::wait_events(tilefw::chip::a2a3::Pipe::V, waits, n);
  if (waited != tilefw::Status::ok) return waited;
  if (const tilefw::Status s = tilefw::issue::issue_once(core.vu, d, dt, &r); s != tilefw::Status::ok) {
    core.last_report = r;
    core.last_report.status = s;
    return s;
  }
  return tilefw::tile::latest_event(tilefw::chip::a2a3::Pipe::V);
}

}  // namespace pto::detail
