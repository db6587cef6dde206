// gen layer, core tests (host GoogleTest and QEMU Cortex-M4/M55; no heap): the token-selective
// all-to-all of an expert-parallel group (tilefw/gen/alltoall.hpp). The streams are decoded here
// with the command walker and checked against the routing rule written out again in this file
// (holder(e) = e mod chips, owner(t) = t / own): every (token, chip holding one of its experts)
// crosses exactly once and never to or from its owner; each pair with traffic is in exactly one
// round, the same seen from both chips and planned alike on every rank; a round never needs more
// than 10 peers (the plan's own properties: test_gen_alltoall_plan.cpp); sizes equal the bytes
// written; every chip's streams of a round pass the system checks (pairs,
// formats, reduce, ports, message waits); a small case is pinned byte for byte.
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "tftest.hpp"
#include "tilefw/chip/sg2260.hpp"
#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/cdma_system.hpp"
#include "tilefw/cmd/topology.hpp"
#include "tilefw/cmd/views.hpp"
#include "tilefw/cmd/walker.hpp"
#include "tilefw/gen/alltoall.hpp"
#include "alltoall_support.hpp"

using namespace tilefw;
using namespace tilefw::gen;
using namespace a2atest;

namespace a2atest {

uint32_t g_choices[kMaxTokens * kMaxChips];
A2aPlan g_plan;
A2aPlan g_other;

// k distinct expert ids per token from a fixed linear congruential sequence.
void make_choices(uint32_t tokens, uint32_t experts, uint32_t k, uint32_t seed) noexcept {
  uint32_t x = seed * 2654435761u + 12345u;
  for (uint32_t t = 0; t < tokens; ++t) {
    for (uint32_t j = 0; j < k;) {
      x = x * 1664525u + 1013904223u;
      const uint32_t e = (x >> 8) % experts;
      bool dup = false;
      for (uint32_t i = 0; i < j; ++i) dup = dup || g_choices[t * k + i] == e;
      if (!dup) g_choices[t * k + j++] = e;
    }
  }
}

A2aGroup group(uint32_t chips, uint32_t rank, uint32_t own, uint32_t experts, uint32_t k, uint32_t hidden,
               uint32_t format) noexcept {
  A2aGroup g;
  g.chips = chips;
  g.rank = rank;
  g.tokens = chips * own;
  g.own = own;
  g.experts = experts;
  g.top_k = k;
  g.hidden = hidden;
  g.format = format;
  g.rows = chip::sg2260::make_dma_address(1, kRowsOffset);
  return g;
}

Span<const uint32_t> choices_of(const A2aGroup& g) noexcept {
  return Span<const uint32_t>(g_choices, size_t{g.tokens} * g.top_k);
}

// The rule again, independently: does `chip` hold one of token t's chosen experts?
bool expect_holder(const A2aGroup& g, uint32_t t, uint32_t chip) noexcept {
  for (uint32_t j = 0; j < g.top_k; ++j) {
    if (g_choices[t * g.top_k + j] % g.chips == chip) return true;
  }
  return false;
}

// Plans g's group into g_plan.
bool plan(const A2aGroup& g) noexcept {
  A2aError err;
  return a2a_plan(g, choices_of(g), g_plan, err) == Status::ok;
}

// Every rank plans the same rounds as rank 0 (g_plan).
uint32_t same_plan_on_every_rank(const A2aGroup& g0) noexcept {
  uint32_t bad = 0;
  for (uint32_t rank = 1; rank < g0.chips; ++rank) {
    A2aGroup g = g0;
    g.rank = rank;
    A2aError err;
    if (a2a_plan(g, choices_of(g), g_other, err) != Status::ok) return 1000;
    bad += g_other.rounds != g_plan.rounds || g_other.round_mask != g_plan.round_mask ? 1 : 0;
    bad += std::memcmp(g_other.round, g_plan.round, sizeof g_plan.round) != 0 ? 1 : 0;
  }
  return bad;
}

}  // namespace a2atest

