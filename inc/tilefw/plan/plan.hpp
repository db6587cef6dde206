// The a2a3 tile planner: a tile instruction on runtime tile descriptions becomes an exact,
// fully validated sequence of single issues and MASK/mode changes, stored compactly in a
// caller-owned Plan and produced lazily, one Step at a time, without allocating.
//
// ## Shape of a plan
// A Plan is a short list of segments; a segment is one Step template repeated over at most
// two loops (outer x inner) with per-operand byte offsets advancing by fixed deltas, and an
// optional shorter repeat on the last inner iteration (rows split at 255). Steps are
// materialised on demand by Plan::Cursor or Plan::for_each, so a per-row fallback over 4096
// rows costs one segment, not 4096 stored descriptors.
//
// Each Step is either a mode step (set_mask(hi, lo), set_mask_count(n), set_mask_norm — the
// program items of spec/conformance.md with the same meaning) or one issue descriptor (desc
// layer) together with the MASK state in effect when it runs (mode, MASK value, vector count).
// Issues never use `tail_elements`: masks are explicit set_mask steps, so a consumer that
// replays the steps in order (a simulator, the issue layer, a conformance runner) reproduces
// the hardware state exactly. Every plan assumes and restores normal mode with MASK all ones
// (spec/conformance.md: "after a tile item the unit is in normal mode with MASK all ones");
// mode steps are emitted only when the state actually changes.
//
// plan_tile() checks the tiles (Tile constraints, placement), the op's own checks, builds the
// plan, then validates every step with desc::validate against the tracked MASK state
// (plan_validate) before it returns ok: nothing is handed to a consumer before the whole
// sequence is known to be legal.
//
// ## Instruction streams (EPR = 256 / sizeof(T) lanes per repeat, BSE = 32 / sizeof(T))
// Elementwise (TADD TSUB TMUL TDIV TMAX TMIN -> vadd.., TADDS TMULS TMAXS TMINS -> vadds..,
// TABS TEXP TLOG TSQRT TRSQRT TRECIP TRELU -> vabs vexp vln vsqrt vrsqrt vrec vrelu, TEXPANDS
// -> vector_dup, TCVT -> vconv) follow PTO's a2a3 BinaryInstr path selection (tile-model 5.2)
// on the runtime (DYNAMIC) branch, i.e. decided on valid sizes:
//  * operands with the same Cols:
//    - contiguous (Cols == vc, or vr == 1), n = vr*vc: counter mode (one issue, count n) when
//      ceil(n/EPR) > 255 or vc > EPR is not a multiple of EPR; else if Cols < EPR one issue with
//      MASK continuous(vc), repeat vr, repeat stride Cols/BSE (rows split at 255); else one
//      full-mask issue of n/EPR repeats plus one repeat-1 issue with MASK continuous(n % EPR);
//    - not contiguous: Cols/EPR > 1 and Rows*(Cols/EPR) < 4, or Rows < Cols/EPR + 1 with a
//      partial last chunk: counter mode count vc, one issue per row; Rows < Cols/EPR + 1 with
//      vc a multiple of EPR: one full-mask issue per row (255-repeat chunks); otherwise
//      row-repeat (below);
//  * operands with different Cols: row-repeat.
//  Row-repeat: for each full EPR-lane column chunk one issue with repeat = rows (split at
//  255), repeat strides = each operand's row in blocks; then the tail chunk with MASK
//  continuous(vc % EPR). If any row stride exceeds the op's repeat-stride field (255 binary and
//  vconv, 65535 unary/scalar/dup), one issue per row instead (full chunks, then tail chunk).
//  PTO splits rows at 255 only in its tail loop and goes per row for the head when Rows > 255;
//  tilefw splits both at 255 (same instructions per row, fewer issues).
// TROWSUM / TROWMAX / TROWMIN (half, float; vadd/vmax/vmin + vcadd/vcmax/vcmin only_value):
//  vector-semantics 4.2 exactly: vc <= EPR one vcadd (counter mode when vc == EPR, else
//  MASK continuous(vc), rows split at 255; tmp untouched); vc > EPR: P == 1 copies chunk 0 into
//  tmp (copy_ubuf_to_ubuf), FillTmp tmp_i = s_2i + s_2i+1 (counter mode, count vr*EPR), odd P
//  folds s_{P-1} into tmp_0, the tail adds MASK continuous(rem) lanes of s_P into tmp_0,
//  TmpProc halves tmp (odd leftover into chunk len/2-1), one counter-mode vcadd tmp -> dst.
//  dst repeat stride = dst Cols elements (1 for an Nx1 col-major dst). Strides beyond a
//  field (255 binary, 65535 reduce) fall back to one repeat-1 issue per row.
//  TROWSUM f32 with an Nx1 col-major dst and src exactly 64x128, 32x256, 16x512 or 8x1024
//  (all valid) takes PTO's fast path (vector-semantics 4.3): vcgadd src -> tmp (packed), vadd
//  with block strides 1,2,2 / repeat strides 8,16,16 or vcgadd tmp -> tmp, then vcgadd tmp ->
//  dst; tmp needs rows*cols/8 floats. TROWMAX/TROWMIN have no fast path (there is no vcgmax
//  descriptor) and take the generic stream.
// TCOLSUM / TCOLMAX / TCOLMIN (half, float, int32) — tilefw's choice: copy src row 0 to dst
//  row 0 (copy_ubuf_to_ubuf, whole 32 B blocks), then per EPR-lane column chunk one
//  accumulator issue vadd/vmax/vmin(dst, src rows 1.., dst) with dst and src1 repeat stride 0
//  and src0 repeat stride = src row (vector-semantics 1.4 accumulator case; rows in order,
//  split at 255), the tail chunk under MASK continuous(vc % EPR). Rows are combined
//  sequentially: ((r0 + r1) + r2) + ... TCOLSUM's tmp is accepted and not used.
// TCOLEXPAND (any 16/32-bit type) — tilefw's choice: dst[i, j] = src[0, j] by copies: src row 0
//  to dst row 0, then doubling copies dst rows [0, k) -> [k, 2k) until vr rows are filled.
// TROWEXPAND / TROWEXPANDADD / SUB / MUL / DIV (half, float) — tilefw's choice (PTO's a2a3
//  stream broadcasts with vbrcb into a hidden 8 KB scratch at the top of UB, then one counter-mode
//  issue per row; tilefw keeps to caller memory and issues whole row ranges): the per-row vector
//  v (an Nx1 col-major tile, or a row-major tile with one valid column) is first broadcast into
//  one 32 B "slot" per valid row, then consumed with src1 block stride 0.
//  Slots live in dst, slot i = block 0 of dst row i, when dst shares no byte with src0 or v (the
//  broadcast would clobber inputs still to be read) and dst has room for what vbrcb writes (v
//  col-major: capacity rows >= vr rounded up to 8; v row-major: rows of >= 8 blocks). Otherwise
//  they live in the request's tmp (any dtype, UB, no byte shared with dst/src0/v): slot stride 1
//  block (v col-major, round8(vr) blocks) or 8 blocks (v row-major, vr * 256 B); no tmp or a
//  smaller one is plan_tmp_too_small, an overlapping one plan_operands_overlap.
//  Broadcast: v col-major: vbrcb v -> slots, block stride = slot stride, repeat stride = 8 slots,
//  repeat = ceil(vr/8) split at 255 (b16 at 254, so a continuation starts 32 B aligned); rows
//  vr..round8(vr)-1 of the slot area are written too (outside the valid region). v row-major:
//  one repeat-1 vbrcb per row reading v's row start (element 0 is v[i]; the other 7 blocks land
//  in slot i's following blocks, inside dst row i or tmp's 8-block slot, and are overwritten or
//  unused). vbrcb ignores MASK/CTRL.
//  TROWEXPANDop: per column chunk one vadd/vsub/vmul/vdiv(dst, src0, slots) over the rows with
//  src1 block stride 0 and src1 repeat stride = slot stride (rows split at 255; strides beyond
//  255: one repeat-1 issue per row). Order: the masked tail chunk (MASK continuous(vc % EPR)),
//  then full chunks 1.., then chunk 0 last — in dst-slot mode chunk 0 reads each row's slot in
//  the same repeat that overwrites it (an identical block, reads before writes: legal by
//  vector-semantics 1.4), and no earlier issue or repeat writes a slot still to be read.
//  TROWEXPAND: slots to dst row block 0 (a copy when they live in tmp), then doubling copies of
//  each row's blocks [0, k) -> [k, 2k) until ceil(vc * size / 32) blocks are filled.
// TEXPANDS: vector_dup of the scalar over dst through the elementwise scheduler.
// TCVT: vconv through the elementwise scheduler with 64 lanes per repeat.
// Copies move whole 32 B blocks: bytes past vc up to the block end of a row (inside the row's
// capacity) may be written; they lie outside the valid region and are unspecified (seed 002).
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/desc/move_desc.hpp"
#include "tilefw/desc/validate.hpp"
#include "tilefw/desc/vector_desc.hpp"

