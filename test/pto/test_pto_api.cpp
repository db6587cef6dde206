// PTO's spellings on the simulated AI Core: GM through GlobalTensor, Auto placement (its
// addresses, a kernel that does not fit, mixing with TASSIGN), Auto and manual sync (the
// simulator's hazard checker sees a missing event), the failure modes, half, the cube path.
// References are written here, from the instructions' definitions.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include <pto/host.hpp>

namespace {

using namespace pto;
using tilefw::Status;
using tilefw::chip::MemSpace;

constexpr int kR = 16;
constexpr int kC = 32;
using VecT = Tile<TileType::Vec, float, kR, kC>;
using GmT = GlobalTensor<float, Shape<1, 1, 1, kR, kC>, Stride<1, 1, 1, kC, 1>>;

float value(int i, int salt) { return static_cast<float>((i * 37 + salt * 11) % 101) * 0.37f - 9.0f; }

// z = (x + y) * x, loaded and stored through GM; `sync` says how the author synchronises.
enum class Sync { none, events, flags };
void add_mul_kernel(__gm__ float* x, __gm__ float* y, __gm__ float* z, Sync sync) {
  GmT gx(x), gy(y), gz(z);
  VecT a, b, c;
  if (sync == Sync::events) {
    Event<Op::TLOAD, Op::TADD> la = TLOAD(a, gx);
    Event<Op::TLOAD, Op::TADD> lb = TLOAD(b, gy);
    RecordEvent s = TADD(c, a, b, la, lb);
    Event<Op::TMUL, Op::TSTORE_VEC> m = TMUL(c, c, a, s);
    TSTORE(gz, c, m);
  } else if (sync == Sync::flags) {
    TLOAD(a, gx);
    TLOAD(b, gy);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADD(c, a, b);
    TMUL(c, c, a);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
    TSTORE(gz, c);
  } else {
    TLOAD(a, gx);
    TLOAD(b, gy);
    TADD(c, a, b);
    TMUL(c, c, a);
    TSTORE(gz, c);
  }
}

struct AddMulRun {
  float* x;
  float* y;
  float* z;
};

AddMulRun prepare() {
  AddMulRun r{pto::host::gm<float>(kR * kC), pto::host::gm<float>(kR * kC), pto::host::gm<float>(kR * kC)};
  for (int i = 0; i < kR * kC; ++i) {
    r.x[i] = value(i, 1);
    r.y[i] = value(i, 2);
  }
  return r;
}

void expect_add_mul(const AddMulRun& r) {
  for (int i = 0; i < kR * kC; ++i) {
    const float s = r.x[i] + r.y[i];  // RNE f32, as vadd
    ASSERT_EQ(r.z[i], s * r.x[i]) << "element " << i;
  }
}

TEST(PtoApi, AutoPlacementAndAutoSyncRunClean) {
  pto::host::Core core;
  const AddMulRun r = prepare();
  add_mul_kernel(r.x, r.y, r.z, Sync::none);
  ASSERT_EQ(pto::status(), Status::ok);
  expect_add_mul(r);
  EXPECT_EQ(core.hazard_count(), 0u) << "Auto sync must order every pipe change";
  // a, b, c in first-use order at 0, 2 KB, 4 KB.
  EXPECT_EQ(core.context().arena[static_cast<size_t>(MemSpace::UB)].auto_end, 3u * kR * kC * 4u);
}

TEST(PtoApi, ManualSyncWithoutEventsIsAHazard) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const AddMulRun r = prepare();
  add_mul_kernel(r.x, r.y, r.z, Sync::none);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_GT(core.sync_violations(), 0u);
  EXPECT_GT(core.hazard_count(), 0u) << "the checker must see the missing MTE2 -> V event";
}

TEST(PtoApi, ManualSyncWithEventsIsClean) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const AddMulRun r = prepare();
  add_mul_kernel(r.x, r.y, r.z, Sync::events);
  ASSERT_EQ(pto::status(), Status::ok);
  expect_add_mul(r);
  EXPECT_EQ(core.sync_violations(), 0u);
  EXPECT_EQ(core.hazard_count(), 0u);
}

