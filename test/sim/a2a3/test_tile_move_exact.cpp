// Data movement and the cube on the simulated AI Core, bit for bit against references written
// here: TLOAD / TSTORE of Vec ND and DN tiles and of boxed Mat tiles (Nz, Zz, Zn, Nn) with
// partial valid regions and GM row strides > cols; TMOV Mat -> Left / Right / Bias and Acc ->
// Vec with every FIX conversion; TSTORE from Acc with conversion; TMATMUL / TMATMUL_ACC /
// TMATMUL_BIAS for every type triple with m, k, n that are not multiples of 16.
// Element positions come from docs/a2a3-tile-model.md section 2.1 written out here (box grid, box
// order, order
// inside a box), not from the descriptor code. Each case fills the spaces involved with random
// bytes and compares them whole afterwards: only the moved / computed elements may change.
#include <gtest/gtest.h>

#include "tile_test_sim.hpp"

using namespace tile_test;
using tilefw::tile::BLayout;
using tilefw::tile::DYNAMIC;
using tilefw::tile::GlobalTensor;
using tilefw::tile::SLayout;
using tilefw::tile::Tile;
using tilefw::tile::TileType;
using chip::MemSpace;

namespace {

/// Where element (r, c) of a tile lives (element index), docs/a2a3-tile-model.md section 2.1:
/// unboxed row-major
/// r * Cols + c, col-major c * Rows + r; boxed: boxes of InnerRows x InnerCols, ordered
/// row-major (BLayout RowMajor) or col-major across the capacity, elements row-major
/// (SLayout RowMajor) or col-major inside a box.
template <class TileT>
uint64_t index_of(uint32_t r, uint32_t c) {
  constexpr uint64_t R = TileT::Rows, C = TileT::Cols;
  if constexpr (TileT::SFractal == SLayout::NoneBox) {
    return TileT::isRowMajor ? r * C + c : c * R + r;
  } else {
    constexpr uint64_t br = TileT::InnerRows, bc = TileT::InnerCols;
    const uint64_t box = TileT::isRowMajor ? (r / br) * (C / bc) + c / bc : (c / bc) * (R / br) + r / br;
    const uint64_t in = TileT::SFractal == SLayout::RowMajor ? (r % br) * bc + c % bc : (c % bc) * br + r % br;
    return box * br * bc + in;
  }
}

template <class TileT>
uint64_t byte_of(const TileT& t, uint32_t r, uint32_t c) {
  return t.address() + index_of<TileT>(r, c) * sizeof(typename TileT::DType);
}

constexpr uint64_t kGmWindow = 1 << 20;  // the part of GM the cases use (and compare)

std::vector<uint8_t> gm_image(Sim& s) {
  const uint8_t* p = s.space(MemSpace::GM);
  return std::vector<uint8_t>(p, p + kGmWindow);
}

template <class T>
using Gt = GlobalTensor<T, DYNAMIC, DYNAMIC, DYNAMIC>;

// ---- TLOAD / TSTORE ---------------------------------------------------------------------------
/// TLOAD of a vr x vc GM tensor (rows `stride` elements apart, at `goff`) into tile type TileT
/// at `toff`, then (Vec tiles) TSTORE of it to another GM tensor with stride `stride2`.
template <class TileT>
void check_load_store(uint32_t vr, uint32_t vc, uint32_t stride, uint64_t goff, uint64_t toff, uint32_t stride2,
                      uint64_t seed) {
  using T = typename TileT::DType;
  constexpr uint32_t e = sizeof(T);
  const MemSpace space = tile::space_of(TileT::Loc);
  Sim s;
  Rng rng(seed);
  rng.fill(s.space(MemSpace::GM), kGmWindow);
  rng.fill(s.space(space), a2a3::region_of(space)->size);
  TileT t(vr, vc);
  ASSERT_EQ(tile::TASSIGN(t, toff), Status::ok);
  Gt<T> g(vr, vc, stride);
  ASSERT_EQ(tile::TASSIGN(g, goff), Status::ok);
  const std::vector<uint8_t> gm0 = gm_image(s);
  std::vector<uint8_t> want = s.snapshot(space);
  auto ld = tile::TLOAD(s.core, t, g);
  ASSERT_TRUE(ld.ok()) << s.last_failure();
  EXPECT_EQ(ld.value().pipe, tile::Pipe::MTE2);
  for (uint32_t r = 0; r < vr; ++r) {
    for (uint32_t c = 0; c < vc; ++c) {
      std::memcpy(want.data() + byte_of(t, r, c), gm0.data() + goff + (uint64_t{r} * stride + c) * e, e);
    }
  }
  EXPECT_EQ(first_difference(s.snapshot(space), want, [](size_t) { return true; }), "")
      << "TLOAD " << TileT::Rows << "x" << TileT::Cols << " valid " << vr << "x" << vc << " stride " << stride;
  EXPECT_EQ(gm_image(s), gm0);  // the source is only read
  if constexpr (TileT::Loc == TileType::Vec) {
    Gt<T> out(vr, vc, stride2);
    const uint64_t ooff = goff + 0x40000 + 3;  // GM has no alignment rule
    ASSERT_EQ(tile::TASSIGN(out, ooff), Status::ok);
    std::vector<uint8_t> gwant = gm_image(s);
    auto st = tile::TSTORE(s.core, out, t, ld.value());
    ASSERT_TRUE(st.ok()) << s.last_failure();
    EXPECT_EQ(st.value().pipe, tile::Pipe::MTE3);
    for (uint32_t r = 0; r < vr; ++r) {
      for (uint32_t c = 0; c < vc; ++c) {
        std::memcpy(gwant.data() + ooff + (uint64_t{r} * stride2 + c) * e, gm0.data() + goff + (uint64_t{r} * stride + c) * e, e);
      }
    }
    EXPECT_EQ(first_difference(gm_image(s), gwant, [](size_t) { return true; }), "") << "TSTORE";
  }
  EXPECT_EQ(s.hazard_count(), 0u);
}

template <class T, int R, int C, BLayout B, SLayout S = SLayout::NoneBox, TileType L = TileType::Vec>
using DynTile = Tile<L, T, R, C, B, DYNAMIC, DYNAMIC, S>;

}  // namespace

