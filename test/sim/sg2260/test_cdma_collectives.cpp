// Collectives over the multi-chip simulator, built from the cmd layer's CDMA builders: ring
// all-reduce (reduce-scatter then all-gather), direct all-reduce on a mesh, ring all-gather,
// ring reduce-scatter and direct all-to-all, on 2, 4 and 8 chips over ring, the SG2260 8-chip
// graph (ring 0, 2, 6, 7, 3, 1, 5, 4) and mesh. Results equal a reference computed here from
// the inputs: FP32 adds in the order the ring implies (exact), INT32 exact.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "cdma_fixture.hpp"

using namespace cdmatest;
using cmd::CdmaSysOp;

namespace {

constexpr uint32_t kChunk = 48;  // elements per chunk
constexpr uint64_t kData = 0x1000;

std::vector<uint32_t> ring_order(uint32_t n, const std::string& topology) {
  if (topology == "sg2260-8") return {0, 2, 6, 7, 3, 1, 5, 4};
  std::vector<uint32_t> r(n);
  for (uint32_t i = 0; i < n; ++i) r[i] = i;
  return r;
}

uint32_t mod(int64_t a, uint32_t n) { return static_cast<uint32_t>(((a % n) + n) % n); }

// Inputs: chip k's buffer of n chunks, FP32 values with fractions (so the sum order matters).
std::vector<std::vector<float>> fill_inputs(Cluster& c, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<std::vector<float>> in(n, std::vector<float>(n * kChunk));
  for (uint32_t k = 0; k < n; ++k) {
    for (float& v : in[k]) v = d(rng);
    std::memcpy(c.ddr(k, kData), in[k].data(), in[k].size() * 4);
  }
  return in;
}

std::vector<float> read_back(Cluster& c, uint32_t chip, uint32_t n) {
  std::vector<float> out(n * kChunk);
  std::memcpy(out.data(), c.ddr(chip, kData), out.size() * 4);
  return out;
}

// Ring steps (position i, ring R): reduce-scatter step s sends chunk i - s to the next chip and
// receives chunk i - s - 1 from the previous one, added into the local chunk; all-gather step
// s sends chunk i + 1 - s and receives chunk i - s. A send after the first waits for the
// previous step's recv (rx_send_msg -> tx_wait_msg, one message id per step).
void ring_schedule(Cluster& c, const std::vector<uint32_t>& r, bool rs, bool ag) {
  const uint32_t n = static_cast<uint32_t>(r.size());
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t me = r[i];
    const uint32_t next = r[(i + 1) % n];
    const uint32_t prev = r[(i + n - 1) % n];
    uint32_t step = 0;
    for (uint32_t phase = 0; phase < 2; ++phase) {
      if ((phase == 0 && !rs) || (phase == 1 && !ag)) continue;
      for (uint32_t s = 0; s + 1 < n; ++s, ++step) {
        const uint32_t out_chunk = phase == 0 ? mod(int64_t{i} - s, n) : mod(int64_t{i} + 1 - s, n);
        const uint32_t in_chunk = phase == 0 ? mod(int64_t{i} - s - 1, n) : mod(int64_t{i} - s, n);
        if (step > 0) c.msg(me, next, CdmaSysOp::tx_wait, 100 + step - 1);
        c.send(me, next, kData + out_chunk * kChunk * 4, kChunk, phase == 0);
        c.recv(me, prev, kData + in_chunk * kChunk * 4, kChunk, phase == 0 ? cmd::kCdmaReduceAdd : cmd::kCdmaReduceNone);
        c.msg(me, prev, CdmaSysOp::rx_send, 100 + step);
      }
    }
  }
}

// The reduced chunk ch: acc = x[pos ch], then acc = x[pos ch + j] + acc for j = 1 .. n - 1.
float ring_sum(const std::vector<std::vector<float>>& in, const std::vector<uint32_t>& r, uint32_t ch, uint32_t e) {
  const uint32_t n = static_cast<uint32_t>(r.size());
  float acc = in[r[ch]][ch * kChunk + e];
  for (uint32_t j = 1; j < n; ++j) {
    const uint32_t pos = (ch + j) % n;
    acc = in[r[pos]][ch * kChunk + e] + acc;
  }
  return acc;
}

struct Case {
  uint32_t chips;
  const char* topology;
};

void run_ring(const Case& k, bool rs, bool ag) {
  Cluster c(k.chips, k.topology);
  ASSERT_EQ(c.sys().status(), Status::ok) << c.sys().message();
  const auto r = ring_order(k.chips, k.topology);
  const auto in = fill_inputs(c, k.chips, 7 + k.chips);
  ring_schedule(c, r, rs, ag);
  ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
  EXPECT_EQ(c.sys().cross_hazard_count(), 0u);
  const uint32_t n = k.chips;
  for (uint32_t i = 0; i < n; ++i) {
    const auto out = read_back(c, r[i], n);
    for (uint32_t ch = 0; ch < n; ++ch) {
      // after reduce-scatter alone, position i owns chunk i + 1; after all-gather everyone has all
      const bool reduced = ag || ch == (i + 1) % n;
      for (uint32_t e = 0; e < kChunk; ++e) {
        float want;
        if (!rs) {  // all-gather of chunk p from position p
          want = in[r[ch]][ch * kChunk + e];
        } else {
          want = reduced ? ring_sum(in, r, ch, e) : out[ch * kChunk + e];
        }
        ASSERT_EQ(std::memcmp(&out[ch * kChunk + e], &want, 4), 0)
            << k.topology << " chip " << r[i] << " chunk " << ch << " element " << e << ": " << out[ch * kChunk + e]
            << " != " << want;
      }
    }
  }
  EXPECT_EQ(c.sys().blocked_report(), "");
}