TEST(PtoApi, ManualSyncWithFlagsIsClean) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const AddMulRun r = prepare();
  add_mul_kernel(r.x, r.y, r.z, Sync::flags);
  ASSERT_EQ(pto::status(), Status::ok);
  expect_add_mul(r);
  EXPECT_EQ(core.sync_violations(), 0u);
  EXPECT_EQ(core.hazard_count(), 0u);
}

TEST(PtoApi, WaitFlagWithoutSetFlagFails) {
  pto::host::Core core;
  core.set_checked(true);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);
  EXPECT_EQ(pto::status(), Status::sim_wait_never_signalled);
  EXPECT_STREQ(pto::last_failure().instr, "wait_flag");
}

using BigT = Tile<TileType::Vec, float, 128, 256>;  // 128 KB of UB's 192 KB

TEST(PtoApi, AutoKernelThatDoesNotFitNamesTileAndSpace) {
  pto::host::Core core(tilefw::chip::Chip::a2a3);  // a2a3's figures
  core.set_checked(true);
  BigT c, a, b;
  const RecordEvent e = TADD(c, a, b);
  EXPECT_EQ(e.ev.seq, 0u);
  const Failure f = pto::last_failure();
  EXPECT_EQ(f.status, Status::tile_out_of_bounds);
  EXPECT_STREQ(f.instr, "TADD");
  EXPECT_STREQ(f.report.field, "src0");
  EXPECT_EQ(f.space, MemSpace::UB);
  EXPECT_EQ(f.report.value, 131072u);
  EXPECT_EQ(f.report.limit, 65536u);
  EXPECT_TRUE(c.assigned());
  EXPECT_FALSE(a.assigned());
  // Sticky: nothing runs until the status is cleared.
  VecT s, t;
  TEXPANDS(s, 1.0f);
  EXPECT_FALSE(s.assigned());
  pto::clear_status();
  TEXPANDS(t, 1.0f);
  EXPECT_TRUE(t.assigned());
  EXPECT_EQ(pto::status(), Status::ok);
}

// A kernel whose second tile does not fit, run on a fresh core (default: print and exit).
void overflow_kernel() {
  pto::host::Core core(tilefw::chip::Chip::a2a3);  // a2a3's figures
  BigT c, a, b;
  TADD(c, a, b);
  std::exit(0);  // not reached
}

TEST(PtoApiDeathTest, AFailedCheckPrintsAndExits) {
  EXPECT_EXIT(overflow_kernel(), testing::ExitedWithCode(1),
              "pto: TADD failed: tile_out_of_bounds \\(src0: 131072 bytes at offset 131072, 65536 bytes left in UB\\)");
}

TEST(PtoApi, AutoTilesGoAboveManualOnes) {
  pto::host::Core core;
  VecT m, a;
  TASSIGN(m, 0x1000);  // [0x1000, 0x1800)
  TEXPANDS(a, 2.0f);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(a.address(), 0x1800u);
}

TEST(PtoApi, ManualTileIntoAutoBytesIsRefused) {
  pto::host::Core core;
  core.set_checked(true);
  VecT a, m;
  TEXPANDS(a, 2.0f);  // auto at 0
  TASSIGN(m, 0x400);
  EXPECT_EQ(pto::status(), Status::illegal_overlap);
  EXPECT_FALSE(m.assigned());
  pto::clear_status();
  TASSIGN(m, 0x800);  // just past the auto tile: fine
  EXPECT_EQ(pto::status(), Status::ok);
  EXPECT_TRUE(m.assigned());
}

TEST(PtoApi, TassignChecksAlignmentAndFit) {
  pto::host::Core core(tilefw::chip::Chip::a2a3);  // a2a3's figures
  core.set_checked(true);
  VecT t;
  TASSIGN(t, 0x1001);
  EXPECT_EQ(pto::status(), Status::tile_misaligned);
  EXPECT_FALSE(t.assigned());
  pto::clear_status();
  TASSIGN(t, 192 * 1024 - 1024);
  EXPECT_EQ(pto::status(), Status::tile_out_of_bounds);
  EXPECT_FALSE(t.assigned());
}

