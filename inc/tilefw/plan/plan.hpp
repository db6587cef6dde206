// The a2a3 tile planner: a tile instruction on runtime tile descriptions becomes an exact,
// fully validated sequence of single issues and MASK/mode changes, stored compactly in a
// caller-owned Plan and produced lazily, one Step at a time, without allocating.
//
// ## Shape of a plan
// A Plan is a short list of segments; a segment is one Step template repeated over at most
// two loops (outer x inner) with per-operand byte offsets advancing by fixed deltas, and an
// optional shorter repeat on the last inner iteration (rows split at 255). Steps are
// materialised on demand by Plan::Cursor, so a per-row fallback over 4096
// rows costs one segment, not 4096 stored descriptors.
//
// Each Step is either a mode step (set_mask(hi, lo), set_mask_count(n), set_mask_norm — the
// program items of conformance cases with the same meaning, docs/cli.md section 4.2) or one issue
// descriptor (desc
// layer) together with the MASK state in effect when it runs (mode, MASK value, vector count).
// Issues never use `tail_elements`: masks are explicit set_mask steps, so a consumer that
// replays the steps in order (a simulator, the issue layer, a conformance runner) reproduces
// the hardware state exactly. Every plan assumes and restores normal mode with MASK all ones
// (docs/cli.md section 4.2: "afterwards the unit is in normal mode with MASK all ones");
// mode steps are emitted only when the state actually changes.
//
// plan_tile() checks the tiles (Tile constraints, placement), the op's own checks, builds the
// plan, then validates every step with desc::validate against the tracked MASK state
// (plan_validate) before it returns ok: nothing is handed to a consumer before the whole
// sequence is known to be legal.
//
// ## Instruction streams (EPR = 256 / sizeof(T) lanes per repeat, BSE = 32 / sizeof(T))
// Each family of tile instructions has its stream documented at the top of its source file:
// src/plan/elementwise.cpp (TADD.., TADDS.., TABS.., TEXPANDS, TCVT), src/plan/row_reduce.cpp
// (TROWSUM/MAX/MIN), src/plan/column.cpp (TCOLSUM/MAX/MIN, TCOLEXPAND), src/plan/row_expand.cpp
// (TROWEXPAND*), src/plan/transpose.cpp (TTRANS), src/plan/gather.cpp (TGATHER),
// src/plan/select_pad.cpp (TSELS, TFILLPAD), src/plan/compare.cpp (TCMP, TCMPS, TSEL).
// src/plan/plan.cpp holds the plan itself, the checks and the validation.
#pragma once

#include <cstdint>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/desc/validate_vector_cmp.hpp"
#include "tilefw/desc/validate_vector_copy.hpp"
#include "tilefw/desc/validate_vector_convert.hpp"
#include "tilefw/desc/validate_vector_gather.hpp"
#include "tilefw/desc/validate_vector.hpp"
#include "tilefw/desc/validated.hpp"
#include "tilefw/desc/data/vector_desc.hpp"

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
  /// False for a Tile<> that TASSIGN never placed: plan_tile refuses it (tile_unassigned)
  /// instead of letting it alias offset 0. Descriptions built from numbers are placed.
  bool assigned = true;

  friend constexpr bool operator==(const TileDesc&, const TileDesc&) noexcept = default;

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
  TCOLPROD, TTRANS, TGATHER,  // column product (column.cpp), transpose, index gather (own files)
  TSELS, TFILLPAD,  // src/plan/select_pad.cpp
  TCMP, TCMPS, TSEL,  // src/plan/compare.cpp
};

/// TFILLPAD's pad kinds, numbered as PTO's PadValue (Null, Zero, Max, Min). Null is refused.
enum class FillPad : uint8_t { null, zero, max, min };

/// The raw bits TFILLPAD writes for `pad` in type `dt` (low 16 bits for 16-bit types): Zero 0;
/// Max +inf for f32/f16/bf16, the largest value for integers; Min -inf, the smallest value. false
/// for null or a type TFILLPAD does not take (src/plan/select_pad.cpp).
bool fillpad_bits(DType dt, FillPad pad, uint32_t& bits) noexcept;

