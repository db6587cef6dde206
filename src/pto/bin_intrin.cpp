// TBIN_INTRIN's non-template half: wait on pipe V, then one validated issue.
#include "pto/bin_intrin.hpp"

#include "tilefw/issue/vector_issue.hpp"

namespace pto::detail {

void widen_to_footprint(Access (&ops)[3], const tilefw::desc::BinIntrinsicDesc& d, tilefw::DType dt,
                        tilefw::desc::Mask128 live) noexcept {
  namespace td = tilefw::desc::detail;
  using tilefw::chip::a2a3::kMaxBinaryStride;
  const uint32_t elem = tilefw::dtype_size(dt);
  td::QuickShape q = td::quick_rules(d, elem, live);
  if (q.repeats == 0) {
    // A shape only the full validator decides (a partial MASK, or one it rejects): every block
    // of every repeat bounds what it can touch.
    const uint32_t epr = elem == 0 ? 0 : tilefw::chip::a2a3::lanes_per_repeat(elem);
    q.repeats = d.mask_mode == tilefw::desc::MaskMode::count
                    ? (epr == 0 ? 0 : (uint64_t{d.vector_count} + epr - 1) / epr)
                    : d.repeat;
    q.last_blocks = 0;
  }
  if (q.repeats == 0) return;  // nothing issued
  const td::Footprint f[3] = {{d.dst.offset, d.dst_block_stride, d.dst_repeat_stride},
                              {d.src0.offset, d.src0_block_stride, d.src0_repeat_stride},
                              {d.src1.offset, d.src1_block_stride, d.src1_repeat_stride}};
  // Out-of-range strides or counts are rejected at issue; until then (the waits come first)
  // they stand for the rest of UB, which also keeps the arithmetic from wrapping.
  const bool huge = q.repeats > (uint64_t{1} << 26);
  for (size_t k = 0; k < 3; ++k) {
    const bool wild = huge || f[k].blk > kMaxBinaryStride || f[k].rep > kMaxBinaryStride;
    const uint64_t end = wild ? tilefw::chip::a2a3::kUbBytes
                              : (q.last_blocks != 0 ? td::exact_end(f[k], q) : td::conservative_end(f[k], q.repeats));
    if (end > ops[k].offset + ops[k].bytes) ops[k].bytes = end - ops[k].offset;
  }
}

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