TEST(TileExactMove, LoadStoreVecNdAndDn) {
  constexpr auto ND = BLayout::RowMajor;
  constexpr auto DN = BLayout::ColMajor;
  check_load_store<DynTile<float, 16, 64, ND>>(16, 64, 64, 0, 0, 64, 1);      // whole tile, dense
  check_load_store<DynTile<float, 16, 64, ND>>(13, 50, 77, 12, 4096, 50, 2);  // partial, GM stride > cols
  check_load_store<DynTile<half, 32, 32, ND>>(7, 31, 100, 2, 64, 40, 3);
  check_load_store<DynTile<int8_t, 8, 64, ND>>(8, 33, 65, 1, 0, 33, 4);
  check_load_store<DynTile<float, 16, 8, DN>>(16, 8, 8, 0, 0, 8, 5);  // col-major: element (r, c) at c * Rows + r
  check_load_store<DynTile<half, 32, 4, DN>>(20, 3, 9, 5, 256, 3, 6);
  check_load_store<DynTile<int32_t, 64, 1, DN>>(64, 1, 1, 0, 32, 1, 7);  // the Nx1 per-row vector
}

TEST(TileExactMove, LoadMatEveryBoxedLayout) {
  constexpr auto RM = BLayout::RowMajor;
  constexpr auto CM = BLayout::ColMajor;
  constexpr auto SR = SLayout::RowMajor;
  constexpr auto SC = SLayout::ColMajor;
  constexpr TileType M = TileType::Mat;
  // Nz (col-major boxes, row-major inside), Zz, Zn, Nn; f16 boxes 16 x 16, f32 16 x 8 / 8 x 16,
  // i8 16 x 32 / 32 x 16.
  check_load_store<DynTile<half, 32, 48, CM, SR, M>>(32, 48, 48, 0, 0, 0, 11);
  check_load_store<DynTile<half, 32, 48, CM, SR, M>>(19, 37, 41, 6, 512, 0, 12);
  check_load_store<DynTile<half, 32, 48, RM, SR, M>>(25, 40, 40, 0, 0, 0, 13);
  check_load_store<DynTile<half, 32, 48, RM, SC, M>>(30, 17, 64, 0, 1024, 0, 14);
  check_load_store<DynTile<half, 32, 48, CM, SC, M>>(9, 47, 47, 0, 0, 0, 15);
  check_load_store<DynTile<float, 32, 24, CM, SR, M>>(21, 23, 30, 0, 0, 0, 16);
  check_load_store<DynTile<float, 24, 32, RM, SC, M>>(17, 29, 29, 0, 32, 0, 17);
  check_load_store<DynTile<float, 32, 24, RM, SR, M>>(32, 24, 24, 0, 0, 0, 18);
  check_load_store<DynTile<int8_t, 32, 64, CM, SR, M>>(20, 50, 50, 3, 0, 0, 19);
  check_load_store<DynTile<int8_t, 64, 32, RM, SC, M>>(37, 19, 100, 0, 0, 0, 20);
  check_load_store<DynTile<half, 16, 64, RM, SLayout::NoneBox, M>>(16, 60, 60, 0, 0, 0, 21);  // unboxed Mat
}

