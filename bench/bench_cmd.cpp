// cmd layer throughput: decode + validate a 64 MiB synthetic command buffer against memcpy of
// the same bytes in the same run (the cmd layer's throughput goal: >= 1 GB/s and >= 0.25x memcpy).
//
// Workload: equal byte shares of 16, 32, 48, 64 and 128 B TIU commands and 96 B GDMA commands.
// One stream holds at most 2^20 - 1 commands, so the 64 MiB hold 4 cores' (TIU, GDMA) stream
// pairs back to back, each stream with its end command, zero padding at the very end. Every
// command is valid and has operands validation checks (addresses, lanes, footprints, enabled
// dependencies inside the peer stream): per round of 2304 B, interleaved,
//   16 B x 24: LAR add, SYS_TR_ACC, SYS send/wait
//   32 B x 12: sMM2 nn, sMM2 nt, sCW&sBC cw_ts, sSFU rsqrt
//   48 B x  8: sCMP, sSG, sMM, sVC
//   64 B x  6: sAR add f32 (explicit strides), sAR cast f32->f16, sCONV
//  128 B x  3: AR add, MM2 nn, CONV (long forms)
//   96 B x  4: GDMA tensor DDR->LMEM, tensor LMEM->L2, matrix LMEM->DDR, general L2->L2
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;
namespace sg = tilefw::chip::sg2260;

namespace {
constexpr size_t kTotalBytes = size_t{64} << 20;
constexpr uint32_t kCores = 4;
constexpr uint32_t kRoundTiu = 5 * 384;
constexpr uint32_t kRoundDma = 384;
constexpr uint64_t kLmem = uint64_t{sg::kTagLmem} << sg::kTagShift;
constexpr uint64_t kL2 = (uint64_t{sg::kTagL2} << sg::kTagShift) | sg::kL2Base;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "bench_cmd: cannot build %s\n", what);
    std::abort();
  }
}
template <typename Ref>
Ref add(CommandBuilder& b, CmdClass c, uint32_t eu) {
  Result<uint8_t*> p = b.append(c, eu);
  check(p.ok(), class_name(c));
  return Ref(p.value());
}
void addrs(const DmaCommonRef& d, uint64_t src, uint64_t dst) {
  d.set_src_start_addr_l32(static_cast<uint32_t>(src)); d.set_src_start_addr_h13(src >> 32);
  d.set_dst_start_addr_l32(static_cast<uint32_t>(dst)); d.set_dst_start_addr_h13(dst >> 32);
  d.set_localmem_mask_l32(0xFFFFFFFFu); d.set_localmem_mask_h32(0xFFFFFFFFu);
}

