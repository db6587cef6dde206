// Tile<> types of the PTO programming model (docs/a2a3-tile-model.md sections 2 to 5) with every
// layout
// constraint as a `Fix:` static_assert, TASSIGN (compile-time or runtime checked), GlobalTensor,
// and the bridge to the planner: a Tile produces the plan::TileDesc the runtime path uses.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilefw/base/dtype.hpp"
#include "tilefw/base/status.hpp"
#include "tilefw/chip/a2a3.hpp"
#include "tilefw/chip/profile.hpp"
#include "tilefw/plan/plan.hpp"

namespace tilefw::tile {

/// Logical tile storage (docs/a2a3-tile-model.md section 2); space_of() gives the a2a3 memory it
/// lives in.
enum class TileType : uint8_t { Vec, Mat, Left, Right, Acc, Bias, Scaling };
/// Order of the outer blocks (or elements when not boxed).
enum class BLayout : uint8_t { RowMajor, ColMajor };
/// Layout inside a fractal box; NoneBox = not boxed.
enum class SLayout : uint8_t { NoneBox, RowMajor, ColMajor };
/// Padding policy for instructions that define it (kept as a type-level tag).
enum class PadValue : uint64_t { Null, Zero, Max, Min };

/// A valid-region size given at run time.
inline constexpr int DYNAMIC = -1;

/// Fractal sizes a2a3 knows (TileConfig): A/B boxes, accumulator boxes, MX scales.
inline constexpr int kFractalABSize = 512;
inline constexpr int kFractalCSize = 1024;
inline constexpr int kFractalMxSize = 32;

constexpr chip::MemSpace space_of(TileType t) noexcept {
  switch (t) {
    case TileType::Vec: return chip::MemSpace::UB;
    case TileType::Mat: return chip::MemSpace::L1;
    case TileType::Left: return chip::MemSpace::L0A;
    case TileType::Right: return chip::MemSpace::L0B;
    case TileType::Acc: return chip::MemSpace::L0C;
    case TileType::Bias: return chip::MemSpace::BiasTable;
    case TileType::Scaling: return chip::MemSpace::Fixpipe;
  }
  return chip::MemSpace::none;
}

namespace detail {
template <class T, class = void>
struct HasDType : std::false_type {};
template <class T>
struct HasDType<T, std::void_t<decltype(DTypeOf<T>::value)>> : std::true_type {};

// Inner box shape (docs/a2a3-tile-model.md section 2.1).
constexpr int inner_rows(SLayout s, int fractal, int elem) noexcept {
  if (s == SLayout::NoneBox) return 1;
  if (fractal == kFractalCSize) return 16;
  if (fractal == kFractalMxSize) return s == SLayout::RowMajor ? 16 : 2;
  return s == SLayout::RowMajor ? 16 : (elem > 0 ? 32 / elem : 0);
}
constexpr int inner_cols(SLayout s, int fractal, int elem) noexcept {
  if (s == SLayout::NoneBox) return 1;
  if (fractal == kFractalCSize) return 16;
  if (fractal == kFractalMxSize) return s == SLayout::RowMajor ? 2 : 16;
  return s == SLayout::RowMajor ? (elem > 0 ? 32 / elem : 0) : 16;
}
// The build's profile (chip::kBuildChip): a2a3 unless TILEFW_CHIP_A5 is defined.
constexpr uint64_t space_bytes(TileType t) noexcept { return chip::region_size(chip::kBuildChip, space_of(t)); }
constexpr uint32_t space_align(TileType t) noexcept { return chip::region_alignment(chip::kBuildChip, space_of(t)); }
}  // namespace detail

template <TileType Loc_, class Element_, int Rows_, int Cols_, BLayout BLayout_ = BLayout::RowMajor,
          int RowValid_ = Rows_, int ColValid_ = Cols_, SLayout SLayout_ = SLayout::NoneBox,
          int SFractalSize_ = kFractalABSize, PadValue PadValue_ = PadValue::Null>
class Tile {
  static_assert(detail::HasDType<Element_>::value,
                "Fix: Element must be half, bf16, float, int8_t, uint8_t, int16_t, uint16_t, int32_t or uint32_t");
  static_assert(Rows_ > 0 && Cols_ > 0, "Fix: a Tile needs Rows > 0 and Cols > 0 (capacity is static)");
  static_assert(RowValid_ == DYNAMIC || (RowValid_ >= 0 && RowValid_ <= Rows_),
                "Fix: RowValid must be DYNAMIC or in [0, Rows] (the valid region is a prefix)");
  static_assert(ColValid_ == DYNAMIC || (ColValid_ >= 0 && ColValid_ <= Cols_),
                "Fix: ColValid must be DYNAMIC or in [0, Cols] (the valid region is a prefix)");
  static_assert(SFractalSize_ == kFractalABSize || SFractalSize_ == kFractalCSize || SFractalSize_ == kFractalMxSize,
                "Fix: SFractalSize must be 512 (A/B boxes), 1024 (accumulator boxes) or 32 (MX scales)");