const Case kRings[] = {{2, "ring:2"}, {4, "ring:4"}, {8, "ring:8"}, {8, "sg2260-8"}};

}  // namespace

TEST(CdmaCollectives, RingAllReduce) {
  for (const Case& k : kRings) run_ring(k, true, true);
}

TEST(CdmaCollectives, RingReduceScatter) {
  for (const Case& k : kRings) run_ring(k, true, false);
}

TEST(CdmaCollectives, RingAllGather) {
  for (const Case& k : kRings) {
    // All-gather alone: position p starts with its own chunk p (the rest are overwritten).
    Cluster c(k.chips, k.topology);
    const auto r = ring_order(k.chips, k.topology);
    const auto in = fill_inputs(c, k.chips, 3);
    // the all-gather steps of ring_schedule start from chunk i + 1: shift so position i owns chunk i
    const uint32_t n = k.chips;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t me = r[i];
      for (uint32_t s = 0; s + 1 < n; ++s) {
        if (s > 0) c.msg(me, r[(i + 1) % n], CdmaSysOp::tx_wait, 100 + s - 1);
        c.send(me, r[(i + 1) % n], kData + mod(int64_t{i} - s, n) * kChunk * 4, kChunk, false);
        c.recv(me, r[(i + n - 1) % n], kData + mod(int64_t{i} - s - 1, n) * kChunk * 4, kChunk, 0);
        c.msg(me, r[(i + n - 1) % n], CdmaSysOp::rx_send, 100 + s);
      }
    }
    ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
    EXPECT_EQ(c.sys().cross_hazard_count(), 0u);
    for (uint32_t i = 0; i < n; ++i) {
      const auto out = read_back(c, r[i], n);
      for (uint32_t ch = 0; ch < n; ++ch) {
        EXPECT_EQ(std::memcmp(&out[ch * kChunk], &in[r[ch]][ch * kChunk], kChunk * 4), 0)
            << k.topology << " chip " << r[i] << " chunk " << ch;
      }
    }
  }
}

// Direct all-reduce on a full mesh: chip i sends chunk j to chip j, which adds every peer's
// contribution (INT32: exact in any order); then chip j sends the reduced chunk j to every peer
// once all its recvs are in (each port's RX signals message 200, each TX waits for n - 1).
TEST(CdmaCollectives, DirectAllReduceMesh) {
  for (uint32_t n : {2u, 4u, 8u}) {
    Cluster c(n, "mesh:" + std::to_string(n));
    std::vector<std::vector<int32_t>> in(n, std::vector<int32_t>(n * kChunk));
    std::mt19937 rng(n);
    for (uint32_t k = 0; k < n; ++k) {
      for (int32_t& v : in[k]) v = static_cast<int32_t>(rng());  // sums wrap
      std::memcpy(c.ddr(k, kData), in[k].data(), in[k].size() * 4);
    }
    const uint32_t f = cmd::kCdmaFormatInt32;
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        if (i == j) continue;
        c.send(i, j, kData + j * kChunk * 4, kChunk, true, f);
        c.recv(i, j, kData + i * kChunk * 4, kChunk, cmd::kCdmaReduceAdd, f);
        c.msg(i, j, CdmaSysOp::rx_send, 200);
        c.msg(i, j, CdmaSysOp::tx_wait, 200, n - 1);
        c.send(i, j, kData + i * kChunk * 4, kChunk, false, f);
        c.recv(i, j, kData + j * kChunk * 4, kChunk, 0, f);
      }
    }
    ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
    EXPECT_EQ(c.sys().cross_hazard_count(), 0u);
    for (uint32_t k = 0; k < n; ++k) {
      std::vector<int32_t> out(n * kChunk);
      std::memcpy(out.data(), c.ddr(k, kData), out.size() * 4);
      for (uint32_t e = 0; e < n * kChunk; ++e) {
        uint32_t want = 0;
        for (uint32_t src = 0; src < n; ++src) want += static_cast<uint32_t>(in[src][e]);
        ASSERT_EQ(static_cast<uint32_t>(out[e]), want) << "mesh:" << n << " chip " << k << " element " << e;
      }
    }
  }
}

// All-to-all on a mesh: chip i's block j goes to chip j's slot i (a second buffer).
TEST(CdmaCollectives, AllToAllMesh) {
  for (uint32_t n : {2u, 4u, 8u}) {
    Cluster c(n, "mesh:" + std::to_string(n));
    const auto in = fill_inputs(c, n, 11);
    const uint64_t out_base = kData + 0x40000;
    for (uint32_t i = 0; i < n; ++i) {
      std::memcpy(c.ddr(i, out_base + i * kChunk * 4), &in[i][i * kChunk], kChunk * 4);  // own block stays
      for (uint32_t j = 0; j < n; ++j) {
        if (i == j) continue;
        c.send(i, j, kData + j * kChunk * 4, kChunk, false);
        c.recv(i, j, out_base + j * kChunk * 4, kChunk, 0);
      }
    }
    ASSERT_EQ(c.run(), Status::ok) << c.sys().blocked_report();
    EXPECT_EQ(c.sys().cross_hazard_count(), 0u);
    for (uint32_t j = 0; j < n; ++j) {
      for (uint32_t i = 0; i < n; ++i) {
        EXPECT_EQ(std::memcmp(c.ddr(j, out_base + i * kChunk * 4), &in[i][j * kChunk], kChunk * 4), 0)
            << "mesh:" << n << " chip " << j << " slot " << i;
      }
    }
  }
}
