// The tile instructions on Tile<> types (docs/a2a3-tile-model.md sections 6 and 7): vector ops
// planned into single
// issues, TLOAD/TSTORE/TMOV on the move pipes, TMATMUL* on the cube. Each returns its Event.
//
// Every instruction takes the caller's tile::Core first and, last, any number of Events to wait
// on; it returns Result<Event>: the event of its last issue, or the Status that stopped it
// (core.last_report then names the field or operand). Nothing is emitted unless the whole
// instruction validated (the vector ops validate their complete issue sequence first).
//
//   TILEFW_TRY_ASSIGN(tile::Event loaded, tile::TLOAD(core, x, gx));
//   TILEFW_TRY_ASSIGN(tile::Event summed, tile::TROWSUM(core, s, x, tmp, loaded));
//   TILEFW_TRY(tile::TSTORE(core, gs, s, summed).status());
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/result.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/desc/validate_matmul.hpp"
#include "tilefw/desc/validate_tile_move.hpp"
#include "tilefw/plan/plan.hpp"
#include "tilefw/tile/event.hpp"
#include "tilefw/tile/run.hpp"
#include "tilefw/tile/tile.hpp"

namespace tilefw::tile {

namespace detail {
// The non-template halves (src/tile/instr.cpp): wait, validate, issue, return the event.
[[nodiscard]] Result<Event> run_vector(Core& core, const plan::Request& req, const Event* waits, size_t n) noexcept;
/// run_vector for the binary instructions (TADD..TMIN): plan::plan_tile_binary and the binary
/// replay only, so a firmware using only these links no other planner, validator or issue kind.
[[nodiscard]] Result<Event> run_vector_binary(Core& core, const plan::Request& req, const Event* waits,
                                              size_t n) noexcept;
[[nodiscard]] Result<Event> run_move(Core& core, const desc::MoveDesc& d, const Event* waits, size_t n) noexcept;
[[nodiscard]] Result<Event> run_matmul(Core& core, const desc::MatmulDesc& d, const Event* waits, size_t n) noexcept;
/// A tile instruction whose operands' valid shapes disagree: the report names the operand.
[[nodiscard]] Result<Event> shape_mismatch(Core& core, const char* operand, uint32_t got, uint32_t want) noexcept;
/// A tile instruction naming a tile or tensor TASSIGN never placed: the report names it.
[[nodiscard]] Result<Event> unassigned(Core& core, const char* operand) noexcept;
/// A tile whose layout its space cannot hold on the core's profile (desc_layout_unsupported):
/// the report names the field and the space.
[[nodiscard]] Result<Event> layout_unsupported(Core& core, const char* field, chip::MemSpace space) noexcept;

template <class... W>
constexpr bool kAllEvents = (std::is_same_v<W, Event> && ...);

// The waits as an array (one spare slot so an empty pack still makes an array).
template <class... W>
struct Waits {
  Event list[sizeof...(W) + 1];
  explicit constexpr Waits(const W&... w) noexcept : list{w..., Event{}} {}
  static constexpr size_t size() noexcept { return sizeof...(W); }
};

template <class T>
constexpr desc::BoxOrder box_order() noexcept {
  if constexpr (T::SFractal == SLayout::NoneBox) {
    return desc::BoxOrder::none;
  } else if constexpr (T::SFractal == SLayout::RowMajor) {
    return desc::BoxOrder::row_major;
  } else {
    return desc::BoxOrder::col_major;
  }
}
}  // namespace detail

/// A tile as one side of a move: its space, address, element type, layout and capacity.
template <class T>
constexpr desc::MoveOperand move_operand(const T& t) noexcept {
  desc::MoveOperand o{};
  o.space = space_of(T::Loc);
  o.offset = t.address();
  o.dtype = dtype_of<typename T::DType>;
  o.layout = desc::OperandLayout{!T::isRowMajor, detail::box_order<T>(), static_cast<uint32_t>(T::InnerRows),
                                 static_cast<uint32_t>(T::InnerCols)};
  o.rows = static_cast<uint32_t>(T::Rows);
  o.cols = static_cast<uint32_t>(T::Cols);
  o.stride = static_cast<uint32_t>(T::isRowMajor ? T::Cols : T::Rows);
  return o;
}

/// A GM tensor as one side of a move (row-major rows `row_stride` elements apart).
template <class T, int R, int C, int S>
constexpr desc::MoveOperand move_operand(const GlobalTensor<T, R, C, S>& g) noexcept {
  desc::MoveOperand o{};
  o.space = chip::MemSpace::GM;
  o.offset = g.address();
  o.dtype = dtype_of<T>;
  o.rows = g.rows();
  o.cols = g.cols();
  o.stride = g.row_stride();
  return o;
}

template <class T>
inline constexpr bool kIsGlobal = false;
template <class T, int R, int C, int S>
inline constexpr bool kIsGlobal<GlobalTensor<T, R, C, S>> = true;

// ---- vector instructions (pipe V) ----------------------------------------------------------------
#define TILEFW_TILE_BINARY(NAME)                                                                          \
  template <class D, class A, class B, class... W>                                                        \
  [[nodiscard]] Result<Event> NAME(Core& core, const D& dst, const A& a, const B& b, const W&... waits) noexcept { \
    static_assert(kIsVec<D> && kIsVec<A> && kIsVec<B>, "Fix: " #NAME " takes unboxed Vec tiles (UB)");   \
    static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event"); \
    const detail::Waits<W...> w(waits...);                                                                \
    return detail::run_vector_binary(core, plan::Request::binary(plan::TileOp::NAME, dst.desc(), a.desc(),    \
                                                                 b.desc()),                               \
                                     w.list, w.size());                                                   \
  }
TILEFW_TILE_BINARY(TADD)
TILEFW_TILE_BINARY(TSUB)
TILEFW_TILE_BINARY(TMUL)
TILEFW_TILE_BINARY(TDIV)
TILEFW_TILE_BINARY(TMAX)
TILEFW_TILE_BINARY(TMIN)
#undef TILEFW_TILE_BINARY

// Row-broadcast binaries: dst[i, j] = a[i, j] op v[i] (v: an Nx1 col-major tile or a tile with
// one valid column); `tmp` (optional overload) holds the broadcast blocks when dst cannot.
#define TILEFW_TILE_ROWEXPAND(NAME)                                                                            \
  template <class D, class A, class V, class... W>                                                             \
  [[nodiscard]] Result<Event> NAME(Core& core, const D& dst, const A& a, const V& v, const W&... waits) noexcept { \
    static_assert(kIsVec<D> && kIsVec<A> && kIsVec<V>, "Fix: " #NAME " takes unboxed Vec tiles (UB)");       \
    static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event"); \
    const detail::Waits<W...> w(waits...);                                                                     \
    return detail::run_vector(                                                                                 \
        core, plan::Request::rowexpand_binary(plan::TileOp::NAME, dst.desc(), a.desc(), v.desc()), w.list, w.size()); \
  }                                                                                                            \
  template <class D, class A, class V, class T, class... W>                                                    \
  [[nodiscard]] Result<Event> NAME##_TMP(Core& core, const D& dst, const A& a, const V& v, const T& tmp,       \
                                         const W&... waits) noexcept {                                         \
    static_assert(kIsVec<D> && kIsVec<A> && kIsVec<V> && kIsVec<T>, "Fix: " #NAME " takes unboxed Vec tiles (UB)"); \
    static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event"); \
    const detail::Waits<W...> w(waits...);                                                                     \
    return detail::run_vector(                                                                                 \
        core, plan::Request::rowexpand_binary(plan::TileOp::NAME, dst.desc(), a.desc(), v.desc(), tmp.desc()), \
        w.list, w.size());                                                                                     \
  }
TILEFW_TILE_ROWEXPAND(TROWEXPANDADD)
TILEFW_TILE_ROWEXPAND(TROWEXPANDSUB)
TILEFW_TILE_ROWEXPAND(TROWEXPANDMUL)
TILEFW_TILE_ROWEXPAND(TROWEXPANDDIV)
#undef TILEFW_TILE_ROWEXPAND

#define TILEFW_TILE_UNARY(NAME)                                                                               \
  template <class D, class A, class... W>                                                                     \
  [[nodiscard]] Result<Event> NAME(Core& core, const D& dst, const A& a, const W&... waits) noexcept {        \
    static_assert(kIsVec<D> && kIsVec<A>, "Fix: " #NAME " takes unboxed Vec tiles (UB)");                     \
    static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event"); \
    const detail::Waits<W...> w(waits...);                                                                    \
    return detail::run_vector(core, plan::Request::unary(plan::TileOp::NAME, dst.desc(), a.desc()), w.list,   \
                              w.size());                                                                      \
  }
TILEFW_TILE_UNARY(TABS)
TILEFW_TILE_UNARY(TEXP)
TILEFW_TILE_UNARY(TLOG)
TILEFW_TILE_UNARY(TSQRT)
TILEFW_TILE_UNARY(TRSQRT)
TILEFW_TILE_UNARY(TRECIP)
TILEFW_TILE_UNARY(TRELU)
TILEFW_TILE_UNARY(TCOLMAX)
TILEFW_TILE_UNARY(TCOLMIN)
TILEFW_TILE_UNARY(TCOLPROD)
TILEFW_TILE_UNARY(TCOLEXPAND)
TILEFW_TILE_UNARY(TROWEXPAND)
#undef TILEFW_TILE_UNARY

/// TROWEXPAND with a tmp tile for the broadcast slots. Needed whenever dst cannot hold them
/// (plan.hpp: dst shares bytes with v, has fewer than round8(valid rows) rows for a col-major
/// v, or rows shorter than 8 blocks for a row-major v); without it such a call could only fail
/// with plan_tmp_too_small.
template <class D, class V, class T, class... W>
[[nodiscard]] Result<Event> TROWEXPAND_TMP(Core& core, const D& dst, const V& v, const T& tmp,
                                           const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<V> && kIsVec<T>, "Fix: TROWEXPAND takes unboxed Vec tiles (UB)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::rowexpand(dst.desc(), v.desc(), tmp.desc()), w.list, w.size());
}

/// The scalar is an element value of the tiles' type (half, float, int16_t, int32_t).
#define TILEFW_TILE_SCALAR(NAME)                                                                               \
  template <class D, class A, class S, class... W>                                                             \
  [[nodiscard]] Result<Event> NAME(Core& core, const D& dst, const A& a, S scalar, const W&... waits) noexcept { \
    static_assert(kIsVec<D> && kIsVec<A>, "Fix: " #NAME " takes unboxed Vec tiles (UB)");                      \
    static_assert(std::is_same_v<S, typename D::DType>, "Fix: the scalar must have the tile's element type");  \
    static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");  \
    const detail::Waits<W...> w(waits...);                                                                     \
    return detail::run_vector(                                                                                 \
        core, plan::Request::scalar(plan::TileOp::NAME, dst.desc(), a.desc(), detail::scalar_bits(scalar)),   \
        w.list, w.size());                                                                                     \
  }
TILEFW_TILE_SCALAR(TADDS)
TILEFW_TILE_SCALAR(TMULS)
TILEFW_TILE_SCALAR(TMAXS)
TILEFW_TILE_SCALAR(TMINS)
#undef TILEFW_TILE_SCALAR

/// TROWSUM / TROWMAX / TROWMIN (dst, src, tmp) and TCOLSUM (tmp accepted, unused).
#define TILEFW_TILE_REDUCE(NAME)                                                                               \
  template <class D, class A, class T, class... W>                                                             \
  [[nodiscard]] Result<Event> NAME(Core& core, const D& dst, const A& src, const T& tmp, const W&... waits) noexcept { \
    static_assert(kIsVec<D> && kIsVec<A> && kIsVec<T>, "Fix: " #NAME " takes unboxed Vec tiles (UB)");        \
    static_assert(std::is_same_v<typename D::DType, typename A::DType>,                                        \
                  "Fix: the reduction's dst element type must equal src's");                                   \
    static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");  \
    const detail::Waits<W...> w(waits...);                                                                     \
    return detail::run_vector(core, plan::Request::reduce(plan::TileOp::NAME, dst.desc(), src.desc(), tmp.desc()), \
                              w.list, w.size());                                                               \
  }
TILEFW_TILE_REDUCE(TROWSUM)
TILEFW_TILE_REDUCE(TROWMAX)
TILEFW_TILE_REDUCE(TROWMIN)
TILEFW_TILE_REDUCE(TCOLSUM)
#undef TILEFW_TILE_REDUCE

/// TEXPANDS: every valid element of dst = scalar.
template <class D, class S, class... W>
[[nodiscard]] Result<Event> TEXPANDS(Core& core, const D& dst, S scalar, const W&... waits) noexcept {
  static_assert(kIsVec<D>, "Fix: TEXPANDS takes an unboxed Vec tile (UB)");
  static_assert(std::is_same_v<S, typename D::DType>, "Fix: the scalar must have the tile's element type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::expands(dst.desc(), detail::scalar_bits(scalar)), w.list, w.size());
}

/// TCVT: dst = convert(src) with rounding `mode`.
template <class D, class A, class... W>
[[nodiscard]] Result<Event> TCVT(Core& core, const D& dst, const A& src, desc::RoundMode mode, const W&... waits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A>, "Fix: TCVT takes unboxed Vec tiles (UB)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  const detail::Waits<W...> w(waits...);
  return detail::run_vector(core, plan::Request::cvt(dst.desc(), src.desc(), mode), w.list, w.size());
}

// ---- data movement (MTE2, MTE1, MTE3, FIX) --------------------------------------------------------
/// TLOAD: GM -> a Vec (UB) or Mat (L1) tile on MTE2. The tensor's shape must equal the tile's
/// valid region (plan_valid_shape_mismatch otherwise); the tile's layout decides where each
/// element lands (ND, DN or boxed: the nd2nz load of a Mat tile).
template <class T, class G, class... W>
[[nodiscard]] Result<Event> TLOAD(Core& core, const T& dst, const G& src, const W&... waits) noexcept {
  static_assert(T::Loc == TileType::Vec || T::Loc == TileType::Mat, "Fix: TLOAD loads Vec (UB) or Mat (L1) tiles");
  static_assert(kIsGlobal<G>, "Fix: TLOAD's source is a GlobalTensor");
  static_assert(std::is_same_v<typename T::DType, typename G::DType>, "Fix: TLOAD keeps the element type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  if (!dst.assigned()) return detail::unassigned(core, "dst");
  if (!src.assigned()) return detail::unassigned(core, "src");
  if (src.rows() != dst.GetValidRow()) return detail::shape_mismatch(core, "src.rows", src.rows(), dst.GetValidRow());
  if (src.cols() != dst.GetValidCol()) return detail::shape_mismatch(core, "src.cols", src.cols(), dst.GetValidCol());
  desc::MoveDesc d{Pipe::MTE2, move_operand(src), move_operand(dst), dst.GetValidRow(), dst.GetValidCol()};
  const detail::Waits<W...> w(waits...);
  return detail::run_move(core, d, w.list, w.size());
}

/// TSTORE: a Vec tile -> GM on MTE3, or an Acc tile -> GM on FIX (converting f32 to the
/// tensor's f32/f16/bf16, i32 to i32). The tensor's shape must equal the tile's valid region.
template <class G, class T, class... W>
[[nodiscard]] Result<Event> TSTORE(Core& core, const G& dst, const T& src, const W&... waits) noexcept {
  static_assert(T::Loc == TileType::Vec || T::Loc == TileType::Acc, "Fix: TSTORE stores Vec (UB) or Acc (L0C) tiles");
  static_assert(kIsGlobal<G>, "Fix: TSTORE's destination is a GlobalTensor");
  static_assert(T::Loc == TileType::Acc || std::is_same_v<typename T::DType, typename G::DType>,
                "Fix: TSTORE from a Vec tile keeps the element type (only Acc -> GM converts)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  if (!dst.assigned()) return detail::unassigned(core, "dst");
  if (!src.assigned()) return detail::unassigned(core, "src");
  if (dst.rows() != src.GetValidRow()) return detail::shape_mismatch(core, "dst.rows", dst.rows(), src.GetValidRow());
  if (dst.cols() != src.GetValidCol()) return detail::shape_mismatch(core, "dst.cols", dst.cols(), src.GetValidCol());
  const Pipe p = T::Loc == TileType::Acc ? Pipe::FIX : Pipe::MTE3;
  desc::MoveDesc d{p, move_operand(src), move_operand(dst), src.GetValidRow(), src.GetValidCol()};
  const detail::Waits<W...> w(waits...);
  return detail::run_move(core, d, w.list, w.size());
}

/// TMOV: Mat -> Left / Right / Bias on MTE1 (re-laid out as the Left tile's Zz on a2a3 or Nz on
/// A5, Zn, one row), Acc -> Vec on FIX (converting f32 to f32/f16/bf16, i32 to i32). The valid
/// regions must be equal; a Left tile must have the core's profile's layout (the move's
/// validator refuses another: desc_layout_unsupported, dst.layout).
template <class D, class S, class... W>
[[nodiscard]] Result<Event> TMOV(Core& core, const D& dst, const S& src, const W&... waits) noexcept {
  constexpr bool kMte1 = S::Loc == TileType::Mat &&
                         (D::Loc == TileType::Left || D::Loc == TileType::Right || D::Loc == TileType::Bias);
  constexpr bool kFix = S::Loc == TileType::Acc && D::Loc == TileType::Vec;
  static_assert(kMte1 || kFix, "Fix: TMOV moves Mat -> Left/Right/Bias or Acc -> Vec");
  static_assert(kFix || std::is_same_v<typename D::DType, typename S::DType>,
                "Fix: TMOV from a Mat tile keeps the element type (only Acc -> Vec converts)");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  if (!dst.assigned()) return detail::unassigned(core, "dst");
  if (!src.assigned()) return detail::unassigned(core, "src");
  if (dst.GetValidRow() != src.GetValidRow()) return detail::shape_mismatch(core, "dst.rows", dst.GetValidRow(), src.GetValidRow());
  if (dst.GetValidCol() != src.GetValidCol()) return detail::shape_mismatch(core, "dst.cols", dst.GetValidCol(), src.GetValidCol());
  desc::MoveDesc d{kFix ? Pipe::FIX : Pipe::MTE1, move_operand(src), move_operand(dst), src.GetValidRow(), src.GetValidCol()};
  const detail::Waits<W...> w(waits...);
  return detail::run_move(core, d, w.list, w.size());
}

// ---- matrix (pipe M) ------------------------------------------------------------------------------
namespace detail {
template <class C, class A, class B>
constexpr void check_matmul_types() noexcept {
  static_assert(A::Loc == TileType::Left && A::SFractal == SLayout::RowMajor && A::SFractalSize == kFractalABSize,
                "Fix: TMATMUL's a operand is a TileLeft (L0A, 512 B boxes rows inside: Zz on a2a3, Nz on A5)");
  static_assert(B::Loc == TileType::Right && B::isRowMajor && B::SFractal == SLayout::ColMajor,
                "Fix: TMATMUL's b operand is a TileRight (L0B, Zn)");
  static_assert(C::Loc == TileType::Acc && !C::isRowMajor && C::SFractal == SLayout::RowMajor &&
                    C::SFractalSize == kFractalCSize,
                "Fix: TMATMUL's result is a TileAcc (L0C, Nz 16 x 16)");
  static_assert(desc::matmul_types_ok(dtype_of<typename C::DType>, dtype_of<typename A::DType>,
                                      dtype_of<typename B::DType>),
                "Fix: TMATMUL (C, A, B) types are (int32_t, int8_t, int8_t), (float, half, half), (float, float, "
                "float) or (float, bf16, bf16)");
}

template <class C, class A, class B>
constexpr desc::MatmulDesc matmul_desc(desc::MatmulKind kind, const C& c, const A& a, const B& b) noexcept {
  desc::MatmulDesc d{};
  d.kind = kind;
  d.a_type = dtype_of<typename A::DType>;
  d.b_type = dtype_of<typename B::DType>;
  d.c_type = dtype_of<typename C::DType>;
  d.a_offset = static_cast<uint32_t>(a.address());
  d.b_offset = static_cast<uint32_t>(b.address());
  d.c_offset = static_cast<uint32_t>(c.address());
  d.a_rows = A::Rows;
  d.a_cols = A::Cols;
  d.b_rows = B::Rows;
  d.b_cols = B::Cols;
  d.c_rows = C::Rows;
  d.c_cols = C::Cols;
  d.m = a.GetValidRow();
  d.k = a.GetValidCol();
  d.n = b.GetValidCol();
  return d;
}

template <class C, class A, class B, class... W>
Result<Event> matmul(Core& core, desc::MatmulDesc d, const C& c, const A& a, const B& b, const W&... waits) noexcept {
  if (!c.assigned()) return unassigned(core, "c");
  if (!a.assigned()) return unassigned(core, "a");
  if (!b.assigned()) return unassigned(core, "b");
  // The cube reads L0A in its profile's layout; a Left tile of the other profile's layout
  // would be read with its boxes misplaced.
  if (A::isRowMajor == chip::left_boxes_col_major(core.chip)) return layout_unsupported(core, "a.layout", chip::MemSpace::L0A);
  if (b.GetValidRow() != a.GetValidCol()) return shape_mismatch(core, "b.rows", b.GetValidRow(), a.GetValidCol());
  if (c.GetValidRow() != a.GetValidRow()) return shape_mismatch(core, "c.rows", c.GetValidRow(), a.GetValidRow());
  if (c.GetValidCol() != b.GetValidCol()) return shape_mismatch(core, "c.cols", c.GetValidCol(), b.GetValidCol());
  const Waits<W...> w(waits...);
  return run_matmul(core, d, w.list, w.size());
}
}  // namespace detail

/// TMATMUL: c = a x b over m = a's valid rows, k = a's valid cols (= b's valid rows), n = b's
/// valid cols (= c's valid region).
template <class C, class A, class B, class... W>
[[nodiscard]] Result<Event> TMATMUL(Core& core, const C& c, const A& a, const B& b, const W&... waits) noexcept {
  detail::check_matmul_types<C, A, B>();
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  return detail::matmul(core, detail::matmul_desc(desc::MatmulKind::matmul, c, a, b), c, a, b, waits...);
}

/// TMATMUL_ACC: c += a x b.
template <class C, class A, class B, class... W>
[[nodiscard]] Result<Event> TMATMUL_ACC(Core& core, const C& c, const A& a, const B& b, const W&... waits) noexcept {
  detail::check_matmul_types<C, A, B>();
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  return detail::matmul(core, detail::matmul_desc(desc::MatmulKind::accumulate, c, a, b), c, a, b, waits...);
}

/// TMATMUL_BIAS: c = bias + a x b, bias a one-row Bias tile of c's element type (n values).
template <class C, class A, class B, class Z, class... W>
[[nodiscard]] Result<Event> TMATMUL_BIAS(Core& core, const C& c, const A& a, const B& b, const Z& bias,
                                         const W&... waits) noexcept {
  detail::check_matmul_types<C, A, B>();
  static_assert(Z::Loc == TileType::Bias && std::is_same_v<typename Z::DType, typename C::DType>,
                "Fix: TMATMUL_BIAS's bias is a Bias tile (BiasTable) of the result's element type");
  static_assert(detail::kAllEvents<W...>, "Fix: trailing arguments of a tile instruction are tile::Event");
  if (!bias.assigned()) return detail::unassigned(core, "bias");
  if (bias.GetValidCol() != b.GetValidCol()) return detail::shape_mismatch(core, "bias.cols", bias.GetValidCol(), b.GetValidCol());
  desc::MatmulDesc d = detail::matmul_desc(desc::MatmulKind::bias, c, a, b);
  d.bias_offset = static_cast<uint32_t>(bias.address());
  return detail::matmul(core, d, c, a, b, waits...);
}

}  // namespace tilefw::tile

// Layout instructions (TTRANS) in their own header.
#include "tilefw/tile/instr_layout.hpp"
#include "tilefw/tile/instr_select.hpp"  // TSELS, TFILLPAD
#include "tilefw/tile/instr_compare.hpp"  // TCMP, TCMPS, TSEL