TEST(PtoApi, NoCurrentCoreDoesNothing) {
  VecT a;
  EXPECT_EQ(TEXPANDS(a, 1.0f).ev.seq, 0u);
  EXPECT_FALSE(a.assigned());
  EXPECT_EQ(pto::status(), Status::no_such_engine);
}

TEST(PtoApi, GmPointerOutsideGmFails) {
  pto::host::Core core;
  core.set_checked(true);
  static float outside[kR * kC];
  GmT g(outside);
  VecT a;
  TLOAD(a, g);
  EXPECT_EQ(pto::status(), Status::tile_out_of_bounds);
  EXPECT_STREQ(pto::last_failure().report.field, "src");
  EXPECT_EQ(pto::last_failure().space, MemSpace::GM);
}

TEST(PtoApi, HalfIsTheCompilersBinary16) {
  static_assert(std::is_same_v<pto::half, _Float16>);
  pto::host::Core core;
  using HT = Tile<TileType::Vec, half, 16, 16>;
  using HG = GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
  half* x = pto::host::gm<half>(256);
  half* z = pto::host::gm<half>(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<half>(static_cast<float>(i % 37) * 0.5f - 4.0f);
  HG gx(x), gz(z);
  HT a, b;
  TLOAD(a, gx);
  TADDS(b, a, static_cast<half>(1.25f));
  TMULS(b, b, 2.0f);  // a float scalar is rounded to half first
  TSTORE(gz, b);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < 256; ++i) {
    const half want = static_cast<half>((static_cast<float>(x[i]) + 1.25f) * 2.0f);  // exact in half
    ASSERT_EQ(std::bit_cast<uint16_t>(z[i]), std::bit_cast<uint16_t>(want)) << i;
  }
}

TEST(PtoApi, RowReductionsAndBroadcastsInPtoSpelling) {
  pto::host::Core core;
  float* x = pto::host::gm<float>(kR * kC);
  float* z = pto::host::gm<float>(kR * kC);
  for (int i = 0; i < kR * kC; ++i) x[i] = static_cast<float>((i * 13) % 29) - 14.0f;
  GmT gx(x), gz(z);
  VecT a, y, tmp;
  Tile<TileType::Vec, float, kR, 1, BLayout::ColMajor> m;
  TLOAD(a, gx);
  TROWMAX(m, a, tmp);
  TROWEXPANDSUB(y, a, m);
  TSTORE(gz, y);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < kR; ++i) {
    float mx = x[i * kC];
    for (int j = 1; j < kC; ++j) mx = x[i * kC + j] > mx ? x[i * kC + j] : mx;
    for (int j = 0; j < kC; ++j) ASSERT_EQ(z[i * kC + j], x[i * kC + j] - mx) << i << "," << j;
  }
}

TEST(PtoApi, CubeMatmulThroughL1AndL0WithAutoPlacement) {
  pto::host::Core core;
  constexpr int M = 16, K = 32, N = 16;
  using MatA = Tile<TileType::Mat, half, M, K, BLayout::ColMajor, M, K, SLayout::RowMajor>;
  using MatB = Tile<TileType::Mat, half, K, N, BLayout::RowMajor, K, N, SLayout::ColMajor>;
  half* a = pto::host::gm<half>(M * K);
  half* b = pto::host::gm<half>(K * N);
  float* c = pto::host::gm<float>(M * N);
  for (int i = 0; i < M * K; ++i) a[i] = static_cast<half>(static_cast<float>(i % 7) - 3.0f);
  for (int i = 0; i < K * N; ++i) b[i] = static_cast<half>(static_cast<float>(i % 5) - 2.0f);
  GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<1, 1, 1, K, 1>> ga(a);
  GlobalTensor<half, Shape<1, 1, 1, K, N>, Stride<1, 1, 1, N, 1>> gb(b);
  GlobalTensor<float, Shape<1, 1, 1, M, N>, Stride<1, 1, 1, N, 1>> gc(c);
  MatA ma;
  MatB mb;
  TileLeft<half, M, K> la;
  TileRight<half, K, N> rb;
  TileAcc<float, M, N> acc;
  TLOAD(ma, ga);
  TLOAD(mb, gb);
  TMOV(la, ma);
  TMOV(rb, mb);
  TMATMUL(acc, la, rb);
  TSTORE(gc, acc);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.hazard_count(), 0u);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float want = 0.0f;  // small integers: exact in every order
      for (int k = 0; k < K; ++k) want += static_cast<float>(a[i * K + k]) * static_cast<float>(b[k * N + j]);
      ASSERT_EQ(c[i * N + j], want) << i << "," << j;
    }
  }
}