// ---- TMOV ------------------------------------------------------------------------------------------
namespace {

/// Fills the valid region of `src` (in its space, host-written) with random elements, TMOVs it
/// to `dst` and checks dst's whole space: element (r, c) of src at (r, c) of dst.
template <class D, class S>
void check_tmov_copy(const D& dst, const S& src, uint64_t seed) {
  using T = typename S::DType;
  constexpr uint32_t e = sizeof(T);
  const MemSpace ds = tile::space_of(D::Loc), ss = tile::space_of(S::Loc);
  Sim s;
  Rng rng(seed);
  rng.fill(s.space(ds), a2a3::region_of(ds)->size);
  rng.fill(s.space(ss), a2a3::region_of(ss)->size);
  const std::vector<uint8_t> src0 = s.snapshot(ss);
  std::vector<uint8_t> want = s.snapshot(ds);
  auto r = tile::TMOV(s.core, dst, src);
  ASSERT_TRUE(r.ok()) << s.last_failure();
  EXPECT_EQ(r.value().pipe, tile::Pipe::MTE1);
  for (uint32_t i = 0; i < src.GetValidRow(); ++i) {
    for (uint32_t j = 0; j < src.GetValidCol(); ++j) std::memcpy(want.data() + byte_of(dst, i, j), src0.data() + byte_of(src, i, j), e);
  }
  EXPECT_EQ(first_difference(s.snapshot(ds), want, [](size_t) { return true; }), "")
      << "TMOV " << S::Rows << "x" << S::Cols << " -> " << D::Rows << "x" << D::Cols;
}

}  // namespace