/// "TADD", "TROWSUM", ...; "?" for an unknown value.
const char* tile_op_name(TileOp op) noexcept;

/// One tile instruction: operands by role (unused roles stay default).
/// binary: dst src0 src1; scalar: dst src0 + scalar_bits (raw bits of T); unary, TCVT,
/// TCOLEXPAND, TCOLMAX/MIN: dst src0; TROWSUM/MAX/MIN, TCOLSUM: dst src0 tmp; TEXPANDS: dst +
/// scalar_bits; TROWEXPAND: dst src0 (the per-row vector) [tmp]; TROWEXPANDADD/SUB/MUL/DIV: dst
/// src0 src1 (the per-row vector) [tmp] (tmp optional: rows == 0 means none); TCOLPROD: dst
/// src0; TTRANS: dst src0 tmp; TGATHER: dst src0 src1 (the indices) tmp; TSELS: dst src0
/// src1 + scalar_bits (selectMode); TFILLPAD: dst src0 + scalar_bits (the dst's PadValue as a
/// FillPad number); TCMP, TCMPS, TSEL: see their factories.
struct Request {
  TileOp op = TileOp::TADD;
  TileDesc dst{};
  TileDesc src0{};
  TileDesc src1{};
  TileDesc tmp{};
  uint32_t scalar_bits = 0;
  desc::RoundMode round = desc::RoundMode::rint;
  /// The profile whose rules apply where a2a3 and A5 differ (memory sizes for placement and
  /// every planned issue's bounds, the row reductions' valid-region checks); a tile::Core sets
  /// its own before planning.
  chip::Chip chip = chip::kBuildChip;
  /// TCMPS only: the compare mode, and whether src1's first element is the scalar.
  desc::CmpMode cmp_mode = desc::CmpMode::eq;
  bool cmp_first = false;

  friend constexpr bool operator==(const Request&, const Request&) noexcept = default;

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
  static constexpr Request sels(const TileDesc& d, const TileDesc& a, const TileDesc& b, uint8_t mode) noexcept {
    Request r = binary(TileOp::TSELS, d, a, b);
    r.scalar_bits = mode;
    return r;
  }
  static constexpr Request fillpad(const TileDesc& d, const TileDesc& a, FillPad pad) noexcept {
    Request r = unary(TileOp::TFILLPAD, d, a);
    r.scalar_bits = static_cast<uint32_t>(pad);
    return r;
  }
  /// TCMP: dst (u8 predicate tile) src0 src1 + scalar_bits (the desc::CmpMode).
  static constexpr Request cmp(const TileDesc& d, const TileDesc& a, const TileDesc& b, desc::CmpMode m) noexcept {
    Request r = binary(TileOp::TCMP, d, a, b);
    r.scalar_bits = static_cast<uint32_t>(m);
    return r;
  }
  /// TCMPS: dst src0 + scalar_bits (raw bits of T) + cmp_mode; with `first`, src1's first
  /// element instead of the scalar (PTO's tile form).
  static constexpr Request cmps(const TileDesc& d, const TileDesc& a, uint32_t bits, desc::CmpMode m) noexcept {
    Request r = scalar(TileOp::TCMPS, d, a, bits);
    r.cmp_mode = m;
    return r;
  }
  static constexpr Request cmps_first(const TileDesc& d, const TileDesc& a, const TileDesc& b,
                                      desc::CmpMode m) noexcept {
    Request r = binary(TileOp::TCMPS, d, a, b);
    r.cmp_mode = m;
    r.cmp_first = true;
    return r;
  }
  /// TSEL: dst src0 src1 + tmp (the u8 predicate tile, as TCMP writes it).
  static constexpr Request sel(const TileDesc& d, const TileDesc& mask, const TileDesc& a, const TileDesc& b) noexcept {
    Request r = binary(TileOp::TSEL, d, a, b);
    r.tmp = mask;
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
  gather,  // vgather: under MASK/CTRL like the arithmetic issues
  cmp, sel,  // vcmpv/vcmpvs and vsel: lanes in the descriptor, MASK/CTRL ignored (like copy)
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
    desc::GatherDesc gather;
    desc::CmpDesc cmp;
    desc::SelDesc sel;
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
    return is_issue() && kind != StepKind::copy && kind != StepKind::brcb && kind != StepKind::cmp &&
           kind != StepKind::sel;
  }
  /// Issue repeat (0 in count mode; nburst for a copy); 0 for mode steps.
  uint32_t repeat() const noexcept;
};