namespace {

namespace sg = chip::sg2260;

// Per (chip, peer): 1 + the round the chip's ports talked to the peer in, 0 if none; and how often.
uint8_t g_round_seen[kMaxChips][kMaxChips];
uint8_t g_times_seen[kMaxChips][kMaxChips];
// Per (token, chip other than the owner): rows seen crossing, by the sending and receiving side.
uint8_t g_sent[kMaxTokens][kMaxChips];
uint8_t g_recvd[kMaxTokens][kMaxChips];
// Every chip's streams of one round (the system checks need them together).
constexpr size_t kArena = 112 * 1024;
alignas(16) uint8_t g_arena[kArena];
cmd::CdmaStream g_streams[kMaxChips * kA2aPeersPerRound];

// Sizes and emits one chip's round of g_plan into the arena at `off`; adds its streams to
// g_streams.
bool emit_round(const A2aGroup& g, A2aDirection dir, uint32_t round, size_t& off, size_t& streams,
                A2aPorts& ports) noexcept {
  A2aError err;
  if (size_a2a(g, dir, choices_of(g), g_plan, round, ports, err) != Status::ok) return false;
  ByteSpan buf[kA2aPeersPerRound];
  for (uint32_t i = 0; i < ports.count; ++i) {
    if (off + ports.bytes[i] > kArena) return false;
    buf[i] = ByteSpan(g_arena + off, ports.bytes[i]);
    off += ports.bytes[i];
  }
  A2aPorts written;
  if (emit_a2a(g, dir, choices_of(g), g_plan, round, Span<const ByteSpan>(buf, ports.count), written, err) !=
      Status::ok) {
    return false;
  }
  for (uint32_t i = 0; i < ports.count; ++i) {
    if (written.peer[i] != ports.peer[i] || written.bytes[i] != ports.bytes[i] ||
        written.commands[i] != ports.commands[i]) {
      return false;
    }
    g_streams[streams++] = cmd::CdmaStream{g.rank, ports.peer[i], ConstByteSpan(buf[i].data(), buf[i].size())};
  }
  return written.count == ports.count && written.rows_sent == ports.rows_sent &&
         written.rows_received == ports.rows_received;
}

// Decodes one port stream of chip `me` to `peer`, counting its rows in g_sent / g_recvd
// (indexed by token and the chip that is not the token's owner). Returns the number of rule
// violations seen: a row of the wrong owner, a recv not adding in the combine, a command of the
// wrong shape, a stream without its end.
uint32_t decode(const A2aGroup& g, A2aDirection dir, uint32_t me, uint32_t peer, ConstByteSpan bytes) noexcept {
  const bool combine = dir == A2aDirection::combine;
  const uint64_t row_bytes = uint64_t{g.hidden} * cmd::cdma_format_bytes(g.format);
  uint32_t bad = 0;
  bool ended = false;
  cmd::Walker w(cmd::Engine::cdma, bytes);
  cmd::Command c;
  while (w.next(c)) {
    uint64_t addr = 0;
    uint32_t n = 0, width = 0;
    if (c.cls == cmd::CmdClass::cdma_send) {
      const cmd::CdmaSendView v(c.data);
      addr = v.src_start_addr();
      n = v.src_csize();
      width = v.src_wsize();
      bad += v.psum_op() != (combine ? 1u : 0u) ? 1 : 0;
    } else if (c.cls == cmd::CmdClass::cdma_recv) {
      const cmd::CdmaRecvView v(c.data);
      addr = v.dst_start_addr();
      n = v.dst_csize();
      width = v.dst_wsize();
      bad += v.reduce_op() != (combine ? cmd::kCdmaReduceAdd : cmd::kCdmaReduceNone) ? 1 : 0;
    } else {
      ended = ended || (c.cls == cmd::CmdClass::cdma_sys && c.eu == 0);
      continue;
    }
    const bool send = c.cls == cmd::CmdClass::cdma_send;
    if (width != g.hidden || addr < g.rows || (addr - g.rows) % row_bytes != 0) {
      ++bad;
      continue;
    }
    const uint64_t t0 = (addr - g.rows) / row_bytes;
    for (uint64_t t = t0; t < t0 + n; ++t) {
      if (t >= g.tokens) {
        ++bad;
        continue;
      }
      const uint32_t owner = static_cast<uint32_t>(t) / g.own;
      // The row's owner and the other chip, seen from this side of the pair.
      const bool owner_sends = !combine;
      const uint32_t expect_owner = send == owner_sends ? me : peer;
      const uint32_t other = send == owner_sends ? peer : me;
      if (owner != expect_owner || other == owner) {
        ++bad;
        continue;
      }
      (send ? g_sent : g_recvd)[t][other]++;
    }
  }
  return bad + (ended && w.status() == Status::ok ? 0 : 1);
}

// Does any row cross between chips a and b (owned by one, routed to the other)? The rule again.
bool expect_pair(const A2aGroup& g, uint32_t a, uint32_t b) noexcept {
  for (uint32_t t = 0; t < g.tokens; ++t) {
    const uint32_t owner = t / g.own;
    if ((owner == a && expect_holder(g, t, b)) || (owner == b && expect_holder(g, t, a))) return true;
  }
  return false;
}

// Every chip's every round of a group: ports per round within the limit, in ascending peer
// order, each peer in the plan's round; each pair with traffic (and no other) in exactly one
// round, the same from both sides; every (token, chip holding one of its experts) counted once
// on each side; the same plan on every rank. Returns the violations.
uint32_t check_group(uint32_t n, uint32_t own, uint32_t experts, uint32_t k, A2aDirection dir) noexcept {
  std::memset(g_sent, 0, sizeof g_sent);
  std::memset(g_recvd, 0, sizeof g_recvd);
  std::memset(g_round_seen, 0, sizeof g_round_seen);
  std::memset(g_times_seen, 0, sizeof g_times_seen);
  uint32_t bad = 0, seen_rounds = 0;
  const A2aGroup g0 = group(n, 0, own, experts, k, 8, cmd::kCdmaFormatFp32);
  if (!plan(g0)) return 1000;
  bad += same_plan_on_every_rank(g0);
  for (uint32_t r = 0; r < kA2aMaxRounds; ++r) {
    for (uint32_t rank = 0; rank < n; ++rank) {
      const A2aGroup g = group(n, rank, own, experts, k, 8, cmd::kCdmaFormatFp32);
      size_t off = 0, streams = 0;
      A2aPorts p;
      if (!emit_round(g, dir, r, off, streams, p)) return 1000;
      bad += p.count > kA2aPeersPerRound ? 1 : 0;
      if (p.count > 0) seen_rounds |= 1u << r;
      for (uint32_t i = 0; i < p.count; ++i) {
        bad += (i > 0 && p.peer[i] <= p.peer[i - 1]) || a2a_round_of(g_plan, rank, p.peer[i]) != r ? 1 : 0;
        bad += decode(g, dir, rank, p.peer[i], g_streams[i].bytes);
        g_round_seen[rank][p.peer[i]] = static_cast<uint8_t>(r + 1);
        g_times_seen[rank][p.peer[i]]++;
      }
    }
  }
  bad += seen_rounds != g_plan.round_mask ? 1 : 0;
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = 0; b < n; ++b) {
      if (a == b) continue;
      bad += g_times_seen[a][b] != (expect_pair(g0, a, b) ? 1 : 0) || g_round_seen[a][b] != g_round_seen[b][a] ? 1 : 0;
    }
  }
  for (uint32_t t = 0; t < n * own; ++t) {
    for (uint32_t c = 0; c < n; ++c) {
      const uint8_t want = c != t / own && expect_holder(g0, t, c) ? 1 : 0;
      bad += g_sent[t][c] != want || g_recvd[t][c] != want ? 1 : 0;
    }
  }
  return bad;
}