// One round of each engine, `round` selecting lanes/offsets (so addresses vary) and the ids
// the dependencies name: TIU sMM2 nn waits for the round's first GDMA load, the GDMA store
// waits for that MM2 (a software pipeline the dry run of validate_core also accepts).
void tiu_round(CommandBuilder& t, uint32_t round) {
  const uint32_t lane = (round * 7) % 32;
  const uint32_t base = (lane << 18) | ((round % 8) * 0x1000);
  for (int i = 0; i < 3; ++i) {
    // Each third of a round: 64 B sAR add, 32 B sMM2 (the first third's waits for the
    // round's load), 8 x 16 B, 3 x 32 B, 3/3/2 x 48 B, 1 x 128 B, 1 x 64 B (cast, cast, sCONV).
    SArRef ar = add<SArRef>(t, CmdClass::sAR, 2);
    ar.set_res0_n(1); ar.set_res0_c(32); ar.set_res0_h(4); ar.set_res0_w(16); ar.set_tsk_opd_num(2);
    ar.set_opt_res0_prec(2); ar.set_opt_opd0_prec(2); ar.set_opt_opd1_prec(2);
    ar.set_short_res0_str(3); ar.set_res0_h_str(16); ar.set_res0_w_str(1);
    ar.set_short_opd0_str(3); ar.set_opd0_h_str(20); ar.set_opd0_w_str(1);
    ar.set_res0_addr(base + 0x8000); ar.set_opd0_addr(base); ar.set_opd1_addr(base + 0x4000);
    SMm2Ref mm = add<SMm2Ref>(t, CmdClass::sMM2, i == 1 ? 5 : 4);
    if (i == 0) mm.set_cmd_id_dep(CommandBuilder::dep_on(round * 4 + 1));
    mm.set_res0_c(32); mm.set_res0_w(64); mm.set_opd1_c(i == 1 ? 64 : 48); mm.set_opd1_w(i == 1 ? 48 : 64);
    mm.set_opt_res0_prec(1); mm.set_opt_opd0_prec(1); mm.set_opt_opd1_prec(1); mm.set_opt_opd2_const(1);
    mm.set_res0_addr(base + 0xC000); mm.set_opd0_addr(base); mm.set_opd1_addr(base + 0x4000);
    for (int k = 0; k < 8; ++k) {
      const int kind = k % 3;
      if (kind == 0) {
        LarRef l = add<LarRef>(t, CmdClass::LAR, 2);
        l.set_res0_c(32); l.set_res0_w(16); l.set_opt_res0_prec(2); l.set_opt_opd0_prec(2);
        l.set_res0_addr(0x100); l.set_opd0_addr(0x200); l.set_opd1_addr(0x300);
      } else if (kind == 1) {
        SysTrAccRef s = add<SysTrAccRef>(t, CmdClass::SYS_TR_ACC, 0);
        s.set_reg_idx0(6); s.set_reg_idx1(127); s.set_reg_idx2(127);
      } else {
        check((k & 1 ? t.wait_msg(24, 24) : t.send_msg(24, 24)) == Status::ok, "SYS");
      }
    }
    SCwBcRef cw = add<SCwBcRef>(t, CmdClass::sCW_sBC, 0);
    cw.set_res0_n(1); cw.set_res0_c(16); cw.set_res0_h(1); cw.set_res0_w(48); cw.set_opd0_c(48); cw.set_opd0_w(16);
    cw.set_opt_res0_prec(1); cw.set_res0_addr(base + 0x10000); cw.set_opd0_addr(base + 0x14000);
    SSfuRef sf = add<SSfuRef>(t, CmdClass::sSFU, 17);
    sf.set_res0_n(2); sf.set_res0_c(48); sf.set_res0_h(2); sf.set_res0_w(32);
    sf.set_opt_res0_prec(2); sf.set_opt_opd0_prec(2); sf.set_res0_addr(base + 0x18000); sf.set_opd0_addr(base);
    SMm2Ref mm2 = add<SMm2Ref>(t, CmdClass::sMM2, 4);
    mm2.set_res0_c(16); mm2.set_res0_w(32); mm2.set_opd1_c(32); mm2.set_opd1_w(32);
    mm2.set_opt_res0_prec(2); mm2.set_opt_opd0_prec(2); mm2.set_opt_opd1_prec(2); mm2.set_opt_opd2_const(1);
    mm2.set_res0_addr(base + 0x1C000); mm2.set_opd0_addr(base); mm2.set_opd1_addr(base + 0x4000);
    // 48 B: 8 per round = 3 + 3 + 2
    for (int k = 0; k < (i == 2 ? 2 : 3); ++k) {
      const int kind = (i * 3 + k) % 4;
      if (kind == 0) {
        SCmpRef c = add<SCmpRef>(t, CmdClass::sCMP, 22);
        c.set_res0_n(1); c.set_res0_c(64); c.set_res0_h(8); c.set_res0_w(8); c.set_opt_opd0_prec(2);
        c.set_opt_opd2_prec(2); c.set_res0_addr(base + 0x20000); c.set_res1_addr(base + 0x22000);
        c.set_opd0_addr(base); c.set_opd1_addr(base + 0x4000); c.set_opt_opd2_const(1); c.set_opt_opd3_const(1);
      } else if (kind == 1) {
        SSgRef s = add<SSgRef>(t, CmdClass::sSG, 1);
        s.set_res0_n(1); s.set_res0_c(32); s.set_res0_h(1); s.set_res0_w(64); s.set_opt_res0_prec(1);
        s.set_opd0_h(1); s.set_opd0_w(128); s.set_opd1_c(32); s.set_opd1_w(64); s.set_opt_opd1_prec(3);
        s.set_res0_addr(base + 0x24000); s.set_opd0_addr(base); s.set_opd1_addr(base + 0x4000);
      } else if (kind == 2) {
        SMmRef m = add<SMmRef>(t, CmdClass::sMM, 1);
        m.set_res0_c(32); m.set_res0_w(16); m.set_opd0_n(1); m.set_opd0_c(32); m.set_opd0_w(16); m.set_opd1_w(16);
        m.set_opt_res0_prec(2); m.set_opt_opd0_prec(2); m.set_opt_opd2_const(1);
        m.set_res0_addr(base + 0x26000); m.set_opd0_addr(base); m.set_opd1_addr(base + 0x4000);
      } else {
        SVcRef v = add<SVcRef>(t, CmdClass::sVC, 0);
        v.set_res0_c(16); v.set_res0_w(16); v.set_opd0_c(1); v.set_opd0_w(16); v.set_opd1_w(16);
        v.set_opt_res0_prec(2); v.set_opt_opd0_prec(2); v.set_opt_opd1_prec(2);
        v.set_res0_addr(base + 0x28000); v.set_opd0_addr(base); v.set_opd1_addr(base + 0x4000);
      }
    }
    // 128 B long forms: one per third.
    TiuLongRef l = add<TiuLongRef>(t, i == 0 ? CmdClass::AR : i == 1 ? CmdClass::MM2 : CmdClass::CONV,
                                   i == 0 ? 2 : i == 1 ? 4 : 0);
    if (i == 0) {
      l.set_res0_n(1); l.set_res0_c(64); l.set_res0_h(2); l.set_res0_w(32); l.set_tsk_opd_num(2);
      l.set_opt_res0_prec(2); l.set_opt_opd0_prec(2); l.set_opt_opd1_prec(2);
      l.set_res0_addr(base + 0x2A000); l.set_opd0_addr(base); l.set_opd1_addr(base + 0x4000);
    } else if (i == 1) {
      l.set_res0_c(64); l.set_res0_w(64); l.set_opd1_c(64); l.set_opd1_w(64);
      l.set_opt_res0_prec(1); l.set_opt_opd0_prec(1); l.set_opt_opd1_prec(1); l.set_opt_opd2_const(1);
      l.set_res0_addr(base + 0x2C000); l.set_opd0_addr(base); l.set_opd1_addr(base + 0x4000);
    } else {
      l.set_res0_n(1); l.set_res0_c(64); l.set_res0_h(8); l.set_res0_w(8); l.set_opt_res0_prec(1);
      l.set_opd0_n(1); l.set_opd0_c(32); l.set_opd0_h(10); l.set_opd0_w(10); l.set_opt_opd0_prec(1);
      l.set_opd1_n(1); l.set_opd1_c(64); l.set_opd1_h(3); l.set_opd1_w(3); l.set_opt_opd1_prec(1);
      l.set_res0_addr(base + 0x2E000); l.set_opd0_addr(base); l.set_opd1_addr(base + 0x4000);
      l.set_opt_opd2_const(1);
    }
    // 64 B: the second and third per third: a cast, and a conv input with explicit strides.
    if (i < 2) {
      SArRef c = add<SArRef>(t, CmdClass::sAR, 14);
      c.set_res0_n(1); c.set_res0_c(46); c.set_res0_h(1); c.set_res0_w(3); c.set_tsk_opd_num(1);
      c.set_opt_res0_prec(1); c.set_opt_opd0_prec(2); c.set_opd2_n_str(1);
      c.set_res0_addr(base + 0x30000); c.set_opd0_addr(base);
    } else {
      SConvRef c = add<SConvRef>(t, CmdClass::sCONV, 0);
      c.set_res0_n(1); c.set_res0_c(64); c.set_res0_h(8); c.set_res0_w(8); c.set_opt_res0_prec(1);
      c.set_opd0_c(32); c.set_opd0_h(10); c.set_opd0_w(10); c.set_opt_opd0_prec(1); c.set_short_opd0_str(3);
      c.set_opd0_n_str(0); c.set_opd0_c_str(0); c.set_opd0_h_str(10); c.set_opd0_w_str(1);
      c.set_res0_addr(base + 0x32000); c.set_opd0_addr(base); c.set_opd1_addr(base + 0x4000);
      c.set_opt_opd2_const(1);
    }
  }
}