TEST(TileExactMove, TmovMatToLeftRightBias) {
  constexpr auto RM = BLayout::RowMajor;
  constexpr auto CM = BLayout::ColMajor;
  constexpr auto SR = SLayout::RowMajor;
  constexpr auto SC = SLayout::ColMajor;
  constexpr TileType M = TileType::Mat;
  {  // Nz Mat -> Zz Left, partial (19 x 37 of 32 x 48)
    Tile<M, half, 32, 48, CM, 19, 37, SR> src;
    tile::TileLeft<half, 32, 48, 19, 37> dst;
    tile::TASSIGN<0x800>(src);
    tile::TASSIGN<0x1000>(dst);
    check_tmov_copy(dst, src, 1);
  }
  {  // unboxed ND Mat -> Left (f32: 16 x 8 boxes)
    Tile<M, float, 32, 24, RM, 30, 21> src;
    tile::TileLeft<float, 32, 24, 30, 21> dst;
    tile::TASSIGN<0x0>(src);
    tile::TASSIGN<0x0>(dst);
    check_tmov_copy(dst, src, 2);
  }
  {  // Zn Mat -> Zn Right (i8: 32 x 16 boxes)
    Tile<M, int8_t, 64, 32, RM, 37, 23, SC> src;
    tile::TileRight<int8_t, 64, 32, 37, 23> dst;
    tile::TASSIGN<0x20>(src);
    tile::TASSIGN<0x200>(dst);
    check_tmov_copy(dst, src, 3);
  }
  {  // Nz Mat -> Right (bf16)
    Tile<M, bf16, 48, 32, CM, 41, 17, SR> src;
    tile::TileRight<bf16, 48, 32, 41, 17> dst;
    tile::TASSIGN<0x0>(src);
    tile::TASSIGN<0x400>(dst);
    check_tmov_copy(dst, src, 4);
  }
  {  // one-row Mat -> Bias (f32 and i32)
    Tile<M, float, 1, 64, RM, 1, 40> src;
    Tile<TileType::Bias, float, 1, 64, RM, 1, 40> dst;
    tile::TASSIGN<0x40>(src);
    tile::TASSIGN<0x40>(dst);
    check_tmov_copy(dst, src, 5);
    Tile<M, int32_t, 1, 32, RM> isrc;
    Tile<TileType::Bias, int32_t, 1, 32, RM> idst;
    tile::TASSIGN<0x0>(isrc);
    tile::TASSIGN<0x380>(idst);
    check_tmov_copy(idst, isrc, 6);
  }
}