TEST(PtoApi, TsyncWaitsTheDestinationPipe) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const AddMulRun r = prepare();
  GmT gx(r.x), gz(r.z);
  VecT a, c;
  Event<Op::TLOAD, Op::TADD> loaded = TLOAD(a, gx);
  TSYNC(loaded);  // pipe V waits for the load
  TADD(c, a, a);
  Event<Op::TADD, Op::TSTORE_VEC> added = TADD(c, c, a);
  TSYNC(added);  // pipe MTE3 waits for the add
  TSTORE(gz, c);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 0u);
  EXPECT_EQ(core.hazard_count(), 0u);
  for (int i = 0; i < kR * kC; ++i) ASSERT_EQ(r.z[i], (r.x[i] + r.x[i]) + r.x[i]) << i;
}

TEST(PtoApi, TassignTakesAnyIntegerAddressAsAStatement) {
  pto::host::Core core;
  VecT a, b;
  TASSIGN(a, uint64_t{0x1000});  // tilefw::tile::TASSIGN (found by ADL) would return a Status
  TASSIGN(b, 0x2000u);
  EXPECT_EQ(a.address(), 0x1000u);
  EXPECT_EQ(b.address(), 0x2000u);
}

TEST(PtoApi, TcvtRoundsAsNamed) {
  pto::host::Core core;
  using FT = Tile<TileType::Vec, float, 16, 16>;
  using HT = Tile<TileType::Vec, half, 16, 16>;
  float* x = pto::host::gm<float>(256);
  half* z = pto::host::gm<half>(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i * 97 % 256) / 7.0f - 11.0f;  // most need rounding
  GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> gx(x);
  GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> gz(z);
  FT f;
  HT h;
  TLOAD(f, gx);
  TCVT(h, f, RoundMode::CAST_RINT);
  TSTORE(gz, h);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < 256; ++i) {
    const half want = static_cast<half>(x[i]);  // the compiler's conversion rounds to nearest even
    ASSERT_EQ(std::bit_cast<uint16_t>(z[i]), std::bit_cast<uint16_t>(want)) << i;
  }
}

TEST(PtoApi, MatmulAccFourOperandFormNeedsOneAccumulator) {
  pto::host::Core core;
  core.set_checked(true);
  TileLeft<half, 16, 32> a;
  TileRight<half, 32, 16> b;
  TileAcc<float, 16, 16> c0, c1;
  TMATMUL_ACC(c0, c1, a, b);
  EXPECT_EQ(pto::status(), Status::invalid_argument);
  EXPECT_STREQ(pto::last_failure().report.field, "c_in");
}


TEST(PtoApi, TrowsumChecksTheValidRowsAgree) {
  pto::host::Core core(tilefw::chip::Chip::a2a3);  // a2a3's figures
  core.set_checked(true);
  Tile<TileType::Vec, float, 16, 16> src, tmp;
  Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, 8, 1> dst;  // 8 valid rows, src has 16
  TROWSUM(dst, src, tmp);
  EXPECT_EQ(pto::status(), Status::plan_valid_shape_mismatch);
  EXPECT_STREQ(pto::last_failure().instr, "TROWSUM");
}

TEST(PtoApi, TheCurrentCoreIsPerThread) {
  pto::host::Core core;
  EXPECT_EQ(pto::current(), &core.context());
  Status other = Status::ok;
  std::thread t([&other] { other = pto::status(); });
  t.join();
  EXPECT_EQ(other, Status::no_such_engine);
  EXPECT_EQ(pto::status(), Status::ok);
}