uint64_t fnv1a64(const uint8_t* p, uint64_t n) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// "mesh:N" up to 11 chips (every pair linked), else "switch:Nx1" (every chip on one switch);
// no stdio on the targets.
size_t preset_of(uint32_t n, char (&out)[24]) noexcept {
  const char* head = n <= 11 ? "mesh:" : "switch:";
  size_t len = std::strlen(head);
  std::memcpy(out, head, len);
  if (n >= 10) out[len++] = static_cast<char>('0' + n / 10);
  out[len++] = static_cast<char>('0' + n % 10);
  if (n > 11) {
    out[len++] = 'x';
    out[len++] = '1';
  }
  return len;
}

}  // namespace

// Each (token, chip holding one of its experts) crosses exactly once each way it should, never to
// or from the owner, in both directions, for every group size from 2 to 64 chips; rounds with
// ports are exactly the plan's round mask; each pair with traffic is in exactly one round, seen
// alike from both chips; every rank plans the same; sizes equal what emit wrote (emit_round).
TEST(GenAlltoall, EveryRoutedRowCrossesOnce) {
  for (uint32_t n = 2; n <= kMaxChips; ++n) {
    const uint32_t k = n < 4 ? 2 : kMaxK;
    make_choices(2 * n, 4 * n, k, n);
    EXPECT_EQ(check_group(n, 2, 4 * n, k, A2aDirection::combine), 0u);
    EXPECT_EQ(check_group(n, 2, 4 * n, k, A2aDirection::dispatch), 0u);
  }
}