void dma_round(CommandBuilder& g, uint32_t round, uint32_t mm2_tiu_id) {
  const uint64_t lane = (round * 7) % 32;
  const uint64_t local = (lane << 18) | ((round % 8) * 0x1000);
  const uint64_t ddr = sg::make_dma_address(2, (round % 64) * 0x4000);
  const uint64_t l2 = kL2 + (round % 256) * 0x8000;
  DmaTensorRef a = add<DmaTensorRef>(g, CmdClass::dma_tensor, 0);  // DDR -> LMEM, 32 lanes x 16x16 f16
  a.set_src_data_format(1); a.set_nchw_copy(1);
  a.set_src_nsize(1); a.set_src_csize(32); a.set_src_hsize(16); a.set_src_wsize(16);
  a.set_src_nstride(8192); a.set_src_cstride(256); a.set_src_hstride(16); a.set_src_wstride(1);
  a.set_dst_nstride(256); a.set_dst_cstride(256); a.set_dst_hstride(16); a.set_dst_wstride(1);
  addrs(DmaCommonRef(a.data()), ddr, kLmem | local);
  DmaTensorRef b = add<DmaTensorRef>(g, CmdClass::dma_tensor, 0);  // LMEM -> L2
  b.set_src_data_format(1); b.set_nchw_copy(1);
  b.set_src_nsize(1); b.set_src_csize(32); b.set_src_hsize(4); b.set_src_wsize(64);
  b.set_src_nstride(256); b.set_src_cstride(256); b.set_src_hstride(64); b.set_src_wstride(1);
  b.set_dst_nstride(8192); b.set_dst_cstride(256); b.set_dst_hstride(64); b.set_dst_wstride(1);
  addrs(DmaCommonRef(b.data()), kLmem | (local + 0xC000), l2);
  DmaCommonRef m = add<DmaCommonRef>(g, CmdClass::dma_matrix, 0);  // LMEM -> DDR, 32 x 64 f16 rows
  m.set_cmd_id_dep(CommandBuilder::dep_on(mm2_tiu_id));
  m.set_src_data_format(1);
  m.set_src_nsize(32); m.set_src_csize(2); m.set_src_hsize(1); m.set_src_wsize(32);
  m.set_src_nstride(64); m.set_src_cstride(64);
  m.set_dst_nsize(1); m.set_dst_csize(1); m.set_dst_hsize(32); m.set_dst_wsize(64); m.set_dst_hstride(64);
  addrs(m, kLmem | (local + 0xC000), ddr + 0x2000);
  DmaCommonRef c = add<DmaCommonRef>(g, CmdClass::dma_general, 0);  // L2 -> L2, 4 KiB
  c.set_src_data_format(0);
  c.set_src_cstride(4096);
  addrs(c, l2, l2 + 0x4000);
}