/// desc::validate of one issue with the state recorded in the step, against the UB of profile
/// `on`; ok for mode steps.
desc::DescReport validate_step(const Step& s, chip::Chip on = chip::kBuildChip) noexcept;

class Plan;
namespace detail {
struct Sealer;  // plan_seal's implementation (src/plan/plan.cpp): the one writer of Plan's trust
}  // namespace detail

/// A step of a plan validated whole (plan_seal, plan_tile): what Plan::Cursor yields for such a
/// plan. Its issue descriptor comes out as desc::Validated<> (the plan layer is the validator of
/// plans, hence friend to Validated), so the issue layer emits it without validating again.
/// Each accessor's precondition: step().kind is that kind.
class TrustedStep {
 public:
  constexpr TrustedStep() noexcept = default;
  const Step& step() const noexcept { return s_; }
  desc::Validated<desc::BinIntrinsicDesc> binary() const noexcept { return {s_.binary, s_.dtype, s_.mask}; }
  desc::Validated<desc::UnaryDesc> unary() const noexcept { return {s_.unary, s_.dtype, s_.mask}; }
  desc::Validated<desc::ScalarDesc> scalar() const noexcept { return {s_.scalar, s_.dtype, s_.mask}; }
  desc::Validated<desc::ReduceDesc> reduce() const noexcept { return {s_.reduce, s_.dtype, s_.mask}; }
  desc::Validated<desc::CopyDesc> copy() const noexcept { return {s_.copy, s_.dtype, s_.mask}; }
  desc::Validated<desc::DupDesc> dup() const noexcept { return {s_.dup, s_.dtype, s_.mask}; }
  desc::Validated<desc::CvtDesc> cvt() const noexcept { return {s_.cvt, s_.dtype, s_.mask}; }
  desc::Validated<desc::BrcbDesc> brcb() const noexcept { return {s_.brcb, s_.dtype, s_.mask}; }
  desc::Validated<desc::GatherDesc> gather() const noexcept { return {s_.gather, s_.dtype, s_.mask}; }
  desc::Validated<desc::CmpDesc> cmp() const noexcept { return {s_.cmp, s_.dtype, s_.mask}; }
  desc::Validated<desc::SelDesc> sel() const noexcept { return {s_.sel, s_.dtype, s_.mask}; }

 private:
  Step s_{};
  friend class Plan;
};

/// One Step template over outer x inner iterations (see the header comment).
struct Segment {
  Step step{};
  uint32_t outer = 1;
  uint32_t inner = 1;
  uint32_t outer_delta[4] = {0, 0, 0, 0};  // byte deltas of operand slots 0 (dst), 1, 2, 3 (vsel's mask)
  uint32_t inner_delta[4] = {0, 0, 0, 0};
  uint32_t last_inner_repeat = 0;  // != 0: the repeat of the last inner iteration
};

class Plan {
 public:
  // 49 for TTRANS of 16-bit types (src/plan/transpose.cpp: three segments per block lane).
  static constexpr uint32_t kMaxSegments = 52;

  constexpr Plan() noexcept {}

  uint32_t segment_count() const noexcept { return n_; }
  const Segment& segment(uint32_t i) const noexcept { return segs_[i]; }
  /// Total number of steps the plan yields.
  uint64_t step_count() const noexcept;
  /// Number of issue steps (descriptors) the plan yields.
  uint64_t issue_count() const noexcept;
  /// The step at (segment, outer, inner).
  Step materialize(uint32_t seg, uint32_t outer, uint32_t inner) const noexcept;
  /// The same, written into `out` (no temporary Step: a cursor fills its caller's step in place).
  void materialize_into(uint32_t seg, uint32_t outer, uint32_t inner, Step& out) const noexcept;

