// libFuzzer targets for the cmd layer. TILEFW_FUZZ_TARGET selects one:
//   walker:    byte 0 picks the engine (mod 4: TIU, GDMA, SDMA, CDMA), the rest is one stream;
//              walks it and reads every field of every decoded command through its layout
//              table.
//   validator: byte 0 picks the engine and bytes 1..2 split the rest into a TIU and a GDMA
//              stream; runs validate_stream on one and validate_core on the pair, with and
//              without a memory map. A CDMA stream is validated with and without both chips'
//              memory maps, with chip ids and cmodel-compatible mode taken from byte 1, and
//              its transfer counts must agree with count_cdma_transfers. The message check
//              runs over the pair as one core's TIU and GDMA streams beside the whole body as
//              a CDMA port: a refusal names a stream of the set, an offset inside it, and
//              fewer sends than the wait needs.
// Invariants checked (abort on violation): offsets advance by the class length and stay in
// the buffer, ids count from 1, an error report points inside (or at the end of) the buffer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tilefw/cmd/cdma.hpp"
#include "tilefw/cmd/cdma_system.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
void require(bool c) {
  if (!c) std::abort();
}

// 0 TIU, 1 GDMA, 2 SDMA (the seeds' first bytes), 3 CDMA.
Engine engine_of(uint8_t b) {
  const uint32_t k = b % 4;
  return k == 3 ? Engine::cdma : static_cast<Engine>(k);
}

[[maybe_unused]] void validate_cdma(ConstByteSpan s, uint8_t knobs) {
  static const DdrRegion own[1] = {{1, 0x10000000000ull, 4096}};
  static const DdrRegion peer[1] = {{2, 0x20000000000ull, 12288}};
  ValidateOptions o;
  o.cdma.chip = knobs & 15;
  o.cdma.peer = (knobs >> 4) & 7;
  o.cdma.cmodel_compat = (knobs & 0x80) != 0;
  const ValidationReport plain = validate_stream(Engine::cdma, s, o);
  require(plain.ok() || plain.offset <= s.size());
  o.use_memory_map = true;
  o.ddr_regions = Span<const DdrRegion>(own, 1);
  o.cdma.peer_use_memory_map = true;
  o.cdma.peer_ddr_regions = Span<const DdrRegion>(peer, 1);
  const ValidationReport mapped = validate_stream(Engine::cdma, s, o);
  require(mapped.ok() || mapped.offset <= s.size());
  // A stream valid with the maps is valid without them (the maps only narrow DDR).
  require(!mapped.ok() || plain.ok());
  if (plain.ok()) {
    const CdmaTransferCounts n = count_cdma_transfers(s);
    require(n.sends == plain.cdma_sends && n.recvs == plain.cdma_recvs);
    require(plain.cdma_sends + plain.cdma_recvs <= plain.commands);
  }
}

[[maybe_unused]] void check_messages(ConstByteSpan tiu, ConstByteSpan gdma, ConstByteSpan port) {
  const CoreStream cores[2] = {{0, 0, Engine::tiu, tiu}, {0, 0, Engine::gdma, gdma}};
  const CdmaStream cdma[1] = {{0, 1, port}};
  const SystemValidation v = validate_messages(2, Span<const CoreStream>(cores, 2), Span<const CdmaStream>(cdma, 1));
  if (v.ok()) return;
  require(v.report.status == Status::cmd_unsatisfiable_message && v.msg_sends < v.msg_needed);
  if (v.core_stream != SystemValidation::kNoStream) {
    require(v.core_stream < 2 && v.report.offset < cores[v.core_stream].bytes.size());
  } else {
    require(v.stream == 0 && v.report.offset < port.size());
  }
}

[[maybe_unused]] void walk(Engine e, ConstByteSpan s) {
  Walker w(e, s);
  Command c;
  size_t expect = 0;
  uint32_t id = 0;
  while (w.next(c)) {
    require(c.offset == expect && c.id == ++id);
    require(c.length == class_length(c.cls) && c.offset + c.length <= s.size());
    uint64_t sink = 0;
    for (const FieldDesc& f : fields_of(c.cls)) sink ^= read_field(c.data, f);
    (void)sink;
    expect += c.length;
  }
  if (w.status() != Status::ok) require(w.error_offset() <= s.size());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
#if TILEFW_FUZZ_TARGET_WALKER
  walk(engine_of(data[0]), ConstByteSpan(data + 1, size - 1));
#else
  const Engine e = engine_of(data[0]);
  const size_t body = size - 3;
  const size_t cut = body == 0 ? 0 : ((size_t{data[1]} << 8 | data[2]) % (body + 1));
  const ConstByteSpan a(data + 3, cut), b(data + 3 + cut, body - cut);
  check_messages(a, b, ConstByteSpan(data + 3, body));
  if (e == Engine::cdma) {
    validate_cdma(ConstByteSpan(data + 3, body), data[1]);
    return 0;
  }
  const ValidationReport r = validate_stream(e, ConstByteSpan(data + 3, body));
  require(r.ok() || r.offset <= body);
  static const DdrRegion map[2] = {{1, 0x10000000000ull, 4096}, {2, 0x20000000000ull, 12288}};
  ValidateOptions o;
  o.use_memory_map = true;
  o.ddr_regions = Span<const DdrRegion>(map, 2);
  const ValidationReport c1 = validate_core({a, b, {}}, o);
  const ValidationReport c2 = validate_core({a, b, {}});
  (void)c1;
  (void)c2;
#endif
  return 0;
}