 public:
  using DType = Element_;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_;
  static constexpr int Cols = Cols_;
  static constexpr BLayout BFractal = BLayout_;
  static constexpr SLayout SFractal = SLayout_;
  static constexpr int SFractalSize = SFractalSize_;
  static constexpr PadValue PadVal = PadValue_;
  static constexpr int ValidRow = RowValid_;
  static constexpr int ValidCol = ColValid_;
  static constexpr bool isRowMajor = BLayout_ == BLayout::RowMajor;
  static constexpr bool isBoxedLayout = SLayout_ != SLayout::NoneBox;
  static constexpr int ElemBytes = static_cast<int>(sizeof(Element_));
  static constexpr int InnerRows = detail::inner_rows(SLayout_, SFractalSize_, ElemBytes);
  static constexpr int InnerCols = detail::inner_cols(SLayout_, SFractalSize_, ElemBytes);
  static constexpr int Numel = Rows_ * Cols_;
  static constexpr uint64_t Bytes = uint64_t{static_cast<uint32_t>(Rows_)} * static_cast<uint32_t>(Cols_) * sizeof(Element_);
  static constexpr int RowStride = isRowMajor ? Cols_ : 1;
  static constexpr int ColStride = isRowMajor ? 1 : Rows_;

 private:
  static_assert(InnerRows != 0 && InnerCols != 0, "Fix: this (SLayout, SFractalSize, Element) has no box shape");
  static_assert(!isBoxedLayout || Loc_ == TileType::Vec || SFractalSize_ == kFractalMxSize || Rows_ == 1 ||
                    Rows_ % InnerRows == 0,
                "Fix: Rows must be a multiple of the box rows (16 for 512/1024 B RowMajor boxes)");
  static_assert(!isBoxedLayout || Cols_ % InnerCols == 0,
                "Fix: Cols must be a multiple of the box cols (32 / sizeof(Element) for 512 B RowMajor boxes)");
  static_assert(isBoxedLayout || !isRowMajor || (Cols_ * ElemBytes) % 32 == 0,
                "Fix: a row-major unboxed tile needs Cols * sizeof(Element) to be a multiple of 32 bytes "
                "(for a per-row vector use BLayout::ColMajor with Cols == 1)");
  static_assert(isBoxedLayout || isRowMajor || (Rows_ * ElemBytes) % 32 == 0,
                "Fix: a col-major unboxed tile needs Rows * sizeof(Element) to be a multiple of 32 bytes");
  static_assert(Bytes <= detail::space_bytes(Loc_),
                "Fix: the tile is larger than the memory space of its TileType (a2a3: UB 192 KB, L1 512 KB, "
                "L0A/L0B 64 KB, L0C 128 KB; a5: UB 256 KB, L0C 256 KB)");