// ---- FIX: Acc -> Vec and Acc -> GM with conversion --------------------------------------------
namespace {

/// FIX conversion reference: f32 -> f16 / bf16 nearest even (overflow to inf, NaN canonical),
/// f32 -> f32 and i32 -> i32 bit copies.
uint32_t fix_ref(DType from, DType to, uint32_t x) {
  if (from == DType::i32 || to == DType::f32) return x;
  if (to == DType::bf16) return f32_to_bf16(x);
  return ld2h(f32_of(x));
}

uint32_t gen_acc(DType dt, Rng& r) {
  if (dt == DType::i32) return r.next() << 16 ^ r.next();
  switch (r.next() % 8) {
    case 0: return 0x7FA00001u;  // a signalling-style NaN payload
    case 1: return bits_of(65520.0f);  // the f16 overflow threshold (rounds to inf)
    case 2: return bits_of(65519.99f);
    case 3: return bits_of(-3.0e38f);
    case 4: return bits_of(5.9e-8f);  // f16 subnormal range
    default: return gen_f32(r);
  }
}

template <class D, class A>
void check_fix_to_vec(const D& dst, const A& acc, uint64_t seed) {
  using TA = typename A::DType;
  using TD = typename D::DType;
  const DType from = dtype_of<TA>, to = dtype_of<TD>;
  Sim s;
  Rng rng = s.fill_ub(seed);
  rng.fill(s.space(MemSpace::L0C), a2a3::kL0CBytes);
  for (uint32_t i = 0; i < acc.GetValidRow(); ++i) {
    for (uint32_t j = 0; j < acc.GetValidCol(); ++j) store_bits(s.space(MemSpace::L0C), byte_of(acc, i, j), 4, gen_acc(from, rng));
  }
  const std::vector<uint8_t> c0 = s.snapshot(MemSpace::L0C);
  std::vector<uint8_t> want = s.snapshot(MemSpace::UB);
  auto r = tile::TMOV(s.core, dst, acc);
  ASSERT_TRUE(r.ok()) << s.last_failure();
  EXPECT_EQ(r.value().pipe, tile::Pipe::FIX);
  for (uint32_t i = 0; i < acc.GetValidRow(); ++i) {
    for (uint32_t j = 0; j < acc.GetValidCol(); ++j) {
      store_bits(want.data(), byte_of(dst, i, j), sizeof(TD), fix_ref(from, to, load_bits(c0.data(), byte_of(acc, i, j), 4)));
    }
  }
  EXPECT_EQ(first_difference(s.snapshot(MemSpace::UB), want, [](size_t) { return true; }), "")
      << "TMOV Acc " << dtype_name(from) << " -> Vec " << dtype_name(to);
  EXPECT_EQ(s.snapshot(MemSpace::L0C), c0);
}

template <class TD, class A>
void check_fix_to_gm(const A& acc, uint32_t stride, uint64_t goff, uint64_t seed) {
  using TA = typename A::DType;
  const DType from = dtype_of<TA>, to = dtype_of<TD>;
  constexpr uint32_t ed = sizeof(TD);
  Sim s;
  Rng rng(seed);
  rng.fill(s.space(MemSpace::GM), kGmWindow);
  rng.fill(s.space(MemSpace::L0C), a2a3::kL0CBytes);
  for (uint32_t i = 0; i < acc.GetValidRow(); ++i) {
    for (uint32_t j = 0; j < acc.GetValidCol(); ++j) store_bits(s.space(MemSpace::L0C), byte_of(acc, i, j), 4, gen_acc(from, rng));
  }
  const std::vector<uint8_t> c0 = s.snapshot(MemSpace::L0C);
  std::vector<uint8_t> want = gm_image(s);
  Gt<TD> g(acc.GetValidRow(), acc.GetValidCol(), stride);
  ASSERT_EQ(tile::TASSIGN(g, goff), Status::ok);
  auto r = tile::TSTORE(s.core, g, acc);
  ASSERT_TRUE(r.ok()) << s.last_failure();
  EXPECT_EQ(r.value().pipe, tile::Pipe::FIX);
  for (uint32_t i = 0; i < acc.GetValidRow(); ++i) {
    for (uint32_t j = 0; j < acc.GetValidCol(); ++j) {
      store_bits(want.data(), goff + (uint64_t{i} * stride + j) * ed, ed, fix_ref(from, to, load_bits(c0.data(), byte_of(acc, i, j), 4)));
    }
  }
  EXPECT_EQ(first_difference(gm_image(s), want, [](size_t) { return true; }), "")
      << "TSTORE Acc " << dtype_name(from) << " -> GM " << dtype_name(to);
}

}  // namespace

TEST(TileExactMove, TmovAccToVecEveryFixConversion) {
  tile::TileAcc<float, 32, 48, 27, 37> acc;
  tile::TASSIGN<0x400>(acc);
  {
    Tile<TileType::Vec, float, 32, 48, BLayout::RowMajor, 27, 37> v;
    tile::TASSIGN<0x100>(v);
    check_fix_to_vec(v, acc, 1);
  }
  {
    Tile<TileType::Vec, half, 32, 48, BLayout::RowMajor, 27, 37> v;
    tile::TASSIGN<0x0>(v);
    check_fix_to_vec(v, acc, 2);
  }
  {
    Tile<TileType::Vec, bf16, 32, 48, BLayout::RowMajor, 27, 37> v;
    tile::TASSIGN<0x2000>(v);
    check_fix_to_vec(v, acc, 3);
  }
  {
    Tile<TileType::Vec, half, 32, 48, BLayout::ColMajor, 27, 37> v;  // DN destination
    tile::TASSIGN<0x0>(v);
    check_fix_to_vec(v, acc, 4);
  }
  tile::TileAcc<int32_t, 16, 32, 16, 19> iacc;
  tile::TASSIGN<0x0>(iacc);
  Tile<TileType::Vec, int32_t, 16, 32, BLayout::RowMajor, 16, 19> iv;
  tile::TASSIGN<0x40>(iv);
  check_fix_to_vec(iv, iacc, 5);
}