namespace tilefw::plan {

/// Element order of a tile: row-major ("ND") or column-major ("DN"), not boxed.
enum class Layout : uint8_t { row_major, col_major };

/// A tile as the planner sees it at run time: where it lives and its static capacity, its
/// (possibly dynamic) valid prefix and layout. Tile<> types produce one with desc().
struct TileDesc {
  chip::MemSpace space = chip::MemSpace::UB;
  uint32_t offset = 0;
  DType dtype = DType::f32;
  uint32_t rows = 0;
  uint32_t cols = 0;
  uint32_t valid_rows = 0;
  uint32_t valid_cols = 0;
  Layout layout = Layout::row_major;

  constexpr uint32_t elem_bytes() const noexcept { return dtype_size(dtype); }
  constexpr uint64_t bytes() const noexcept { return uint64_t{rows} * cols * elem_bytes(); }
  /// Bytes between rows of a row-major tile (between columns of a col-major one: rows*elem).
  constexpr uint32_t row_bytes() const noexcept { return cols * elem_bytes(); }
};

/// Shorthand for a UB tile with a full or given valid region.
constexpr TileDesc ub_tile(uint32_t offset, DType dt, uint32_t rows, uint32_t cols,
                           uint32_t valid_rows, uint32_t valid_cols,
                           Layout layout = Layout::row_major) noexcept {
  return TileDesc{chip::MemSpace::UB, offset, dt, rows, cols, valid_rows, valid_cols, layout};
}
constexpr TileDesc ub_tile(uint32_t offset, DType dt, uint32_t rows, uint32_t cols) noexcept {
  return ub_tile(offset, dt, rows, cols, rows, cols);
}

/// Tile instructions the planner handles.
enum class TileOp : uint8_t {
  TADD, TSUB, TMUL, TDIV, TMAX, TMIN,
  TADDS, TMULS, TMAXS, TMINS,
  TABS, TEXP, TLOG, TSQRT, TRSQRT, TRECIP, TRELU,
  TROWSUM, TROWMAX, TROWMIN,
  TCOLSUM, TCOLMAX, TCOLMIN,
  TCOLEXPAND, TEXPANDS, TCVT,
  TROWEXPAND, TROWEXPANDADD, TROWEXPANDSUB, TROWEXPANDMUL, TROWEXPANDDIV,
};

/// "TADD", "TROWSUM", ...; "?" for an unknown value.
const char* tile_op_name(TileOp op) noexcept;

/// One tile instruction: operands by role (unused roles stay default).
/// binary: dst src0 src1; scalar: dst src0 + scalar_bits (raw bits of T); unary, TCVT,
/// TCOLEXPAND, TCOLMAX/MIN: dst src0; TROWSUM/MAX/MIN, TCOLSUM: dst src0 tmp; TEXPANDS: dst +
/// scalar_bits; TROWEXPAND: dst src0 (the per-row vector) [tmp]; TROWEXPANDADD/SUB/MUL/DIV: dst
/// src0 src1 (the per-row vector) [tmp] (tmp optional: rows == 0 means none).
struct Request {
  TileOp op = TileOp::TADD;
  TileDesc dst{};
  TileDesc src0{};
  TileDesc src1{};
  TileDesc tmp{};
  uint32_t scalar_bits = 0;
  desc::RoundMode round = desc::RoundMode::rint;

