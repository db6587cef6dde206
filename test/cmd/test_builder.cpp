// Builders: bounds checks (nothing written on failure), sync/end helpers, and round trips:
// every command of the real buffers and random commands of every class re-encode identically.
#include <cstring>

#include "cmd/mm0_data.hpp"
#include "tftest.hpp"
#include "tilefw/cmd/builder.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
// Re-encodes every command of a stream from its decoded field values; returns the number of
// commands whose bytes came out identical, or -1 when something else failed.
int round_trip(Engine e, const uint8_t* p, size_t n, uint8_t* out) {
  CommandBuilder b(e, ByteSpan(out, n));
  Walker w(e, ConstByteSpan(p, n));
  Command c;
  int same = 0;
  uint64_t values[128];
  while (w.next(c)) {
    if (decode_fields(c.cls, c.bytes(), Span<uint64_t>(values, 128)) != Status::ok) return -1;
    const size_t before = b.size();
    if (b.append_fields(c.cls, Span<const uint64_t>(values, fields_of(c.cls).size())) != Status::ok) {
      return -1;
    }
    if (std::memcmp(out + before, c.data, c.length) == 0) ++same;
  }
  return w.status() == Status::ok ? same : -1;
}

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

bool is_header(const char* name, const char* what) { return std::strcmp(name, what) == 0; }
}  // namespace

TEST(CmdBuilder, RealBuffersRoundTrip) {
  static uint8_t out[1024];
  for (int core = 0; core < 8; ++core) {
    EXPECT_EQ(round_trip(Engine::tiu, mm0::kBd[core], mm0::kBdBytes, out), 17);
    EXPECT_EQ(round_trip(Engine::gdma, mm0::kGdma[core], mm0::kGdmaBytes, out), 20);
    EXPECT_EQ(round_trip(Engine::sdma, mm0::kSdma[core], mm0::kSdmaBytes, out), 13);
  }
}

TEST(CmdBuilder, RandomCommandsOfEveryClass) {
  Rng rng{0x2260'1690'0000'0001ull};
  int classes = 0;
  for (int k = 0; k < static_cast<int>(CmdClass::none); ++k) {
    const CmdClass cls = static_cast<CmdClass>(k);
    const bool tiu = is_tiu_class(cls);
    const bool cdma = is_cdma_class(cls);
    const Engine e = tiu ? Engine::tiu : cdma ? Engine::cdma : Engine::gdma;
    uint32_t eus[32];
    uint32_t n_eu = 0;
    for (uint32_t eu = 0; eu < (tiu ? 32u : 8u); ++eu) {
      const bool ok = tiu    ? tiu_eu_valid(cls, eu)
                      : cdma ? cdma_class(class_type(cls), eu) == cls
                             : dma_class(class_type(cls), eu) == cls;
      if (ok) eus[n_eu++] = eu;
    }
    ASSERT_GE(n_eu, 1u);
    ++classes;
    const Span<const FieldDesc> f = fields_of(cls);
    for (int round = 0; round < 50; ++round) {
      uint64_t v[128];
      for (size_t i = 0; i < f.size(); ++i) {
        const uint64_t mask = f[i].width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << f[i].width) - 1);
        v[i] = rng.next() & mask;
        if (is_header(f[i].name, "tsk_typ") || is_header(f[i].name, "cmd_type")) v[i] = class_type(cls);
        if (is_header(f[i].name, "tsk_eu_typ") || is_header(f[i].name, "cmd_special_function")) {
          v[i] = eus[rng.next() % n_eu];
        }
        if (tiu && cls != CmdClass::SYS && is_header(f[i].name, "cmd_short")) v[i] = is_tiu_short(cls) ? 1 : 0;
      }
      uint8_t buf[128], again[128];
      CommandBuilder b(e, ByteSpan(buf, sizeof buf));
      ASSERT_EQ(b.append_fields(cls, Span<const uint64_t>(v, f.size())), Status::ok);
      EXPECT_EQ(b.size(), size_t{class_length(cls)});
      Command c;
      ASSERT_EQ(decode_command(e, b.bytes(), 0, c), Status::ok);
      EXPECT_EQ(c.cls, cls);
      EXPECT_EQ(c.length, class_length(cls));
      uint64_t d[128];
      ASSERT_EQ(decode_fields(cls, c.bytes(), Span<uint64_t>(d, 128)), Status::ok);
      bool same = true;
      for (size_t i = 0; i < f.size(); ++i) same = same && d[i] == v[i];
      EXPECT_TRUE(same);
      CommandBuilder b2(e, ByteSpan(again, sizeof again));
      ASSERT_EQ(b2.append_fields(cls, Span<const uint64_t>(d, f.size())), Status::ok);
      EXPECT_EQ(std::memcmp(buf, again, class_length(cls)), 0);
    }
  }
  EXPECT_EQ(classes, static_cast<int>(CmdClass::none));
}