TEST(TileExactMove, TstoreAccToGmWithConversion) {
  tile::TileAcc<float, 32, 32, 20, 29> acc;
  tile::TASSIGN<0x1000>(acc);
  check_fix_to_gm<float>(acc, 29, 0, 1);
  check_fix_to_gm<half>(acc, 40, 6, 2);
  check_fix_to_gm<bf16>(acc, 33, 1, 3);
  tile::TileAcc<int32_t, 48, 16, 33, 16> iacc;
  tile::TASSIGN<0x0>(iacc);
  check_fix_to_gm<int32_t>(iacc, 100, 4, 4);
}

// ---- the cube -----------------------------------------------------------------------------------
namespace {

enum class Mm { plain, acc, bias };

template <class TA>
uint32_t gen_ab(Rng& r) {
  if constexpr (std::is_same_v<TA, int8_t>) return r.next() & 0xFFu;
  else if constexpr (std::is_same_v<TA, half>) return gen_f16(r) & 0xBFFFu;  // keep |x| < 2 mostly finite
  else if constexpr (std::is_same_v<TA, bf16>) return (gen_f32(r) >> 16) & 0xBFFFu;
  else return gen_f32(r);
}

template <class TA>
float as_f32(uint32_t bits) {
  if constexpr (std::is_same_v<TA, half>) return static_cast<float>(h2ld(static_cast<uint16_t>(bits)));
  else if constexpr (std::is_same_v<TA, bf16>) return f32_of(bits << 16);
  else return f32_of(bits);
}

/// C (Acc, CR x CC, valid m x n) = init + A (Left, AR x AC, valid m x k) x B (Right, BR x BC,
/// valid k x n), operands written into L0A / L0B / L0C / BiasTable directly. Reference:
/// C = init; for kk in order: C = fl32(C + fl32(a * b)) (a2a3/tile_engines.hpp), i32 wrapping.
template <class TC, class TA, int AR, int AC, int BR, int BC, int CR, int CC>
void check_matmul(Mm kind, uint32_t m, uint32_t k, uint32_t n, uint64_t seed, bool near_wrap = false) {
  constexpr uint32_t ea = sizeof(TA);
  Sim s;
  Rng rng(seed);
  for (MemSpace sp : {MemSpace::L0A, MemSpace::L0B, MemSpace::L0C, MemSpace::BiasTable}) {
    rng.fill(s.space(sp), a2a3::region_of(sp)->size);
  }
  tile::TileLeft<TA, AR, AC, DYNAMIC, DYNAMIC> a(m, k);
  tile::TileRight<TA, BR, BC, DYNAMIC, DYNAMIC> b(k, n);
  tile::TileAcc<TC, CR, CC, DYNAMIC, DYNAMIC> c(m, n);
  Tile<TileType::Bias, TC, 1, 64, BLayout::RowMajor, 1, DYNAMIC> bias(n);
  ASSERT_EQ(tile::TASSIGN(a, 0x200), Status::ok);
  ASSERT_EQ(tile::TASSIGN(b, 0x400), Status::ok);
  ASSERT_EQ(tile::TASSIGN(c, 0x40), Status::ok);
  ASSERT_EQ(tile::TASSIGN(bias, 0x100), Status::ok);
  const bool is_int = std::is_same_v<TC, int32_t>;
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t kk = 0; kk < k; ++kk) store_bits(s.space(MemSpace::L0A), byte_of(a, i, kk), ea, gen_ab<TA>(rng));
  }
  for (uint32_t kk = 0; kk < k; ++kk) {
    for (uint32_t j = 0; j < n; ++j) store_bits(s.space(MemSpace::L0B), byte_of(b, kk, j), ea, gen_ab<TA>(rng));
  }
  auto init_value = [&]() -> uint32_t {
    if (!is_int) return bits_of(static_cast<float>(static_cast<int32_t>(rng.next() % 2001) - 1000) / 8.0f);
    if (near_wrap) return 0x7FFFFF00u + rng.next() % 256;  // a few products cross INT32_MAX
    return rng.next() % 100000;
  };
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) store_bits(s.space(MemSpace::L0C), byte_of(c, i, j), 4, init_value());
  }
  for (uint32_t j = 0; j < n; ++j) store_bits(s.space(MemSpace::BiasTable), byte_of(bias, 0, j), 4, init_value());
  const std::vector<uint8_t> l0a = s.snapshot(MemSpace::L0A), l0b = s.snapshot(MemSpace::L0B);
  const std::vector<uint8_t> l0c = s.snapshot(MemSpace::L0C), bt = s.snapshot(MemSpace::BiasTable);
  Result<tile::Event> r = kind == Mm::plain ? tile::TMATMUL(s.core, c, a, b)
                          : kind == Mm::acc ? tile::TMATMUL_ACC(s.core, c, a, b)
                                            : tile::TMATMUL_BIAS(s.core, c, a, b, bias);
  ASSERT_TRUE(r.ok()) << s.last_failure();
  EXPECT_EQ(r.value().pipe, tile::Pipe::M);
  std::vector<uint8_t> want = l0c;
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      uint32_t init = 0;
      if (kind == Mm::acc) init = load_bits(l0c.data(), byte_of(c, i, j), 4);
      if (kind == Mm::bias) init = load_bits(bt.data(), byte_of(bias, 0, j), 4);
      uint32_t out;
      if (is_int) {
        uint32_t acc = init;
        for (uint32_t kk = 0; kk < k; ++kk) {
          const auto x = static_cast<int8_t>(load_bits(l0a.data(), byte_of(a, i, kk), 1));
          const auto y = static_cast<int8_t>(load_bits(l0b.data(), byte_of(b, kk, j), 1));
          acc += static_cast<uint32_t>(x * y);  // two's-complement wrap
        }
        out = acc;
      } else {
        float acc = f32_of(init);
        for (uint32_t kk = 0; kk < k; ++kk) {
          const float x = as_f32<TA>(load_bits(l0a.data(), byte_of(a, i, kk), ea));
          const float y = as_f32<TA>(load_bits(l0b.data(), byte_of(b, kk, j), ea));
          const float prod = x * y;
          acc = acc + prod;
        }
        out = f32_bits(acc);
      }
      store_bits(want.data(), byte_of(c, i, j), 4, out);
    }
  }
  EXPECT_EQ(first_difference(s.snapshot(MemSpace::L0C), want, [](size_t) { return true; }), "")
      << dtype_name(dtype_of<TC>) << "," << dtype_name(dtype_of<TA>) << " kind " << static_cast<int>(kind) << " m" << m
      << " k" << k << " n" << n;
  EXPECT_EQ(s.snapshot(MemSpace::L0A), l0a);
  EXPECT_EQ(s.snapshot(MemSpace::L0B), l0b);
  EXPECT_EQ(s.snapshot(MemSpace::BiasTable), bt);
}