 public:
  /// Static valid region (both sizes static).
  constexpr Tile() noexcept
    requires(RowValid_ != DYNAMIC && ColValid_ != DYNAMIC)
      : vr_(static_cast<uint32_t>(RowValid_)), vc_(static_cast<uint32_t>(ColValid_)) {}
  /// Both sizes dynamic. Sizes beyond the capacity are rejected by the planner
  /// (plan_tile_constraint); set_valid() reports them at once.
  constexpr Tile(uint32_t valid_rows, uint32_t valid_cols) noexcept
    requires(RowValid_ == DYNAMIC && ColValid_ == DYNAMIC)
      : vr_(valid_rows), vc_(valid_cols) {}
  /// Exactly one size dynamic: the dynamic one.
  constexpr explicit Tile(uint32_t valid) noexcept
    requires((RowValid_ == DYNAMIC) != (ColValid_ == DYNAMIC))
      : vr_(RowValid_ == DYNAMIC ? valid : static_cast<uint32_t>(RowValid_)),
        vc_(ColValid_ == DYNAMIC ? valid : static_cast<uint32_t>(ColValid_)) {}

  constexpr uint32_t GetValidRow() const noexcept { return vr_; }
  constexpr uint32_t GetValidCol() const noexcept { return vc_; }
  /// Byte offset inside the TileType's memory space (set by TASSIGN).
  constexpr uint64_t address() const noexcept { return addr_; }
  /// Whether TASSIGN placed the tile; instructions refuse an unplaced one (tile_unassigned).
  constexpr bool assigned() const noexcept { return assigned_; }

  /// Changes a DYNAMIC valid size; invalid_argument if that size is static, plan_tile_constraint
  /// if it exceeds the capacity.
  [[nodiscard]] constexpr Status set_valid(uint32_t valid_rows, uint32_t valid_cols) noexcept {
    if ((RowValid_ != DYNAMIC && valid_rows != vr_) || (ColValid_ != DYNAMIC && valid_cols != vc_)) {
      return Status::invalid_argument;
    }
    if (valid_rows > static_cast<uint32_t>(Rows_) || valid_cols > static_cast<uint32_t>(Cols_)) {
      return Status::plan_tile_constraint;
    }
    vr_ = valid_rows;
    vc_ = valid_cols;
    return Status::ok;
  }

  /// The runtime description the planner consumes (unboxed tiles only).
  constexpr plan::TileDesc desc() const noexcept {
    static_assert(!isBoxedLayout, "Fix: only unboxed (SLayout::NoneBox) tiles have a planner description");
    return plan::TileDesc{space_of(Loc_), static_cast<uint32_t>(addr_), dtype_of<Element_>,
                          static_cast<uint32_t>(Rows_), static_cast<uint32_t>(Cols_), vr_, vc_,
                          isRowMajor ? plan::Layout::row_major : plan::Layout::col_major, assigned_};
  }

  // TASSIGN sets the address.
  template <class T>
  friend constexpr Status assign_checked(T& t, uint64_t addr, chip::Chip on) noexcept;
  template <uint64_t Addr, class T>
  friend constexpr void assign_static(T& t) noexcept;