TEST(PtoApi, TcolsumInPtoSignatures) {
  pto::host::Core core;
  float* x = pto::host::gm<float>(kR * kC);
  float* z = pto::host::gm<float>(kC);
  float* z2 = pto::host::gm<float>(kC);
  for (int i = 0; i < kR * kC; ++i) x[i] = static_cast<float>((i * 29) % 83) * 0.113f - 4.0f;
  GmT gx(x);
  GlobalTensor<float, Shape<1, 1, 1, 1, kC>, Stride<1, 1, 1, kC, 1>> gz(z), gz2(z2);
  VecT a, tmp;
  Tile<TileType::Vec, float, 1, kC> s, s2;
  TLOAD(a, gx);
  TCOLSUM(s, a);
  TCOLSUM(s2, a, tmp, false);
  TSTORE(gz, s);
  TSTORE(gz2, s2);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int j = 0; j < kC; ++j) {
    float want = x[j];  // rows added in order, one RNE f32 addition each
    for (int i = 1; i < kR; ++i) want = want + x[i * kC + j];
    ASSERT_EQ(z[j], want) << j;
    ASSERT_EQ(z2[j], want) << j;
  }
  core.set_checked(true);
  TCOLSUM(s2, a, tmp, true);
  EXPECT_EQ(pto::status(), Status::unsupported);
  EXPECT_STREQ(pto::last_failure().report.field, "isBinary");
}


// Auto sync waits for what the operands depend on, not for every pipe.
TEST(PtoApi, AutoSyncWaitsOnlyForTheOperandsProducers) {
  pto::host::Core core;
  const AddMulRun r = prepare();
  GmT gx(r.x), gy(r.y);
  VecT a, b, c, d;
  TLOAD(a, gx);
  TLOAD(b, gy);
  TADD(c, a, b);
  using pto::detail::Access;
  tilefw::tile::Event w[pto::kPipeSlots];
  // A load into a fresh tile depends on nothing on V.
  TEXPANDS(d, 0.0f);
  const Access load_d[] = {{MemSpace::UB, d.address(), VecT::Bytes, true}};
  pto::detail::auto_waits(core.context(), load_d, 1, w);
  const size_t kV = static_cast<size_t>(tilefw::chip::a2a3::Pipe::V);
  const size_t kMte2 = static_cast<size_t>(tilefw::chip::a2a3::Pipe::MTE2);
  EXPECT_EQ(w[kV].seq, tilefw::tile::latest_event(tilefw::chip::a2a3::Pipe::V).seq) << "d was written on V";
  const Access load_e[] = {{MemSpace::UB, 0x10000, VecT::Bytes, true}};
  pto::detail::auto_waits(core.context(), load_e, 1, w);
  EXPECT_EQ(w[kV].seq, 0u) << "untouched bytes wait for nothing";
  // Overwriting a (read by TADD on V) waits for that read; reading c waits for TADD's write.
  const Access write_a[] = {{MemSpace::UB, a.address(), VecT::Bytes, true}};
  pto::detail::auto_waits(core.context(), write_a, 1, w);
  EXPECT_GT(w[kV].seq, 0u);
  EXPECT_GT(w[kMte2].seq, 0u) << "and for the load that wrote a";
  EXPECT_EQ(core.hazard_count(), 0u);
}

TEST(PtoApi, AutoSyncSurvivesMoreRangesThanItsTable) {
  pto::host::Core core;
  float* x = pto::host::gm<float>(kR * kC);
  for (int i = 0; i < kR * kC; ++i) x[i] = value(i, 3);
  GmT gx(x);
  VecT acc;
  TEXPANDS(acc, 0.0f);
  // 40 loads of distinct tiles, each added into acc: more ranges than the table holds.
  for (int k = 0; k < 40; ++k) {
    VecT t;
    TASSIGN(t, 0x2000 + static_cast<uint64_t>(k) * VecT::Bytes);
    TLOAD(t, gx);
    TADD(acc, acc, t);
  }
  float* z = pto::host::gm<float>(kR * kC);
  GmT gz(z);
  TSTORE(gz, acc);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.hazard_count(), 0u);
  for (int i = 0; i < kR * kC; ++i) {
    float want = 0.0f;
    for (int k = 0; k < 40; ++k) want = want + x[i];
    ASSERT_EQ(z[i], want) << i;
  }
}