// The combine's recv-adds of one chip and round form one chain: walking the ports with recvs in
// order (link i on the i-th), link 0 has no wait, link i > 0 waits (chain_msg + i - 1, 1) before
// its first recv, every link but the last signals (chain_msg + i, 1) after its last recv, and
// nothing else carries a message; the dispatch has no message at all.
TEST(GenAlltoall, CombineRecvsFormOneChain) {
  for (const uint32_t n : {3u, 4u, 8u, 12u, 32u}) {
    make_choices(2 * n, 4 * n, n < 4 ? 3 : kMaxK, 3 * n);
    ASSERT_TRUE(plan(group(n, 0, 2, 4 * n, n < 4 ? 3 : kMaxK, 8, cmd::kCdmaFormatFp32)));
    uint32_t bad = 0, chained = 0;
    for (const A2aDirection dir : {A2aDirection::combine, A2aDirection::dispatch}) {
      for (uint32_t rank = 0; rank < n; ++rank) {
        for (uint32_t r = 0; r < kA2aMaxRounds; ++r) {
          size_t off = 0, streams = 0;
          A2aPorts p;
          ASSERT_TRUE(emit_round(group(n, rank, 2, 4 * n, n < 4 ? 3 : kMaxK, 8, cmd::kCdmaFormatFp32), dir, r, off,
                                 streams, p));
          uint32_t with_recvs = 0, ports_with_recvs = 0;
          for (uint32_t i = 0; i < p.count; ++i) ports_with_recvs += cmd::count_cdma_transfers(g_streams[i].bytes).recvs > 0;
          for (uint32_t i = 0; i < p.count; ++i) {
            // The RX thread's commands in order: W wait, R recv, S signal.
            char rx[64] = {};
            uint32_t len = 0;
            cmd::Walker w(cmd::Engine::cdma, g_streams[i].bytes);
            cmd::Command c;
            while (w.next(c) && len + 1 < sizeof rx) {
              if (c.cls == cmd::CmdClass::cdma_recv) rx[len++] = 'R';
              if (c.cls != cmd::CmdClass::cdma_sys || c.eu < 3) continue;
              const cmd::CdmaSysView v(c.data);
              const auto op = static_cast<cmd::CdmaSysOp>(c.eu);
              // This port is link `with_recvs` (counted below, before this port: so + 0).
              const uint32_t id = op == cmd::CdmaSysOp::rx_wait ? kA2aChainMsg + with_recvs - 1 : kA2aChainMsg + with_recvs;
              bad += v.msg_id() != id || v.msg_cnt() != 1 ? 1 : 0;
              rx[len++] = op == cmd::CdmaSysOp::rx_wait ? 'W' : op == cmd::CdmaSysOp::rx_send ? 'S' : 'x';
            }
            if (std::strchr(rx, 'R') == nullptr) {
              bad += len != 0 ? 1 : 0;  // no recvs: no message either
              continue;
            }
            ++with_recvs;
            const bool combine = dir == A2aDirection::combine;
            const bool first = with_recvs == 1, last = with_recvs == ports_with_recvs;
            const bool waits = rx[0] == 'W', signals = rx[len - 1] == 'S';
            bad += waits != (combine && !first) || signals != (combine && !last) ? 1 : 0;
            for (uint32_t j = waits ? 1 : 0; j < len - (signals ? 1 : 0); ++j) bad += rx[j] != 'R' ? 1 : 0;
            chained += combine && (waits || signals) ? 1 : 0;
          }
        }
      }
    }
    EXPECT_EQ(bad, 0u);
    EXPECT_GT(chained, 0u);
  }
}