 private:
  uint64_t addr_ = 0;
  uint32_t vr_ = 0;
  uint32_t vc_ = 0;
  bool assigned_ = false;
};

/// Places `t` at `addr` of its space on the profile `on` (the build's by default; a simulated
/// A5 core's harness passes a5, whose UB and L0C are larger).
template <class T>
constexpr Status assign_checked(T& t, uint64_t addr, chip::Chip on = chip::kBuildChip) noexcept {
  const Status s = plan::check_placement(space_of(T::Loc), addr, T::Bytes, on);
  if (s == Status::ok) {
    t.addr_ = addr;
    t.assigned_ = true;
  }
  return s;
}
template <uint64_t Addr, class T>
constexpr void assign_static(T& t) noexcept {
  t.addr_ = Addr;
  t.assigned_ = true;
}

/// TASSIGN(tile, addr): binds the tile to byte offset `addr` of its TileType's space; checks
/// alignment (tile_misaligned) and fit (tile_out_of_bounds). The tile is unchanged on failure.
template <class T>
[[nodiscard]] constexpr Status TASSIGN(T& tile, uint64_t addr) noexcept {
  return assign_checked(tile, addr);
}

/// TASSIGN<addr>(tile): the same checks at compile time.
template <uint64_t Addr, class T>
constexpr void TASSIGN(T& tile) noexcept {
  static_assert(Addr % detail::space_align(T::Loc) == 0,
                "Fix: TASSIGN address must be aligned as the tile's space requires (UB/L1 32 B, L0A/L0B 512 B, "
                "L0C 64 B)");
  static_assert(T::Bytes <= detail::space_bytes(T::Loc) && Addr <= detail::space_bytes(T::Loc) - T::Bytes,
                "Fix: TASSIGN address + tile bytes must fit inside the tile's memory space");
  assign_static<Addr>(tile);
}

// ---- matrix-engine aliases (docs/a2a3-tile-model.md section 2.2, docs/a5-profile.md section 6) ---
/// L0A operand of profile `On`: boxes of 16 x (32 / sizeof(T)), 512 B, rows inside; the boxes
/// in row order on a2a3 ("Zz", BLayout::RowMajor), in column order on A5 ("Nz",
/// BLayout::ColMajor). A kernel run on a core of the other profile names its profile here.
template <chip::Chip On, class T, int R, int C, int VR = R, int VC = C>
using TileLeftFor = Tile<TileType::Left, T, R, C, chip::left_boxes_col_major(On) ? BLayout::ColMajor : BLayout::RowMajor,
                         VR, VC, SLayout::RowMajor, kFractalABSize>;
/// L0A operand as PTO's TileLeft spells it for the build's profile (chip::kBuildChip): Zz in
/// an a2a3 build, Nz in an A5 build.
template <class T, int R, int C, int VR = R, int VC = C>
using TileLeft = TileLeftFor<chip::kBuildChip, T, R, C, VR, VC>;
/// L0B operand, "Zn": row-major outer order, col-major boxes, 512 B.
template <class T, int R, int C, int VR = R, int VC = C>
using TileRight = Tile<TileType::Right, T, R, C, BLayout::RowMajor, VR, VC, SLayout::ColMajor, kFractalABSize>;
/// L0C accumulator, "Nz": col-major outer order, row-major 16 x 16 boxes, 1024 B.
template <class T, int R, int C, int VR = R, int VC = C>
using TileAcc = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor, kFractalCSize>;

// ---- GM -----------------------------------------------------------------------------------------
/// A 2-D row-major view of GM data: Rows x Cols elements, rows RowStride elements apart; any
/// dimension may be DYNAMIC (given to the constructor). Storage is a GM byte address.
template <class T, int Rows_ = DYNAMIC, int Cols_ = DYNAMIC, int RowStride_ = Cols_>
class GlobalTensor {
  static_assert(detail::HasDType<T>::value,
                "Fix: Element must be half, bf16, float, int8_t, uint8_t, int16_t, uint16_t, int32_t or uint32_t");
  static_assert(Rows_ == DYNAMIC || Rows_ > 0, "Fix: GlobalTensor Rows must be DYNAMIC or positive");
  static_assert(Cols_ == DYNAMIC || Cols_ > 0, "Fix: GlobalTensor Cols must be DYNAMIC or positive");
  static_assert(RowStride_ == DYNAMIC || Cols_ == DYNAMIC || RowStride_ >= Cols_,
                "Fix: GlobalTensor RowStride must be at least Cols");

 public:
  using DType = T;
  constexpr GlobalTensor(uint32_t rows = Rows_ == DYNAMIC ? 0u : static_cast<uint32_t>(Rows_),
                         uint32_t cols = Cols_ == DYNAMIC ? 0u : static_cast<uint32_t>(Cols_),
                         uint32_t row_stride = RowStride_ == DYNAMIC ? 0u : static_cast<uint32_t>(RowStride_)) noexcept
      : rows_(Rows_ == DYNAMIC ? rows : static_cast<uint32_t>(Rows_)),
        cols_(Cols_ == DYNAMIC ? cols : static_cast<uint32_t>(Cols_)),
        stride_(RowStride_ == DYNAMIC ? (row_stride != 0 ? row_stride : cols_) : static_cast<uint32_t>(RowStride_)) {}