  static constexpr Request binary(TileOp op, const TileDesc& d, const TileDesc& a, const TileDesc& b) noexcept {
    Request r{};
    r.op = op;
    r.dst = d;
    r.src0 = a;
    r.src1 = b;
    return r;
  }
  static constexpr Request scalar(TileOp op, const TileDesc& d, const TileDesc& a, uint32_t bits) noexcept {
    Request r{};
    r.op = op;
    r.dst = d;
    r.src0 = a;
    r.scalar_bits = bits;
    return r;
  }
  static constexpr Request unary(TileOp op, const TileDesc& d, const TileDesc& a) noexcept {
    Request r{};
    r.op = op;
    r.dst = d;
    r.src0 = a;
    return r;
  }
  static constexpr Request reduce(TileOp op, const TileDesc& d, const TileDesc& a, const TileDesc& t) noexcept {
    Request r{};
    r.op = op;
    r.dst = d;
    r.src0 = a;
    r.tmp = t;
    return r;
  }
  static constexpr Request expands(const TileDesc& d, uint32_t bits) noexcept {
    Request r{};
    r.op = TileOp::TEXPANDS;
    r.dst = d;
    r.scalar_bits = bits;
    return r;
  }
  static constexpr Request rowexpand(const TileDesc& d, const TileDesc& v, const TileDesc& t = TileDesc{}) noexcept {
    Request r{};
    r.op = TileOp::TROWEXPAND;
    r.dst = d;
    r.src0 = v;
    r.tmp = t;
    return r;
  }
  static constexpr Request rowexpand_binary(TileOp op, const TileDesc& d, const TileDesc& a, const TileDesc& v,
                                            const TileDesc& t = TileDesc{}) noexcept {
    Request r{};
    r.op = op;
    r.dst = d;
    r.src0 = a;
    r.src1 = v;
    r.tmp = t;
    return r;
  }
  static constexpr Request cvt(const TileDesc& d, const TileDesc& a, desc::RoundMode m) noexcept {
    Request r{};
    r.op = TileOp::TCVT;
    r.dst = d;
    r.src0 = a;
    r.round = m;
    return r;
  }
};

enum class StepKind : uint8_t {
  set_mask,        // MASK = mask (normal or count mode alike)
  set_mask_count,  // CTRL[56] = 1, MASK = {0, count}
  set_mask_norm,   // CTRL[56] = 0, MASK unchanged
  binary, unary, scalar, reduce, copy, dup, cvt,
  brcb,  // vbrcb: no mask, MASK/CTRL ignored (like copy)
};

const char* step_kind_name(StepKind k) noexcept;

/// One step of a plan. For issues, `mode`/`mask`/`count` are the state in effect when the
/// issue runs and `dtype` is the element type it is validated with (vconv: its own types).
struct Step {
  StepKind kind = StepKind::set_mask_norm;
  DType dtype = DType::f32;
  desc::MaskMode mode = desc::MaskMode::normal;
  desc::Mask128 mask = desc::Mask128::all();
  uint32_t count = 0;
  union {
    desc::BinIntrinsicDesc binary;
    desc::UnaryDesc unary;
    desc::ScalarDesc scalar;
    desc::ReduceDesc reduce;
    desc::CopyDesc copy;
    desc::DupDesc dup;
    desc::CvtDesc cvt;
    desc::BrcbDesc brcb;
  };