template <class TC, class TA, int AR, int AC, int BR, int BC, int CR, int CC>
void all_kinds(uint32_t m, uint32_t k, uint32_t n, uint64_t seed) {
  for (Mm kind : {Mm::plain, Mm::acc, Mm::bias}) check_matmul<TC, TA, AR, AC, BR, BC, CR, CC>(kind, m, k, n, seed++);
}

}  // namespace

TEST(TileExactMatmul, EveryTypeTripleAndKindWithPartialShapes) {
  all_kinds<float, half, 32, 64, 64, 32, 32, 32>(19, 37, 23, 1);
  all_kinds<float, half, 32, 64, 64, 32, 32, 32>(32, 64, 32, 10);  // whole boxes
  all_kinds<float, half, 16, 16, 16, 16, 16, 16>(1, 1, 1, 20);
  all_kinds<float, float, 32, 24, 24, 32, 32, 32>(17, 21, 30, 30);
  all_kinds<float, bf16, 48, 48, 48, 32, 48, 32>(45, 33, 9, 40);
  all_kinds<int32_t, int8_t, 32, 64, 64, 32, 32, 32>(29, 50, 17, 50);
  all_kinds<int32_t, int8_t, 16, 128, 128, 16, 16, 16>(3, 127, 16, 60);
}