struct Workload {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kTotalBytes);
  ConstByteSpan tiu[kCores], gdma[kCores];
  uint32_t tiu_count[kCores] = {}, gdma_count[kCores] = {};
  uint64_t commands = 0;
  uint64_t share[6] = {};  // bytes of 16, 32, 48, 64, 128 B TIU and 96 B DMA commands
};

const Workload& workload() {
  static const Workload w = [] {
    Workload w;
    const uint32_t rounds = static_cast<uint32_t>((kTotalBytes - 2 * kCores * 16) / (kRoundTiu + kRoundDma));
    size_t off = 0;
    for (uint32_t c = 0; c < kCores; ++c) {
      const uint32_t n = rounds / kCores + (c < rounds % kCores ? 1 : 0);
      const size_t tiu_bytes = size_t{n} * kRoundTiu + 16, dma_bytes = size_t{n} * kRoundDma + 16;
      CommandBuilder t(Engine::tiu, ByteSpan(w.bytes.data() + off, tiu_bytes));
      for (uint32_t r = 0; r < n; ++r) tiu_round(t, r);
      check(t.end() == Status::ok && t.size() == tiu_bytes, "a TIU stream of whole rounds");
      // The TIU round is fixed: the dependent sMM2 nn is command 2 of round r.
      CommandBuilder g(Engine::gdma, ByteSpan(w.bytes.data() + off + tiu_bytes, dma_bytes));
      for (uint32_t r = 0; r < n; ++r) dma_round(g, r, r * (t.count() - 1) / n + 2);
      check(g.end() == Status::ok && g.size() == dma_bytes, "a GDMA stream of whole rounds");
      w.tiu[c] = ConstByteSpan(w.bytes.data() + off, tiu_bytes);
      // The last GDMA stream carries the zero padding up to 64 MiB.
      const size_t gspan = c + 1 == kCores ? kTotalBytes - off - tiu_bytes : dma_bytes;
      w.gdma[c] = ConstByteSpan(w.bytes.data() + off + tiu_bytes, gspan);
      w.tiu_count[c] = t.count();
      w.gdma_count[c] = g.count();
      w.commands += t.count() + g.count();
      off += tiu_bytes + dma_bytes;
      for (int e = 0; e < 2; ++e) {
        Walker wk(e == 0 ? Engine::tiu : Engine::gdma, e == 0 ? w.tiu[c] : w.gdma[c]);
        Command cmd;
        while (wk.next(cmd)) {
          if (cmd.is_end()) continue;
          const uint32_t L = cmd.length;
          w.share[e == 1 ? 5 : L == 16 ? 0 : L == 32 ? 1 : L == 48 ? 2 : L == 64 ? 3 : 4] += L;
        }
      }
    }
    // Every stream must be valid, and the core sets too (what rt::submit validates).
    for (uint32_t c = 0; c < kCores; ++c) {
      ValidateOptions o;
      o.peer_commands = w.gdma_count[c];
      const ValidationReport r = validate_stream(Engine::tiu, w.tiu[c], o);
      if (!r.ok()) {
        std::fprintf(stderr, "bench_cmd: TIU stream %u invalid at command %u (%s): %s\n", c, r.command_id,
                     r.field, r.message);
        std::abort();
      }
      o.peer_commands = w.tiu_count[c];
      const ValidationReport g = validate_stream(Engine::gdma, w.gdma[c], o);
      if (!g.ok()) {
        std::fprintf(stderr, "bench_cmd: GDMA stream %u invalid at command %u (%s): %s\n", c, g.command_id,
                     g.field, g.message);
        std::abort();
      }
      const ValidationReport s = validate_core(CoreStreams{w.tiu[c], w.gdma[c], {}});
      check(s.ok(), "a valid core set");
    }
    return w;
  }();
  return w;
}