  constexpr Step() noexcept : binary{} {}

  constexpr bool is_issue() const noexcept {
    return kind != StepKind::set_mask && kind != StepKind::set_mask_count &&
           kind != StepKind::set_mask_norm;
  }
  /// The operand an issue writes (its dst); a default Operand for mode steps.
  desc::Operand dst_operand() const noexcept;
  /// Whether the issue runs under MASK/CTRL (false for copy and brcb, which ignore them).
  constexpr bool uses_mask() const noexcept {
    return is_issue() && kind != StepKind::copy && kind != StepKind::brcb;
  }
  /// Issue repeat (0 in count mode; nburst for a copy); 0 for mode steps.
  uint32_t repeat() const noexcept;
};

/// desc::validate of one issue with the state recorded in the step; ok for mode steps.
desc::DescReport validate_step(const Step& s) noexcept;

/// One Step template over outer x inner iterations (see the header comment).
struct Segment {
  Step step{};
  uint32_t outer = 1;
  uint32_t inner = 1;
  uint32_t outer_delta[3] = {0, 0, 0};  // byte deltas of operand slots 0 (dst), 1, 2
  uint32_t inner_delta[3] = {0, 0, 0};
  uint32_t last_inner_repeat = 0;  // != 0: the repeat of the last inner iteration
};

class Plan {
 public:
  static constexpr uint32_t kMaxSegments = 40;

