// libFuzzer target for the .bmodel reader (tools/formats/bmodel.cpp): the input is a whole .bmodel
// file. parse_bmodel must either refuse it with a message or return streams that lie inside
// the input; every stream is then walked (TIU/GDMA/SDMA walker, HAU walker) and validated.
// ASan/UBSan catch any read outside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/bmodel.hpp"
#include "tilefw/cmd/hau.hpp"
#include "tilefw/cmd/validate.hpp"
#include "tilefw/cmd/walker.hpp"

using namespace tilefw;

namespace {
void require(bool c) {
  if (!c) std::abort();
}
bool inside(ConstByteSpan s, const uint8_t* data, size_t size) {
  return s.empty() || (s.data() >= data && s.data() + s.size() <= data + size);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tools::Bmodel m;
  std::string error;
  if (!tools::parse_bmodel(ConstByteSpan(data, size), m, error)) {
    require(!error.empty());
    return 0;
  }
  require(inside(m.coeff, data, size));
  for (const tools::BmodelUnit& u : tools::bmodel_units(m)) {
    require(inside(u.stream.bytes, data, size));
    require(u.stream.file_offset + u.stream.bytes.size() <= size);
    const std::string e = u.engine;
    if (e == "hau") {
      cmd::HauWalker w(u.stream.bytes);
      cmd::HauCommand c;
      while (w.next(c)) {
      }
      continue;
    }
    const cmd::Engine engine = e == "tiu" ? cmd::Engine::tiu : e == "gdma" ? cmd::Engine::gdma : cmd::Engine::sdma;
    const cmd::ValidationReport r = cmd::validate_stream(engine, u.stream.bytes);
    require(r.ok() || r.offset <= u.stream.bytes.size());
  }
  return 0;
}