void counters(benchmark::State& state) {
  const Workload& w = workload();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kTotalBytes));
  state.counters["commands"] = static_cast<double>(w.commands);
  const char* names[6] = {"B16", "B32", "B48", "B64", "B128", "B96dma"};
  for (int i = 0; i < 6; ++i) state.counters[names[i]] = static_cast<double>(w.share[i]);
}

// What the throughput goal measures: every stream walked and validated once (dependency ranges
// against the
// peer stream's count, as the CLI does for a core's files).
void BM_DecodeValidate(benchmark::State& state) {
  const Workload& w = workload();
  for (auto _ : state) {
    uint64_t n = 0;
    for (uint32_t c = 0; c < kCores; ++c) {
      ValidateOptions o;
      o.peer_commands = w.gdma_count[c];
      const ValidationReport t = validate_stream(Engine::tiu, w.tiu[c], o);
      o.peer_commands = w.tiu_count[c];
      const ValidationReport g = validate_stream(Engine::gdma, w.gdma[c], o);
      if (!t.ok() || !g.ok()) state.SkipWithError("stream invalid");
      n += t.commands + g.commands;
    }
    benchmark::DoNotOptimize(n);
  }
  counters(state);
}
BENCHMARK(BM_DecodeValidate)->Unit(benchmark::kMillisecond)->UseRealTime();

// What rt::submit runs per core: each stream alone, then with the peer counts, then the
// TIU/GDMA dependency dry run (about three walks of the bytes).
void BM_ValidateCoreSets(benchmark::State& state) {
  const Workload& w = workload();
  for (auto _ : state) {
    for (uint32_t c = 0; c < kCores; ++c) {
      const ValidationReport r = validate_core(CoreStreams{w.tiu[c], w.gdma[c], {}});
      if (!r.ok()) state.SkipWithError("core set invalid");
      benchmark::DoNotOptimize(r.commands);
    }
  }
  counters(state);
}
BENCHMARK(BM_ValidateCoreSets)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WalkOnly(benchmark::State& state) {
  const Workload& w = workload();
  for (auto _ : state) {
    uint64_t n = 0;
    for (uint32_t c = 0; c < kCores; ++c) {
      for (int e = 0; e < 2; ++e) {
        Walker wk(e == 0 ? Engine::tiu : Engine::gdma, e == 0 ? w.tiu[c] : w.gdma[c]);
        Command cmd;
        while (wk.next(cmd)) ++n;
      }
    }
    benchmark::DoNotOptimize(n);
  }
  counters(state);
}
BENCHMARK(BM_WalkOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemcpyBaseline(benchmark::State& state) {
  const Workload& w = workload();
  std::vector<uint8_t> dst(kTotalBytes);
  std::memset(dst.data(), 1, dst.size());  // fault the pages in before timing
  for (auto _ : state) {
    std::memcpy(dst.data(), w.bytes.data(), kTotalBytes);
    benchmark::ClobberMemory();
  }
  counters(state);
}
BENCHMARK(BM_MemcpyBaseline)->Unit(benchmark::kMillisecond)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