// Every chip's streams of each round together pass the system checks: one stream per peer,
// at most 10 ports, each stream valid with the chips' memory, the k-th send of (a, b) matched by
// the k-th recv of (b, a) in count, format and psum/reduce, and every message wait satisfiable.
// On mesh:N every pair is linked (N <= 11); beyond, switch:Nx1 reaches every pair through the
// switch. ring:N reaches only neighbours (an SG2260 does not forward through another chip): from
// 4 chips the all-to-all needs a topology that reaches every pair.
TEST(GenAlltoall, SystemChecksPass) {
  const uint32_t sizes[] = {2, 3, 4, 5, 8, 11, 12, 16, 23, 32, 64};
  cmd::ChipMemory memory[kMaxChips] = {};
  for (const uint32_t n : sizes) {
    char preset[24];
    const size_t len = preset_of(n, preset);
    cmd::Topology topo;
    ASSERT_EQ(topo.parse(preset, len, n), Status::ok);
    const uint32_t own = n <= 16 ? 2 : 1, k = n < 4 ? 2 : kMaxK;
    make_choices(n * own, 4 * n, k, 7 * n);
    ASSERT_TRUE(plan(group(n, 0, own, 4 * n, k, 16, cmd::kCdmaFormatFp32)));
    for (const A2aDirection dir : {A2aDirection::combine, A2aDirection::dispatch}) {
      for (uint32_t r = 0; r < kA2aMaxRounds; ++r) {
        size_t off = 0, streams = 0;
        for (uint32_t rank = 0; rank < n; ++rank) {
          A2aPorts p;
          ASSERT_TRUE(emit_round(group(n, rank, own, 4 * n, k, 16, cmd::kCdmaFormatFp32), dir, r, off, streams, p));
        }
        const Span<const cmd::CdmaStream> all(g_streams, streams);
        const cmd::SystemValidation v = cmd::validate_system(topo, all, Span<const cmd::ChipMemory>(memory, n));
        EXPECT_EQ(v.report.status, Status::ok);
        const cmd::SystemValidation m = cmd::validate_messages(n, Span<const cmd::CoreStream>(), all);
        EXPECT_EQ(m.report.status, Status::ok);
      }
    }
  }
}

// ring:4 links chip 0 to 1 and 3 only: the combine of a token of chip 0 routed to chip 2 is
// refused by the system check (no route), as every transfer between non-neighbours is.
TEST(GenAlltoall, RingReachesOnlyNeighbours) {
  cmd::Topology topo;
  ASSERT_EQ(topo.parse("ring:4", 6, 4), Status::ok);
  cmd::ChipMemory memory[4] = {};
  const uint32_t choices[4] = {2, 6, 1, 5};  // tokens 0..3, k 1: holders 2, 2, 1, 1
  std::memcpy(g_choices, choices, sizeof choices);
  ASSERT_TRUE(plan(group(4, 0, 1, 8, 1, 4, cmd::kCdmaFormatFp32)));
  size_t off = 0, streams = 0;
  for (uint32_t rank = 0; rank < 4; ++rank) {
    A2aPorts p;
    ASSERT_TRUE(emit_round(group(4, rank, 1, 8, 1, 4, cmd::kCdmaFormatFp32), A2aDirection::combine, 0, off, streams, p));
  }
  const cmd::SystemValidation v = cmd::validate_system(topo, Span<const cmd::CdmaStream>(g_streams, streams),
                                                       Span<const cmd::ChipMemory>(memory, 4));
  EXPECT_EQ(v.report.status, Status::cmd_no_route);
  EXPECT_EQ(v.chip, 0u);
  EXPECT_EQ(v.peer, 2u);
}

