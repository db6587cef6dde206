// libFuzzer targets for the cmd layer. TILEFW_FUZZ_TARGET selects one:
//   walker:    byte 0 picks the engine, the rest is one stream; walks it and reads every field
//              of every decoded command through its layout table.
//   validator: byte 0 picks the engine and bytes 1..2 split the rest into a TIU and a GDMA
//              stream; runs validate_stream on one and validate_core on the pair, with and
//              without a memory map.
// Invariants checked (abort on violation): offsets advance by the class length and stay in
// the buffer, ids count from 1, an error report points inside (or at the end of) the buffer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;
using namespace tilefw::cmd;

namespace {
void require(bool c) {
  if (!c) std::abort();
}

Engine engine_of(uint8_t b) { return static_cast<Engine>(b % 3); }

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