TEST(PtoApi, TsubsAndTnegAreExact) {
  pto::host::Core core;
  float* x = pto::host::gm<float>(kR * kC);
  float* z = pto::host::gm<float>(kR * kC);
  float* n = pto::host::gm<float>(kR * kC);
  for (int i = 0; i < kR * kC; ++i) x[i] = value(i, 4) * 1.37f;
  x[0] = 0.0f;  // -0 from TNEG
  x[1] = 1.0e-40f;  // a subnormal
  GmT gx(x), gz(z), gn(n);
  VecT a, b, c;
  TLOAD(a, gx);
  TSUBS(b, a, 0.3f);
  TNEG(c, a);
  TSTORE(gz, b);
  TSTORE(gn, c);
  ASSERT_EQ(pto::status(), Status::ok);
  for (int i = 0; i < kR * kC; ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(z[i]), std::bit_cast<uint32_t>(x[i] - 0.3f)) << i;
    ASSERT_EQ(std::bit_cast<uint32_t>(n[i]), std::bit_cast<uint32_t>(-x[i])) << i;
  }
}


// The bias table needs 64 B alignment: a 32-byte bias tile leaves the next one at 64, not 32.
TEST(PtoApi, AutoPlacementAlignsAsTheSpaceRequires) {
  pto::host::Core core;
  core.set_checked(true);
  using BiasT = Tile<TileType::Bias, float, 1, 8>;  // 32 bytes
  BiasT b0, b1, b2;
  ASSERT_TRUE(pto::detail::place(core.context(), "test", "b0", b0));
  ASSERT_TRUE(pto::detail::place(core.context(), "test", "b1", b1));
  EXPECT_EQ(b0.address(), 0u);
  EXPECT_EQ(b1.address(), 64u);
  TASSIGN(b2, 224);  // 32-byte aligned only
  EXPECT_EQ(pto::status(), Status::tile_misaligned);
}


// Manual sync's own check sees a write after a read on another pipe (the simulator's hazard
// checker only sees reads): reloading a tile the vector unit still reads needs an event.
void reload_kernel(__gm__ float* x, __gm__ float* y, __gm__ float* z, bool with_event) {
  GmT gx(x), gy(y), gz(z);
  VecT a, c;
  Event<Op::TLOAD, Op::TADD> la = TLOAD(a, gx);
  Event<Op::TADD, Op::TLOAD> used = TADD(c, a, a, la);
  Event<Op::TLOAD, Op::TADD> lb = with_event ? TLOAD(a, gy, used) : TLOAD(a, gy);
  Event<Op::TADD, Op::TSTORE_VEC> sum = TADD(c, c, a, lb);
  TSTORE(gz, c, sum);
}

TEST(PtoApi, ManualSyncCheckSeesAWriteAfterRead) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const AddMulRun r = prepare();
  reload_kernel(r.x, r.y, r.z, false);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 1u);
  EXPECT_STREQ(core.context().first_violation.instr, "TLOAD");
  EXPECT_STREQ(core.context().first_violation.report.field, "V");
}

TEST(PtoApi, ManualSyncCheckAcceptsTheEvent) {
  pto::host::Core core;
  core.set_sync(SyncMode::Manual);
  const AddMulRun r = prepare();
  reload_kernel(r.x, r.y, r.z, true);
  ASSERT_EQ(pto::status(), Status::ok);
  EXPECT_EQ(core.sync_violations(), 0u);
  EXPECT_EQ(core.hazard_count(), 0u);
  for (int i = 0; i < kR * kC; ++i) ASSERT_EQ(r.z[i], (r.x[i] + r.x[i]) + r.y[i]) << i;
}

}  // namespace