// A small combine pinned command by command (chip 0 of 4) and byte for byte (every chip, both
// directions: the same constant on every target).
TEST(GenAlltoall, PinnedSmallCase) {
  // T 8, 2 rows a chip, E 8, k 2: token -> holders (e mod 4).
  const uint32_t choices[16] = {1, 2, 5, 6, 0, 4, 1, 3, 2, 7, 0, 1, 3, 7, 0, 6};
  std::memcpy(g_choices, choices, sizeof choices);
  size_t off = 0, streams = 0;
  A2aPorts p;
  const A2aGroup g = group(4, 0, 2, 8, 2, 4, cmd::kCdmaFormatFp32);
  ASSERT_TRUE(plan(g));
  EXPECT_EQ(g_plan.rounds, 1u);  // 3 peers a chip: one round
  ASSERT_TRUE(emit_round(g, A2aDirection::combine, 0, off, streams, p));
  // Chip 0 sends row 2 to chip 1, row 5 to 2, row 7 to 3; it adds rows 0..1 from chips 1 and 2
  // (one [2, H] recv each), chained: port 1 signals, port 2 waits.
  ASSERT_EQ(p.count, 3u);
  EXPECT_EQ(p.peer[0], 1u);
  EXPECT_EQ(p.peer[1], 2u);
  EXPECT_EQ(p.peer[2], 3u);
  EXPECT_EQ(p.bytes[0], 96u);
  EXPECT_EQ(p.bytes[1], 96u);
  EXPECT_EQ(p.bytes[2], 48u);
  EXPECT_EQ(p.commands[0], 4u);
  EXPECT_EQ(p.commands[1], 4u);
  EXPECT_EQ(p.commands[2], 2u);
  EXPECT_EQ(p.rows_sent, 3u);
  EXPECT_EQ(p.rows_received, 4u);
  const uint8_t* s1 = g_streams[0].bytes.data();
  const cmd::CdmaSendView send(s1);
  EXPECT_EQ(send.src_start_addr(), g.rows + 2 * 4 * 4);
  EXPECT_EQ(send.src_csize(), 1u);
  EXPECT_EQ(send.psum_op(), 1u);
  const cmd::CdmaRecvView recv(s1 + 32);
  EXPECT_EQ(recv.dst_start_addr(), g.rows);
  EXPECT_EQ(recv.dst_csize(), 2u);
  EXPECT_EQ(recv.reduce_op(), cmd::kCdmaReduceAdd);
  const cmd::CdmaSysView signal(s1 + 64);
  EXPECT_EQ(signal.cmd_special_function(), static_cast<uint32_t>(cmd::CdmaSysOp::rx_send));
  EXPECT_EQ(signal.msg_id(), kA2aChainMsg);
  EXPECT_EQ(signal.msg_cnt(), 1u);
  const cmd::CdmaSysView wait(g_streams[1].bytes.data() + 32);
  EXPECT_EQ(wait.cmd_special_function(), static_cast<uint32_t>(cmd::CdmaSysOp::rx_wait));
  EXPECT_EQ(wait.msg_id(), kA2aChainMsg);
  // Every chip's streams of both directions, hashed in order.
  uint64_t h = 0;
  for (const A2aDirection dir : {A2aDirection::combine, A2aDirection::dispatch}) {
    for (uint32_t rank = 0; rank < 4; ++rank) {
      off = 0;
      streams = 0;
      ASSERT_TRUE(emit_round(group(4, rank, 2, 8, 2, 4, cmd::kCdmaFormatFp32), dir, 0, off, streams, p));
      for (size_t i = 0; i < streams; ++i) {
        h = h * 31 + fnv1a64(g_streams[i].bytes.data(), g_streams[i].bytes.size());
      }
    }
  }
  EXPECT_EQ(h, 16014599933585850851ull);
}

