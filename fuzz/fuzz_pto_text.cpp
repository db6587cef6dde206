// libFuzzer target for the `.pto` parser and printer (tools/pto_text): any bytes either parse or
// raise TextError (never a crash, a hang or another exception); a parsed program prints to text
// that parses to the same program and prints to the same text again, and so do its rewrites
// into each form (abort otherwise).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pto_text/pto_ir.hpp"

namespace pt = tilefw::tools::pto_text;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pt::Module m;
  try {
    m = pt::parse(text);
  } catch (const pt::TextError&) {
    return 0;
  }
  const std::string canonical = pt::print(m);
  try {
    const pt::Module again = pt::parse(canonical);
    if (!(again == m) || pt::print(again) != canonical) std::abort();
    // Every form rewrite prints text the parser reads back.
    for (pt::Form f : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
      const std::string t = pt::print(pt::with_form(m, f));
      if (pt::print(pt::parse(t)) != t) std::abort();
    }
  } catch (const pt::TextError&) {
    std::abort();  // the printer wrote text its own parser refuses
  }
  return 0;
}