  constexpr uint32_t rows() const noexcept { return rows_; }
  constexpr uint32_t cols() const noexcept { return cols_; }
  constexpr uint32_t row_stride() const noexcept { return stride_; }
  constexpr uint64_t address() const noexcept { return addr_; }
  /// Whether TASSIGN / assign() placed the tensor; moves refuse an unplaced one.
  constexpr bool assigned() const noexcept { return assigned_; }
  /// Bytes from the first to one past the last element.
  constexpr uint64_t span_bytes() const noexcept {
    return rows_ == 0 || cols_ == 0 ? 0 : (uint64_t{rows_ - 1} * stride_ + cols_) * sizeof(T);
  }

  /// Binds to GM byte address `addr`: tile_out_of_bounds when the data leaves the GM window,
  /// plan_tile_constraint when the row stride is shorter than a row.
  [[nodiscard]] constexpr Status assign(uint64_t addr) noexcept {
    if (stride_ < cols_) return Status::plan_tile_constraint;
    const Status s = plan::check_placement(chip::MemSpace::GM, addr, span_bytes());
    if (s == Status::ok) {
      addr_ = addr;
      assigned_ = true;
    }
    return s;
  }

 private:
  uint64_t addr_ = 0;
  bool assigned_ = false;
  uint32_t rows_;
  uint32_t cols_;
  uint32_t stride_;
};

template <class T, int R, int C, int S>
[[nodiscard]] constexpr Status TASSIGN(GlobalTensor<T, R, C, S>& g, uint64_t addr) noexcept {
  return g.assign(addr);
}

// ---- planning tile instructions ----------------------------------------------------------------
template <class T>
inline constexpr bool kIsVec = T::Loc == TileType::Vec && !T::isBoxedLayout;

/// Plans a binary instruction (TADD TSUB TMUL TDIV TMAX TMIN) on Vec tiles.
template <class D, class A, class B>
[[nodiscard]] Status plan_binary(plan::TileOp op, plan::Plan& out, const D& dst, const A& a, const B& b) noexcept {
  static_assert(kIsVec<D> && kIsVec<A> && kIsVec<B>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");
  return plan::plan_tile(plan::Request::binary(op, dst.desc(), a.desc(), b.desc()), out);
}
/// Plans a unary instruction (TABS TEXP ... TCOLEXPAND TCOLMAX TCOLMIN) on Vec tiles.
template <class D, class A>
[[nodiscard]] Status plan_unary(plan::TileOp op, plan::Plan& out, const D& dst, const A& a) noexcept {
  static_assert(kIsVec<D> && kIsVec<A>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");
  return plan::plan_tile(plan::Request::unary(op, dst.desc(), a.desc()), out);
}
/// Plans a tile-scalar instruction (TADDS TMULS TMAXS TMINS); `bits` is the scalar's raw bits.
template <class D, class A>
[[nodiscard]] Status plan_scalar(plan::TileOp op, plan::Plan& out, const D& dst, const A& a, uint32_t bits) noexcept {
  static_assert(kIsVec<D> && kIsVec<A>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");
  return plan::plan_tile(plan::Request::scalar(op, dst.desc(), a.desc(), bits), out);
}
/// Plans TROWSUM / TROWMAX / TROWMIN / TCOLSUM (dst, src, tmp).
template <class D, class A, class T>
[[nodiscard]] Status plan_reduce(plan::TileOp op, plan::Plan& out, const D& dst, const A& src, const T& tmp) noexcept {
  static_assert(kIsVec<D> && kIsVec<A> && kIsVec<T>, "Fix: vector tile instructions take unboxed Vec tiles (UB)");
  static_assert(std::is_same_v<typename D::DType, typename A::DType>,
                "Fix: the reduction's dst element type must equal src's");
  return plan::plan_tile(plan::Request::reduce(op, dst.desc(), src.desc(), tmp.desc()), out);
}

}  // namespace tilefw::tile