// Refusals name what is wrong: a choice past the experts or chosen twice (its token and place),
// the group's fields, a format the combine cannot add in, buffers not matching the ports.
TEST(GenAlltoall, Refusals) {
  const uint32_t choices[8] = {0, 1, 2, 3, 4, 9, 5, 5};
  std::memcpy(g_choices, choices, sizeof choices);
  A2aGroup g = group(2, 0, 2, 8, 2, 4, cmd::kCdmaFormatFp32);
  A2aError err;
  EXPECT_EQ(a2a_plan(g, choices_of(g), g_plan, err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "choices: an expert id past the experts");
  EXPECT_EQ(err.token, 2u);
  EXPECT_EQ(err.choice, 1u);
  EXPECT_EQ(err.value, 9u);
  g_choices[5] = 6;
  A2aPorts p;
  EXPECT_EQ(size_a2a(g, A2aDirection::combine, choices_of(g), g_plan, 0, p, err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "choices: an expert chosen twice for one token");
  EXPECT_EQ(err.token, 3u);
  EXPECT_EQ(err.choice, 1u);
  EXPECT_EQ(err.value, 5u);
  g_choices[7] = 7;
  EXPECT_EQ(a2a_check(g, A2aDirection::combine, Span<const uint32_t>(g_choices, 7), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "choices: not tokens x top_k expert ids");
  A2aGroup bad = g;
  bad.chips = 65;
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "chips: 1 to 64");
  bad = g;
  bad.rank = 2;
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "rank: not below chips");
  bad = g;
  bad.own = 1;  // tokens 4 over 2 chips of 1 row: token 2's owner would be chip 2
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "own: a token's owner (token / own) past the group's chips");
  bad = g;
  bad.format = cmd::kCdmaFormatInt8;
  EXPECT_EQ(a2a_check(bad, A2aDirection::dispatch, choices_of(g), err), Status::ok);
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "format: the combine's recv cannot add in it (FP32, FP16, BF16 or INT32)");
  bad.format = cmd::kCdmaFormatFp20;
  EXPECT_EQ(a2a_check(bad, A2aDirection::dispatch, choices_of(g), err), Status::invalid_argument);
  bad = g;
  bad.chain_msg = 503;  // ids 503 .. 511
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::ok);
  bad.chain_msg = 504;
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "chain_msg: the chain's ids chain_msg .. chain_msg + 8 not below 512");
  bad = g;
  bad.rows = uint64_t{1} << 45;
  EXPECT_EQ(a2a_check(bad, A2aDirection::combine, choices_of(g), err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "rows: the buffer runs past 45 bits");
  // A plan refused stays refused; a plan of other choices or another group is refused.
  EXPECT_EQ(size_a2a(g, A2aDirection::combine, choices_of(g), g_plan, 0, p, err), Status::gen_plan_mismatch);
  EXPECT_STREQ(err.what, "plan: a2a_plan made it for another group or other choices");
  ASSERT_EQ(a2a_plan(g, choices_of(g), g_plan, err), Status::ok);
  EXPECT_EQ(size_a2a(g, A2aDirection::combine, choices_of(g), g_plan, kA2aMaxRounds, p, err), Status::invalid_argument);
  EXPECT_STREQ(err.what, "round");
  g_choices[0] = 4;  // holder 0 still: the same traffic, other choices
  EXPECT_EQ(size_a2a(g, A2aDirection::combine, choices_of(g), g_plan, 0, p, err), Status::gen_plan_mismatch);
  EXPECT_STREQ(err.what, "plan: a2a_plan made it for another group or other choices");
  g_choices[0] = 0;
  bad = g;
  bad.experts = 9;
  EXPECT_EQ(size_a2a(bad, A2aDirection::combine, choices_of(g), g_plan, 0, p, err), Status::gen_plan_mismatch);
  // Buffers: one too few, then one byte short.
  ASSERT_EQ(size_a2a(g, A2aDirection::combine, choices_of(g), g_plan, 0, p, err), Status::ok);
  ASSERT_EQ(p.count, 1u);
  A2aPorts w;
  EXPECT_EQ(emit_a2a(g, A2aDirection::combine, choices_of(g), g_plan, 0, Span<const ByteSpan>(), w, err),
            Status::gen_plan_mismatch);
  EXPECT_EQ(err.value, 1u);
  const ByteSpan short_buf(g_arena, p.bytes[0] - 1);
  EXPECT_EQ(emit_a2a(g, A2aDirection::combine, choices_of(g), g_plan, 0, Span<const ByteSpan>(&short_buf, 1), w, err),
            Status::buffer_too_small);
  EXPECT_EQ(err.value, 0u);
}

// Runs of consecutive rows merge into one command up to what the fields hold: n x hidden must fit
// the 32-bit nstride, so with hidden 2^30 a run of 4 rows is sent as 3 + 1.
TEST(GenAlltoall, LongRunsSplitAtTheFieldLimits) {
  const uint32_t choices[8] = {1, 1, 1, 1, 1, 1, 1, 1};  // every token to chip 1: rows 0..3 cross
  std::memcpy(g_choices, choices, sizeof choices);
  A2aGroup g = group(2, 1, 4, 2, 1, 1u << 30, cmd::kCdmaFormatFp32);
  ASSERT_TRUE(plan(g));
  size_t off = 0, streams = 0;
  A2aPorts p;
  ASSERT_TRUE(emit_round(g, A2aDirection::combine, 0, off, streams, p));
  ASSERT_EQ(p.count, 1u);
  EXPECT_EQ(p.commands[0], 3u);  // send [3, H], send [1, H], chain_end
  EXPECT_EQ(p.rows_sent, 4u);
  const cmd::CdmaSendView a(g_streams[0].bytes.data()), b(g_streams[0].bytes.data() + 32);
  EXPECT_EQ(a.src_csize(), 3u);
  EXPECT_EQ(a.src_nstride(), 3u << 30);
  EXPECT_EQ(b.src_csize(), 1u);
  EXPECT_EQ(b.src_start_addr(), g.rows + (uint64_t{3} << 32));
  // Hidden 4: the same rows in one command.
  g.hidden = 4;
  off = streams = 0;
  ASSERT_TRUE(emit_round(g, A2aDirection::combine, 0, off, streams, p));
  EXPECT_EQ(p.commands[0], 2u);
}