TEST(CmdBuilder, NothingWrittenOnFailure) {
  uint8_t buf[40];
  std::memset(buf, 0xAA, sizeof buf);
  CommandBuilder b(Engine::tiu, ByteSpan(buf, sizeof buf));
  ASSERT_EQ(b.send_msg(24, 24, 1), Status::ok);
  const Result<uint8_t*> r = b.append(CmdClass::sAR, 14);  // 64 B do not fit in 24
  EXPECT_EQ(r.status(), Status::buffer_too_small);
  EXPECT_EQ(b.size(), size_t{16});
  EXPECT_EQ(b.count(), 1u);
  bool untouched = true;
  for (size_t i = 16; i < sizeof buf; ++i) untouched = untouched && buf[i] == 0xAA;
  EXPECT_TRUE(untouched);
  // Wrong engine, undefined eu, oversized message fields.
  EXPECT_EQ(b.append(CmdClass::dma_tensor, 0).status(), Status::invalid_argument);
  EXPECT_EQ(b.append(CmdClass::sAR, 17).status(), Status::invalid_argument);
  EXPECT_EQ(b.wait_msg(512, 1), Status::invalid_argument);
  EXPECT_EQ(b.wait_msg(1, 128), Status::invalid_argument);
  EXPECT_EQ(b.size(), size_t{16});
  // A field value wider than its field.
  uint64_t v[16] = {};
  v[3] = 15;  // tsk_typ of SYS
  v[4] = 31;
  v[9] = 0;
  EXPECT_EQ(fields_of(CmdClass::SYS).size(), size_t{10});
  v[1] = uint64_t{1} << 23;  // cmd_id_dep is 23 bits
  EXPECT_EQ(b.append_fields(CmdClass::SYS, Span<const uint64_t>(v, 10)), Status::invalid_argument);
  EXPECT_EQ(b.size(), size_t{16});
  v[1] = 0;
  EXPECT_EQ(b.append_fields(CmdClass::SYS, Span<const uint64_t>(v, 10)), Status::ok);
  EXPECT_EQ(b.size(), size_t{32});
  EXPECT_EQ(b.end(), Status::buffer_too_small);
}

TEST(CmdBuilder, RebuildsTheFirstTiuCommands) {
  uint8_t buf[128] = {};
  CommandBuilder b(Engine::tiu, ByteSpan(buf, sizeof buf));
  ASSERT_EQ(b.send_msg(24, 24, 1), Status::ok);
  ASSERT_EQ(b.wait_msg(24, 24, 2), Status::ok);
  EXPECT_EQ(std::memcmp(buf, mm0::kBd[0], 32), 0);
  // The sMM2 of mm0 (offset 176), field by field through the typed Ref.
  const Result<SMm2Ref> r = b.append_as<SMm2Ref>(CmdClass::sMM2, 4);
  ASSERT_TRUE(r.ok());
  const SMm2Ref mm = r.value();
  mm.set_cmd_id_dep(CommandBuilder::dep_on(10));
  mm.set_opt_opd2_prec(1);
  mm.set_opt_opd1_prec(1);
  mm.set_opt_res0_prec(1);
  mm.set_opt_opd0_prec(1);
  mm.set_opt_opd2_const(1);
  mm.set_res0_c(4);
  mm.set_res0_w(34);
  mm.set_opd1_c(16);
  mm.set_opd1_w(34);
  mm.set_res0_addr(0xc0);
  mm.set_opd1_addr(0x40);
  EXPECT_EQ(std::memcmp(buf + 32, mm0::kBd[0] + 176, 32), 0);
  ASSERT_EQ(b.end(), Status::ok);
  EXPECT_EQ(std::memcmp(buf + 64, mm0::kBd[0] + 368, 16), 0);
  uint8_t g[32] = {};
  CommandBuilder d(Engine::gdma, ByteSpan(g, sizeof g));
  ASSERT_EQ(d.send_msg(24, 24), Status::ok);
  ASSERT_EQ(d.wait_msg(24, 24, 1), Status::ok);
  EXPECT_EQ(std::memcmp(g, mm0::kGdma[0], 32), 0);
  EXPECT_EQ(d.append_copy(ConstByteSpan(mm0::kGdma[0] + 32, 96)), Status::buffer_too_small);
  EXPECT_EQ(d.append_copy(ConstByteSpan(mm0::kGdma[0] + 32, 95)), Status::invalid_argument);
}