TEST(TileExactMatmul, Int8ProductsWrapAroundInt32) {
  check_matmul<int32_t, int8_t, 32, 64, 64, 32, 32, 32>(Mm::acc, 20, 64, 20, 70, true);
  check_matmul<int32_t, int8_t, 32, 64, 64, 32, 32, 32>(Mm::bias, 20, 64, 20, 71, true);
}

// The whole flow with partial shapes: GM -> Mat (Nz / Zn nd2nz loads) -> Left / Right -> cube
// -> Acc -> GM (f16), every step waiting for its producer; no hazard, exact results.
TEST(TileExactMatmul, LoadMoveMultiplyStoreWithPartialShapes) {
  Sim s;
  constexpr uint32_t m = 21, k = 35, n = 26;
  Rng rng(5);
  std::vector<uint16_t> av(m * k), bv(k * n);
  for (auto& x : av) x = static_cast<uint16_t>(gen_ab<half>(rng));
  for (auto& x : bv) x = static_cast<uint16_t>(gen_ab<half>(rng));
  std::memcpy(s.space(MemSpace::GM), av.data(), av.size() * 2);
  std::memcpy(s.space(MemSpace::GM) + 0x10000, bv.data(), bv.size() * 2);
  GlobalTensor<half, m, k> ga;
  GlobalTensor<half, k, n> gb;
  GlobalTensor<half, m, n, 40> gc;
  ASSERT_EQ(tile::TASSIGN(ga, 0), Status::ok);
  ASSERT_EQ(tile::TASSIGN(gb, 0x10000), Status::ok);
  ASSERT_EQ(tile::TASSIGN(gc, 0x20000), Status::ok);
  Tile<TileType::Mat, half, 32, 48, BLayout::ColMajor, m, k, SLayout::RowMajor> ma;
  Tile<TileType::Mat, half, 48, 32, BLayout::RowMajor, k, n, SLayout::ColMajor> mb;
  tile::TileLeft<half, 32, 48, m, k> left;
  tile::TileRight<half, 48, 32, k, n> right;
  tile::TileAcc<float, 32, 32, m, n> acc;
  tile::TASSIGN<0x0>(ma);
  tile::TASSIGN<0x8000>(mb);
  tile::TASSIGN<0x0>(left);
  tile::TASSIGN<0x0>(right);
  tile::TASSIGN<0x0>(acc);
  auto e1 = tile::TLOAD(s.core, ma, ga);
  auto e2 = tile::TLOAD(s.core, mb, gb);
  ASSERT_TRUE(e1.ok() && e2.ok()) << s.last_failure();
  auto m1 = tile::TMOV(s.core, left, ma, e1.value());
  auto m2 = tile::TMOV(s.core, right, mb, e2.value());
  ASSERT_TRUE(m1.ok() && m2.ok()) << s.last_failure();
  auto mm = tile::TMATMUL(s.core, acc, left, right, m1.value(), m2.value());
  ASSERT_TRUE(mm.ok()) << s.last_failure();
  auto st = tile::TSTORE(s.core, gc, acc, mm.value());
  ASSERT_TRUE(st.ok()) << s.last_failure();
  EXPECT_EQ(s.hazard_count(), 0u);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      float c = 0.0f;
      for (uint32_t kk = 0; kk < k; ++kk) c = c + as_f32<half>(av[i * k + kk]) * as_f32<half>(bv[kk * n + j]);
      ASSERT_EQ(load_bits(s.space(MemSpace::GM), 0x20000 + (i * 40 + j) * 2, 2), ld2h(c)) << i << "," << j;
    }
  }
}