  constexpr Plan() noexcept {}

  uint32_t segment_count() const noexcept { return n_; }
  const Segment& segment(uint32_t i) const noexcept { return segs_[i]; }
  /// Total number of steps the plan yields.
  uint64_t step_count() const noexcept;
  /// Number of issue steps (descriptors) the plan yields.
  uint64_t issue_count() const noexcept;
  /// The step at (segment, outer, inner).
  Step materialize(uint32_t seg, uint32_t outer, uint32_t inner) const noexcept;

  /// Lazy iteration: `Step s; for (auto c = plan.begin(); c.next(s);) consume(s);`
  class Cursor {
   public:
    explicit Cursor(const Plan& p) noexcept : p_(&p) {}
    /// Writes the next step into `out`; false at the end.
    bool next(Step& out) noexcept;

   private:
    const Plan* p_;
    uint32_t seg_ = 0;
    uint32_t outer_ = 0;
    uint32_t inner_ = 0;
  };
  Cursor begin() const noexcept { return Cursor(*this); }

  /// Calls f(const Step&) for every step in order.
  template <class F>
  void for_each(F&& f) const {
    Step s{};
    for (Cursor c = begin(); c.next(s);) f(static_cast<const Step&>(s));
  }

  /// Builder interface (used by the planner; appends one segment or reports plan_too_long).
  Status append(const Segment& s) noexcept;
  void clear() noexcept { n_ = 0; }

 private:
  Segment segs_[kMaxSegments]{};
  uint32_t n_ = 0;
};

/// Tile constraints (tile-model 2.3 at run time) and placement of one tile: ok,
/// plan_tile_constraint, tile_misaligned or tile_out_of_bounds (space from the tile).
[[nodiscard]] Status check_tile(const TileDesc& t) noexcept;
/// Placement only: `bytes` at `offset` inside `space` of the a2a3 profile, aligned as the
/// space requires. ok, tile_misaligned, tile_out_of_bounds or plan_tile_wrong_space (no such
/// space).
[[nodiscard]] Status check_placement(chip::MemSpace space, uint64_t offset, uint64_t bytes) noexcept;

/// Plans `req` into `out` and validates the whole sequence. On failure `out` is empty and,
/// when `report` is given and a planned issue failed desc validation, it holds that report.
[[nodiscard]] Status plan_tile(const Request& req, Plan& out, desc::DescReport* report = nullptr) noexcept;

/// Replays `p` from normal mode / MASK all ones, validating every issue against the state and
/// checking the plan ends in normal mode with MASK all ones. The first failure is returned
/// (and its report stored when `report` is given).
[[nodiscard]] Status plan_validate(const Plan& p, desc::DescReport* report = nullptr) noexcept;

}  // namespace tilefw::plan