  /// Lazy iteration: `Step s; for (auto c = plan.begin(); c.next(s);) consume(s);`
  class Cursor {
   public:
    explicit Cursor(const Plan& p) noexcept : p_(&p) {}
    /// Writes the next step into `out`; false at the end.
    bool next(Step& out) noexcept;
    /// The same for a plan validated whole (trusted()); false at once for any other plan.
    bool next(TrustedStep& out) noexcept { return p_->validated_ && next(out.s_); }

   private:
    const Plan* p_;
    uint32_t seg_ = 0;
    uint32_t outer_ = 0;
    uint32_t inner_ = 0;
  };
  Cursor begin() const noexcept { return Cursor(*this); }

  /// Builder interface (used by the planner; appends one segment or reports plan_too_long).
  /// Any change makes the plan untrusted until plan_seal validates it again.
  Status append(const Segment& s) noexcept;
  void clear() noexcept {
    n_ = 0;
    validated_ = false;
    keyed_ = false;
  }
  /// The chip profile whose UB the plan's issues are validated against (plan_validate,
  /// plan_seal); plan_tile sets the request's. Changing it makes the plan untrusted.
  chip::Chip chip() const noexcept { return chip_; }
  void set_chip(chip::Chip c) noexcept {
    if (c == chip_) return;
    chip_ = c;
    validated_ = false;
    keyed_ = false;
  }

  /// True when plan_seal (or plan_tile) validated this exact content whole.
  bool trusted() const noexcept { return validated_; }
  /// True when this is the sealed plan plan_tile (or plan_tile_binary) made for `req`: planning
  /// is a pure function of the request, so planning the same request again returns it as it is
  /// (a kernel issuing the same tile instruction in a loop plans and validates it once).
  bool planned_for(const Request& req) const noexcept { return validated_ && keyed_ && request_ == req; }

 private:
  Segment segs_[kMaxSegments]{};
  uint32_t n_ = 0;
  bool validated_ = false;
  bool keyed_ = false;  // request_ is the request this content was planned for
  chip::Chip chip_ = chip::kBuildChip;
  Request request_{};
  friend struct detail::Sealer;
};

/// Tile constraints (docs/a2a3-tile-model.md section 4, at run time) and placement of one tile in
/// the profile `on`: ok, plan_tile_constraint, tile_misaligned or tile_out_of_bounds (space from
/// the tile).
[[nodiscard]] Status check_tile(const TileDesc& t, chip::Chip on = chip::kBuildChip) noexcept;
/// Placement only: `bytes` at `offset` inside `space` of the profile `on` (the build's by
/// default), aligned as the space requires. ok, tile_misaligned, tile_out_of_bounds or
/// plan_tile_wrong_space (no such space).
[[nodiscard]] Status check_placement(chip::MemSpace space, uint64_t offset, uint64_t bytes,
                                     chip::Chip on = chip::kBuildChip) noexcept;

/// Plans `req` into `out` and validates the whole sequence. On failure `out` is empty and,
/// when `report` is given and a planned issue failed desc validation, it holds that report.
[[nodiscard]] Status plan_tile(const Request& req, Plan& out, desc::DescReport* report = nullptr) noexcept;

/// Replays `p` from normal mode / MASK all ones, validating every issue against the state (and
/// the UB of p.chip()) and
/// checking the plan ends in normal mode with MASK all ones. The first failure is returned
/// (and its report stored when `report` is given).
[[nodiscard]] Status plan_validate(const Plan& p, desc::DescReport* report = nullptr) noexcept;

/// plan_validate, and on ok marks `p` trusted: its Cursor then yields TrustedSteps, whose
/// issues the tile layer emits without validating them again (validate once, then trust).
[[nodiscard]] Status plan_seal(Plan& p, desc::DescReport* report = nullptr) noexcept;

/// plan_tile for the binary elementwise ops only (TADD TSUB TMUL TDIV TMAX TMIN; any other op:
/// plan_unknown_op): the same plan, the same checks and the same validation of every step, but
/// it references only the binary planner and the binary validator, so a firmware whose tile
/// instructions are all binary links neither the other planners nor the other validators. The
/// plan holds binary issues and mode steps only.
[[nodiscard]] Status plan_tile_binary(const Request& req, Plan& out, desc::DescReport* report = nullptr) noexcept;

}  // namespace tilefw::plan
